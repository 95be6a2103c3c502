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
    holds. The method and codes are checked once, not once per pair (the bell of a
    10,000-pair field)."""
    method = validate_method(method)
    flat = [settled_artificial(method, code, None) for code in codes]
    mp = method == "MP"
    totals = []
    for played_sum, played_count, counts in aggregates:
        if played_count < 0 or any(count < 0 for count in counts):
            raise ScoringError("board counts cannot be negative")
        values = flat
        if mp and played_count:
            own = played_sum / played_count
            values = [
                _settled_mp(code, value, own) for code, value in zip(codes, flat, strict=True)
            ]
        points_sum = played_sum + sum(
            count * value for count, value in zip(counts, values, strict=True)
        )
        boards = played_count + sum(counts)
        totals.append((points_sum / boards if boards else 0.0) if mp else points_sum)
    return totals


def _settled_mp(code: str, flat: float, own: float) -> float:
    """`settled_artificial` for MP and a pair that played (own is not None)."""
    if code == "A+":
        return max(flat, own)
    if code == "A-":
        return min(flat, own)
    return flat
