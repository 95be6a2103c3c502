"""Scoring a round's boards across the field, running totals, standings, final results.

All of it is rewritten from the stored results every time, so re-scoring is
idempotent: the same results always give the same scores, totals and ranks. Work is
done in bulk (a handful of queries per round whatever the field size), and the
arithmetic is the pure `scoring` package.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any, cast

import numpy as np
from django.db import connection
from django.db.models import Count, Sum

import scoring

from .. import sql
from ..models import (
    Adjustment,
    Board,
    BoardResult,
    Direction,
    MasterPointAward,
    Pair,
    PairBoardScore,
    PairStatus,
    PlayerProfile,
    RankTitle,
    ResultState,
    Round,
    ScoringMethod,
    Standing,
    Table,
    Tournament,
    listed_in_results,
)
from .bulk import array_literal, update_columns

AVERAGE: dict[str, float] = {
    ScoringMethod.MP: 50.0,
    ScoringMethod.IMP: 0.0,
    ScoringMethod.XIMP: 0.0,
}


@dataclass(frozen=True)
class RoundScores:
    """The board scores `score_round` stored, one element per row, sorted by pair then
    board: the standings of the same bell total them from here instead of reading the
    rows just written back (`record_standings`). `points` is NaN where not completed;
    adjusted MP boards hold their flat figure (`update_totals` settles them)."""

    pair: np.ndarray  # int64
    points: np.ndarray  # float64
    completed: np.ndarray  # bool
    artificial: np.ndarray  # str codes ("" for a played board)


def score_round(
    *,
    round: Round,
    expected: int | dict[int, int] | None = None,
    byes: dict[int, tuple[int, ...]] | None = None,
) -> RoundScores:
    """Score every board of `round` across the field and store each pair's board scores.

    Adjusted scores are stored at their flat figures with their code; `update_totals`
    settles the MP ones against each pair's own percentage (RULES 5.4).

    Each board's results are handled as a few numpy columns (not one Python object per
    pair and board: 40,000 rows at 10,000 pairs), scored by the pure `scoring` core as
    the plain path scores them, and stored in one statement, on PostgreSQL a binary COPY
    (`sql.copy_rows`) in (pair, board) order, which keeps the unique (pair, board)
    index's inserts together. The scores are also left on `round` for the standings of
    the same bell (`record_standings`). `expected`: Neuberg's E for every board of the
    round when the format fixes it (a movement: `tables_expected`); None, E is each
    board's entries; or {board id: E} when each board has its own (travelling sets:
    `tables_expected_per_board`). `byes`: {board id: the pairs with a bye on it}
    (travelling sets: the pair facing the phantom in the round the phantom's table had
    the board); None, the round's bye pair has a bye on every board of the round.
    """
    tournament = round.tournament
    method = tournament.scoring_method
    board_ids = list(Board.objects.filter(round=round).values_list("id", flat=True))
    results = _round_results(round)
    # By the board ids just read: the ORM's delete through a join first selects the ids.
    PairBoardScore.objects.filter(board_id__in=board_ids).delete()
    blocks: list[tuple[np.ndarray, ...]] = []
    datums: list[int | None] = []
    for board_id in board_ids:
        at = np.flatnonzero(results.board == board_id)
        e = expected.get(board_id) if isinstance(expected, dict) else expected
        block, datum = _score_board(
            method, tournament.neuberg, e, board_id, results, at, tournament.datum_rounding
        )
        blocks.append(block)
        # A bye's boards count as completed and score average (RULES 4): an "A" that no
        # settling moves.
        if byes is None:
            bye_pairs: tuple[int, ...] = (round.bye_pair_id,) if round.bye_pair_id else ()
        else:
            bye_pairs = byes.get(board_id, ())
        for bye_pair in bye_pairs:
            blocks.append(_bye_row(bye_pair, board_id, AVERAGE[method]))
        datums.append(datum)
    columns = [np.concatenate(column) for column in zip(_NO_ROWS, *blocks, strict=True)]
    order = np.lexsort((columns[1], columns[0]))
    pair, board, result, direction, points, completed, artificial = (c[order] for c in columns)
    _store_scores(pair, board, result, direction, points, completed, artificial)
    if tournament.scoring_method == ScoringMethod.XIMP:
        update_columns(Board, "id", ["datum"], [board_ids, datums])
    scores = RoundScores(pair=pair, points=points, completed=completed, artificial=artificial)
    round.__dict__[_SCORED] = scores
    return scores


# Where `score_round` leaves its scores on the round for `record_standings`.
_SCORED = "_scores_of_this_bell"


def tables_expected(round: Round) -> int | None:
    """Neuberg's E as a movement has it (RULES 10, asked by its format): the round's
    tables, since each plays the round's boards. A table cut off with no score, which
    leaves no entry, counts; the phantom's pair has a bye and no table, so the boards
    nobody plays against it do not. None with Neuberg off or the IMP methods, which have
    nothing to rescale."""
    if not _rescaled(round.tournament):
        return None
    return Table.objects.filter(round=round).count()


def tables_expected_per_board(round: Round) -> dict[int, int] | None:
    """Neuberg's E of each board `round`'s bell completes when board sets travel
    (RULES 10): {board id: the tables of any round that play it}, a table cut off with no
    score counted, the phantom's (no table) not. None with nothing rescaled."""
    if not _rescaled(round.tournament):
        return None
    boards = dict(Board.objects.filter(round=round).values_list("id", "number"))
    counts = _set_counts(round.tournament_id, set(boards.values()))
    return {board_id: counts.get(number, 0) for board_id, number in boards.items()}


