"""Artificial adjusted scores settled against the pair's own play (RULES 5.4, Law 12C2).

On a board it could not play a pair gets average plus, average or average minus. In MP
those are not flat figures: average plus is 60 % *or the pair's own percentage on the
boards it played, if higher*, and average minus 40 % or its own percentage, if lower,
so that an adjustment never lowers a non-offending pair's total. "Own percentage" is
the mean over the pair's played boards when the totals are computed, so the figure of
an adjusted board moves with the pair's later play and settles with the final round.
IMP adjustments stay fixed (+3, 0, -3).

The field scoring of a board (`field.score_board`) gives the flat figures; the totals
settle them here, from each pair's played sum and count and how many of each code it
holds, so a database can hand over those few aggregates instead of every board score.
"""

from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from .errors import ScoringError
from .field import ARTIFICIAL_IMPS, ARTIFICIAL_PERCENT, validate_method
from .ranking import total_from_sum


def own_percentage(played_sum: float, played_count: int) -> float | None:
    """The pair's mean percentage over its played boards, or None if it played none."""
    return played_sum / played_count if played_count else None


def settled_artificial(method: str, code: str, own: float | None) -> float:
    """What an adjusted score `code` ("A+", "A", "A-") is worth to a pair whose own
    percentage on played boards is `own` (None: it has played none, so the flat figure)."""
    method = validate_method(method)
    if code not in ARTIFICIAL_PERCENT:
        raise ScoringError(f"an adjusted score must be A+, A or A-; got {code!r}")
    if method != "MP":
        return ARTIFICIAL_IMPS[code]
    flat = ARTIFICIAL_PERCENT[code]
    if own is None:
        return flat
    if code == "A+":
        return max(flat, own)
    if code == "A-":
        return min(flat, own)
    return flat


def pair_total(
    method: str,
    *,
    played_sum: float,
    played_count: int,
    artificial: Mapping[str, int],
) -> float:
    """A pair's running total from its played boards' sum and count and its adjusted
    boards (code -> how many): IMPs summed, MP the mean over every completed board with
    each adjustment settled against the pair's own percentage."""
    if played_count < 0 or any(count < 0 for count in artificial.values()):
        raise ScoringError("board counts cannot be negative")
    own = own_percentage(played_sum, played_count)
    points_sum = played_sum + sum(
        count * settled_artificial(method, code, own) for code, count in artificial.items()
    )
    return total_from_sum(method, points_sum, played_count + sum(artificial.values()))


def pair_totals(
    method: str,
    codes: Sequence[str],
    aggregates: Iterable[tuple[float, int, Sequence[int]]],
) -> list[float]:
    """`pair_total` of many pairs at once, to the last bit the same: each aggregate is a
    pair's played sum, played count and how many adjusted boards of each of `codes` it
    holds. The method and codes are checked once, not once per pair, and the arithmetic
    runs on numpy columns (the bell of a 10,000-pair field), each operation the one
    `pair_total` makes, in its order, on the same doubles."""
    method = validate_method(method)
    flat = [settled_artificial(method, code, None) for code in codes]
    rows = list(aggregates)
    if not rows:
        return []
    played_sum = np.array([row[0] for row in rows], dtype=np.float64)
    played_count = np.array([row[1] for row in rows], dtype=np.int64)
    counts = np.array([list(row[2]) for row in rows], dtype=np.int64).reshape(len(rows), len(codes))
    if (played_count < 0).any() or (counts < 0).any():
        raise ScoringError("board counts cannot be negative")
    mp = method == "MP"
    played = played_count > 0
    own = np.divide(played_sum, played_count, out=np.zeros(len(rows)), where=played)
    # Python's sum() starts from the integer 0: 0 + x is +0.0 for x = -0.0, as 0.0 + x is.
    adjusted = np.zeros(len(rows))
    for index, (code, value) in enumerate(zip(codes, flat, strict=True)):
        values = np.full(len(rows), value)
        if mp:
            # max(flat, own) and min(flat, own) keep `flat` unless `own` is beyond it.
            if code == "A+":
                values = np.where(played & (own > value), own, value)
            elif code == "A-":
                values = np.where(played & (own < value), own, value)
        adjusted = adjusted + counts[:, index] * values
    points_sum = played_sum + adjusted
    if not mp:
        return points_sum.tolist()
    boards = played_count + counts.sum(axis=1)
    means = np.divide(points_sum, boards, out=np.zeros(len(rows)), where=boards > 0)
    return means.tolist()


def _settled_mp(code: str, flat: float, own: float) -> float:
    """`settled_artificial` for MP and a pair that played (own is not None)."""
    if code == "A+":
        return max(flat, own)
    if code == "A-":
        return min(flat, own)
    return flat
