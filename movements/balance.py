"""How fair a movement is (SPEC 10): how often each two positions are compared.

In matchpoints a pair's score on a board is set against every pair that played the board in
the same direction; so two pairs that sit the same way on many boards are compared often,
and a pair's rank against another depends on how often they were compared, met, or played
the board the other way round. `Balance` counts, for each two positions (the phantom left
out; a phantom's table plays no comparable score):

- `same`: boards both played in the same direction (at different tables);
- `opposite`: boards they played in opposite directions at different tables;
- `met`: boards they played against each other.

`figure` is the quality factor Qf of F.C. Schiereck's "Groot Schemaboek" (NBB), as the
movement checker BALANS (pjms.nl) prints it, on board sets (a table's boards in a round):
each two pairs' weight is h·(sets they met on) + (sets compared in the same direction) −
(sets compared in opposite directions), h being half a top on a set (its plays − 1); Qf is
100 × the smallest sum of squares any spread of the same total over all two pairs could
have, over the actual sum of squares. 100 is perfectly balanced. Two winners (fixed
directions): only pairs of one field are compared, and Qf is of the `same` counts within
each field (a pair is never ranked against the other field).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from itertools import combinations

from .model import Movement


@dataclass(frozen=True)
class Balance:
    positions: tuple[int, ...]  # the positions compared (the phantom left out)
    same: dict[tuple[int, int], int]  # (p, q), p < q: boards compared in the same direction
    opposite: dict[tuple[int, int], int]
    met: dict[tuple[int, int], int]
    figure: float  # Schiereck's Qf, in per cent: 100 is perfect
    fields: tuple[tuple[int, ...], ...]  # the groups ranked together (one, or NS and EW)

    def pairs_compared(self) -> list[tuple[int, int]]:
        """The two-position keys that are ranked against each other (within a field)."""
        return [pq for field in self.fields for pq in combinations(field, 2)]

    @property
    def minimum(self) -> int:
        """The fewest boards any two positions of one field are compared on."""
        return min((self.same.get(pq, 0) for pq in self.pairs_compared()), default=0)

    @property
    def maximum(self) -> int:
        return max((self.same.get(pq, 0) for pq in self.pairs_compared()), default=0)

    def compared(self, p: int, q: int) -> int:
        """Boards on which p and q were compared in the same direction."""
        return self.same.get((min(p, q), max(p, q)), 0)


def _least_squares(total: int, boxes: int) -> int:
    """The smallest sum of squares of `boxes` integers adding up to `total`."""
    if boxes <= 0:
        return 0
    low, high_count = divmod(total, boxes)
    return high_count * (low + 1) ** 2 + (boxes - high_count) * low**2


def balance(movement: Movement) -> Balance:
    phantom = movement.phantom
    positions = tuple(p for p in range(1, movement.pairs + 1) if p != phantom)
    # Who played each board (and each board set) in which direction, phantom tables out.
    seats: dict[int, list[tuple[int, int]]] = defaultdict(list)  # board -> [(ns, ew)]
    set_seats: dict[tuple[int, ...], list[tuple[int, int]]] = defaultdict(list)
    for round_ in movement.rounds:
        for e in round_:
            if phantom in (e.ns, e.ew):
                continue
            set_seats[e.boards].append((e.ns, e.ew))
            for board in e.boards:
                seats[board].append((e.ns, e.ew))

    same: dict[tuple[int, int], int] = defaultdict(int)
    opposite: dict[tuple[int, int], int] = defaultdict(int)
    met: dict[tuple[int, int], int] = defaultdict(int)

    def key(p: int, q: int) -> tuple[int, int]:
        return (p, q) if p < q else (q, p)

    for tables in seats.values():
        for i, (ns, ew) in enumerate(tables):
            met[key(ns, ew)] += 1
            for ns2, ew2 in tables[:i]:
                same[key(ns, ns2)] += 1
                same[key(ew, ew2)] += 1
                opposite[key(ns, ew2)] += 1
                opposite[key(ew, ns2)] += 1

    one_field = movement.directions is not None
    weight: dict[tuple[int, int], int] = defaultdict(int)
    for tables in set_seats.values():
        half_top = len(tables) - 1
        for i, (ns, ew) in enumerate(tables):
            if not one_field:
                weight[key(ns, ew)] += half_top
            for ns2, ew2 in tables[:i]:
                weight[key(ns, ns2)] += 1
                weight[key(ew, ew2)] += 1
                if not one_field:
                    weight[key(ns, ew2)] -= 1
                    weight[key(ew, ns2)] -= 1
    if movement.directions is not None:
        directions = movement.directions
        fields = tuple(tuple(p for p in positions if directions[p - 1] == d) for d in ("NS", "EW"))
    else:
        fields = (positions,)
    weights = [weight.get(pq, 0) for field in fields for pq in combinations(field, 2)]
    squares = sum(w * w for w in weights)
    figure = 100.0 * _least_squares(sum(weights), len(weights)) / squares if squares else 0.0
    return Balance(
        positions=positions,
        same=dict(same),
        opposite=dict(opposite),
        met=dict(met),
        figure=figure,
        fields=fields,
    )
