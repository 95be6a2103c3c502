"""Reads for pages, API and exports: plain data built from a bounded number of queries.

Every function here costs a fixed number of queries whatever the field size, so a
2,000-pair event's standings, results and board pages stay fast.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime

from django.db.models import Prefetch, Q
from django.utils import timezone

import scoring

from .models import (
    Board,
    BoardResult,
    Pair,
    PairBoardScore,
    PairStatus,
    Round,
    RoundStatus,
    Standing,
    Table,
    Tournament,
    TournamentStatus,
)

PAIR_PLAYERS = ("player1__profile", "player2__profile")


def confirmed_pairs(tournament: Tournament):
    return Pair.objects.filter(tournament=tournament, status=PairStatus.CONFIRMED).select_related(
        *PAIR_PLAYERS
    )


def current_round(tournament: Tournament) -> Round | None:
    """The latest round (open, seated or just closed), or None before the start."""
    return Round.objects.filter(tournament=tournament).order_by("-number").first()


def deal_visible(board: Board, round: Round | None = None) -> bool:
    """Hand records only once the board's round has closed (SPEC 2)."""
    round = round or board.round
    return round.status == RoundStatus.CLOSED


@dataclass
class TournamentCard:
    tournament: Tournament
    pair_count: int
    round: Round | None = None
    winners: list[Pair] = field(default_factory=list)
    registration_open: bool = False


def tournament_cards(*, now: datetime | None = None, limit: int = 20) -> dict[str, list]:
    """Home page: upcoming, running and finished tournaments (a few queries in all)."""
    from django.db.models import Count

    now = now or timezone.now()
    tournaments = list(
        Tournament.objects.annotate(
            n_pairs=Count("pairs", filter=Q(pairs__status=PairStatus.CONFIRMED))
        ).order_by("-start_at")[: limit * 3]
    )
    ids = [t.id for t in tournaments]
    latest: dict[int, Round] = {}
    for r in Round.objects.filter(tournament_id__in=ids).order_by("tournament_id", "number"):
        latest[r.tournament_id] = r
    winners: dict[int, list[Pair]] = defaultdict(list)
    for pair in (
        Pair.objects.filter(tournament_id__in=ids, rank__in=[1, 2, 3])
        .select_related(*PAIR_PLAYERS)
        .order_by("rank")
    ):
        winners[pair.tournament_id].append(pair)
    groups: dict[str, list] = {"upcoming": [], "running": [], "finished": []}
    for t in tournaments:
        card = TournamentCard(
            tournament=t, pair_count=t.n_pairs, round=latest.get(t.id), winners=winners[t.id]
        )
        if t.status == TournamentStatus.FINISHED:
            groups["finished"].append(card)
        elif t.status == TournamentStatus.SCHEDULED and card.round is None:
            card.registration_open = t.registration_opens_at <= now
            groups["upcoming"].append(card)
        else:
            groups["running"].append(card)
    groups["upcoming"].reverse()  # soonest first
    return {k: v[:limit] for k, v in groups.items()}


@dataclass(frozen=True)
class PlayerName:
    username: str
    name: str  # the display name, or the username when there is none


def _player(username: str, display_name: str | None) -> PlayerName:
    # As PlayerProfile.name: the display name, else the username (also without a profile).
    return PlayerName(username=username, name=display_name or username)


@dataclass(frozen=True)
class StandingRow:
    """One pair in the standings as plain data: what the pages, the API and the exports
    show, and cheap to cache (no ORM objects)."""

    pair_id: int
    registration_no: int
    players: tuple[PlayerName, PlayerName]
    user_ids: tuple[int, int]
    position: int
    rank: int | None
    total: float
    boards_completed: int
    completion: float
    completed: bool
    master_points: float
    withdrawn: bool
    names: str
    search: str  # names and usernames, case-folded, for "find a pair"


