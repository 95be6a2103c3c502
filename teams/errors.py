"""Why the team-match core refuses its input.

A ``TeamsError`` is a `scoring.ScoringError` (a ``ValueError``): the English ``message``
template and its ``params`` are kept apart, so the application translates the template and
fills it in (`tournaments.errors.scoring_message`) exactly as it does the scoring engine's.
"""

from scoring.errors import ScoringError, gettext_noop

__all__ = ["TeamsError", "gettext_noop"]


class TeamsError(ScoringError):
    """Input the team-match core cannot score, schedule or rank."""