def _set_counts(tournament_id: int, numbers: set[int]) -> dict[int, int]:
    """{board number: the tables that play it} of `numbers`, board sets travelling."""
    counts = dict.fromkeys(numbers, 0)
    for first, last in Table.objects.filter(
        round__tournament_id=tournament_id, first_board__isnull=False
    ).values_list("first_board", "last_board"):
        for number in range(first or 0, (last or -1) + 1):
            if number in counts:
                counts[number] += 1
    return counts


def tables_expected_of(*, tournament: Tournament, rounds: list[Round]) -> dict[int, int]:
    """{board number: E} for the boards of `rounds`, as the bell scored them (one or two
    queries); empty when nothing is rescaled."""
    if not _rescaled(tournament) or not rounds:
        return {}
    if tournament.boards_travel:
        numbers = set(Board.objects.filter(round__in=rounds).values_list("number", flat=True))
        return _set_counts(tournament.pk, numbers)
    tables = dict(
        Table.objects.filter(round__in=rounds)
        .values("round")
        .annotate(count=Count("id"))
        .values_list("round", "count")
    )
    return {
        number: tables.get(r.pk, 0) for r in rounds for number in tournament.board_numbers(r.number)
    }


def _rescaled(tournament: Tournament) -> bool:
    return tournament.neuberg and tournament.scoring_method == ScoringMethod.MP


@dataclass(frozen=True)
class _Results:
    """A round's results as columns (one element per result)."""

    id: np.ndarray
    board: np.ndarray
    state: np.ndarray
    ns_score: np.ndarray  # object: int, or None unless played
    ns_adjustment: np.ndarray
    ew_adjustment: np.ndarray
    ns_pair: np.ndarray
    ew_pair: np.ndarray


