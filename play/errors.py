"""Refusals of the rules of play.

Like the scoring engine, the package imports no translation library: each error keeps
its English ``message`` template (marked with ``gettext_noop``) and its ``params`` apart,
so the application translates the template and fills it in
(``tournaments.errors.scoring_message`` works on these errors as they are).
"""

from scoring.errors import gettext_noop

__all__ = ["DealError", "IllegalAction", "PlayError", "gettext_noop"]


class PlayError(ValueError):
    """Something the rules of play refuse; ``str(error)`` is the English sentence."""

    def __init__(self, message: str, **params):
        self.message = message
        self.params = params
        super().__init__(message % params if params else message)


class IllegalAction(PlayError):
    """A call, card, claim or answer to a claim that the rules do not allow now."""


class DealError(PlayError):
    """A deal that is not four hands of 13 different cards."""
