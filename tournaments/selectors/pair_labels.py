"""The number a page prints for a pair (RULES 10): in an event seated by a movement, the
position the pair holds as the movement labels it, as the movement page, the table guide
and travel cards and the club scorers do ("3NS" / "3EW" in a Mitchell, "3" in a Howell);
otherwise, and for a pair that holds no position, its registration number.

Every renderer of a pair's number (the results grid, the standings, the API's standings,
a pair's page and score card, a board's traveller) asks `PairLabels`, so a pair is the
same number on every page. No query: the movement is the tournament's stored one
(`Tournament.movement`, fixed at round 1's start) and the position is the pair's own
(`Pair.position`), read with the pair.
"""

from __future__ import annotations

from dataclasses import dataclass

import movements

from ..models import Pair, Seating, Tournament


@dataclass(frozen=True)
class PairLabels:
    """How one tournament numbers its pairs on the pages."""

    movement: movements.Movement | None  # None: registration numbers (a Swiss event)

    def label(self, *, position: int | None, registration_no: int | None) -> str:
        """The number printed for a pair holding `position` (None: none)."""
        movement = self.movement
        if movement is not None and position is not None and 1 <= position <= movement.pairs:
            return movement.label(position)
        return "" if registration_no is None else str(registration_no)

    def of(self, pair: Pair) -> str:
        return self.label(position=pair.position, registration_no=pair.registration_no)

    def finds(self, query: str, *, label: str, registration_no: int | None) -> bool:
        """Whether a "find a pair" `query` is the number of the pair printed as `label`:
        that label in any case ("3ew"), in a Mitchell its number alone ("3": 3NS and
        3EW), or the pair's registration number (what its registration said)."""
        wanted = "".join(query.split()).upper()
        if not wanted:
            return False
        if wanted == label.upper() or wanted == str(registration_no):
            return True
        return (
            self.movement is not None
            and self.movement.directions is not None
            and wanted.isdigit()
            and label[:-2] == wanted
        )


def pair_labels(tournament: Tournament) -> PairLabels:
    """`tournament`'s numbering. Before round 1 nobody holds a position (each pair's own
    says so); a Swiss event is numbered by registration. No query."""
    if tournament.seating == Seating.SWISS or tournament.movement is None:
        return PairLabels(movement=None)
    return PairLabels(movement=movements.from_json(tournament.movement))