def _round_results(round: Round) -> _Results:
    """Every result of `round`'s boards with the pairs of its table: one query, no
    ordering (the scores go in by pair and board) and no model instances."""
    result, table, board = sql.table(BoardResult), sql.table(Table), sql.table(Board)
    r = {name: sql.column(BoardResult, name) for name in _RESULT_COLUMNS}
    statement = (
        f"SELECT {', '.join(f'r.{c}' for c in r.values())},"
        f" t.{sql.column(Table, 'ns_pair')}, t.{sql.column(Table, 'ew_pair')}"
        f" FROM {result} AS r JOIN {table} AS t ON t.{sql.column(Table, 'id')} = r.{r['table']}"
        f" WHERE r.{r['board']} IN (SELECT b.{sql.column(Board, 'id')} FROM {board} AS b"
        f" WHERE b.{sql.column(Board, 'round')} = %s)"
    )
    with connection.cursor() as cursor:
        cursor.execute(statement, [round.pk])
        rows = cursor.fetchall()
    if not rows:
        empty = np.empty(0, dtype=np.int64)
        nothing = np.empty(0, dtype=object)
        return _Results(empty, empty, nothing, nothing, nothing, nothing, empty, empty)
    ids, _tables, boards, states, ns_scores, ns_adj, ew_adj, ns_pairs, ew_pairs = zip(
        *rows, strict=True
    )
    return _Results(
        id=np.array(ids, dtype=np.int64),
        board=np.array(boards, dtype=np.int64),
        state=np.array(states, dtype=object),
        ns_score=np.array(ns_scores, dtype=object),
        ns_adjustment=np.array(ns_adj, dtype=object),
        ew_adjustment=np.array(ew_adj, dtype=object),
        ns_pair=np.array(ns_pairs, dtype=np.int64),
        ew_pair=np.array(ew_pairs, dtype=np.int64),
    )


_RESULT_COLUMNS = ("id", "table", "board", "state", "ns_score", "ns_adjustment", "ew_adjustment")


def _score_board(
    method: str,
    neuberg: bool,
    expected: int | None,
    board_id: int,
    results: _Results,
    at: np.ndarray,
    datum_rounding: str = scoring.HALF_EVEN,
) -> tuple[tuple[np.ndarray, ...], int | None]:
    """The rows of one board's scores (the columns of PAIR_SCORE_FIELDS: first every
    result's NS row, then its EW row) and the board's datum (XIMP)."""
    state = results.state[at]
    played = (state == ResultState.PLAYED) | (state == ResultState.PASSED_OUT)
    adjusted = state == ResultState.ADJUSTED
    scored = np.flatnonzero(played | adjusted)
    n = at.size
    ns_points = np.full(n, np.nan)
    ew_points = np.full(n, np.nan)
    ns_code = np.full(n, "", dtype=object)
    ew_code = np.full(n, "", dtype=object)
    datum = None
    if scored.size:
        ns_adj, ew_adj = results.ns_adjustment[at], results.ew_adjustment[at]
        entries: Any
        if adjusted.any():
            # In the order of the results, each a played NS score or the two codes.
            score_of = results.ns_score[at]
            entries = [
                (ns_adj[i], ew_adj[i]) if adjusted[i] else score_of[i] for i in scored.tolist()
            ]
            ns_code[adjusted] = ns_adj[adjusted]
            ew_code[adjusted] = ew_adj[adjusted]
        else:
            entries = results.ns_score[at][scored].astype(np.int64)
        result = scoring.score_board(
            method, entries, neuberg=neuberg, expected=expected, datum_rounding=datum_rounding
        )
        datum = result.datum
        ns_points[scored] = result.ns_points
        ew_points[scored] = result.ew_points
    completed = played | adjusted
    ids = results.id[at]
    block = (
        np.concatenate((results.ns_pair[at], results.ew_pair[at])),
        np.full(2 * n, board_id, dtype=np.int64),
        np.concatenate((ids, ids)),
        np.repeat(np.array([Direction.NS.value, Direction.EW.value], dtype=object), n),
        np.concatenate((ns_points, ew_points)),
        np.concatenate((completed, completed)),
        np.concatenate((ns_code, ew_code)),
    )
    return block, datum


# The columns of no rows, in their types.
_NO_ROWS = (
    np.empty(0, dtype=np.int64),
    np.empty(0, dtype=np.int64),
    np.empty(0, dtype=np.int64),
    np.empty(0, dtype=object),
    np.empty(0),
    np.empty(0, dtype=bool),
    np.empty(0, dtype=object),
)


