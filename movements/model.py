"""A movement as data (SPEC 10): for each round, for each table, the NS pair, the EW pair
and the boards played there.

Pairs are the movement's *positions*, numbered 1 … `pairs`: the product maps the event's
pairs onto them (registration order) when round 1 is seated. In a Mitchell, positions
1 … T are the NS pairs ("1NS" … "TNS") and T + 1 … 2T the EW pairs ("1EW" … "TEW");
in a Howell they are "1" … "2T". A position that no pair holds is the phantom: whoever
meets it sits the round out (a bye).

Boards are *board sets*: `boards` lists the board numbers (1-based, of the movement's
`board_sets × boards_per_set` boards) a table plays in a round, as a club's travelling
boards go. The product's events play the round's boards at every table instead (RULES 10:
duplicated boards, online and face to face); the seating is the movement's either way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Kind = Literal["mitchell", "howell", "given"]
Direction = Literal["NS", "EW"]


@dataclass(frozen=True)
class Encounter:
    """One table in one round: who sits NS and EW, and which boards they play."""

    table: int  # 1-based
    ns: int  # a position, 1 … Movement.pairs
    ew: int
    boards: tuple[int, ...]  # board numbers, 1-based, ascending


@dataclass(frozen=True)
class Movement:
    kind: Kind
    name: str  # e.g. "Mitchell 7 tables", "Howell 4 tables (7 rounds)", or the file's title
    tables: int
    pairs: int  # positions, the phantom's included
    boards_per_round: int  # boards at one table in one round
    rounds: tuple[tuple[Encounter, ...], ...]  # rounds[r - 1]: round r's tables by number
    # Two winners: every position keeps one direction all event (a Mitchell without an
    # arrow-switch); `directions[p - 1]` is position p's. One winner: None.
    directions: tuple[Direction, ...] | None = None
    phantom: int | None = None  # the position no pair holds (an odd number of pairs)
    arrow_switch_rounds: tuple[int, ...] = ()  # rounds in which every table swapped NS/EW

    @property
    def winners(self) -> int:
        return 2 if self.directions is not None else 1

    @property
    def round_count(self) -> int:
        return len(self.rounds)

    @property
    def boards(self) -> tuple[int, ...]:
        return tuple(sorted({b for round in self.rounds for e in round for b in e.boards}))

    def label(self, position: int) -> str:
        """What club scorers print for a position: "3NS" / "3EW" in a Mitchell, "3" else."""
        if self.directions is None:
            return str(position)
        if self.directions[position - 1] == "NS":
            return f"{position}NS"
        return f"{position - self.tables}EW"

    def round(self, number: int) -> tuple[Encounter, ...]:
        return self.rounds[number - 1]
