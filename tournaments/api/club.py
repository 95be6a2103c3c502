"""The club (RULES 13) in the API: the lobby and its actions, a player's boards with their
deals' fields, a deal's field, the week's standings per system.

So robots and club programs can play: a program opens a table (or sits, or waits) here,
reads `my_table.play` from the lobby for its table's address and the board in play, and
plays through the online-play endpoints or the WebSocket (docs/PLAY_PROTOCOL.md, "The
club"). Every refusal is the service's message with its 4xx status; nothing changed.
"""

from __future__ import annotations

from datetime import datetime

from django.utils import timezone
from django.utils.translation import gettext as _
from ninja import Field, Path, Query, Router, Schema
from ninja.security import django_auth

from ..errors import NotFound
from ..models import ClubSystem, ResultState
from ..selectors import club as reads
from ..services import club
from ..sql import BIGINT
from .auth import token_auth
from .errors import write
from .play import anonymous
from .schemas import ErrorOut, Text

router = Router(tags=["club"])

PLAYER = [token_auth, django_auth]
READ_ERRORS = {400: ErrorOut, 401: ErrorOut, 403: ErrorOut, 404: ErrorOut, 422: ErrorOut}
# A row id as the database holds it: a larger number is a 404, never a database error.
ID = {"ge": 1, "le": BIGINT[1]}
SYSTEMS = ", ".join(f'"{v}"' for v in ClubSystem.values)


class ClubSeatOut(Schema):
    seat: str = Field(description='"N", "E", "S" or "W".')
    user_id: int | None = Field(description="Null: the seat is empty.")
    name: str
    robot: bool
    you: bool


class ClubPlayOut(Schema):
    tournament_id: int
    round: int = Field(description="The table's sitting: a round of the week's event.")
    table: int
    board: int | None = Field(description="The board in play (null between boards).")
    view: str | None = Field(description="The board's view endpoint, for the seat's player.")
    table_id: int = Field(description="The play server's table id (its WebSocket's).")
    socket: str | None = Field(description="The board in play's WebSocket path.")


class ClubTableOut(Schema):
    id: int
    host: str = Field(
        description="The person it is named after: its opener while they sit there, else the"
        " first person seated (empty with robots alone)."
    )
    system: str
    status: str = Field(description='"forming", "playing" or "closed".')
    seats: list[ClubSeatOut]
    play: ClubPlayOut | None = Field(description="Where the table plays, once it has started.")


class ClubSystemOut(Schema):
    system: str
    label: str
    members_only: bool
    may_play: bool = Field(description="The caller may sit at this system's tables.")
    tables: list[ClubTableOut]
    waiting: list[str] = Field(description="The names of the players waiting for a table.")


class LobbyOut(Schema):
    week_starts_at: datetime | None
    week_ends_at: datetime | None
    member: bool
    systems: list[ClubSystemOut]
    my_table: ClubTableOut | None
    waiting_for: str | None = Field(description="The system the caller waits for, or null.")


class ClubWaitOut(Schema):
    seated: bool = Field(description="Seated at once at a forming table (else waiting).")
    table: ClubTableOut | None


class OpenIn(Schema):
    system: Text = Field(description=f"One of {SYSTEMS}.", max_length=32)
    seat: Text = Field("S", description='"N", "E", "S" or "W".', max_length=2)


class SitIn(Schema):
    seat: Text = Field(description='"N", "E", "S" or "W".', max_length=2)


class WaitIn(Schema):
    system: Text = Field(description=f"One of {SYSTEMS}.", max_length=32)


class FieldResultOut(Schema):
    contract: str
    declarer: str
    tricks: int | None
    ns_score: int | None
    ns_points: float = Field(description="N-S's IMPs (MP: N-S's percentage).")
    scored: bool = Field(description="False: duplicate, waiting for the deal's sixth result.")
    players: dict[str, str] = Field(description="Seat -> name.")
    robots: list[str] = Field(description="The seats robots played.")
    yours: bool


class MyBoardOut(Schema):
    deal_id: int
    deal: int = Field(description="The deal's number in the week's library of its system.")
    system: str
    week_starts_at: datetime
    week_closed: bool
    seat: str
    contract: str
    declarer: str
    tricks: int | None
    ns_score: int | None
    points: float = Field(description="Your IMPs (full field in MP: your percentage).")
    scored: bool
    field: list[FieldResultOut] | None = Field(
        description="Every result of the deal (null where the rule hides it)."
    )