def _bye_row(pair_id: int, board_id: int, points: float) -> tuple[np.ndarray, ...]:
    return (
        np.array([pair_id], dtype=np.int64),
        np.array([board_id], dtype=np.int64),
        np.array([-1], dtype=np.int64),
        np.array([Direction.BYE.value], dtype=object),
        np.array([points]),
        np.array([True]),
        np.array([Adjustment.AVG.value], dtype=object),
    )


def _store_scores(pair, board, result, direction, points, completed, artificial) -> None:
    """The board scores in one statement (a binary COPY on PostgreSQL): a bye's row has
    no result (-1 here), a board not completed no points."""
    results = result.astype(object)
    results[result < 0] = None
    stored_points = points.astype(object)
    stored_points[~completed] = None
    columns = (pair, board, results, direction, stored_points, completed, artificial)
    rows = zip(*(column.tolist() for column in columns), strict=True)
    sql.copy_rows(PairBoardScore, PAIR_SCORE_FIELDS, rows)


PAIR_SCORE_FIELDS = ("pair", "board", "result", "direction", "points", "completed", "artificial")
ADJUSTMENT_CODES = (Adjustment.AVG_PLUS, Adjustment.AVG, Adjustment.AVG_MINUS)


def _pair_aggregates(tournament: Tournament, upto_round: int | None = None) -> list[tuple]:
    """Per registered pair: id, registration no., the sum and count of its played board
    scores and how many of each adjusted-score code it holds, from one grouped query and
    the list of the pairs.

    The board scores are aggregated alone, those of the tournament's boards only (by the
    board index, not a scan of every event's scores), and the pairs matched to the sums
    here. Joined in SQL, a planner whose statistics did not yet count a tournament's
    pairs (registered in bulk, or new since the last ANALYZE) took them for one row and
    ran the aggregate again for every pair: 22 s at the bell of 2,000 pairs.
    """
    listed = (
        Pair.objects.filter(tournament=tournament, status=PairStatus.CONFIRMED)
        .filter(listed_in_results())  # not a pair withdrawn before it was seated (RULES 1)
        .order_by()
        .values_list("id", "registration_no")
    )
    score = sql.table(PairBoardScore)
    artificial, completed = (sql.column(PairBoardScore, n) for n in ("artificial", "completed"))
    counts = ", ".join(f"COUNT(*) FILTER (WHERE s.{artificial} = %s)" for _code in ADJUSTMENT_CODES)
    upto = ""
    params: list = ["", "", *ADJUSTMENT_CODES, tournament.pk]
    if upto_round is not None:
        upto = (
            f" AND b.{sql.column(Board, 'round')} IN (SELECT r.{sql.column(Round, 'id')}"
            f" FROM {sql.table(Round)} AS r WHERE r.{sql.column(Round, 'tournament')} = %s"
            f" AND r.{sql.column(Round, 'number')} <= %s)"
        )
        params += [tournament.pk, upto_round]
    statement = (
        f"SELECT s.{sql.column(PairBoardScore, 'pair')},"
        f" SUM(s.{sql.column(PairBoardScore, 'points')}) FILTER (WHERE s.{artificial} = %s),"
        f" COUNT(*) FILTER (WHERE s.{artificial} = %s), {counts}"
        f" FROM {score} AS s JOIN {sql.table(Board)} AS b"
        f" ON b.{sql.column(Board, 'id')} = s.{sql.column(PairBoardScore, 'board')}"
        f" WHERE b.{sql.column(Board, 'tournament')} = %s AND s.{completed}{upto}"
        f" GROUP BY s.{sql.column(PairBoardScore, 'pair')}"
    )
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # The listed-pairs filter's subqueries make the planner cost its query far
            # above what it runs, past `jit_above_cost`: at 10,000 pairs compiling it
            # took 0.2 s, longer than the query (issue 23). For the rest of the
            # transaction, the close's other statements being no better served.
            cursor.execute("SET LOCAL jit = off")
        cursor.execute(statement, params)
        sums = {pair_id: rest for pair_id, *rest in cursor.fetchall()}
    nothing = (None, 0, *(0 for _code in ADJUSTMENT_CODES))  # no completed board yet
    return [(pair_id, reg_no, *sums.get(pair_id, nothing)) for pair_id, reg_no in listed]


