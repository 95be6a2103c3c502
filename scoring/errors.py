"""Errors raised by the scoring engine.

Every refusal is a ``ScoringError`` (a ``ValueError``) whose message is fit to show a
player or director as is, so callers can catch one class and display ``str(error)``.

The engine imports no translation library, yet players read its refusals in Chinese:
each error keeps its English ``message`` template (marked with ``gettext_noop``, so
Django's ``makemessages`` extracts it) and its ``params`` apart, and the application
translates the template and fills it in (``tournaments.errors.scoring_message``).
"""


def gettext_noop(message: str) -> str:
    """Mark `message` for translation; it is translated where it is shown."""
    return message


class ScoringError(ValueError):
    """Input the scoring engine cannot score (bad board number, tricks, scores, ...)."""

    def __init__(self, message: str, **params):
        self.message = message
        self.params = params
        super().__init__(message % params if params else message)


class ContractError(ScoringError):
    """A contract, declarer or result that is not a legal bridge contract or result."""