class MyBoardsOut(Schema):
    total: int
    boards: list[MyBoardOut]


class ClubDealOut(Schema):
    deal_id: int
    deal: int
    system: str
    field: list[FieldResultOut]


class ClubStandingOut(Schema):
    rank: int
    user_id: int
    name: str
    points: float = Field(description="The week's points with the disconnection penalties.")
    boards: int
    pending: int = Field(description="Duplicate: boards waiting for the deal's sixth result.")
    penalties: int
    average: float | None = Field(description="MP: the mean percentage; else points a board.")


class ClubStandingsOut(Schema):
    week_starts_at: datetime | None
    system: str
    lines: list[ClubStandingOut]


def _table(table: reads.LobbyTable | None, system: str) -> dict | None:
    if table is None:
        return None
    play = None
    if table.play_path is not None:
        tournament_id, round_number, number = table.play_path
        view = None
        if table.board is not None:
            view = (
                f"/api/v1/tournaments/{tournament_id}/rounds/{round_number}/tables/{number}"
                f"/boards/{table.board}/view"
            )
        play = {
            "tournament_id": tournament_id,
            "round": round_number,
            "table": number,
            "board": table.board,
            "view": view,
            "table_id": table.play_table_id,
            "socket": (
                f"/ws/tables/{table.play_table_id}/boards/{table.board}/"
                if table.board is not None
                else None
            ),
        }
    return {
        "id": table.id,
        "host": table.host,
        "system": system,
        "status": table.status,
        "seats": [
            {"seat": s.seat, "user_id": s.user_id, "name": s.name, "robot": s.robot, "you": s.mine}
            for s in table.seats
        ],
        "play": play,
    }


def _lobby(request) -> dict:
    found = reads.lobby(user=request.auth, now=timezone.now())
    return {
        "week_starts_at": found.week.starts_at if found.week else None,
        "week_ends_at": found.week.ends_at if found.week else None,
        "member": found.member,
        "systems": [
            {
                "system": s.system,
                "label": s.label,
                "members_only": s.members_only,
                "may_play": s.may_play,
                "tables": [_table(t, s.system) for t in s.tables],
                "waiting": s.waiting,
            }
            for s in found.systems
        ],
        "my_table": _table(found.my_table, found.my_system or ""),
        "waiting_for": found.waiting_for,
    }


def _mine(request) -> dict | None:
    found = reads.lobby(user=request.auth, now=timezone.now())
    return _table(found.my_table, found.my_system or "")


def _contract(result) -> str:
    return result.contract or ("PASS" if result.state == ResultState.PASSED_OUT else "")


def _field(results: list[reads.FieldResult]) -> list[dict]:
    return [
        {
            "contract": _contract(r.result),
            "declarer": r.result.declarer,
            "tricks": r.result.tricks,
            "ns_score": r.ns_score,
            "ns_points": r.ns_points,
            "scored": r.scored,
            "players": r.names,
            "robots": sorted(r.robots),
            "yours": r.mine,
        }
        for r in results
    ]


@router.get(
    "/club/lobby",
    auth=[token_auth, django_auth, anonymous],
    response={200: LobbyOut, **READ_ERRORS},
    summary="The club's lobby: this week's open tables per system, who waits, your table",
    description="`my_table.play` names your table's address on the play server and the "
    "board in play once the table has started (docs/PLAY_PROTOCOL.md, \u201cThe club\u201d).",
)
def lobby(request):
    return _lobby(request)


@router.post(
    "/club/tables",
    **write(200, ClubTableOut, auth=PLAYER),
    summary="Open a table of a system, sitting in a seat",
    description="Waiting players of the system fill its other seats at once. Duplicate and "
    "full field are the members' (403 otherwise); handicap is everyone's.",
)
def open_table(request, payload: OpenIn):
    club.open_table(user=request.auth, system=payload.system, seat=payload.seat)
    return _mine(request)


@router.post(
    "/club/tables/{table_id}/sit",
    **write(200, ClubTableOut, auth=PLAYER),
    summary="Sit in an empty seat of a forming table (the fourth player starts it)",
)
def sit(request, payload: SitIn, table_id: int = Path(..., **ID)):
    club.sit(user=request.auth, club_table_id=table_id, seat=payload.seat)
    return _mine(request)