def _standings_rows(tournament: Tournament, upto_round: int | None = None, *, settle=None):
    """(pair_id, registration_no, total, boards_completed) for every registered pair.

    `settle`, if given, collects {pair_id: (A+ value, A- value)} for every pair with MP
    adjusted boards.
    """
    method = tournament.scoring_method
    aggregates = _pair_aggregates(tournament, upto_round)
    totals = scoring.pair_totals(
        method,
        ADJUSTMENT_CODES,
        (
            (played_sum or 0.0, played_count, counts)
            for _, _, played_sum, played_count, *counts in aggregates
        ),
    )
    rows = [
        (pair_id, reg_no, round_total(total), played_count + sum(code_counts))
        for (pair_id, reg_no, _sum, played_count, *code_counts), total in zip(
            aggregates, totals, strict=True
        )
    ]
    if settle is not None and method == ScoringMethod.MP:
        plus, minus = (
            ADJUSTMENT_CODES.index(c) for c in (Adjustment.AVG_PLUS, Adjustment.AVG_MINUS)
        )
        for pair_id, _reg, played_sum, played_count, *code_counts in aggregates:
            if code_counts[plus] or code_counts[minus]:
                own = scoring.own_percentage(played_sum or 0.0, played_count)
                settle[pair_id] = (
                    scoring.settled_artificial(method, Adjustment.AVG_PLUS, own),
                    scoring.settled_artificial(method, Adjustment.AVG_MINUS, own),
                )
    return rows


def round_total(value: float) -> float:
    # Totals are shown to two decimals; rounding here keeps ties exact (e.g. 1/3 + 2/3).
    return round(value, 6)


def standings_order_key(row) -> tuple:
    _pair_id, reg_no, total, boards_completed = row
    return scoring.standing_key(total, boards_completed, reg_no)


def update_totals(
    *, tournament: Tournament, settled: dict[int, tuple[float, float]] | None = None
) -> list[tuple]:
    """Rewrite every pair's running total and boards completed from its board scores, and
    settle its MP adjusted boards against its own percentage (RULES 5.4).

    `settled`, if given, receives {pair_id: (A+ figure, A- figure)} of every pair whose
    MP adjusted boards were settled (for the standings of the same bell)."""
    settle: dict[int, tuple[float, float]] = {} if settled is None else settled
    rows = _standings_rows(tournament, settle=settle)
    _bulk_set_pair_totals(rows)
    _settle_adjusted_boards(tournament, settle)
    return rows


def _settle_adjusted_boards(tournament: Tournament, settle: dict[int, tuple[float, float]]):
    """Each pair's A+ and A- boards show the figure its total counted."""
    if not settle:
        return
    if connection.vendor == "postgresql":
        points = sql.column(PairBoardScore, "points")
        artificial = f"s.{sql.column(PairBoardScore, 'artificial')}"
        settled = f"CASE {artificial} WHEN %s THEN v.plus ELSE v.minus END"
        pair_field, points_field = (
            sql.concrete_field(PairBoardScore, n) for n in ("pair", "points")
        )
        params: list = [
            Adjustment.AVG_PLUS,
            array_literal(pair_field, list(settle)),
            array_literal(points_field, [plus for plus, _minus in settle.values()]),
            array_literal(points_field, [minus for _plus, minus in settle.values()]),
            Adjustment.AVG_PLUS,
            Adjustment.AVG_MINUS,
            Adjustment.AVG_PLUS,
        ]
        with connection.cursor() as cursor:
            cursor.execute(
                f"UPDATE {sql.table(PairBoardScore)} AS s SET {points} = {settled} "
                "FROM unnest(%s::bigint[], %s::float8[], %s::float8[]) AS v(pair_id, plus, minus) "
                f"WHERE s.{sql.column(PairBoardScore, 'pair')} = v.pair_id"
                f" AND {artificial} IN (%s, %s) AND s.{points} <> {settled}",
                params,
            )
        return
    adjusted = PairBoardScore.objects.filter(pair__tournament=tournament)
    for pair_id, (plus, minus) in settle.items():
        adjusted.filter(pair_id=pair_id, artificial=Adjustment.AVG_PLUS).update(points=plus)
        adjusted.filter(pair_id=pair_id, artificial=Adjustment.AVG_MINUS).update(points=minus)