def standings(*, tournament: Tournament) -> list[StandingRow]:
    """Live standings (after the last closed round) or the final ranking. One query.

    Read as plain values: at 2,000 pairs, building the pairs, users and profiles as
    model instances was most of the time of the first page view after a close.
    """
    from django.contrib.auth import get_user_model

    username = get_user_model().USERNAME_FIELD
    pairs = Pair.objects.filter(tournament=tournament, status=PairStatus.CONFIRMED).values_list(
        "id", "registration_no", "total", "boards_completed", "rank", "completed",
        "master_points", "withdrawn_at",
        "player1_id", f"player1__{username}", "player1__profile__display_name",
        "player2_id", f"player2__{username}", "player2__profile__display_name",
    )  # fmt: skip
    finished = tournament.status == TournamentStatus.FINISHED
    total_boards = tournament.total_boards
    threshold = float(tournament.completion_threshold) / 100.0

    def order(p: tuple):
        _id, number, total, boards, rank = p[:5]
        if finished:
            # Completers by rank, then non-completers in the same order (SPEC 6).
            return (rank is None, rank or 0, -total, -boards, number)
        return (-total, -boards, number)

    rows = []
    for position, pair in enumerate(sorted(pairs, key=order), start=1):
        (pair_id, number, total, boards, rank, completed, master_points, withdrawn_at,
         user1, username1, shown1, user2, username2, shown2) = pair  # fmt: skip
        completion = scoring.completion(boards, total_boards)
        players = (_player(username1, shown1), _player(username2, shown2))
        names = " – ".join(p.name for p in players)
        rows.append(
            StandingRow(
                pair_id=pair_id,
                registration_no=number,
                players=players,
                names=names,
                search=" ".join([names, username1, username2]).casefold(),
                user_ids=(user1, user2),
                position=position,
                rank=rank if finished else None,
                total=total,
                boards_completed=boards,
                completion=completion,
                completed=completed if finished else completion + 1e-9 >= threshold,
                master_points=float(master_points),
                withdrawn=withdrawn_at is not None,
            )
        )
    return rows


def board_score_grid(*, tournament: Tournament) -> dict[int, dict[int, tuple]]:
    """{pair_id: {board_number: (points, completed, direction)}} for the results page
    (one query)."""
    grid: dict[int, dict[int, tuple]] = defaultdict(dict)
    rows = PairBoardScore.objects.filter(
        pair__tournament=tournament, board__round__status=RoundStatus.CLOSED
    ).values_list("pair_id", "board__number", "points", "completed", "direction")
    for pair_id, number, points, completed, direction in rows:
        grid[pair_id][number] = (points, completed, direction)
    return grid


def closed_board_numbers(tournament: Tournament) -> list[int]:
    return list(
        Board.objects.filter(tournament=tournament, round__status=RoundStatus.CLOSED)
        .order_by("number")
        .values_list("number", flat=True)
    )


@dataclass
class BoardLine:
    result: BoardResult
    table: Table
    ns_points: float | None
    ew_points: float | None


def board_detail(*, tournament: Tournament, number: int) -> tuple[Board, list[BoardLine]]:
    """A board and every result of it, with each side's points (three queries)."""
    board = Board.objects.select_related("round").get(tournament=tournament, number=number)
    results = list(
        BoardResult.objects.filter(board=board)
        .select_related(
            "table__ns_pair__player1__profile",
            "table__ns_pair__player2__profile",
            "table__ew_pair__player1__profile",
            "table__ew_pair__player2__profile",
            "entered_by",
        )
        .order_by("table__number")
    )
    points = {
        (result_id, direction): value
        for result_id, direction, value in PairBoardScore.objects.filter(board=board).values_list(
            "result_id", "direction", "points"
        )
    }
    lines = [
        BoardLine(
            result=r,
            table=r.table,
            ns_points=points.get((r.id, "NS")),
            ew_points=points.get((r.id, "EW")),
        )
        for r in results
    ]
    # Highest NS score first, as a traveller is read; unscored boards last.
    lines.sort(
        key=lambda line: (
            line.result.ns_score is None,
            -(line.result.ns_score or 0),
            line.table.number,
        )
    )
    return board, lines


