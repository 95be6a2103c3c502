"""Play seated rounds with made-up results: for tests, benchmarks and demos.

:func:`play_round` returns the pairs' states after a round the way the tournament would
update them: both pairs of a table have met, the NS/EW counts move, every seated pair and
the bye completes the round's boards, and the bye scores average (0).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import replace

from .state import PairState, Seating

#: a table's result for NS (EW gets the negative), e.g. an IMP-like score for the round
ResultFn = Callable[[random.Random], float]


def imp_like(rng: random.Random) -> float:
    """A round's IMP margin, roughly as at the table: often small, sometimes a swing."""
    return float(round(rng.gauss(0.0, 12.0)))


def play_round(
    pairs: Sequence[PairState],
    seating: Seating,
    rng: random.Random,
    *,
    result: ResultFn = imp_like,
    boards: int = 1,
) -> list[PairState]:
    """The pairs' states after ``seating`` is played with results drawn from ``rng``."""
    by_id = {p.pair_id: p for p in pairs}
    for table in seating.tables:
        ns, ew = by_id[table.ns], by_id[table.ew]
        margin = result(rng)
        by_id[table.ns] = replace(
            ns,
            score=ns.score + margin,
            boards_completed=ns.boards_completed + boards,
            opponents=ns.opponents | {ew.pair_id},
            ns_count=ns.ns_count + 1,
        )
        by_id[table.ew] = replace(
            ew,
            score=ew.score - margin,
            boards_completed=ew.boards_completed + boards,
            opponents=ew.opponents | {ns.pair_id},
            ew_count=ew.ew_count + 1,
        )
    if seating.bye is not None:
        bye = by_id[seating.bye]
        by_id[seating.bye] = replace(
            bye, boards_completed=bye.boards_completed + boards, byes=bye.byes + 1
        )
    return [by_id[p.pair_id] for p in pairs]


def new_field(n: int, *, first_id: int = 1) -> list[PairState]:
    """n fresh pairs with pair_id = registration_no = first_id, first_id + 1, ..."""
    return [PairState(pair_id=i, registration_no=i) for i in range(first_id, first_id + n)]
