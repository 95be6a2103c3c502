"""Scoring a round's boards across the field, running totals, standings, final results.

All of it is rewritten from the stored results every time, so re-scoring is
idempotent: the same results always give the same scores, totals and ranks. Work is
done in bulk (a handful of queries per round whatever the field size), and the
arithmetic is the pure `scoring` package.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime
from decimal import Decimal
from typing import Any, cast

from django.db import connection
from django.db.models import Sum

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
    Tournament,
    listed_in_results,
)
from .bulk import array_literal, insert_columns, insert_rows, update_columns

AVERAGE: dict[str, float] = {
    ScoringMethod.MP: 50.0,
    ScoringMethod.IMP: 0.0,
    ScoringMethod.XIMP: 0.0,
}


def score_round(*, round: Round) -> None:
    """Score every board of `round` across the field and store each pair's board scores.

    Adjusted scores are stored at their flat figures with their code; `update_totals`
    settles the MP ones against each pair's own percentage (RULES 5.4).

    The scores go in column by column (`bulk.insert_columns`), each board's results as a
    few lists, not one tuple per pair and board: 40,000 rows at 10,000 pairs.
    """
    tournament = round.tournament
    method = tournament.scoring_method
    board_ids = list(Board.objects.filter(round=round).values_list("id", flat=True))
    rows = BoardResult.objects.filter(board__round=round).values_list(
        "id",
        "board_id",
        "state",
        "ns_score",
        "ns_adjustment",
        "ew_adjustment",
        "table__ns_pair_id",
        "table__ew_pair_id",
    )
    by_board: dict[int, list[tuple]] = defaultdict(list)
    for row in rows:
        by_board[row[1]].append(row)

    # By the board ids just read: the ORM's delete through a join first selects the ids.
    PairBoardScore.objects.filter(board_id__in=board_ids).delete()
    # The columns of PAIR_SCORE_FIELDS; each result gives its NS row then its EW row.
    pairs: list = []
    boards: list = []
    results: list = []
    directions: list = []
    points: list = []
    completed: list = []
    artificial: list = []
    played = (ResultState.PLAYED, ResultState.PASSED_OUT)
    datums: list[int | None] = []
    for board_id in board_ids:
        scored: list[tuple] = []
        entries: list[Any] = []  # NS score or the two codes
        unscored: list[tuple] = []
        for row in by_board.get(board_id, ()):
            state = row[2]
            if state in played:
                scored.append(row)
                entries.append(row[3])
            elif state == ResultState.ADJUSTED:
                scored.append(row)
                entries.append((row[4], row[5]))
            else:
                unscored.append(row)
        datum = None
        if scored:
            result = scoring.score_board(method, entries, neuberg=tournament.neuberg)
            datum = result.datum
            codes = [entry if isinstance(entry, tuple) else ("", "") for entry in entries]
            _add_sides(pairs, scored, 6, 7)
            _add_sides(results, scored, 0, 0)
            _interleave(points, result.ns_points, result.ew_points)
            _interleave(artificial, [c[0] for c in codes], [c[1] for c in codes])
            boards += [board_id] * (2 * len(scored))
            directions += [Direction.NS, Direction.EW] * len(scored)
            completed += [True] * (2 * len(scored))
        if unscored:
            _add_sides(pairs, unscored, 6, 7)
            _add_sides(results, unscored, 0, 0)
            boards += [board_id] * (2 * len(unscored))
            directions += [Direction.NS, Direction.EW] * len(unscored)
            points += [None] * (2 * len(unscored))
            completed += [False] * (2 * len(unscored))
            artificial += [""] * (2 * len(unscored))
        if round.bye_pair_id:
            # A bye's boards count as completed and score average (RULES 4): an "A" that
            # no settling moves.
            pairs.append(round.bye_pair_id)
            boards.append(board_id)
            results.append(None)
            directions.append(Direction.BYE)
            points.append(AVERAGE[method])
            completed.append(True)
            artificial.append(Adjustment.AVG)
        datums.append(datum)
    insert_columns(
        PairBoardScore,
        PAIR_SCORE_FIELDS,
        [pairs, boards, results, directions, points, completed, artificial],
    )
    if tournament.scoring_method == ScoringMethod.XIMP:
        update_columns(Board, "id", ["datum"], [board_ids, datums])


def _interleave(into: list, ns: list, ew: list) -> None:
    """Append ns[0], ew[0], ns[1], ew[1], … to `into`."""
    both: list = [None] * (2 * len(ns))
    both[0::2] = ns
    both[1::2] = ew
    into += both


def _add_sides(into: list, rows: list[tuple], ns_at: int, ew_at: int) -> None:
    _interleave(into, [row[ns_at] for row in rows], [row[ew_at] for row in rows])


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


def update_totals(*, tournament: Tournament) -> list[tuple]:
    """Rewrite every pair's running total and boards completed from its board scores, and
    settle its MP adjusted boards against its own percentage (RULES 5.4)."""
    settle: dict[int, tuple[float, float]] = {}
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
) -> None:
    """Store each pair's total and position after `round` (the pair page's history).

    At the bell the caller passes the totals it has just computed (`update_totals`); a
    re-score of an earlier round recomputes them. Round scores are read back from the
    stored board scores, which `update_totals` has settled.
    """
    tournament = round.tournament
    if rows is None:
        rows = _standings_rows(tournament, upto_round=round.number)
    round_points = _round_scores(round)
    Standing.objects.filter(round=round).delete()
    insert_rows(
        Standing,
        ("pair", "round", "round_score", "total", "boards_completed", "position"),
        [
            (pair_id, round.id, round_points.get(pair_id), total, count, position)
            for position, (pair_id, _reg, total, count) in enumerate(
                sorted(rows, key=standings_order_key), start=1
            )
        ],
    )


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
    return {pid: round_total(scoring.running_total(method, pts)) for pid, pts in points.items()}


def finalize_results(*, tournament: Tournament, now: datetime) -> None:
    """Completion, ranking and master points (RULES 6, 7); safe to run again after a re-score."""
    rows = update_totals(tournament=tournament)
    ranked = scoring.rank_pairs(
        [
            scoring.PairTotal(
                pair_id=pair_id, total=total, boards_completed=count, registration_no=reg
            )
            for pair_id, reg, total, count in rows
        ],
        total_boards=tournament.total_boards,
        threshold=float(tournament.completion_threshold) / 100.0,
    )
    pairs = {
        p.id: p for p in Pair.objects.filter(tournament=tournament, status=PairStatus.CONFIRMED)
    }
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