@dataclass
class PairRound:
    round: Round
    direction: str  # "NS", "EW", "BYE" or "" (not seated: withdrawn)
    table: Table | None
    opponents: Pair | None
    board_scores: list[tuple[int, float | None]]
    round_score: float | None
    total: float | None
    position: int | None


def pair_history(*, pair: Pair) -> list[PairRound]:
    """Round by round for the pair page (five queries)."""
    tournament = pair.tournament
    rounds = list(Round.objects.filter(tournament=tournament).order_by("number"))
    tables = {
        t.round_id: t
        for t in Table.objects.filter(
            Q(ns_pair=pair) | Q(ew_pair=pair), round__tournament=tournament
        ).select_related(
            "ns_pair__player1__profile",
            "ns_pair__player2__profile",
            "ew_pair__player1__profile",
            "ew_pair__player2__profile",
        )
    }
    scores: dict[int, list[tuple[int, float | None]]] = defaultdict(list)
    for round_id, number, value in (
        PairBoardScore.objects.filter(pair=pair)
        .values_list("board__round_id", "board__number", "points")
        .order_by("board__number")
    ):
        scores[round_id].append((number, value))
    standings_by_round = {s.round_id: s for s in Standing.objects.filter(pair=pair)}
    history = []
    for r in rounds:
        table = tables.get(r.id)
        if table is not None:
            direction = "NS" if table.ns_pair_id == pair.id else "EW"
            opponents = table.ew_pair if direction == "NS" else table.ns_pair
        else:
            direction = "BYE" if r.bye_pair_id == pair.id else ""
            opponents = None
        standing = standings_by_round.get(r.id)
        history.append(
            PairRound(
                round=r,
                direction=direction,
                table=table,
                opponents=opponents,
                board_scores=scores.get(r.id, []),
                round_score=standing.round_score if standing else None,
                total=standing.total if standing else None,
                position=standing.position if standing else None,
            )
        )
    return history


def seat_of_user(*, tournament: Tournament, user, round: Round | None = None):
    """(pair, table or None, direction) of a logged-in player in the current round."""
    if not user.is_authenticated:
        return None, None, ""
    pair = (
        Pair.objects.filter(tournament=tournament, members__user=user)
        .select_related(*PAIR_PLAYERS)
        .first()
    )
    round = round or current_round(tournament)
    if pair is None or round is None:
        return pair, None, ""
    table = (
        Table.objects.filter(Q(ns_pair=pair) | Q(ew_pair=pair), round=round)
        .select_related(
            "round",
            "ns_pair__player1__profile",
            "ns_pair__player2__profile",
            "ew_pair__player1__profile",
            "ew_pair__player2__profile",
        )
        .first()
    )
    if table is None:
        return pair, None, "BYE" if round.bye_pair_id == pair.id else ""
    return pair, table, "NS" if table.ns_pair_id == pair.id else "EW"


@dataclass(frozen=True)
class SeatedPair:
    id: int
    registration_no: int
    players: tuple[PlayerName, PlayerName]

    @property
    def names(self) -> str:
        return " – ".join(p.name for p in self.players)


@dataclass(frozen=True)
class SeatingRow:
    """A table of a round's seating as plain data (what the seating list and the API
    show; a 1,000-table round is read and rendered at every close)."""

    id: int
    number: int
    ns_pair: SeatedPair
    ew_pair: SeatedPair


def round_seating(*, round: Round) -> list[SeatingRow]:
    """The round's tables in order with both pairs and their players. One query."""
    from django.contrib.auth import get_user_model

    username = get_user_model().USERNAME_FIELD
    sides = []
    for side in ("ns_pair", "ew_pair"):
        sides += [f"{side}_id", f"{side}__registration_no"]
        for player in ("player1", "player2"):
            sides += [f"{side}__{player}__{username}", f"{side}__{player}__profile__display_name"]
    rows = Table.objects.filter(round=round).order_by("number").values_list("id", "number", *sides)

    def pair(values: tuple) -> SeatedPair:
        pair_id, number, username1, shown1, username2, shown2 = values
        return SeatedPair(
            id=pair_id,
            registration_no=number,
            players=(_player(username1, shown1), _player(username2, shown2)),
        )

    return [
        SeatingRow(id=row[0], number=row[1], ns_pair=pair(row[2:8]), ew_pair=pair(row[8:14]))
        for row in rows
    ]


