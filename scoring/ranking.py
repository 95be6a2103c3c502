"""Running totals, completion and the final ranking (RULES 5.3 last bullet, 6, 7, 10)."""

import contextlib
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from numbers import Integral

from .errors import ScoringError
from .field import validate_method
from .masterpoints import master_points

# Totals and completion are floats; comparing them rounded keeps float noise (an MP
# mean of 49.99999999999999 against 50.0) from deciding a tie or a completion.
_PLACES = 9


@dataclass(frozen=True)
class PairTotal:
    pair_id: int
    total: float
    boards_completed: int
    registration_no: int
    # The field the pair is ranked in: "NS" or "EW" in a two-winner movement (RULES 10),
    # "" when the event has one winner.
    field: str = ""


@dataclass(frozen=True)
class RankedPair:
    pair_id: int
    total: float
    boards_completed: int
    completion: float
    completed: bool
    rank: int | None  # within the pair's field
    master_points: int
    field: str = ""


def total_from_sum(method: str, points_sum: float, boards: int) -> float:
    """The one rule for a pair's total (RULES 5.3): the sum of its board IMPs, or the mean of
    its board percentages over the `boards` it completed.

    With no boards an MP total is 0.0, like an IMP total: a pair that played nothing
    has earned nothing (and cannot complete the event, so it is never ranked).
    """
    if validate_method(method) == "MP":
        return points_sum / boards if boards else 0.0
    return points_sum


def running_total(method: str, board_points: Sequence[float]) -> float:
    """A pair's total from its board scores (`total_from_sum`)."""
    points = list(board_points)
    # exact sum: totals must not depend on board order
    return total_from_sum(method, math.fsum(points), len(points))


def running_totals(method: str, board_points: Iterable[Sequence[float]]) -> list[float]:
    """`running_total` of many pairs at once (each item one pair's board scores), to the
    last bit the same; the method is checked once, not once per pair."""
    if validate_method(method) == "MP":
        return [math.fsum(points) / len(points) if len(points) else 0.0 for points in board_points]
    return [math.fsum(points) for points in board_points]


def completion(boards_completed: int, total_boards: int) -> float:
    """Fraction of the event's boards a pair completed, from 0.0 to 1.0."""
    for name, value in (("boards completed", boards_completed), ("total boards", total_boards)):
        if isinstance(value, bool) or not isinstance(value, Integral):
            raise ScoringError(f"{name} must be a whole number, got {value!r}")
    if total_boards < 1:
        raise ScoringError(f"the event must have at least one board, got {total_boards}")
    if not 0 <= boards_completed <= total_boards:
        raise ScoringError(
            f"boards completed must be from 0 to {total_boards}, got {boards_completed}"
        )
    return boards_completed / total_boards


def _threshold(threshold: float) -> float:
    value = None
    if not isinstance(threshold, bool):
        with contextlib.suppress(TypeError, ValueError):
            value = float(threshold)  # also takes the Decimal of a model's DecimalField
    # A threshold of 0 would let a pair that never played complete (and win master points).
    if value is None or not 0.0 < value <= 1.0:
        raise ScoringError(
            "completion threshold is a fraction above 0 and at most 1 (0.7 for 70 %), "
            f"got {threshold!r}"
        )
    return round(value, _PLACES)


def standing_key(total: float, boards_completed: int, registration_no: int) -> tuple:
    """The order of every standings list (RULES 4, 6): higher total first, then more
    boards completed, then earlier registration. Sort ascending by this key."""
    return (-round(total, _PLACES), -boards_completed, registration_no)


TIE_BOARDS = "boards"
TIE_REGISTRATION = "registration"


def tie_break(above: tuple, below: tuple) -> str | None:
    """What separated two neighbours of a standings list, given their `standing_key`s:
    None when their totals differ, else the tie-break that decided (RULES 6): more
    boards completed (TIE_BOARDS), else earlier registration (TIE_REGISTRATION)."""
    if above[0] != below[0]:
        return None
    return TIE_BOARDS if above[1] != below[1] else TIE_REGISTRATION


def _standing(pair: PairTotal) -> tuple:
    # pair_id last only makes the order deterministic if registration numbers repeat.
    return (*standing_key(pair.total, pair.boards_completed, pair.registration_no), pair.pair_id)


def _completes(pair: PairTotal, completion: float, minimum: float) -> bool:
    # A pair with no completed board never completes, whatever the threshold (RULES 6).
    return pair.boards_completed > 0 and round(completion, _PLACES) >= minimum


def rank_pairs(
    pairs: Sequence[PairTotal], *, total_boards: int, threshold: float
) -> list[RankedPair]:
    """Final standings: the pairs that completed, ranked 1..F with master points, then
    the rest unranked. Both groups are ordered by total, then boards completed, then
    registration order; the last tie-break is unique, so no two pairs share a rank.

    Pairs of different `field`s (a two-winner movement's NS and EW pairs, RULES 10) are
    ranked apart, each field as if it were the whole event: its own ranks 1..F, F its
    own number of completers for the master points. The fields follow each other in the
    order they first appear in `pairs`; one field (all "") is one list.
    """
    minimum = _threshold(threshold)
    pairs = list(pairs)
    if len({pair.pair_id for pair in pairs}) != len(pairs):
        raise ScoringError("a pair appears twice in the standings")
    for pair in pairs:
        if not isinstance(pair.field, str):
            raise ScoringError(f"a pair's field is a name such as 'NS', got {pair.field!r}")
    completions = {pair.pair_id: completion(pair.boards_completed, total_boards) for pair in pairs}
    fields: dict[str, list[PairTotal]] = {}
    for pair in pairs:
        fields.setdefault(pair.field, []).append(pair)
    standings: list[RankedPair] = []
    for members in fields.values():
        standings.extend(_rank_field(members, completions, minimum))
    return standings


def _rank_field(
    pairs: list[PairTotal], completions: dict[int, float], minimum: float
) -> list[RankedPair]:
    """One field's final standings (`rank_pairs`)."""
    ordered = sorted(pairs, key=_standing)
    finishers = [p for p in ordered if _completes(p, completions[p.pair_id], minimum)]
    others = [p for p in ordered if not _completes(p, completions[p.pair_id], minimum)]
    awards = master_points(len(finishers))

    def ranked(pair: PairTotal, rank: int | None, points: int) -> RankedPair:
        return RankedPair(
            pair_id=pair.pair_id,
            total=pair.total,
            boards_completed=pair.boards_completed,
            completion=completions[pair.pair_id],
            completed=rank is not None,
            rank=rank,
            master_points=points,
            field=pair.field,
        )

    standings = [ranked(p, rank, awards[rank - 1]) for rank, p in enumerate(finishers, 1)]
    standings.extend(ranked(p, None, 0) for p in others)
    return standings


def field_positions(keys: Sequence[tuple[str, tuple]]) -> list[int]:
    """The standings position of each (field, `standing_key`) in its own field: 1 for
    the best of each field (RULES 4, 10). One field: the positions of one list."""
    order = sorted(range(len(keys)), key=lambda i: keys[i][1])
    positions = [0] * len(keys)
    reached: dict[str, int] = {}
    for i in order:
        field = keys[i][0]
        reached[field] = reached.get(field, 0) + 1
        positions[i] = reached[field]
    return positions
