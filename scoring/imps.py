"""WBF IMP scale (RULES 5.2)."""

from numbers import Integral

import numpy as np

from .errors import ScoringError

# A difference of at least each threshold earns one more IMP. The printed scale lists
# bands of multiples of 10 ("20–40 → 1"); reading it as "at least 20" also places
# differences that are not multiples of 10 (15 → 0, 45 → 1).
IMP_THRESHOLDS = (
    20, 50, 90, 130, 170, 220, 270, 320, 370, 430, 500, 600,
    750, 900, 1100, 1300, 1500, 1750, 2000, 2250, 2500, 3000, 3500, 4000,
)  # fmt: skip

IMP_THRESHOLD_ARRAY = np.array(IMP_THRESHOLDS, dtype=np.int64)


def imps(difference: int) -> int:
    """IMPs for a score difference, with its sign (``imps(-450) == -10``)."""
    if isinstance(difference, bool) or not isinstance(difference, Integral):
        raise ScoringError(f"an IMP difference must be a whole number, got {difference!r}")
    size = abs(int(difference))
    won = 0
    for threshold in IMP_THRESHOLDS:
        if size < threshold:
            break
        won += 1
    return won if difference >= 0 else -won


def imps_array(differences: np.ndarray) -> np.ndarray:
    """Vectorised ``imps`` over an integer array."""
    won = np.searchsorted(IMP_THRESHOLD_ARRAY, np.abs(differences), side="right")
    return np.where(differences < 0, -won, won)
