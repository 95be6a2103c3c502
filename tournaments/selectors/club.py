"""The club's reads (RULES 13): the lobby, a player's boards with their deals' fields,
and the week's standings per system. Each a bounded number of queries, whatever the
number of tables, boards or players.

Who sees a deal's field is `visibility.may_see_club_field`'s: the people given the deal,
and everyone once its week has closed. "My boards" only lists deals the player played,
and the deal page (`deal_field`) asks the rule for anyone else.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field, replace
from datetime import datetime

from django.contrib.auth import get_user_model
from django.db.models import Count, Q, Sum
from django.utils.translation import gettext as _

from .. import permissions, visibility
from ..models import (
    Board,
    BoardResult,
    ClubDeal,
    ClubDealSeen,
    ClubPenalty,
    ClubScore,
    ClubSeat,
    ClubSystem,
    ClubTable,
    ClubTableStatus,
    ClubWaiting,
    ClubWeek,
    player_name,
)

SEATS = ("N", "E", "S", "W")
# The lobby shows at most this many open tables per system (the newest forming first).
LOBBY_TABLES = 60
# "My boards": deals per page.
MY_BOARDS_PAGE = 20
STANDINGS_LIMIT = 500


def robot_name(seat: str) -> str:
    """A robot player as the pages name it, in the reader's language."""
    return {
        "N": _("Robot North"),
        "E": _("Robot East"),
        "S": _("Robot South"),
        "W": _("Robot West"),
    }.get(seat, _("Robot"))


def _name(user, *, robot: bool, seat: str) -> str:
    return robot_name(seat) if robot else player_name(user)


def is_member(user) -> bool:
    return bool(getattr(user, "is_active", False) and user.has_perm(permissions.CLUB_MEMBER))


def may_play(user, system: str) -> bool:
    """RULES 13: handicap tables are everyone's; the other systems are the members'."""
    return system == ClubSystem.HANDICAP or is_member(user)


def this_week(now: datetime) -> ClubWeek | None:
    """The week `now` is in, if it has been made (the first lobby action makes it)."""
    return ClubWeek.objects.filter(starts_at__lte=now, ends_at__gt=now).first()


def week_by_id(week_id: int) -> ClubWeek | None:
    return ClubWeek.objects.filter(pk=week_id).first()


def recent_weeks(limit: int = 12) -> list[ClubWeek]:
    return list(ClubWeek.objects.order_by("-starts_at")[:limit])


# -- the lobby --------------------------------------------------------------------------


@dataclass(frozen=True)
class LobbySeat:
    seat: str
    user_id: int | None
    name: str
    robot: bool
    mine: bool

    @property
    def empty(self) -> bool:
        return self.user_id is None


@dataclass(frozen=True)
class LobbyTable:
    id: int
    status: str
    seats: list[LobbySeat]
    mine: bool
    play_path: tuple[int, int, int] | None  # (tournament, round number, table number)
    board: int | None = None  # the board in play (the caller's own table only)
    play_table_id: int | None = None  # the play server's table (its sockets' id)
    # The person it is named after: players tell tables apart by a person, not by a
    # database number. Its opener while they sit there, else the first person seated
    # ("" with robots alone; the page falls back on the number).
    host: str = ""

    @property
    def forming(self) -> bool:
        return self.status == ClubTableStatus.FORMING

    @property
    def empty_seats(self) -> list[str]:
        return [s.seat for s in self.seats if s.empty]


@dataclass(frozen=True)
class LobbySystem:
    system: str
    label: str
    members_only: bool
    may_play: bool
    tables: list[LobbyTable]
    waiting: list[str]


@dataclass(frozen=True)
class Lobby:
    week: ClubWeek | None
    systems: list[LobbySystem]
    member: bool
    my_table: LobbyTable | None
    my_system: str | None  # the system of my table, or the one I wait for
    waiting_for: str | None  # the system I wait for

    @property
    def waiting_system_label(self) -> str:
        return str(ClubSystem(self.waiting_for).label) if self.waiting_for else ""


def _table_of(table: ClubTable, seats: list[ClubSeat], user_id: int | None) -> LobbyTable:
    by_seat = {s.seat: s for s in seats}
    lobby_seats = []
    for seat in SEATS:
        taken = by_seat.get(seat)
        if taken is None:
            lobby_seats.append(LobbySeat(seat, None, "", False, False))
        else:
            lobby_seats.append(
                LobbySeat(
                    seat,
                    taken.user_id,
                    _name(taken.user, robot=taken.robot, seat=seat),
                    taken.robot,
                    not taken.robot and taken.user_id == user_id,
                )
            )
    play_path = None
    if table.table is not None:
        play_path = (table.field.tournament_id, table.table.round.number, table.table.number)
    return LobbyTable(
        id=table.pk,
        status=table.status,
        seats=lobby_seats,
        mine=any(s.mine for s in lobby_seats),
        play_path=play_path,
        play_table_id=table.table_id,
        host=_host(table, lobby_seats),
    )


