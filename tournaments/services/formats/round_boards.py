"""Which boards a round seats (the format seam's `boards`): the boards dealt when it is
seated, the boards its bell completes, and the board set at each table when sets travel."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RoundBoards:
    # Board numbers first played in this round: the clock deals them as it seats it.
    dealt: tuple[int, ...]
    # Board numbers whose last play is in this round: its bell completes them, they are
    # scored at its close and public after it (`Board.round`).
    completed: tuple[int, ...]
    # Table number → (first board, last board) of the set it plays when board sets travel
    # (`Table.first_board`, `Table.last_board`); None, every table of the round plays the
    # round's boards (`completed`, which are also the `dealt`).
    sets: dict[int, tuple[int, int]] | None = None


def duplicated(numbers: range) -> RoundBoards:
    """Every table of the round plays the round's own boards (copies, as online)."""
    return RoundBoards(dealt=tuple(numbers), completed=tuple(numbers))
