"""A pair's page: its event round by round."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from django.db.models import Q

from ..models import Pair, PairBoardScore, Round, Standing, Table
from .common import pair_seat


@dataclass
class PairRound:
    round: Round
    direction: str  # Direction.NS, EW or BYE, or "" (not seated: withdrawn)
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
        direction, opponents = pair_seat(pair.id, r, table)
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