def _host(table: ClubTable, seats: list[LobbySeat]) -> str:
    people = [s for s in seats if not s.empty and not s.robot]
    opener = [s for s in people if s.user_id == table.opened_by_id]
    named = opener or people
    return named[0].name if named else ""


def _with_seats(tables: list[ClubTable]) -> dict[int, list[ClubSeat]]:
    seats: dict[int, list[ClubSeat]] = defaultdict(list)
    for seat in ClubSeat.objects.filter(club_table__in=tables, active=True).select_related(
        "user__profile"
    ):
        seats[seat.club_table_id].append(seat)
    return seats


def lobby(*, user, now: datetime) -> Lobby:
    """This week's open tables per system with who sits where, who waits, and the user's
    own table or wait (and the board in play at it). Seven queries at most."""
    user_id = user.pk if getattr(user, "is_authenticated", False) else None
    member = is_member(user)
    week = this_week(now)
    tables: dict[str, list[ClubTable]] = defaultdict(list)
    waiting: dict[str, list[str]] = defaultdict(list)
    if week is not None:
        open_tables = list(
            ClubTable.objects.filter(field__week=week)
            .exclude(status=ClubTableStatus.CLOSED)
            .select_related("field", "table__round")
            .order_by("status", "-opened_at", "-id")[: LOBBY_TABLES * len(ClubSystem)]
        )
        for table in open_tables:
            if len(tables[table.field.system]) < LOBBY_TABLES:
                tables[table.field.system].append(table)
        for waiter in ClubWaiting.objects.filter(field__week=week).select_related(
            "field", "user__profile"
        )[:200]:
            waiting[waiter.field.system].append(player_name(waiter.user))
    everything = [t for ts in tables.values() for t in ts]
    my_table: LobbyTable | None = None
    my_system: str | None = None
    waiting_for: str | None = None
    mine: ClubSeat | None = None
    if user_id is not None:
        mine = (
            ClubSeat.objects.filter(user_id=user_id, active=True, robot=False)
            .select_related("club_table__field", "club_table__table__round")
            .first()
        )
        if mine is not None and mine.club_table not in everything:
            everything.append(mine.club_table)
        waits = ClubWaiting.objects.filter(user_id=user_id).select_related("field").first()
        if waits is not None:
            waiting_for = my_system = waits.field.system
    seats = _with_seats(everything) if everything else {}
    systems = []
    for system in ClubSystem:
        drawn = [_table_of(t, seats.get(t.pk, []), user_id) for t in tables.get(system, [])]
        systems.append(
            LobbySystem(
                system=system.value,
                label=str(system.label),
                members_only=system != ClubSystem.HANDICAP,
                may_play=user_id is not None and (member or system == ClubSystem.HANDICAP),
                tables=drawn,
                waiting=waiting.get(system, []),
            )
        )
    if mine is not None:
        my_table = _table_of(mine.club_table, seats.get(mine.club_table_id, []), user_id)
        play_table = mine.club_table.table
        if play_table is not None:
            in_play = (
                Board.objects.filter(round_id=play_table.round_id)
                .exclude(results__table_id=play_table.pk)
                .order_by("number")
                .values_list("number", flat=True)
                .first()
            )
            my_table = replace(my_table, board=in_play)
        my_system = mine.club_table.field.system
    return Lobby(
        week=week,
        systems=systems,
        member=member,
        my_table=my_table,
        my_system=my_system,
        waiting_for=waiting_for,
    )


def club_table_of(play_table) -> ClubTable | None:
    """The club table a play server's table belongs to, if it is a club table's."""
    return ClubTable.objects.filter(table=play_table).select_related("field").first()


def robot_seats(club_table: ClubTable) -> set[str]:
    """The seats robots took at a club table (a robot only ever takes its own seat)."""
    return set(club_table.seats.filter(robot=True).values_list("seat", flat=True))


# -- my boards --------------------------------------------------------------------------


@dataclass(frozen=True)
class FieldResult:
    """One table's result on a deal, as the field's list shows it."""

    arrival: int
    result: BoardResult
    ns_score: int | None
    ns_points: float
    scored: bool
    names: dict[str, str]  # seat -> name ("Robot North" for a robot)
    robots: set[str]
    mine: bool