def _bulk_set_pair_totals(rows) -> None:
    # One UPDATE … FROM unnest(…) on PostgreSQL: the bell at 10,000 pairs.
    ids, _regs, totals, counts = (list(c) for c in zip(*rows, strict=True)) if rows else ([],) * 4
    update_columns(Pair, "id", ("total", "boards_completed"), [ids, totals, counts])


def record_standings(
    *,
    round: Round,
    rows: list[tuple] | None = None,
    settled: dict[int, tuple[float, float]] | None = None,
) -> None:
    """Store each pair's total and position after `round` (the pair page's history).

    At the bell the caller passes the totals it has just computed (`update_totals`) and
    the MP adjusted figures it settled (`settled`); the round scores then come from the
    board scores `score_round` left on `round` in the same transaction. A re-score of an
    earlier round recomputes the totals and reads the round scores back from the stored
    board scores, which `update_totals` has settled.
    """
    tournament = round.tournament
    method = tournament.scoring_method
    scores = round.__dict__.pop(_SCORED, None)
    if rows is None:
        rows = _standings_rows(tournament, upto_round=round.number)
        scores = None
    if scores is not None and (settled is not None or method != ScoringMethod.MP):
        round_points = _round_scores_of(method, scores, settled or {})
    else:
        round_points = _round_scores(round)
    Standing.objects.filter(round=round).delete()
    ordered = sorted(rows, key=standings_order_key)
    fields = pair_fields(tournament)
    if fields is None:
        positions: list[int] = list(range(1, len(ordered) + 1))
    else:
        # Two winners: each pair's position in its own field (RULES 10).
        positions = scoring.field_positions(
            [(fields.get(row[0], ""), standings_order_key(row)) for row in ordered]
        )
    standings = [
        (pair_id, round.id, round_points.get(pair_id), total, count, position)
        for position, (pair_id, _reg, total, count) in zip(positions, ordered, strict=True)
    ]
    sql.copy_rows(Standing, STANDING_FIELDS, standings)


def pair_fields(tournament: Tournament) -> dict[int, str] | None:
    """{pair_id: "NS" | "EW"}, the field each pair is ranked in, when the tournament has
    two winners (RULES 10: `Pair.field`, fixed when round 1 is seated); None, and no
    query, when it has one."""
    if tournament.winners != 2:
        return None
    return dict(
        Pair.objects.filter(tournament=tournament, status=PairStatus.CONFIRMED)
        .order_by()
        .values_list("id", "field")
    )


STANDING_FIELDS = ("pair", "round", "round_score", "total", "boards_completed", "position")


def _round_scores(round: Round) -> dict[int, float]:
    points: dict[int, list[float]] = defaultdict(list)
    score = sql.table(PairBoardScore)
    pair, value, completed, board = (
        sql.column(PairBoardScore, n) for n in ("pair", "points", "completed", "board")
    )
    statement = (
        f"SELECT s.{pair}, s.{value} FROM {score} AS s WHERE s.{completed} AND s.{board}"
        f" IN (SELECT b.{sql.column(Board, 'id')} FROM {sql.table(Board)} AS b"
        f" WHERE b.{sql.column(Board, 'round')} = %s)"
    )
    with connection.cursor() as cursor:
        cursor.execute(statement, [round.pk])
        for pair_id, board_points in cursor.fetchall():
            points[pair_id].append(board_points)  # a completed board has its points
    method = round.tournament.scoring_method
    totals = scoring.running_totals(method, points.values())
    return {pid: round_total(total) for pid, total in zip(points, totals, strict=True)}


