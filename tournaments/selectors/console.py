"""Reads for the director's console (`views/console.py`): the round's progress table by
table, the dispute queue, what a clock action would do, the pairs page by page.

Each function costs a fixed number of queries whatever the field size (a 2,000-pair
event's console is measured in BENCHMARKS.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.core.paginator import Page, Paginator
from django.db.models import Count, Max, Prefetch, Q, QuerySet, Subquery
from django.utils import timezone
from django.utils.translation import gettext

from .. import visibility
from ..models import (
    Board,
    BoardResult,
    Direction,
    Match,
    Pair,
    PairStatus,
    PlayAction,
    PlayMode,
    ResultState,
    Round,
    RoundStatus,
    Table,
    TableDirection,
    TableDirectionKind,
    TablePresence,
    Team,
    TeamMember,
    Tournament,
    display_name,
    pair_names,
    player_name,
)
from . import replays
from .common import PAIR_PLAYERS
from .live import live_version

PAIRS_PER_PAGE = 50

# What a board at a table shows in the progress grid.
MISSING = "missing"  # no result yet
ENTERED = "entered"  # entered by one side, not yet confirmed by the other
CONFIRMED = "confirmed"  # entered and confirmed (or set by the director)
DISPUTED = "disputed"  # the other side disputes it: the director rules
CUT_OFF = "cut_off"  # not played: cut off at the bell

# A result that settles the board for the progress grid: a played or passed-out board
# confirmed by the other side, or a director's result / adjusted score.
COMPLETED_STATES = (ResultState.PLAYED, ResultState.PASSED_OUT)


def board_state(*, state: str, confirmed: bool, disputed: bool, adjusted_by_id: int | None) -> str:
    """One board at one table, as the progress grid shows it."""
    if disputed:
        return DISPUTED
    if state == ResultState.NOT_PLAYED:
        return CUT_OFF
    if state == ResultState.ADJUSTED or confirmed or adjusted_by_id is not None:
        return CONFIRMED
    return ENTERED


@dataclass(frozen=True)
class ProgressCell:
    board_number: int
    state: str


@dataclass(frozen=True)
class ProgressRow:
    table_id: int
    number: int
    ns: str  # "3 Ann & Bob" (registration number and names)
    ew: str
    cells: tuple[ProgressCell, ...]

    @property
    def finished(self) -> bool:
        return all(c.state in (CONFIRMED, CUT_OFF) for c in self.cells)

    def count(self, state: str) -> int:
        return sum(1 for c in self.cells if c.state == state)


@dataclass(frozen=True)
class LiveTable:
    """A table played online as the console shows it: the board in play, how far it
    is, whose turn, who is connected (seat -> since when) and how long the player to
    act has been idle; its own bell if the director gave it extra time."""

    board: int | None  # None: every board of the round is over here
    phase: str = ""  # "auction", "play", "claim"
    trick: int = 0  # the trick being played (1–13), 0 in the auction
    turn: str | None = None  # the seat to act (declarer for dummy)
    contract: str = ""
    connected: dict[str, datetime] = field(default_factory=dict)
    idle_seconds: int | None = None
    ends_at: datetime | None = None  # extra time: this table's own bell
    robots: frozenset[str] = frozenset()  # seats the director gave a robot

    def connected_for(self, seat: str, now: datetime) -> int | None:
        since = self.connected.get(seat)
        return None if since is None else max(0, int((now - since).total_seconds()))


@dataclass(frozen=True)
class RoundProgress:
    """The round's progress: totals over every table, and the rows of one page of
    tables (TABLES_PER_PAGE, in table order; `unfinished` keeps only the tables still
    waiting for a result, a confirmation or a ruling)."""

    round: Round | None
    board_numbers: tuple[int, ...] = ()
    rows: tuple[ProgressRow, ...] = ()
    totals: dict[str, int] = field(default_factory=dict)
    tables: int = 0
    tables_finished: int = 0
    shown: int = 0  # tables matching the filter, over every page
    page: int = 1
    pages: int = 1
    unfinished: bool = False
    # Online play: what each table of the page is doing now (`online_progress`).
    live: dict[int, LiveTable] = field(default_factory=dict)

    @property
    def has_previous(self) -> bool:
        return self.page > 1

    @property
    def has_next(self) -> bool:
        return self.page < self.pages


TABLES_PER_PAGE = 100


def _finished(states: list[str]) -> bool:
    return all(s in (CONFIRMED, CUT_OFF) for s in states)


def _side_fields() -> tuple[str, ...]:
    return (
        "registration_no",
        "player1__username",
        "player1__profile__display_name",
        "player2__username",
        "player2__profile__display_name",
        "team__name",
    )


def _side_label(regno, user1, shown1, user2, shown2, team=None) -> str:
    """ "3 Ann – Bob"; a team's pair with its team first ("Lions · 3 Ann – Bob")."""
    pair = f"{regno} {pair_names(display_name(shown1, user1), display_name(shown2, user2))}"
    return f"{team} · {pair}" if team else pair


