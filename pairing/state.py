"""Value types exchanged between the Swiss seating engine and its caller."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PairState:
    """What the engine needs to know about one pair before a round is seated.

    ``opponents`` holds the pair_ids met at a table before (byes are not opponents);
    ``ns_count`` / ``ew_count`` count the rounds the pair sat North-South / East-West.
    A ``withdrawn`` pair is never seated; a late entry simply has no history.
    """

    pair_id: int
    registration_no: int
    score: float = 0.0
    boards_completed: int = 0
    opponents: frozenset[int] = frozenset()
    byes: int = 0
    ns_count: int = 0
    ew_count: int = 0
    withdrawn: bool = False


@dataclass(frozen=True)
class Table:
    """One table of a round: ``number`` is 1-based and table 1 is the top table."""

    number: int
    ns: int
    ew: int


@dataclass(frozen=True)
class Seating:
    """The seating of one round.

    ``tables`` is a tuple (not a list) so that a Seating is immutable and hashable; it is
    ordered by table number. ``bye`` is the pair_id sitting out, or None. ``rematches``
    counts the tables whose two pairs have met before. ``cost`` is the distance from plain
    top-down order defined in :mod:`pairing.swiss` (sum over tables of the squared
    difference of the two pairs' positions in the seating order; top-down costs exactly
    the number of tables).
    """

    tables: tuple[Table, ...]
    bye: int | None
    rematches: int
    cost: float