def _round_scores_of(
    method: str, scores: RoundScores, settled: dict[int, tuple[float, float]]
) -> dict[int, float]:
    """`_round_scores` from the board scores of the bell, as the database holds them
    once settled: each pair's A+ and A- boards at its settled figure (MP)."""
    done = np.flatnonzero(scores.completed)
    pair = scores.pair[done]
    points = scores.points[done]  # a copy: the settled figures go in here only
    if settled:
        codes = scores.artificial[done]
        for code, side in ((Adjustment.AVG_PLUS, 0), (Adjustment.AVG_MINUS, 1)):
            for at in np.flatnonzero(codes == code).tolist():
                figures = settled.get(int(pair[at]))
                if figures is not None:
                    points[at] = figures[side]
    if not pair.size:
        return {}
    # Sorted by pair: each pair's boards are one run.
    starts = np.flatnonzero(np.concatenate(([True], pair[1:] != pair[:-1])))
    bounds = np.append(starts, pair.size).tolist()
    values = points.tolist()
    totals = scoring.running_totals(
        method, (values[a:b] for a, b in zip(bounds[:-1], bounds[1:], strict=True))
    )
    return {
        pid: round_total(total) for pid, total in zip(pair[starts].tolist(), totals, strict=True)
    }


def finalize_results(*, tournament: Tournament, now: datetime) -> None:
    """Completion, ranking and master points (RULES 6, 7); safe to run again after a re-score.

    Two winners (RULES 10): the NS and the EW pairs are ranked as two fields, each with
    its own completers, ranks and master points (F the field's completers)."""
    rows = update_totals(tournament=tournament)
    pairs = {
        p.id: p for p in Pair.objects.filter(tournament=tournament, status=PairStatus.CONFIRMED)
    }
    two_fields = tournament.winners == 2
    ranked = scoring.rank_pairs(
        [
            scoring.PairTotal(
                pair_id=pair_id,
                total=total,
                boards_completed=count,
                registration_no=reg,
                field=pairs[pair_id].field if two_fields else "",
            )
            for pair_id, reg, total, count in rows
        ],
        total_boards=tournament.total_boards,
        threshold=float(tournament.completion_threshold) / 100.0,
    )
    for entry in ranked:
        pair = pairs[entry.pair_id]
        pair.completed = entry.completed
        pair.rank = entry.rank
        pair.master_points = Decimal(entry.master_points)
    Pair.objects.bulk_update(
        list(pairs.values()), ["completed", "rank", "master_points"], batch_size=1000
    )

    previous_users = set(
        MasterPointAward.objects.filter(tournament=tournament).values_list("user_id", flat=True)
    )
    MasterPointAward.objects.filter(tournament=tournament).delete()
    awards = []
    for entry in ranked:
        if entry.master_points <= 0:
            continue
        pair = pairs[entry.pair_id]
        for user_id in (pair.player1_id, pair.player2_id):
            awards.append(
                MasterPointAward(
                    tournament=tournament,
                    pair=pair,
                    user_id=user_id,
                    rank=cast(int, entry.rank),  # master points go to ranked pairs only
                    points=Decimal(entry.master_points),
                    awarded_at=now,
                )
            )
    MasterPointAward.objects.bulk_create(awards)
    refresh_master_point_totals(user_ids=previous_users | {a.user_id for a in awards})


def refresh_master_point_totals(*, user_ids) -> None:
    """Each player's master-point total is the sum of their awards (idempotent)."""
    totals = dict(
        MasterPointAward.objects.filter(user_id__in=user_ids)
        .values("user_id")
        .annotate(total=Sum("points"))
        .values_list("user_id", "total")
    )
    profiles = list(PlayerProfile.objects.filter(user_id__in=user_ids))
    for profile in profiles:
        profile.master_points = totals.get(profile.user_id) or Decimal(0)
    PlayerProfile.objects.bulk_update(profiles, ["master_points"], batch_size=1000)


def title_for(master_points) -> RankTitle | None:
    """The highest rank title whose threshold the total reaches."""
    return (
        RankTitle.objects.filter(min_master_points__lte=master_points)
        .order_by("-min_master_points", "-level")
        .first()
    )