def round_with_boards(*, tournament: Tournament, number: int) -> Round:
    return Round.objects.prefetch_related(
        Prefetch("boards", queryset=Board.objects.order_by("number"))
    ).get(tournament=tournament, number=number)


# --- Players' pages (issue 6) -------------------------------------------------------


def open_proposals(*, user) -> tuple[list[Pair], list[Pair]]:
    """(made, received): `user`'s pending proposals in tournaments still taking entries,
    in one query (home page)."""
    if not user.is_authenticated:
        return [], []
    return _made_and_received(
        Pair.objects.filter(
            status=PairStatus.PENDING, tournament__status=TournamentStatus.SCHEDULED
        )
        .filter(Q(player1=user) | Q(player2=user))
        .select_related("tournament", *PAIR_PLAYERS)
        .order_by("tournament__start_at", "proposed_at", "id"),
        user,
    )


def _made_and_received(pending, user) -> tuple[list[Pair], list[Pair]]:
    made, received = [], []
    for pair in pending:
        (made if pair.player1_id == user.pk else received).append(pair)
    return made, received


def proposals_in(*, tournament: Tournament, user) -> tuple[list[Pair], list[Pair]]:
    """(made, received): `user`'s pending proposals in `tournament`, in one query. None
    once the tournament has started: the clock's start lapses them."""
    if not user.is_authenticated or tournament.status != TournamentStatus.SCHEDULED:
        return [], []
    return _made_and_received(
        Pair.objects.filter(tournament=tournament, status=PairStatus.PENDING)
        .filter(Q(player1=user) | Q(player2=user))
        .select_related(*PAIR_PLAYERS)
        .order_by("proposed_at", "id"),
        user,
    )


def player_history(*, user) -> list[Pair]:
    """Every registered pair of the player, newest tournament first (profile page)."""
    return list(
        Pair.objects.filter(members__user=user, status=PairStatus.CONFIRMED)
        .select_related("tournament", *PAIR_PLAYERS)
        .order_by("-tournament__start_at", "-tournament_id")
    )


def live_version(*, tournament_id: int) -> str | None:
    """A fingerprint of what the live part of a tournament page shows, in one query.

    It changes when the tournament starts, pauses or finishes, when a round opens,
    closes or is extended, when a pair withdraws, and when standings are rewritten (a
    close or a re-score recreates the Standing rows, so their highest id moves).
    Polling pages compare it and re-render only when it moved; the pages also key
    their caches on it. None when there is no such tournament.

    Every open page asks for it every few seconds, so it is one fixed statement: the
    ORM would spend longer composing the subqueries than PostgreSQL spends running them.
    """
    from . import sql

    tournaments, rounds = sql.quote(Tournament._meta.db_table), sql.quote(Round._meta.db_table)
    row = sql.fetch_one(
        "SELECT t.status, t.paused_at, t.start_at,"
        " r.id, r.status, r.starts_at, r.ends_at,"
        f" (SELECT max(s.id) FROM {sql.quote(Standing._meta.db_table)} s"
        f"   WHERE s.round_id = (SELECT c.id FROM {rounds} c"
        "     WHERE c.tournament_id = t.id AND c.status = %s"
        "     ORDER BY c.number DESC LIMIT 1)),"
        f" (SELECT count(*) FROM {sql.quote(Pair._meta.db_table)} p"
        "   WHERE p.tournament_id = t.id AND p.withdrawn_at IS NOT NULL)"
        f" FROM {tournaments} t"
        f" LEFT JOIN {rounds} r ON r.id = (SELECT l.id FROM {rounds} l"
        "   WHERE l.tournament_id = t.id ORDER BY l.number DESC LIMIT 1)"
        " WHERE t.id = %s",
        [RoundStatus.CLOSED.value, tournament_id],
    )
    if row is None:
        return None
    return "|".join(v.isoformat() if isinstance(v, datetime) else str(v) for v in row)


