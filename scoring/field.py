"""Scoring one board across the field: matchpoints, cross-IMPs, IMPs against a datum.

RULES 5.3 and 5.4. Every method works on the whole board at once in O(n log n): the
distinct scores are sorted once with a count of the results at or below each, and each
result's standing is read off them with binary searches and prefix counts, so a board
with thousands of results scores in about a millisecond.

Artificial adjusted scores (A+/A/A-) are fixed points for the side that gets them;
played results are compared only with each other, so an adjustment never moves anyone
else's score. With ``neuberg=True`` (MP only) the played results' matchpoints are
rescaled by Neuberg's formula to the size of the whole field: E, played plus adjusted,
or, given as ``expected``, the number of times the movement has the board played
(RULES 10: a table that never reached it counts although it left no entry).
"""

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .errors import ScoringError
from .imps import IMP_THRESHOLD_ARRAY, imps_array

METHODS = ("MP", "IMP", "XIMP")

# RULES 5.4: average plus / average / average minus.
ARTIFICIAL_PERCENT = {"A+": 60.0, "A": 50.0, "A-": 40.0}
ARTIFICIAL_IMPS = {"A+": 3.0, "A": 0.0, "A-": -3.0}

# No bridge score exceeds 7,600 in size; the bound keeps int64 sums exact for any field.
MAX_SCORE = 1_000_000_000


@dataclass(frozen=True)
class BoardScores:
    """Points of each entry of a board, in input order.

    MP: percentages, EW = 100 − NS. IMP/XIMP: IMPs, EW = −NS. ``datum`` is set for
    XIMP when the board has at least one played result, otherwise ``None``.
    """

    ns_points: list[float]
    ew_points: list[float]
    datum: int | None = None


def _score_array(ns_scores) -> np.ndarray:
    scores = np.asarray(ns_scores if isinstance(ns_scores, np.ndarray) else list(ns_scores))
    if scores.size == 0:
        return np.empty(0, dtype=np.int64)
    if scores.ndim != 1 or scores.dtype.kind not in "iu":
        raise ScoringError("NS scores must be a flat sequence of whole numbers")
    if scores.max() > MAX_SCORE or scores.min() < -MAX_SCORE:
        raise ScoringError(f"an NS score is beyond ±{MAX_SCORE:,}: not a bridge score")
    return scores.astype(np.int64, copy=False)


