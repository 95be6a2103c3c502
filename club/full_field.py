"""Full-field scoring (全场记分, SPEC 13): scores that move until the week closes.

Every result of a deal is scored against the datum of all the deal's results so far and
re-scored whenever one arrives, so the order of arrival does not matter: the scores after
an arrival are the scores of all the results at once (`full_field_scores`), and
`full_field_arrival` also answers how much each player's IMPs moved, for the database
layer to add to the week's points in the same transaction as the new result. A deal takes
at most 40 results (retired, as in duplicate scoring), so a re-score touches at most 40.

IMPs: the event's XIMP datum (`scoring.datum_imps`, SPEC 5.3), rounded to 10 with a 5 to
the even ten. SPEC 13 writes its trimming as k = max(1, ⌊n/10⌋), which for n ≤ 2 would
drop every result; full-field scoring starts at the first result, so the club keeps SPEC
5.3's k = 0 for n ≤ 2 (`scoring.datum_discard_count`): one result is its own datum (0
IMPs), two share their mean. From n = 3 the two formulas agree.

MP (offered too): SPEC 5.3's percentages among the deal's results (`scoring.
matchpoint_percentages`): 2 per result beaten, 1 per tie, of a top of 2(n − 1); 50 % for a
lone result; EW get 100 − NS.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Generic

from scoring import datum_imps, matchpoint_percentages

from .deal import RETIRED_AT, P, TableResult, check_arrival, check_results, frozen, side_points


@dataclass(frozen=True)
class FieldScores(Generic[P]):
    """A deal's scores against all its results, in arrival order.

    ``datum`` is None for a deal with no result. ``ns_imps`` / ``ns_percentages``: each
    result's NS IMPs and NS MP percentage (EW: the negative / 100 − it). ``imps`` and
    ``percentages``: the same per player.
    """

    datum: int | None
    ns_imps: tuple[int, ...]
    ns_percentages: tuple[float, ...]
    imps: Mapping[P, int]
    percentages: Mapping[P, float]


@dataclass(frozen=True)
class FieldArrival(Generic[P]):
    """One arrival: ``count`` results counting it; ``scores``, the deal's scores now;
    ``imp_changes``, each player's IMPs now minus before (the new result's four: their
    whole score; a player whose score did not move: 0, listed all the same); ``retired``:
    the deal has 40 results."""

    count: int
    scores: FieldScores[P]
    imp_changes: Mapping[P, int]
    retired: bool


def full_field_scores(results: Sequence[TableResult[P]]) -> FieldScores[P]:
    """Every result of the deal scored against all of them (refused: more than 40
    results, a player with two)."""
    checked = check_results(results)
    if not checked:
        return FieldScores(None, (), (), frozen({}), MappingProxyType({}))
    ns_scores = [result.ns_score for result in checked]
    datum, ns_imps = datum_imps(ns_scores)
    ns_percentages = matchpoint_percentages(ns_scores)
    imps: dict[P, int] = {}
    percentages: dict[P, float] = {}
    for result, ns_imp, ns_percentage in zip(checked, ns_imps, ns_percentages, strict=True):
        imps.update(side_points(result, ns_imp))
        ew_percentage = 100.0 - ns_percentage
        percentages.update(
            {
                result.north: ns_percentage,
                result.east: ew_percentage,
                result.south: ns_percentage,
                result.west: ew_percentage,
            }
        )
    return FieldScores(
        datum, tuple(ns_imps), tuple(ns_percentages), frozen(imps), MappingProxyType(percentages)
    )


def full_field_arrival(stored: Sequence[TableResult[P]], new: TableResult[P]) -> FieldArrival[P]:
    """Re-score the deal when ``new`` arrives after ``stored`` (refused: a 41st result)."""
    results = check_arrival(stored, new)
    before = full_field_scores(results[:-1]).imps
    after = full_field_scores(results)
    changes = {player: points - before.get(player, 0) for player, points in after.imps.items()}
    return FieldArrival(len(results), after, frozen(changes), len(results) == RETIRED_AT)
