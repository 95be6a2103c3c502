"""Errors raised by the scoring engine.

Every refusal is a ``ScoringError`` (a ``ValueError``) whose message is fit to show a
player or director as is, so callers can catch one class and display ``str(error)``.
"""


class ScoringError(ValueError):
    """Input the scoring engine cannot score (bad board number, tricks, scores, ...)."""


class ContractError(ScoringError):
    """A contract, declarer or result that is not a legal bridge contract or result."""
