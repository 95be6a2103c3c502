"""Play at the system's tables over HTTP (RULES 9; docs/PLAY_PROTOCOL.md, "HTTP").

For programs (robots, club systems, tests): the same actions the WebSocket carries.
Each endpoint finds the table and calls the table-play services (`services.table_play`,
`services.seats`); the view is built there,
per caller, so an answer never holds a hand the caller may not see.
"""

from __future__ import annotations

from typing import Literal

from django.contrib.auth.models import AnonymousUser
from django.http import JsonResponse
from ninja import Field, Router, Schema
from ninja.security import django_auth

from ..selectors import table_seats
from ..services import seats, table_play
from . import lookups
from .auth import token_auth
from .errors import write
from .schemas import ErrorOut, Text

router = Router(tags=["online play"])

ERRORS = {400: ErrorOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut, 422: ErrorOut}


def anonymous(request):
    """No token and no session: the public, who see a board only once its round closed."""
    return AnonymousUser()


Seat = Literal["N", "E", "S", "W"]


class CallOut(Schema):
    seat: Seat
    call: str = Field(description='"P", "X", "XX" or a bid "1C" … "7NT".')
    alert: str | None = Field(
        None, description="The caller's explanation; only to the opponents (absent otherwise)."
    )


class PlayedCardOut(Schema):
    seat: Seat = Field(description="Whose hand the card came from (dummy's seat for dummy).")
    card: str = Field(description='Suit letter then rank: "SA", "HT", "D2".')


class BoardResultOut(Schema):
    contract: str = Field(description='e.g. "4SX"; "PASS" when passed out.')
    declarer: Seat | None
    tricks: int | None = Field(description="Tricks taken by declarer.")
    ns_score: int


class ClaimOut(Schema):
    seat: Seat
    tricks: int = Field(description="Of the remaining tricks, for the claimer's side.")
    won: int = Field(description="Tricks the claimer's side has already won.")
    total: int = Field(description="The claimer's side's tricks in all if it is accepted.")
    statement: str = Field(description="The claimer's line of play, empty if none.")
    awaiting: list[Seat] = Field(description="Opponents who have still to accept.")
    contract: str
    declarer: Seat
    outcome: dict[str, bool | int] = Field(
        description='If accepted: {"made": true, "overtricks": n} or {"made": false, '
        '"undertricks": n}.'
    )


class BoardViewOut(Schema):
    seat: Seat | None = Field(description="The caller's seat at this table, or null.")
    dealer: Seat
    vulnerability: Literal["None", "NS", "EW", "Both"]
    hands: dict[Seat, list[str]] = Field(
        description="Only the hands the caller may see now: cards still held (as dealt "
        "once the board is over)."
    )
    auction: list[CallOut] = Field(description="Calls from the dealer on.")
    play: list[PlayedCardOut] = Field(description="Cards in the order played.")
    contract: str | None = Field(
        description='The final contract ("4SX") once the auction is over, else null.'
    )
    declarer: Seat | None = Field(description="Declarer once the auction is over, else null.")
    next_seq: int = Field(description="The `seq` the next action must carry.")
    turn: Seat | None = Field(
        description="The seat to call, or the hand to play (dummy's seat when dummy plays: "
        "declarer acts)."
    )
    legal: list[str] = Field(description="The calls or cards the caller may make now.")
    over: bool
    result: BoardResultOut | None
    claim: ClaimOut | None = Field(
        description="A claim waiting for the opponents' answers (the claimer's hand is "
        "then in `hands` for all four seats)."
    )
    paused: bool = Field(description="The tournament is paused: `legal` is empty.")
    kibitzer: bool = Field(description="Seen by a kibitzer.")


class ActionIn(Schema):
    seq: int = Field(description="The view's `next_seq`; a stale one is refused (409).")
    type: Literal["call", "card", "claim", "accept", "reject"]
    call: Text | None = Field(None, description='For a call: "1C" … "7N", "P", "X", "XX".')
    alert: Text | None = Field(None, description="For a call: an alert, shown to opponents.")
    card: Text | None = Field(None, description='For a card: "SA", "HT", "D2".')
    tricks: int | None = Field(None, description="For a claim: tricks of those remaining.")
    statement: Text | None = Field(
        None, description="For a claim: the line of play, at most 500 characters."
    )


class SeatsOut(Schema):
    seats: dict[Seat, str] = Field(description="Seat -> username.")


def _view(view: dict) -> JsonResponse:
    # The service's dict as it is (the WebSocket sends the same): an alert the caller
    # may not see is absent, not null.
    return JsonResponse(view)


def _table(tournament_id: int, number: int, table: int):
    return lookups.get_table(tournament_id, number, table)


BOARD = "/tournaments/{tournament_id}/rounds/{number}/tables/{table}/boards/{board}"


@router.get(
    BOARD + "/view",
    auth=[token_auth, django_auth, anonymous],
    response={200: BoardViewOut, **ERRORS},
    summary="A board at a table as the caller may see it",
    description="A seated player sees their own seat's view, an organiser every hand; "
    "anyone else is refused (403) until the round has closed, then sees everything.",
)
def board_view(request, tournament_id: int, number: int, table: int, board: int):
    found = _table(tournament_id, number, table)
    return _view(table_play.board_view(table=found, board_number=board, user=request.auth))


@router.post(
    BOARD + "/actions",
    **write(200, BoardViewOut, auth=[token_auth, django_auth]),
    summary="Call, play a card, claim, or accept / reject a claim",
    description="Answers the caller's new view. An illegal, out-of-turn, stale-`seq` or "
    'after-the-bell action is a 409 `{"error": message}` and changes nothing; a resend '
    "of an action already stored (same `seq`, same content) answers the current view.",
)
def act(request, tournament_id: int, number: int, table: int, board: int, payload: ActionIn):
    found = _table(tournament_id, number, table)
    action = payload.model_dump(exclude_none=True)
    return _view(table_play.act(table=found, board_number=board, user=request.auth, action=action))


@router.post(
    "/tournaments/{tournament_id}/rounds/{number}/tables/{table}/swap",
    **write(200, SeatsOut, auth=[token_auth, django_auth]),
    summary="Swap the caller's pair's two seats (before the table's first call)",
)
def swap(request, tournament_id: int, number: int, table: int):
    found = _table(tournament_id, number, table)
    taken = seats.swap_seats(table=found, user=request.auth)
    names = table_seats.usernames(taken)
    return {"seats": {seat: names[user_id] for seat, user_id in taken.items()}}
