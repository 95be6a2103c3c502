"""Master points by final rank, and the rank titles they lead to (RULES 7)."""

from bisect import bisect_right
from collections.abc import Sequence
from itertools import pairwise
from numbers import Integral, Real

from .errors import ScoringError

# (code, Chinese title, English title), lowest to highest.
RANK_TITLES = (
    ("unranked", "无等级", "Unranked"),
    ("ranked_player", "有级牌手", "Ranked player"),
    ("intermediate", "中级牌手", "Intermediate player"),
    ("advanced", "高级牌手", "Advanced player"),
    ("peak_player", "巅峰好手", "Peak player"),
    ("peak_expert", "巅峰高手", "Peak expert"),
    ("peak_master", "巅峰大师", "Peak master"),
    ("peak_star", "巅峰明星", "Peak star"),
    ("guest_of_honour", "桥界嘉宾", "Bridge guest of honour"),
    ("association_master", "桥协大师", "Association master"),
    ("honorary_master", "荣誉大师", "Honorary master"),
    ("professional", "专业牌手", "Professional"),
)

# Minimum master-point total for each title; the organiser may set others in admin.
DEFAULT_TITLE_THRESHOLDS = (0, 1, 5, 15, 30, 60, 100, 150, 250, 400, 600, 1000)


def master_points_for_rank(rank: int, completed_pairs: int) -> int:
    """Master points for final ``rank`` among ``completed_pairs`` pairs that completed."""
    if rank == 1:
        return 3
    # Below 20 completers only the top half (rank <= F / 2) is awarded.
    if completed_pairs < 20 and 2 * rank > completed_pairs:
        return 0
    if rank <= 4:
        return 2
    return 1 if rank <= 10 else 0


def master_points(completed_pairs: int) -> list[int]:
    """Master points for ranks 1..F, where F pairs completed the event."""
    if isinstance(completed_pairs, bool) or not isinstance(completed_pairs, Integral):
        raise ScoringError(f"number of pairs must be a whole number, got {completed_pairs!r}")
    if completed_pairs < 0:
        raise ScoringError(f"number of pairs cannot be negative, got {completed_pairs}")
    return [master_points_for_rank(rank, completed_pairs) for rank in range(1, completed_pairs + 1)]


def validate_title_thresholds(thresholds: Sequence[float]) -> tuple[float, ...]:
    """Check an organiser's title thresholds: one per title, starting at 0, increasing."""
    values = tuple(thresholds)
    if len(values) != len(RANK_TITLES):
        raise ScoringError(
            f"give {len(RANK_TITLES)} title thresholds, one per title; got {len(values)}"
        )
    if any(isinstance(v, bool) or not isinstance(v, Real) for v in values):
        raise ScoringError("title thresholds must be numbers")
    if values[0] != 0:
        raise ScoringError("the threshold of the lowest title (unranked) must be 0 master points")
    if any(later <= earlier for earlier, later in pairwise(values)):
        raise ScoringError("title thresholds must increase from each title to the next")
    return values


def rank_title(
    master_point_total: float, thresholds: Sequence[float] = DEFAULT_TITLE_THRESHOLDS
) -> int:
    """Index into ``RANK_TITLES`` of the highest title whose threshold is <= the total."""
    values = validate_title_thresholds(thresholds)
    return max(bisect_right(values, master_point_total) - 1, 0)
