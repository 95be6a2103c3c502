"""The one re-score path (RULES 3, 5): closed rounds scored again from their stored
results, every result whose points across the field changed recorded in its history,
then the totals, the standings of every closed round from the first re-scored one on,
and — when the results are out — the ranking, master points and players' totals: the
format's `score` and `rank` (`services.formats`), as at the bell.

Callers: the organiser's "re-score the round" (`clock.rescore_round`), a director's
ruling in a closed round (`results.director_set_result`, through
`clock.rescore_closed_round`) and a change of the settings that decide scores
(`settings_change.change_scoring_settings`, every closed round). Each holds the
tournament's lock inside its transaction.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from ..models import PairBoardScore, Round, Tournament, TournamentStatus
from . import formats, history


def result_points(rounds: Sequence[Round]) -> dict[int, dict]:
    """Each result's points across the field in `rounds`, by side, keyed by result id."""
    points: dict[int, dict] = {}
    for result_id, direction, value in PairBoardScore.objects.filter(
        board__round__in=[round.pk for round in rounds], result__isnull=False
    ).values_list("result_id", "direction", "points"):
        points.setdefault(result_id, {})[f"{direction.lower()}_points"] = value
    return points


def rescore(
    *, tournament: Tournament, rounds: Sequence[Round], by, now: datetime, reason: str = ""
) -> int:
    """Score `rounds` (closed, of `tournament`) again and everything that follows from
    them; returns how many results' points changed (each has its history line, with `by`
    and `reason`)."""
    if not rounds:
        return 0
    event_format = formats.format_of(tournament)
    before = result_points(rounds)
    for round in rounds:
        round.tournament = tournament  # the settings as locked now, not a stale copy
        event_format.score(round=round)
    changed = history.record_rescore(
        before=before, after=result_points(rounds), by=by, at=now, reason=reason
    )
    event_format.rank(
        tournament=tournament,
        from_round=min(rounds, key=lambda round: round.number),
        now=now,
        final=tournament.status == TournamentStatus.FINISHED,
    )
    return changed
