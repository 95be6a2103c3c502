"""Why the club's scoring core refuses its input.

A ``ClubError`` is a `scoring.ScoringError` (a ``ValueError``): the English ``message``
template and its ``params`` are kept apart, so the application translates the template and
fills it in (`tournaments.errors.scoring_message`) exactly as it does the scoring engine's.
"""

from scoring.errors import ScoringError, gettext_noop

__all__ = ["ClubError", "gettext_noop"]


class ClubError(ScoringError):
    """A deal's results, a board or a disconnection the club's rules cannot score."""