@router.post(
    "/club/tables/{table_id}/robots",
    **write(200, ClubTableOut, auth=PLAYER),
    summary="Robots take the empty seats of your forming table: it starts",
)
def robots(request, table_id: int = Path(..., **ID)):
    club.add_robots(user=request.auth, club_table_id=table_id)
    return _mine(request)


@router.post(
    "/club/tables/{table_id}/leave",
    **write(200, LobbyOut, auth=PLAYER),
    summary=(
        "Leave your table (a playing table closes; mid-board: a disconnection, a robot "
        "finishes the board, then it closes)"
    ),
)
def leave(request, table_id: int = Path(..., **ID)):
    club.leave(user=request.auth, club_table_id=table_id)
    return _lobby(request)


@router.post(
    "/club/wait",
    **write(200, ClubWaitOut, auth=PLAYER),
    summary="Wait for a table of a system (seated at once where a table has room)",
)
def wait(request, payload: WaitIn):
    seated = club.wait(user=request.auth, system=payload.system)
    return {"seated": seated is not None, "table": _mine(request)}


@router.post(
    "/club/wait/stop",
    **write(200, LobbyOut, auth=PLAYER),
    summary="Stop waiting for a table",
)
def stop_waiting(request):
    club.stop_waiting(user=request.auth)
    return _lobby(request)


@router.get(
    "/club/boards",
    auth=PLAYER,
    response={200: MyBoardsOut, **READ_ERRORS},
    summary="Your club boards, newest first, each with the deal's field",
)
def my_boards(
    request,
    week_id: int | None = Query(None, description="One week's boards (default: every week).", **ID),
    limit: int = Query(20, ge=1, le=100),
    offset: int = Query(0, ge=0, le=1_000_000),
):
    week = None
    if week_id is not None:
        week = reads.week_by_id(week_id)
        if week is None:
            raise NotFound(_("There is no such club week."))
    found = reads.my_boards(user=request.auth, week=week, limit=limit, offset=offset)
    return {
        "total": found.total,
        "boards": [
            {
                "deal_id": b.deal_id,
                "deal": b.deal_number,
                "system": b.system,
                "week_starts_at": b.week_starts_at,
                "week_closed": b.week_closed,
                "seat": b.seat,
                "contract": _contract(b.result),
                "declarer": b.result.declarer,
                "tricks": b.result.tricks,
                "ns_score": b.ns_score,
                "points": b.points,
                "scored": b.scored,
                "field": _field(b.field) if b.field_visible else None,
            }
            for b in found.boards
        ],
    }


@router.get(
    "/club/deals/{deal_id}",
    auth=[token_auth, django_auth, anonymous],
    response={200: ClubDealOut, **READ_ERRORS},
    summary="A library deal's field: for those given it, or anyone once its week closed",
    description="404 for a deal the caller may not see yet, as for no deal at all.",
)
def deal(request, deal_id: int = Path(..., **ID)):
    found = reads.deal_field(user=request.auth, deal_id=deal_id)
    if found is None:
        raise NotFound(_("This deal's results are shown to those who played it."))
    return {
        "deal_id": found.deal.pk,
        "deal": found.deal.number,
        "system": found.system,
        "field": _field(found.results),
    }


@router.get(
    "/club/standings/{system}",
    response={200: ClubStandingsOut, **READ_ERRORS},
    summary="A week's standings of one system (default: this week)",
)
def standings(request, system: str, week_id: int | None = Query(None, **ID)):
    if system not in ClubSystem.values:
        raise NotFound(_("Choose duplicate, full field (IMPs or MP) or handicap."))
    if week_id is not None:
        week = reads.week_by_id(week_id)
        if week is None:
            raise NotFound(_("There is no such club week."))
    else:
        week = reads.this_week(timezone.now())
    found = reads.standings(week=week, system=system)
    return {
        "week_starts_at": week.starts_at if week else None,
        "system": system,
        "lines": [
            {
                "rank": line.rank,
                "user_id": line.user_id,
                "name": line.name,
                "points": line.points,
                "boards": line.boards,
                "pending": line.pending,
                "penalties": line.penalties,
                "average": line.average,
            }
            for line in found.lines
        ],
    }
