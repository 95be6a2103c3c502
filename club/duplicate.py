"""Duplicate scoring (复式记分, SPEC 13): scores fixed once given.

When a result arrives and the deal has n results counting it:

- n < 6: the result is stored and its four players score 0 for now;
- n = 6: all six results are scored against the datum of the six, their 24 players at once;
- n > 6: the new result alone is scored against the datum of all n; earlier scores stay;
- n = 40: the deal is retired (no table is given it again); a 41st result is refused.

So a result's score depends on when it arrived: the first six share one datum, the k-th
(k > 6) has the datum of the first k. `duplicate_arrival` answers what one arrival changes,
per player, for the database layer to apply in one transaction; `duplicate_scores` and
`duplicate_points` answer the same from scratch, for a rebuild or an audit.

The datum is the event's XIMP datum (`scoring.datum_imps`, SPEC 5.3): the mean after
dropping the top and bottom k = max(1, ⌊n/10⌋) (`scoring.datum_discard_count`; n ≥ 6 here,
so it is SPEC 13's formula exactly), rounded to 10 with a 5 to the even ten. The event
may round halves away from zero (Compscore3's option); the club may not: SPEC 13 names
the even ten.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Generic

from scoring import datum_imps

from .deal import RETIRED_AT, P, TableResult, check_arrival, check_results, frozen, side_points

#: the result that brings the deal to six scores all six (SPEC 13)
SCORED_AT = 6


@dataclass(frozen=True)
class ResultScore:
    """A result's fixed score: its place in arrival order (0 = first), the datum it was
    scored against and NS's IMPs (EW score the negative)."""

    index: int
    datum: int
    ns_imps: int

    @property
    def ew_imps(self) -> int:
        return 0 - self.ns_imps


@dataclass(frozen=True)
class DuplicateArrival(Generic[P]):
    """What one arriving result changes.

    ``count``: the deal's results counting the new one. ``scored``: the results scored now
    (none while n < 6, all six at n = 6, the new one after). ``points``: each affected
    player's change of the week's points, result by result in arrival order, each N E S W
    (the new result's four at 0 while n < 6, so the caller records their board).
    ``retired``: the deal has 40 results and is given to no table again.
    """

    count: int
    scored: tuple[ResultScore, ...]
    points: Mapping[P, int]
    retired: bool

    @property
    def datum(self) -> int | None:
        """The datum the results scored now were scored against; None while n < 6."""
        return self.scored[-1].datum if self.scored else None


def _scores(results: Sequence[TableResult[P]], indices: range) -> tuple[ResultScore, ...]:
    datum, ns_imps = datum_imps([result.ns_score for result in results])
    return tuple(ResultScore(index, datum, ns_imps[index]) for index in indices)


def duplicate_arrival(stored: Sequence[TableResult[P]], new: TableResult[P]) -> DuplicateArrival[P]:
    """Score one arriving result ``new`` on a deal whose earlier results, in arrival order,
    are ``stored``. Refused (`ClubError`): a 41st result, a player with two results on the
    deal."""
    results = check_arrival(stored, new)
    count = len(results)
    if count < SCORED_AT:
        scored: tuple[ResultScore, ...] = ()
        points = dict.fromkeys(new.players, 0)
    else:
        first = 0 if count == SCORED_AT else count - 1
        scored = _scores(results, range(first, count))
        points = {}
        for score in scored:
            points.update(side_points(results[score.index], score.ns_imps))
    return DuplicateArrival(count, scored, frozen(points), count == RETIRED_AT)


def duplicate_scores(results: Sequence[TableResult[P]]) -> tuple[ResultScore | None, ...]:
    """Every result's fixed score after all of ``results`` arrived in this order; None for
    a result still waiting (the deal has fewer than six)."""
    checked = check_results(results)
    count = len(checked)
    if count < SCORED_AT:
        return (None,) * count
    first_six = _scores(checked[:SCORED_AT], range(SCORED_AT))
    later = tuple(_scores(checked[: k + 1], range(k, k + 1))[0] for k in range(SCORED_AT, count))
    return first_six + later


def duplicate_points(results: Sequence[TableResult[P]]) -> Mapping[P, int]:
    """Each player's points from the deal after all of ``results`` arrived (0 while the
    deal waits for its sixth result)."""
    checked = check_results(results)
    points: dict[P, int] = {}
    for result, score in zip(checked, duplicate_scores(checked), strict=True):
        points.update(side_points(result, 0 if score is None else score.ns_imps))
    return frozen(points)