@dataclass(frozen=True)
class MyBoard:
    deal_id: int
    deal_number: int
    system: str
    system_label: str
    week_starts_at: datetime
    week_closed: bool
    seat: str
    result: BoardResult
    ns_score: int | None
    points: float
    scored: bool
    played_at: datetime
    field_visible: bool
    field: list[FieldResult] = field(default_factory=list)

    @property
    def mp(self) -> bool:
        return self.system == ClubSystem.FULL_FIELD_MP

    @property
    def my_score(self) -> int | None:
        """The score for my side."""
        if self.ns_score is None:
            return None
        return self.ns_score if self.seat in ("N", "S") else -self.ns_score


@dataclass(frozen=True)
class MyBoards:
    boards: list[MyBoard]
    total: int


def _field_results(deal_ids: list[int], user_id: int | None) -> dict[int, list[FieldResult]]:
    """Every result of `deal_ids` with its four players: one query."""
    rows = (
        ClubScore.objects.filter(deal_id__in=deal_ids)
        .select_related("result", "user__profile")
        .order_by("deal_id", "arrival", "seat")
    )
    grouped: dict[tuple[int, int], list[ClubScore]] = defaultdict(list)
    for row in rows:
        grouped[(row.deal_id, row.result_id)].append(row)
    out: dict[int, list[FieldResult]] = defaultdict(list)
    for (deal_id, _result_id), scores in grouped.items():
        result = scores[0].result
        by_seat = {s.seat: s for s in scores}
        north = by_seat.get("N") or by_seat.get("S")
        out[deal_id].append(
            FieldResult(
                arrival=scores[0].arrival,
                result=result,
                ns_score=result.ns_score,
                ns_points=north.points if north is not None else 0.0,
                scored=all(s.scored for s in scores),
                names={s.seat: _name(s.user, robot=s.robot, seat=s.seat) for s in scores},
                robots={s.seat for s in scores if s.robot},
                mine=user_id is not None and any(s.user_id == user_id for s in scores),
            )
        )
    for results in out.values():
        results.sort(key=lambda r: (-(r.ns_score or 0), r.arrival))
    return out


def my_boards(
    *, user, week: ClubWeek | None = None, limit: int = MY_BOARDS_PAGE, offset: int = 0
) -> MyBoards:
    """The deals `user` played (a week's, or every week's), newest first, each with their
    result and score, and the deal's field where `visibility.may_see_club_field` allows
    (always for a deal they played: they were given it). Four queries."""
    if not getattr(user, "is_authenticated", False):
        return MyBoards([], 0)
    mine = ClubScore.objects.filter(user=user, robot=False)
    if week is not None:
        mine = mine.filter(field__week=week)
    total = mine.count()
    rows = list(
        mine.select_related("result", "deal", "field__week").order_by("-result__entered_at", "-id")[
            offset : offset + limit
        ]
    )
    given = set(
        ClubDealSeen.objects.filter(user=user, deal_id__in=[r.deal_id for r in rows]).values_list(
            "deal_id", flat=True
        )
    )
    boards = []
    for row in rows:
        closed = row.field.week.closed_at is not None
        visible = visibility.may_see_club_field(
            user, given_the_deal=row.deal_id in given, week_closed=closed
        )
        boards.append((row, visible))
    fields = _field_results([r.deal_id for r, visible in boards if visible], user.pk)
    return MyBoards(
        boards=[
            MyBoard(
                deal_id=row.deal_id,
                deal_number=row.deal.number,
                system=row.field.system,
                system_label=str(ClubSystem(row.field.system).label),
                week_starts_at=row.field.week.starts_at,
                week_closed=row.field.week.closed_at is not None,
                seat=row.seat,
                result=row.result,
                ns_score=row.result.ns_score,
                points=row.points,
                scored=row.scored,
                played_at=row.result.entered_at,
                field_visible=visible,
                field=fields.get(row.deal_id, []) if visible else [],
            )
            for row, visible in boards
        ],
        total=total,
    )


@dataclass(frozen=True)
class DealField:
    deal: ClubDeal
    system: str
    system_label: str
    results: list[FieldResult]

    @property
    def mp(self) -> bool:
        return self.system == ClubSystem.FULL_FIELD_MP


