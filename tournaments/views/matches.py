"""A team event's pages (RULES 11): the standings with each round's matches, and a
match's score card. Thin: the selectors read, the visibility rule decides what shows."""

from __future__ import annotations

from django.shortcuts import get_object_or_404, render

from ..models import Match, Round, TournamentStatus
from ..selectors.team_results import match_card, round_matches, team_standings
from ..visibility import results_public


def team_results(request, tournament):
    """The results page of a team event: the standings, then the matches of each round
    (a round's scores once it has closed)."""
    rounds = list(Round.objects.filter(tournament=tournament).order_by("-number"))
    return render(
        request,
        "tournaments/team_results.html",
        {
            "tournament": tournament,
            "lines": team_standings(tournament=tournament),
            "rounds": [
                {
                    "round": r,
                    "closed": results_public(r),
                    "matches": round_matches(round=r),
                }
                for r in rounds
            ],
            "finished": tournament.status == TournamentStatus.FINISHED,
            "vp": tournament.team_scoring == "vp",
        },
    )


def match(request, tournament_id: int, match_id: int):
    found = get_object_or_404(
        Match.objects.select_related(
            "round__tournament", "home", "away", "open_table", "closed_table"
        ),
        pk=match_id,
        round__tournament_id=tournament_id,
    )
    card = match_card(match=found)
    return render(
        request,
        "tournaments/match_card.html",
        {
            "tournament": found.round.tournament,
            "card": card,
            "match": found,
            "vp": found.round.tournament.team_scoring == "vp",
        },
    )
