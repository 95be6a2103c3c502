"""Build tournaments for page tests: a running event in a few calls, a big one in bulk."""

from __future__ import annotations

import random
from datetime import timedelta

from django.db import connection

import scoring
from tournaments.models import (
    Board,
    BoardResult,
    ResultState,
    Round,
    Table,
)
from tournaments.services.bulk_registration import ensure_players, register_pairs_in_bulk
from tournaments.services.clock import advance

# A handful of (contract, declarer, tricks) that make realistic, varied scores.
PLAYS = [
    ("4S", "N", 10),
    ("4S", "N", 11),
    ("3NT", "S", 9),
    ("3NT", "S", 8),
    ("4HX", "E", 9),
    ("2S", "W", 8),
    ("1NT", "N", 7),
    ("5DX", "W", 8),
    ("6S", "N", 12),
]


def bulk_pairs(tournament, n: int, *, prefix: str = "big"):
    """n confirmed pairs with profiles, made with a handful of bulk inserts."""
    players = ensure_players(
        [f"{prefix}{tournament.pk}-{i}" for i in range(2 * n)],
        names=[f"Player {i}" for i in range(2 * n)],
    )
    return register_pairs_in_bulk(
        tournament=tournament, players=players, at=tournament.start_at - timedelta(hours=1)
    )


def fill_round(round: Round, *, seed: int = 1, skip_every: int = 0) -> None:
    """A played result for every table and board of `round` (every `skip_every`th left out)."""
    rng = random.Random(seed)
    tables = list(Table.objects.filter(round=round).values_list("id", flat=True))
    boards = list(Board.objects.filter(round=round).values_list("id", "vulnerability"))
    results = []
    for i, table_id in enumerate(tables):
        if skip_every and i % skip_every == skip_every - 1:
            continue
        for board_id, vul in boards:
            contract, declarer, tricks = rng.choice(PLAYS)
            results.append(
                BoardResult(
                    table_id=table_id,
                    board_id=board_id,
                    state=ResultState.PLAYED,
                    contract=contract,
                    declarer=declarer,
                    tricks=tricks,
                    lead="SA",
                    ns_score=scoring.contract_score(contract, declarer, tricks, vul),
                    entered_at=round.starts_at,
                )
            )
    BoardResult.objects.bulk_create(results, batch_size=5000)


def play_rounds(tournament, closed_rounds: int, *, skip_every: int = 0) -> Round:
    """Start the event and close `closed_rounds` rounds with results; the current round."""
    analyze()
    advance(now=tournament.start_at)
    for number in range(1, closed_rounds + 1):
        round = Round.objects.get(tournament=tournament, number=number)
        fill_round(round, seed=number, skip_every=skip_every)
        analyze()
        advance(now=round.ends_at)
    analyze()
    return Round.objects.filter(tournament=tournament).order_by("-number").first()


def analyze() -> None:
    """Refresh the planner's statistics after a bulk load.

    The test's rows are uncommitted, so autovacuum never analyzes them; after earlier
    tests the planner may believe these tables nearly empty and pick plans that take
    minutes on thousands of rows. ANALYZE inside the transaction counts them.
    """
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
