"""A broadcast (RULES 12, Vugraph) over HTTP: the snapshot every spectator shares, as the
broadcast page and the spectators' socket send it (docs/PLAY_PROTOCOL.md, "Broadcasts").
Anyone may read it, anonymous too, except a player of the event while it runs (403)."""

from __future__ import annotations

from django.http import JsonResponse
from django.utils import timezone
from django.utils.translation import gettext as _
from ninja import Field, Router, Schema
from ninja.security import django_auth

from .. import visibility
from ..errors import NotAllowed, NotFound
from ..selectors import broadcasts
from ..services import table_play
from .auth import token_auth
from .play import anonymous
from .schemas import ErrorOut

router = Router(tags=["broadcasts"])


class BroadcastRoomOut(Schema):
    key: str = Field(description='"open", "closed", or "table" (a broadcast of one table).')
    table: int = Field(description="The room's table number in its round.")
    table_id: int
    players: dict[str, str] = Field(description="Seat -> the player's name.")


class BroadcastBoardOut(Schema):
    number: int
    released: bool = Field(
        description="Shown: every table playing the board has finished it, plus the delay "
        "(or the round has closed)."
    )
    dealer: str
    vulnerability: str
    rooms: dict[str, dict] = Field(
        description="Room key -> a released board's full view (hands as dealt, `auction` "
        "with alerts, `play` in order, `contract`, `declarer`, `result` by the cards, "
        "`stored_result` as scored, a ruling included), or before its release only "
        "`progress` ({phase: auction | play | over, tricks_played, turn}) and no card."
    )
    imps: int | None = Field(
        description="The home team's IMPs on the board (negative: the away team's); null "
        "until released, for a one-table broadcast, or while a room has no score."
    )


class BroadcastOut(Schema):
    id: int
    tournament: dict = Field(description="{id, name}")
    round: int
    round_status: str
    delay_minutes: int
    teams: dict | None = Field(description="{home, away, carry_over}; null for a table.")
    rooms: list[BroadcastRoomOut]
    boards: list[BroadcastBoardOut]
    score: dict | None = Field(
        description="{home, away, carry_over}: the IMPs over released boards only, the "
        "carry-over included; null for a table."
    )
    comments: list[dict] = Field(description="The commentary, oldest first: {id, at, text, by}.")
    next_release_at: str | None = Field(description="When the next board will be shown.")
    event_over: bool
    at: str = Field(description="When this snapshot was read.")


@router.get(
    "/broadcasts/{broadcast_id}",
    auth=[token_auth, django_auth, anonymous],
    response={200: BroadcastOut, 403: ErrorOut, 404: ErrorOut},
    summary="A broadcast as every spectator sees it now",
    description="Both rooms of a match (or one table): each released board's hands, "
    "auction, play and result, the others' progress only, the match's score over the "
    "released boards, and the commentary. A player of the event is refused (403) while it "
    "runs. The spectators' socket `ws/broadcasts/{id}/` sends the same snapshot, then "
    "what changes.",
)
def broadcast(request, broadcast_id: int):
    item = broadcasts.broadcast(broadcast_id)
    if item is None:
        raise NotFound(_("No such broadcast."))
    plays = table_play.plays_in_tournament(tournament_id=item.tournament_id, user=request.auth)
    if not visibility.may_watch_broadcast(
        plays_in_event=plays, event_over=broadcasts.event_over(item)
    ):
        raise NotAllowed(
            _("You play in this event: its broadcast is not shown to its players while it runs.")
        )
    # The selector's dict as it is (the page and the socket send the same).
    return JsonResponse(broadcasts.snapshot(item=item, now=timezone.now()))
