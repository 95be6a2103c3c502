"""Why the rating core refuses its input.

A ``RatingError`` is a `scoring.ScoringError` (a ``ValueError``): the English ``message``
template and its ``params`` are kept apart, so the application translates the template and
fills it in (`tournaments.errors.scoring_message`) exactly as it does the scoring engine's.
"""

from scoring.errors import ScoringError, gettext_noop

__all__ = ["RatingError", "gettext_noop"]


class RatingError(ScoringError):
    """Input the rating core cannot rate: bad parameters, players, fractions or Rates."""