@dataclass
class TableBoard:
    board: Board
    result: BoardResult | None


def table_sheet(*, table: Table) -> list[TableBoard]:
    """The boards of a table's round with the table's result of each (two queries)."""
    boards = list(Board.objects.filter(round_id=table.round_id).order_by("number"))
    results = {
        r.board_id: r
        for r in BoardResult.objects.filter(table=table).select_related(
            "entered_by__profile", "confirmed_by__profile"
        )
    }
    return [TableBoard(board=b, result=results.get(b.id)) for b in boards]


@dataclass(frozen=True)
class TableSnapshot:
    """What a table page's poll compares, read in one fixed statement."""

    player_ids: frozenset[int]
    round_status: str
    round_ends_at: datetime
    tournament_status: str
    # (board number, (result id, state, NS score, entered at, confirmed at, disputed) or None)
    results: tuple[tuple[int, tuple | None], ...]


def table_snapshot(*, tournament_id: int, table_id: int) -> TableSnapshot | None:
    """The seats, round state and each board's result fields of a table (None when the
    table is not in that tournament). Every open table page polls every few seconds, so
    this is the one statement of an unchanged poll."""
    from . import sql

    q = sql.quote
    rows = sql.fetch_all(
        "SELECT r.status, r.ends_at, t.status,"
        " ns.player1_id, ns.player2_id, ew.player1_id, ew.player2_id,"
        " b.number, br.id, br.state, br.ns_score, br.entered_at, br.confirmed_at, br.disputed"
        f" FROM {q(Table._meta.db_table)} tb"
        f" JOIN {q(Round._meta.db_table)} r ON r.id = tb.round_id"
        f" JOIN {q(Tournament._meta.db_table)} t ON t.id = r.tournament_id"
        f" JOIN {q(Pair._meta.db_table)} ns ON ns.id = tb.ns_pair_id"
        f" JOIN {q(Pair._meta.db_table)} ew ON ew.id = tb.ew_pair_id"
        f" LEFT JOIN {q(Board._meta.db_table)} b ON b.round_id = r.id"
        f" LEFT JOIN {q(BoardResult._meta.db_table)} br"
        "   ON br.board_id = b.id AND br.table_id = tb.id"
        " WHERE tb.id = %s AND r.tournament_id = %s"
        " ORDER BY b.number",
        [table_id, tournament_id],
    )
    if not rows:
        return None
    first = rows[0]
    results = []
    for row in rows:
        number, result_id, state, ns_score, entered_at, confirmed_at, disputed = row[7:]
        if number is None:
            continue  # a round without boards
        values = None
        if result_id is not None:
            values = (result_id, state, ns_score, sql.timestamp(entered_at),
                      sql.timestamp(confirmed_at), bool(disputed))  # fmt: skip
        results.append((number, values))
    return TableSnapshot(
        player_ids=frozenset(first[3:7]),
        round_status=first[0],
        round_ends_at=sql.timestamp(first[1]),
        tournament_status=first[2],
        results=tuple(results),
    )


def current_tables(*, user) -> list[Table]:
    """Where `user` sits now: their table in the latest round of each tournament in play
    (home page: "your table"). One query."""
    from django.db.models import OuterRef, Subquery

    if not user.is_authenticated:
        return []
    latest = (
        Round.objects.filter(tournament=OuterRef("round__tournament"))
        .order_by("-number")
        .values("id")[:1]
    )
    return list(
        Table.objects.filter(
            Q(ns_pair__members__user=user) | Q(ew_pair__members__user=user),
            round_id=Subquery(latest),
            round__status__in=[RoundStatus.SCHEDULED, RoundStatus.OPEN],
            round__tournament__status__in=[TournamentStatus.RUNNING, TournamentStatus.PAUSED],
        )
        .select_related(
            "round__tournament",
            "ns_pair__player1__profile",
            "ns_pair__player2__profile",
            "ew_pair__player1__profile",
            "ew_pair__player2__profile",
        )
        .distinct()
        .order_by("round__tournament__start_at")
    )