def round_progress(
    *,
    tournament: Tournament,
    round: Round | None = None,
    page: int | str = 1,
    unfinished: bool = False,
) -> RoundProgress:
    """Every table of `round` (default: the current round) with each board's state:
    totals over all of them, rows for one page of TABLES_PER_PAGE.

    Five queries: the round, its board numbers, its tables (ids), its results (as
    values), the pairs' names of the page's tables (as values: a 1,000-table round
    builds no model instances and names only what is shown).
    """
    round = round or tournament.round_set.current()
    if round is None:
        return RoundProgress(round=None)
    seating = list(
        Table.objects.filter(round=round)
        .order_by("number")
        .values_list("id", "number", "ns_pair_id", "ew_pair_id", "first_board", "last_board")
    )
    tables = [(table_id, number) for table_id, number, *_rest in seating]
    seated = {table_id: (ns, ew) for table_id, _number, ns, ew, *_set in seating}
    # When board sets travel each table has its own (`Table.first_board` …); else every
    # table plays the round's boards.
    sets = {
        table_id: tuple(range(first, last + 1))
        for table_id, _number, _ns, _ew, first, last in seating
        if first is not None
    }
    if sets:
        wanted = {n for numbers_at in sets.values() for n in numbers_at}
        boards = dict(
            Board.objects.filter(tournament=tournament, number__in=wanted).values_list(
                "id", "number"
            )
        )
        numbers: tuple[int, ...] = ()
    else:
        boards = dict(Board.objects.filter(round=round).values_list("id", "number"))
        numbers = tuple(sorted(boards.values()))
    states: dict[tuple[int, int], str] = {}
    for (
        table_id,
        board_id,
        state,
        confirmed_at,
        disputed,
        adjusted_by_id,
    ) in BoardResult.objects.filter(table__round=round).values_list(
        "table_id", "board_id", "state", "confirmed_at", "disputed", "adjusted_by_id"
    ):
        states[(table_id, boards[board_id])] = board_state(
            state=state,
            confirmed=confirmed_at is not None,
            disputed=disputed,
            adjusted_by_id=adjusted_by_id,
        )
    totals = {s: 0 for s in (MISSING, ENTERED, CONFIRMED, DISPUTED, CUT_OFF)}
    per_table = {}
    finished = 0
    for table_id, _number in tables:
        cells = [states.get((table_id, n), MISSING) for n in sets.get(table_id, numbers)]
        per_table[table_id] = cells
        for state in cells:
            totals[state] += 1
        finished += _finished(cells)
    listed = [t for t in tables if not (unfinished and _finished(per_table[t[0]]))]
    pages = max(1, -(-len(listed) // TABLES_PER_PAGE))
    try:
        number = min(max(1, int(page)), pages)
    except (TypeError, ValueError):
        number = 1
    chosen = listed[(number - 1) * TABLES_PER_PAGE : number * TABLES_PER_PAGE]
    # The names in their own short query: a table joined to both pairs, their four
    # players and profiles is twelve relations, past where PostgreSQL plans quickly.
    pair_ids = {pair_id for table_id, _number in chosen for pair_id in seated[table_id]}
    labels = {
        pair_id: _side_label(*fields)
        for pair_id, *fields in Pair.objects.filter(pk__in=pair_ids).values_list(
            "id", *_side_fields()
        )
    }
    names = {
        table_id: (labels[seated[table_id][0]], labels[seated[table_id][1]])
        for table_id, _number in chosen
    }
    rows = tuple(
        ProgressRow(
            table_id=table_id,
            number=table_number,
            ns=names[table_id][0],
            ew=names[table_id][1],
            cells=tuple(
                ProgressCell(n, s)
                for n, s in zip(sets.get(table_id, numbers), per_table[table_id], strict=True)
            ),
        )
        for table_id, table_number in chosen
    )
    live = {}
    if tournament.play == PlayMode.ONLINE:
        live = online_progress(
            round=round,
            tables=[table_id for table_id, _number in chosen],
            unplayed={
                table_id: [n for n, state in zip(numbers, per_table[table_id], strict=True)
                           if state == MISSING]
                for table_id, _number in chosen
            },
        )  # fmt: skip
    return RoundProgress(
        live=live,
        round=round,
        board_numbers=numbers,
        rows=rows,
        totals=totals,
        tables=len(tables),
        tables_finished=finished,
        shown=len(listed),
        page=number,
        pages=pages,
        unfinished=unfinished,
    )


# How often the console's idle times move on while nothing else changes (its poll answers
# 204 until then).
IDLE_STEP_SECONDS = 15
# A socket's row this old was left by a server process that died (no socket stays
# open on one table for longer than a few rounds).
PRESENCE_STALE_AFTER = timedelta(hours=6)


def connections(*, table_ids, now: datetime) -> dict[int, dict[str, datetime]]:
    """table id -> {seat: connected since} for the seats with an open socket now
    (`services.presence`; a row older than PRESENCE_STALE_AFTER is a dead process's)."""
    found: dict[int, dict[str, datetime]] = {}
    rows = TablePresence.objects.filter(
        table_id__in=list(table_ids), connected_at__gt=now - PRESENCE_STALE_AFTER
    ).values_list("table_id", "seat", "connected_at")
    for table_id, seat, since in rows:
        seats = found.setdefault(table_id, {})
        if seat not in seats or since < seats[seat]:
            seats[seat] = since
    return found


def online_progress(
    *, round: Round, tables: list[int], unplayed: dict[int, list[int]], now: datetime | None = None
) -> dict[int, LiveTable]:
    """What each of `tables` (ids, of `round`) is doing now: its board in play (the first
    of `unplayed`, boards are played in order), the auction or the trick and whose turn
    from its stored actions (replayed as the table server replays them), who is
    connected, and how long the player to act has waited since the table's last action
    (or the round's start). Five queries, whatever the number of tables, and one more
    for the boards this process does not keep as stored (`replays.board_states`)."""
    now = now or timezone.now()
    if not tables:
        return {}
    boards = {
        number: (board_id, deal, dealer, vulnerability)
        for board_id, number, deal, dealer, vulnerability in Board.objects.filter(
            round=round
        ).values_list("id", "number", "deal", "dealer", "vulnerability")
    }
    stored: dict[tuple[int, int], tuple[int, int]] = {}
    last_at: dict[int, datetime] = {}
    for table_id, board_id, count, last_id, at in (
        PlayAction.objects.filter(table_id__in=tables, board__round=round)
        .order_by()
        .values_list("table_id", "board_id")
        .annotate(Count("id"), Max("id"), Max("stored_at"))
    ):
        stored[(table_id, board_id)] = (count, last_id)
        if table_id not in last_at or at > last_at[table_id]:
            last_at[table_id] = at
    present = connections(table_ids=tables, now=now)
    own_bells = dict(
        Table.objects.filter(pk__in=tables, ends_at__isnull=False).values_list("id", "ends_at")
    )
    robots: dict[int, set[str]] = {}
    for table_id, seat in TableDirection.objects.filter(
        table_id__in=tables, kind=TableDirectionKind.ROBOT
    ).values_list("table_id", "seat"):
        robots.setdefault(table_id, set()).add(seat)
    live: dict[int, LiveTable] = {}
    open_now = round.status == RoundStatus.OPEN and round.starts_at <= now
    in_play = []
    for table_id in tables:
        waiting = unplayed.get(table_id) or []
        if waiting:
            board_id, deal, dealer, vulnerability = boards[waiting[0]]
            count, last_id = stored.get((table_id, board_id), (0, 0))
            in_play.append(
                replays.BoardAt(
                    table_id, board_id, replays.Stored(count, last_id), deal, dealer, vulnerability
                )
            )
    states = replays.board_states(in_play)
    for table_id in tables:
        waiting = unplayed.get(table_id) or []
        common = {
            "connected": present.get(table_id, {}),
            "ends_at": own_bells.get(table_id),
            "robots": frozenset(robots.get(table_id, ())),
        }
        if not waiting:
            live[table_id] = LiveTable(board=None, **common)
            continue
        number = waiting[0]
        state = states[table_id, boards[number][0]]
        if state.is_over:  # the result is being stored as we read
            live[table_id] = LiveTable(board=number, phase="over", **common)
            continue
        if state.pending_claim is not None:
            phase, turn = "claim", None
        elif not state.is_auction_over:
            phase, turn = "auction", state.actor
        else:
            phase, turn = "play", state.actor
        since = max(filter(None, (last_at.get(table_id), round.starts_at)))
        live[table_id] = LiveTable(
            board=number,
            phase=phase,
            trick=len(state.tricks) + 1 if state.is_auction_over else 0,
            turn=turn,
            contract=str(state.contract) if state.contract is not None else "",
            idle_seconds=max(0, int((now - since).total_seconds())) if open_now else None,
            **common,
        )
    return live


def progress_version(*, tournament: Tournament) -> str:
    """A fingerprint of what the console's live part shows, in two queries: the live
    version (clock, rounds, standings) and one aggregate over the current round's
    results (entered, confirmed, disputed, ruled). The console's poll answers 204 while
    it stays the same."""
    live = live_version(tournament_id=tournament.pk)
    figures = (
        BoardResult.objects.filter(
            table__round_id=Subquery(
                Round.objects.filter(tournament=tournament).newest_first().values("id")[:1]
            )
        )
        .aggregate(
            n=Count("id"),
            confirmed=Count("confirmed_at"),
            disputed=Count("id", filter=Q(disputed=True)),
            ruled=Count("adjusted_by_id"),
            entered=Max("entered_at"),
            confirmed_last=Max("confirmed_at"),
            disputed_last=Max("disputed_at"),
        )
        .values()
    )
    online: tuple = ()
    if tournament.play == PlayMode.ONLINE:
        # The tables' calls and cards, who is connected, and the idle times' step.
        current = Round.objects.filter(tournament=tournament).newest_first().values("id")[:1]
        played = PlayAction.objects.filter(board__round_id=Subquery(current)).aggregate(
            n=Max("id")
        )["n"]
        present = TablePresence.objects.filter(table__round_id=Subquery(current)).aggregate(
            n=Count("channel"), at=Max("connected_at")
        )
        step = int(timezone.now().timestamp()) // IDLE_STEP_SECONDS
        online = (played, present["n"], present["at"], step)
    return "|".join(str(v) for v in (live, *figures, *online))


@dataclass(frozen=True)
class CloseSummary:
    """What closing the open round now would do (RULES 3): the confirmation page."""

    round: Round
    tables: int
    tables_finished: int
    missing: int  # boards with no result: cut off by the close
    unconfirmed: int  # entered, not confirmed: scored as entered
    disputed: int  # scored as entered until the director rules


def close_summary(*, tournament: Tournament) -> CloseSummary | None:
    progress = round_progress(tournament=tournament)
    if progress.round is None or progress.round.status != RoundStatus.OPEN:
        return None
    return CloseSummary(
        round=progress.round,
        tables=progress.tables,
        tables_finished=progress.tables_finished,
        missing=progress.totals[MISSING],
        unconfirmed=progress.totals[ENTERED],
        disputed=progress.totals[DISPUTED],
    )


@dataclass(frozen=True)
class StartSummary:
    """What starting now would do: pairs seated, proposals that lapse (RULES 3)."""

    pairs: int
    tables: int
    bye: bool
    pending: int  # proposals still waiting for the partner: they lapse at the start


def start_summary(*, tournament: Tournament) -> StartSummary:
    counts = Pair.objects.filter(tournament=tournament).aggregate(
        pairs=Count("id", filter=Q(status=PairStatus.CONFIRMED, withdrawn_at__isnull=True)),
        pending=Count("id", filter=Q(status=PairStatus.PENDING)),
    )
    pairs = counts["pairs"]
    return StartSummary(
        pairs=pairs, tables=pairs // 2, bye=pairs % 2 == 1, pending=counts["pending"]
    )


def disputed_results(*, tournament: Tournament | None = None) -> QuerySet[BoardResult]:
    """The dispute queue, oldest first: each disputed result with its table, round, board
    (the hand) and who entered it, and the table's pairs with their players.

    Found first on their own, then read with what they show: the whole join (sixteen
    tables: both pairs' four players and their profiles) in one statement let the planner,
    when its statistics were behind the rows (a big event just created), nest scans of
    every player inside one another, for minutes. Now the pairs come in two more
    statements, and none at all when nothing is disputed (the usual case)."""
    queryset = BoardResult.objects.filter(disputed=True)
    if tournament is not None:
        queryset = queryset.filter(board__tournament=tournament)
    disputed = list(queryset.order_by().values_list("pk", flat=True))
    if not disputed:
        return BoardResult.objects.none()
    players = Pair.objects.select_related(*PAIR_PLAYERS)
    return (
        BoardResult.objects.filter(pk__in=disputed)
        .select_related("board__round", "table__round", "entered_by__profile")
        .prefetch_related(
            Prefetch("table__ns_pair", queryset=players),
            Prefetch("table__ew_pair", queryset=players),
        )
        .order_by("disputed_at", "pk")
    )


def dispute_count(*, tournament: Tournament | None = None) -> int:
    """Disputed results waiting for the director (the admin home page, the console)."""
    queryset = BoardResult.objects.filter(disputed=True)
    if tournament is not None:
        queryset = queryset.filter(board__tournament=tournament)
    return queryset.count()


def pairs_page(*, tournament: Tournament, query: str = "", page: int | str = 1) -> Page:
    """The tournament's registered pairs, PAIRS_PER_PAGE at a time, in registration
    order; `query` is a pair's number, or part of a username or a display name. Two
    queries (the count and the page)."""
    pairs = (
        Pair.objects.filter(tournament=tournament, status=PairStatus.CONFIRMED)
        .select_related(*PAIR_PLAYERS)
        .order_by("registration_no")
    )
    query = query.strip()
    if query.isdigit():
        # A number is the pair's number, as the director reads it off the seating.
        pairs = pairs.filter(registration_no=int(query))
    elif query:
        match = Q()
        for side in ("player1", "player2"):
            match |= Q(**{f"{side}__username__icontains": query})
            match |= Q(**{f"{side}__profile__display_name__icontains": query})
        pairs = pairs.filter(match)
    return Paginator(pairs, PAIRS_PER_PAGE).get_page(page)


def result_of(*, table: Table, board_number: int) -> BoardResult | None:
    """A table's result on one board for the director's form (with who entered it)."""
    return (
        BoardResult.objects.filter(table=table, board__number=board_number)
        .select_related("entered_by__profile", "confirmed_by__profile", "adjusted_by__profile")
        .first()
    )


@dataclass(frozen=True)
class DisputeSight:
    """A disputed result as the queue shows it to one director: the side that entered
    it, the side that disputes it, and whether they may see the result and the hand now
    (`tournaments.visibility`)."""

    result: BoardResult
    entered: str | None
    disputing: str | None
    sees_result: bool
    sees_deal: bool


def dispute_sights(*, disputes, user) -> list[DisputeSight]:
    """Each of `disputes` (`disputed_results`) as `user` may see it."""
    sights = []
    for result in disputes:
        # The board's round decides (a travelling board is public only after its last).
        table, round = result.table, result.board.round
        entered = table.side_of(result.entered_by_id) if result.entered_by_id else None
        sights.append(
            DisputeSight(
                result=result,
                entered=entered,
                disputing={Direction.NS: Direction.EW, Direction.EW: Direction.NS}.get(
                    entered or ""
                ),
                sees_result=visibility.may_see_result(
                    user, round=round, table=table, library=result.board.club_deal_id is not None
                ),
                sees_deal=visibility.may_see_deal(user, result.board, round),
            )
        )
    return sights


def director_result(*, table: Table, board, user) -> tuple[BoardResult | None, bool, bool]:
    """(the table's result on `board` if `user` may see it now, whether they may see
    the result, whether they may see the hand): the director's result page."""
    sees_result = visibility.may_see_result(
        user, round=board.round, table=table, library=board.club_deal_id is not None
    )
    current = result_of(table=table, board_number=board.number) if sees_result else None
    return current, sees_result, visibility.may_see_deal(user, board, board.round)


def table_directions(*, table: Table) -> list[TableDirection]:
    """The director's acts at `table` (extra time), oldest first, with who gave them."""
    return list(
        TableDirection.objects.filter(table=table).select_related("by__profile").order_by("id")
    )


# --- a team event (RULES 11) -----------------------------------------------------------

TEAMS_PER_PAGE = 50


@dataclass(frozen=True)
class TeamMemberLine:
    name: str
    confirmed: bool
    captain: bool


@dataclass(frozen=True)
class TeamRow:
    """A team as the console lists it: registered or still waiting for its members, who
    is in it (confirmed or invited), whether its line-up is set, withdrawn or not."""

    team: Team
    members: tuple[TeamMemberLine, ...]
    line_up: tuple[str, str] | None  # (open room pair, closed room pair), None: not set

    @property
    def registered(self) -> bool:
        return self.team.status == PairStatus.CONFIRMED

    @property
    def withdrawn(self) -> bool:
        return self.team.withdrawn_at is not None

    @property
    def confirmed_count(self) -> int:
        return sum(1 for m in self.members if m.confirmed)


def teams_page(*, tournament: Tournament, query: str = "", page: int | str = 1) -> Page:
    """The tournament's teams, TEAMS_PER_PAGE at a time: the registered ones in
    registration order, then those waiting for their members; `query` is a team's number,
    or part of its name or of a member's username or display name. Each item a `TeamRow`.
    Three queries (the count, the page with its line-ups' players, their members)."""
    found = Team.objects.filter(tournament=tournament).order_by(
        "status", "registration_no", "proposed_at", "id"
    )  # "confirmed" sorts before "pending"
    query = query.strip()
    if query.isdigit():
        found = found.filter(registration_no=int(query))
    elif query:
        found = found.filter(
            Q(name__icontains=query)
            | Q(members__user__username__icontains=query)
            | Q(members__user__profile__display_name__icontains=query)
        ).distinct()
    chosen = Paginator(
        found.select_related(
            "open_pair__player1__profile",
            "open_pair__player2__profile",
            "closed_pair__player1__profile",
            "closed_pair__player2__profile",
        ).prefetch_related(
            Prefetch(
                "members",
                queryset=TeamMember.objects.select_related("user__profile").order_by(
                    "invited_at", "id"
                ),
            )
        ),
        TEAMS_PER_PAGE,
    ).get_page(page)
    chosen.object_list = [_team_row(team) for team in chosen.object_list]
    return chosen


def _pair_label(pair) -> str:
    return pair_names(player_name(pair.player1), player_name(pair.player2))


def _team_row(team: Team) -> TeamRow:
    members = tuple(
        TeamMemberLine(
            name=player_name(m.user),
            confirmed=m.confirmed_at is not None,
            captain=m.user_id == team.captain_id,
        )
        for m in team.members.all()
    )
    line_up = None
    if team.open_pair is not None and team.closed_pair is not None:
        line_up = (_pair_label(team.open_pair), _pair_label(team.closed_pair))
    return TeamRow(team=team, members=members, line_up=line_up)


@dataclass(frozen=True)
class RoomProgress:
    """One room of a match: its table (an ordinary table) and how far its boards are."""

    table_id: int
    number: int
    finished: int  # boards confirmed, ruled or cut off
    disputed: int
    boards: int

    @property
    def done(self) -> bool:
        return self.finished == self.boards


@dataclass(frozen=True)
class MatchProgress:
    match_id: int
    number: int
    home: str
    away: str | None  # None: the home team's bye
    open_room: RoomProgress | None
    closed_room: RoomProgress | None

    @property
    def rooms(self) -> list[tuple[str, RoomProgress]]:
        """(its name in the page's language, the room), open room first; none for a bye."""
        if self.open_room is None or self.closed_room is None:
            return []
        return [(gettext("Open room"), self.open_room), (gettext("Closed room"), self.closed_room)]


def match_progress(*, round: Round | None) -> list[MatchProgress]:
    """The matches of `round` (the console's current round), each with both rooms'
    tables and how many of their boards are settled. Three queries."""
    if round is None:
        return []
    boards = Board.objects.filter(round=round).count()
    finished: dict[int, int] = {}
    disputed: dict[int, int] = {}
    for table_id, state, confirmed_at, is_disputed, adjusted_by_id in BoardResult.objects.filter(
        table__round=round
    ).values_list("table_id", "state", "confirmed_at", "disputed", "adjusted_by_id"):
        shown = board_state(
            state=state,
            confirmed=confirmed_at is not None,
            disputed=is_disputed,
            adjusted_by_id=adjusted_by_id,
        )
        if shown in (CONFIRMED, CUT_OFF):
            finished[table_id] = finished.get(table_id, 0) + 1
        elif shown == DISPUTED:
            disputed[table_id] = disputed.get(table_id, 0) + 1

    def room(table_id: int | None, number: int | None) -> RoomProgress | None:
        if table_id is None or number is None:
            return None
        return RoomProgress(
            table_id=table_id,
            number=number,
            finished=finished.get(table_id, 0),
            disputed=disputed.get(table_id, 0),
            boards=boards,
        )

    return [
        MatchProgress(
            match_id=pk,
            number=number,
            home=home,
            away=away,
            open_room=room(open_id, open_number),
            closed_room=room(closed_id, closed_number),
        )
        for pk, number, home, away, open_id, open_number, closed_id, closed_number in (
            Match.objects.filter(round=round)
            .order_by("number")
            .values_list(
                "id",
                "number",
                "home__name",
                "away__name",
                "open_table_id",
                "open_table__number",
                "closed_table_id",
                "closed_table__number",
            )
        )
    ]


@dataclass(frozen=True)
class TeamStartSummary:
    """What starting a team event now would do (RULES 3, RULES 11)."""

    teams: int
    matches: int
    bye: bool
    pending: int  # teams still waiting for their members: they lapse at the start
    without_line_up: tuple[str, ...]  # the start is refused while any team has none


def team_start_summary(*, tournament: Tournament) -> TeamStartSummary:
    registered = list(
        Team.objects.filter(
            tournament=tournament, status=PairStatus.CONFIRMED, withdrawn_at__isnull=True
        ).values_list("name", "open_pair_id", "closed_pair_id")
    )
    pending = Team.objects.filter(tournament=tournament, status=PairStatus.PENDING).count()
    return TeamStartSummary(
        teams=len(registered),
        matches=len(registered) // 2,
        bye=len(registered) % 2 == 1,
        pending=pending,
        without_line_up=tuple(
            sorted(
                name
                for name, open_pair, closed_pair in registered
                if not (open_pair and closed_pair)
            )
        ),
    )