def deal_field(*, user, deal_id: int) -> DealField | None:
    """One library deal's field for `user`, or None when the rule hides it (or there is
    no such deal): the same answer either way, so a hidden deal is not told apart."""
    user_id = user.pk if getattr(user, "is_authenticated", False) else None
    deal = (
        ClubDeal.objects.filter(visibility.club_field_visible(user_id), pk=deal_id)
        .select_related("field__week")
        .distinct()
        .first()
    )
    if deal is None:
        return None
    given = user_id is not None and ClubDealSeen.objects.filter(user_id=user_id, deal=deal).exists()
    if not visibility.may_see_club_field(
        user, given_the_deal=given, week_closed=deal.field.week.closed_at is not None
    ):
        return None
    return DealField(
        deal=deal,
        system=deal.field.system,
        system_label=str(ClubSystem(deal.field.system).label),
        results=_field_results([deal.pk], user_id).get(deal.pk, []),
    )


# -- standings --------------------------------------------------------------------------


@dataclass(frozen=True)
class Standing:
    rank: int
    user_id: int
    name: str
    points: float  # the scores' sum with the penalties (MP: the percentages' sum)
    boards: int
    pending: int  # duplicate: boards waiting for the deal's sixth result
    penalties: int  # the disconnection penalties' points (≤ 0)
    average: float | None  # MP: the mean percentage; else points per board


@dataclass(frozen=True)
class Standings:
    week: ClubWeek | None
    system: str
    system_label: str
    mp: bool
    lines: list[Standing]


def standings(*, week: ClubWeek | None, system: str, limit: int = STANDINGS_LIMIT) -> Standings:
    """The week's standings of one system (RULES 13): per player (robots aside) the sum
    of their scores plus their disconnection penalties, and boards played; full field in
    MP ranked by the mean percentage. Three queries."""
    label = str(ClubSystem(system).label)
    mp = system == ClubSystem.FULL_FIELD_MP
    if week is None:
        return Standings(None, system, label, mp, [])
    scores = {
        row["user_id"]: row
        for row in ClubScore.objects.filter(field__week=week, field__system=system, robot=False)
        .values("user_id")
        .annotate(
            points=Sum("points"),
            boards=Count("id"),
            pending=Count("id", filter=Q(scored=False)),
        )
    }
    penalties = {
        row["user_id"]: row["points"]
        for row in ClubPenalty.objects.filter(field__week=week, field__system=system)
        .values("user_id")
        .annotate(points=Sum("points"))
    }
    user_ids = set(scores) | set(penalties)
    users = get_user_model().objects.select_related("profile").in_bulk(user_ids)
    lines = []
    for user_id in user_ids:
        row = scores.get(user_id, {"points": 0.0, "boards": 0, "pending": 0})
        penalty = int(penalties.get(user_id) or 0)
        total = float(row["points"] or 0.0)
        boards = int(row["boards"])
        scored = boards - int(row["pending"])
        if mp:
            average = total / boards if boards else None
            points = total + penalty
        else:
            points = total + penalty
            average = points / scored if scored else None
        user = users.get(user_id)
        lines.append(
            Standing(
                rank=0,
                user_id=user_id,
                name=player_name(user) if user is not None else str(user_id),
                points=round(points, 2),
                boards=boards,
                pending=int(row["pending"]),
                penalties=penalty,
                average=round(average, 2) if average is not None else None,
            )
        )
    if mp:
        lines.sort(key=lambda s: (-(s.average or 0.0), -s.boards, s.name))
    else:
        lines.sort(key=lambda s: (-s.points, -s.boards, s.name))
    ranked = []
    previous: tuple | None = None
    rank = 0
    for i, line in enumerate(lines[:limit], start=1):
        key = (line.average,) if mp else (line.points,)
        if key != previous:
            rank, previous = i, key
        ranked.append(
            Standing(
                rank=rank,
                user_id=line.user_id,
                name=line.name,
                points=line.points,
                boards=line.boards,
                pending=line.pending,
                penalties=line.penalties,
                average=line.average,
            )
        )
    return Standings(week, system, label, mp, ranked)


# -- membership (the organiser's page) --------------------------------------------------


def members(limit: int = 500) -> list:
    """Club members (the permission granted to them directly or through a group)."""
    users = get_user_model()
    perm = Q(
        user_permissions__codename=permissions.CLUB_MEMBER_CODENAME,
        user_permissions__content_type__app_label=permissions.APP,
    ) | Q(
        groups__permissions__codename=permissions.CLUB_MEMBER_CODENAME,
        groups__permissions__content_type__app_label=permissions.APP,
    )
    return list(
        users.objects.filter(perm, is_active=True)
        .select_related("profile")
        .distinct()
        .order_by("username")[:limit]
    )
