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
from django.db.models import Count, Q, Sum

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
from .bulk import insert_rows

AVERAGE: dict[str, float] = {
    ScoringMethod.MP: 50.0,
    ScoringMethod.IMP: 0.0,
    ScoringMethod.XIMP: 0.0,
}


def score_round(*, round: Round) -> None:
    """Score every board of `round` across the field and store each pair's board scores.

    Adjusted scores are stored at their flat figures with their code; `update_totals`
    settles the MP ones against each pair's own percentage (RULES 5.4).
    """
    tournament = round.tournament
    method = tournament.scoring_method
    boards = list(Board.objects.filter(round=round).only("id", "number"))
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

    PairBoardScore.objects.filter(board__round=round).delete()
    new_scores: list[tuple] = []
    datum_updates: list[Board] = []
    for board in boards:
        scored: list[tuple[tuple, Any]] = []  # (row, NS score or the two codes)
        unscored: list[tuple] = []
        for row in by_board.get(board.id, ()):
            result_id, _, state, ns_score, ns_adj, ew_adj, ns_pair, ew_pair = row
            if state in (ResultState.PLAYED, ResultState.PASSED_OUT):
                scored.append((row, ns_score))
            elif state == ResultState.ADJUSTED:
                scored.append((row, (ns_adj, ew_adj)))
            else:
                unscored.append(row)
        datum = None
        if scored:
            result = scoring.score_board(
                method, [entry for _, entry in scored], neuberg=tournament.neuberg
            )
            datum = result.datum
            for (row, entry), ns_points, ew_points in zip(
                scored, result.ns_points, result.ew_points, strict=True
            ):
                ns_code, ew_code = entry if isinstance(entry, tuple) else ("", "")
                new_scores.append(
                    _pair_score(row[6], board.id, row[0], Direction.NS, ns_points, ns_code)
                )
                new_scores.append(
                    _pair_score(row[7], board.id, row[0], Direction.EW, ew_points, ew_code)
                )
        for row in unscored:
            new_scores.append(_pair_score(row[6], board.id, row[0], Direction.NS, None))
            new_scores.append(_pair_score(row[7], board.id, row[0], Direction.EW, None))
        if round.bye_pair_id:
            # A bye's boards count as completed and score average (RULES 4): an "A" that
            # no settling moves.
            new_scores.append(
                _pair_score(
                    round.bye_pair_id,
                    board.id,
                    None,
                    Direction.BYE,
                    AVERAGE[method],
                    Adjustment.AVG,
                )
            )
        board.datum = datum
        datum_updates.append(board)
    insert_rows(PairBoardScore, PAIR_SCORE_FIELDS, new_scores)
    if tournament.scoring_method == ScoringMethod.XIMP:
        Board.objects.bulk_update(datum_updates, ["datum"])


PAIR_SCORE_FIELDS = ("pair", "board", "result", "direction", "points", "completed", "artificial")
ADJUSTMENT_CODES = (Adjustment.AVG_PLUS, Adjustment.AVG, Adjustment.AVG_MINUS)


def _pair_score(pair_id, board_id, result_id, direction, points, artificial="") -> tuple:
    return (pair_id, board_id, result_id, direction, points, points is not None, artificial)


def _pair_aggregates(tournament: Tournament, upto_round: int | None = None):
    """Per registered pair: id, registration no., the sum and count of its played board
    scores and how many of each adjusted-score code it holds, in one grouped query."""
    completed = Q(board_scores__completed=True)
    if upto_round is not None:
        completed &= Q(board_scores__board__round__number__lte=upto_round)
    played = completed & Q(board_scores__artificial="")
    counts = {
        f"n{index}": Count("board_scores", filter=completed & Q(board_scores__artificial=code))
        for index, code in enumerate(ADJUSTMENT_CODES)
    }
    return (
        Pair.objects.filter(tournament=tournament, status=PairStatus.CONFIRMED)
        .filter(listed_in_results())  # not a pair withdrawn before it was seated (RULES 1)
        .annotate(
            played_sum=Sum("board_scores__points", filter=played),
            played_count=Count("board_scores", filter=played),
            **counts,
        )
        .values_list("id", "registration_no", "played_sum", "played_count", *counts)
    )


def _standings_rows(tournament: Tournament, upto_round: int | None = None, *, settle=None):
    """(pair_id, registration_no, total, boards_completed) for every registered pair.

    `settle`, if given, collects {pair_id: (A+ value, A- value)} for every pair with MP
    adjusted boards.
    """
    method = tournament.scoring_method
    rows = []
    for pair_id, reg_no, played_sum, played_count, *code_counts in _pair_aggregates(
        tournament, upto_round
    ):
        played_sum = played_sum or 0.0
        artificial = dict(zip(ADJUSTMENT_CODES, code_counts, strict=True))
        total = scoring.pair_total(
            method, played_sum=played_sum, played_count=played_count, artificial=artificial
        )
        rows.append((pair_id, reg_no, round_total(total), played_count + sum(code_counts)))
        if (
            settle is not None
            and method == ScoringMethod.MP
            and (artificial[Adjustment.AVG_PLUS] or artificial[Adjustment.AVG_MINUS])
        ):
            own = scoring.own_percentage(played_sum, played_count)
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
        values = ",".join(["(%s::bigint, %s::float8, %s::float8)"] * len(settle))
        points = sql.column(PairBoardScore, "points")
        artificial = f"s.{sql.column(PairBoardScore, 'artificial')}"
        settled = f"CASE {artificial} WHEN %s THEN v.plus ELSE v.minus END"
        params: list = [Adjustment.AVG_PLUS]
        params += [x for pair_id, (plus, minus) in settle.items() for x in (pair_id, plus, minus)]
        params += [Adjustment.AVG_PLUS, Adjustment.AVG_MINUS, Adjustment.AVG_PLUS]
        with connection.cursor() as cursor:
            cursor.execute(
                f"UPDATE {sql.table(PairBoardScore)} AS s SET {points} = {settled} "
                f"FROM (VALUES {values}) AS v(pair_id, plus, minus) "
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
    if not rows:
        return
    if connection.vendor == "postgresql":
        # One UPDATE … FROM (VALUES …) instead of a CASE per row: the bell at 2,000 pairs.
        values = ",".join(["(%s::bigint, %s::double precision, %s::integer)"] * len(rows))
        params = []
        for pair_id, _reg, total, count in rows:
            params += [pair_id, total, count]
        with connection.cursor() as cursor:
            cursor.execute(
                f"UPDATE {sql.table(Pair)} AS p SET {sql.column(Pair, 'total')} = v.total, "
                f"{sql.column(Pair, 'boards_completed')} = v.done"
                f" FROM (VALUES {values}) AS v(id, total, done)"
                f" WHERE p.{sql.column(Pair, 'id')} = v.id",
                params,
            )
        return
    pairs = [Pair(id=r[0], total=r[2], boards_completed=r[3]) for r in rows]
    Pair.objects.bulk_update(pairs, ["total", "boards_completed"], batch_size=500)


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
    for pair_id, value in PairBoardScore.objects.filter(
        board__round=round, completed=True
    ).values_list("pair_id", "points"):
        points[pair_id].append(cast(float, value))  # a completed board has its points
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