def _standing(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct scores, ascending; how many results score below each distinct score
    (``cumulative[i]``) and at most it (``cumulative[i + 1]``); each result's index in
    the distinct scores.

    Boards repeat the same few scores, so the methods work on the distinct values and
    hand each result the answer for its value.
    """
    values, inverse, counts = np.unique(scores, return_inverse=True, return_counts=True)
    cumulative = np.zeros(values.size + 1, dtype=np.int64)
    np.cumsum(counts, out=cumulative[1:])
    return values, cumulative, inverse.reshape(-1)


def _matchpoints(scores: np.ndarray) -> np.ndarray:
    """Matchpoints on the 2-per-result-beaten, 1-per-tie scale; top is 2(n − 1)."""
    _values, cumulative, inverse = _standing(scores)
    # 2 · beaten + ties, where ties = at_most − beaten − 1 (the result itself).
    return (cumulative[:-1] + cumulative[1:] - 1)[inverse]


def _percentages(matchpoints: np.ndarray, expected: int) -> np.ndarray:
    """Percentages of top, Neuberg-rescaled from the played results to ``expected``.

    MP' = (MP + 1)·E/A − 1 on the 2-per-beat scale, as a fraction of top 2(E − 1).
    With E == A this is MP / 2(A − 1): the plain percentage, to the last bit, since
    numerator and denominator are exact integers divided once.
    """
    actual = matchpoints.size
    if expected <= 1:
        return np.full(actual, 50.0)
    numerator = (matchpoints + 1) * expected - actual
    return numerator * 50.0 / (actual * (expected - 1))


def _cross_imp_sums(scores: np.ndarray) -> np.ndarray:
    """Sum over every other result t of IMP(s − t), for each score s.

    IMP(d) counts the thresholds T with |d| >= T, so the sum is, over the thresholds,
    #{t <= s − T} − #{t >= s + T}: 2 × 24 binary searches per distinct score.
    """
    values, cumulative, inverse = _standing(scores)
    thresholds = IMP_THRESHOLD_ARRAY[:, None]
    won = cumulative[np.searchsorted(values, values - thresholds, side="right")]
    lost = scores.size - cumulative[np.searchsorted(values, values + thresholds, side="left")]
    return (won - lost).sum(axis=0)[inverse]


def datum_discard_count(n: int) -> int:
    """How many top and how many bottom scores the datum discards (k in RULES 5.3)."""
    return 0 if n <= 2 else max(1, n // 10)


# How a datum whose mean ends in exactly 5 goes to a ten (RULES 5.3): to the even ten, as
# SPEC 5.3 has it; or away from zero, as Compscore3 rounds its Butler datum (its real
# files in ../shared/usebio/: a 4-table Howell's -445 is -450, -105 is -110, 125 is 130).
HALF_EVEN = "half_even"
HALF_AWAY = "half_away"
DATUM_ROUNDINGS = (HALF_EVEN, HALF_AWAY)


def validate_datum_rounding(rounding: str) -> str:
    if rounding not in DATUM_ROUNDINGS:
        raise ScoringError(f"datum rounding must be one of {DATUM_ROUNDINGS}; got {rounding!r}")
    return rounding


def _datum(scores: np.ndarray, rounding: str = HALF_EVEN) -> int:
    ordered = np.sort(scores)
    k = datum_discard_count(ordered.size)
    kept = ordered[k : ordered.size - k]
    # Exact arithmetic: a float mean of e.g. 425 could land either side of the half.
    tens = Fraction(int(kept.sum()), 10 * kept.size)
    if rounding == HALF_AWAY:
        away = (abs(tens) + Fraction(1, 2)).__floor__()
        return 10 * (away if tens >= 0 else -away)
    # round() on a Fraction sends exact halves to the even ten (425 → 420, 435 → 440).
    return 10 * round(tens)


def matchpoint_percentages(ns_scores: Sequence[int]) -> list[float]:
    """NS matchpoint percentage of each result, in input order (50.0 for a lone result)."""
    scores = _score_array(ns_scores)
    return _percentages(_matchpoints(scores), scores.size).tolist()


def cross_imps(ns_scores: Sequence[int]) -> list[float]:
    """NS cross-IMPs of each result: IMPs against every other result, over n − 1."""
    scores = _score_array(ns_scores)
    if scores.size <= 1:
        return [0.0] * scores.size
    return (_cross_imp_sums(scores) / (scores.size - 1)).tolist()


def datum_imps(
    ns_scores: Sequence[int], *, datum_rounding: str = HALF_EVEN
) -> tuple[int, list[int]]:
    """The board's datum and each result's NS IMPs against it, in input order."""
    scores = _score_array(ns_scores)
    if scores.size == 0:
        raise ScoringError("a board with no results has no datum")
    datum = _datum(scores, validate_datum_rounding(datum_rounding))
    return datum, imps_array(scores - datum).tolist()


def validate_method(method: str) -> str:
    """Canonical scoring method name: "MP", "IMP" or "XIMP" (case ignored)."""
    canonical = method.strip().upper() if isinstance(method, str) else None
    if canonical not in METHODS:
        raise ScoringError(f"scoring method must be MP, IMP or XIMP; got {method!r}")
    return canonical


def _artificial_code(code: str) -> str:
    canonical = code.strip().upper().replace("−", "-") if isinstance(code, str) else None
    if canonical not in ARTIFICIAL_PERCENT:
        raise ScoringError(f"an adjusted score must be A+, A or A-; got {code!r}")
    return canonical


def _split_entries(entries) -> tuple[np.ndarray, slice | list[int], list[tuple[int, str, str]]]:
    """Played scores, their positions among the entries, and the adjusted entries."""
    entries = entries if isinstance(entries, np.ndarray) else list(entries)
    try:
        as_array = np.asarray(entries)
    except ValueError:  # a mix of scores and (ns_code, ew_code) pairs
        as_array = None
    if (
        as_array is not None
        and as_array.ndim == 1
        and (as_array.dtype.kind in "iu" or not len(entries))
    ):
        return _score_array(as_array), slice(None), []  # the usual board: all played

    played_at: list[int] = []
    played: list = []
    adjusted: list[tuple[int, str, str]] = []
    for index, entry in enumerate(entries):
        if isinstance(entry, tuple | list):
            if len(entry) != 2:
                raise ScoringError(f"an adjusted score is a pair (NS code, EW code); got {entry!r}")
            adjusted.append((index, _artificial_code(entry[0]), _artificial_code(entry[1])))
        else:
            played_at.append(index)
            played.append(entry)
    return _score_array(played), played_at, adjusted


def _expected(expected: int | None, entries: int, neuberg: bool) -> int:
    """Neuberg's E: ``expected`` when given, else the entries (played and adjusted)."""
    if expected is None:
        return entries
    if not neuberg:
        # E only means something to Neuberg's formula: without it the played results
        # are compared among themselves, and a silent E would hide a caller's mistake.
        raise ScoringError("an expected number of results is Neuberg's E: give neuberg=True")
    if isinstance(expected, bool) or not isinstance(expected, int | np.integer):
        raise ScoringError(
            f"the expected number of results must be a whole number; got {expected!r}"
        )
    if expected < entries:
        raise ScoringError(
            f"a board has {entries} results: it cannot be expected to have {expected}"
        )
    return int(expected)


def score_board(
    method: str,
    entries: Sequence["int | tuple[str, str]"],
    *,
    neuberg: bool = False,
    expected: int | None = None,
    datum_rounding: str = HALF_EVEN,
) -> BoardScores:
    """Score every entry of one board by ``method`` ("MP", "IMP" or "XIMP").

    An entry is a played NS score (an int; 0 for a pass-out) or a pair of adjusted-score
    codes ``(ns_code, ew_code)``, each "A+", "A" or "A-". ``neuberg`` only affects MP:
    IMP adjustments are fixed IMPs and the played results are already averaged over
    their own comparisons, so there is nothing to rescale.

    ``expected`` (with ``neuberg`` only) is Neuberg's E when it is more than the entries:
    in a movement, how many tables the board is played at, a table that left no entry
    (cut off with no score) included (RULES 10). None: E is the entries, played and
    adjusted. Fewer than the entries is refused.

    ``datum_rounding`` (XIMP): how a datum ending in exactly 5 goes to a ten, HALF_EVEN
    (SPEC 5.3) or HALF_AWAY (from zero, as Compscore3).
    """
    method = validate_method(method)
    validate_datum_rounding(datum_rounding)
    scores, played_at, adjusted = _split_entries(entries)
    size = scores.size + len(adjusted)
    field_size = _expected(expected, size, neuberg)

    datum = None
    if method == "MP":
        ns_played = _percentages(_matchpoints(scores), field_size if neuberg else scores.size)
        ew_played = 100.0 - ns_played
        artificial = ARTIFICIAL_PERCENT
    else:
        if method == "IMP":
            comparisons = max(scores.size - 1, 1)
            ns_played = _cross_imp_sums(scores) / comparisons
        elif scores.size:
            datum = _datum(scores, datum_rounding)
            ns_played = imps_array(scores - datum).astype(np.float64)
        else:
            ns_played = np.empty(0)
        # 0.0 - x rather than -x: no "-0.0" for a board that scores nothing.
        ew_played = 0.0 - ns_played
        artificial = ARTIFICIAL_IMPS

    ns_points = np.empty(size)
    ew_points = np.empty(size)
    ns_points[played_at] = ns_played
    ew_points[played_at] = ew_played
    for index, ns_code, ew_code in adjusted:
        ns_points[index] = artificial[ns_code]
        ew_points[index] = artificial[ew_code]
    return BoardScores(ns_points.tolist(), ew_points.tolist(), datum)
