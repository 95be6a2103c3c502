"""Why a movement is refused (RULES 10): a rule code the API and the console show, the
place it is broken (round, table, position, board as they apply), and an English message."""

from __future__ import annotations

from typing import Any

# The rule codes, in the order `verify` checks them.
RULES: tuple[str, ...] = (
    "size",  # no such movement: too few or too many tables (or rounds) for the kind
    "shape",  # malformed: a table, position or board out of range, an empty round, wrong counts
    "pair_twice_in_round",  # a position seated at two tables (or twice at one) in a round
    "board_replayed",  # a position plays a board twice
    "repeat_meeting",  # two positions meet more than once
    "unequal_plays",  # a board not played the same number of times (phantom tables aside)
    "mitchell_direction",  # two winners: a position changes direction, or NS meets NS
    "howell_incomplete",  # a complete Howell in which some two positions never meet
)


class MovementError(ValueError):
    """A movement that cannot be used, and the first (or one) rule it breaks."""

    def __init__(self, rule: str, message: str, **details: Any) -> None:
        super().__init__(message)
        self.rule = rule
        self.message = message
        self.details: dict[str, Any] = details

    def __repr__(self) -> str:
        return f"MovementError({self.rule!r}, {self.message!r}, **{self.details!r})"

    def as_dict(self) -> dict[str, Any]:
        """What the API returns for a refused movement."""
        return {"rule": self.rule, "message": self.message, "details": dict(self.details)}
