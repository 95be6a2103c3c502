"""A player's history (the profile page) holds their team events beside their pairs events:
a team's players are its members, not members of its pairs."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from tests.support.team_events import ROUND, create_team_event, play_round
from tournaments.models import MasterPointAward, Team, TeamMember
from tournaments.selectors import player_history
from tournaments.services.bulk_registration import register_pairs_in_bulk
from tournaments.services.clock import advance

pytestmark = pytest.mark.django_db


def test_a_finished_team_event_is_in_its_players_history_with_rank_vp_and_points(
    client, organiser, t0
):
    event = create_team_event(organiser=organiser, t0=t0, teams=2, rounds=1, boards_per_round=2)
    advance(now=t0)
    play_round(event, 1, now=t0 + ROUND / 2)
    advance(now=t0 + ROUND)
    event.refresh_from_db()
    assert event.status == "finished"
    winner = Team.objects.get(tournament=event, rank=1)
    loser = Team.objects.get(tournament=event, rank=2)
    member = TeamMember.objects.filter(team=winner).select_related("user").first().user
    other = TeamMember.objects.filter(team=loser).select_related("user").first().user
    earned = MasterPointAward.objects.get(tournament=event, user=member).points
    assert earned > 0

    [line] = player_history(user=member)
    assert (line.tournament.pk, line.team.pk, line.pair, line.master_points) == (
        event.pk,
        winner.pk,
        None,
        earned,
    )
    assert player_history(user=other)[0].master_points is None  # the second team earns none

    page = client.get(f"/players/{member.username}/").content.decode()
    assert f"/t/{event.pk}/teams/{winner.pk}/" in page
    assert winner.name in page
    assert f"{winner.vp.normalize():f} VP" in page
    assert f">{earned.normalize():f}<" in page


def test_pairs_and_team_events_newest_first(organiser, t0, make_tournament):
    event = create_team_event(organiser=organiser, t0=t0, teams=2, rounds=1, boards_per_round=2)
    member = TeamMember.objects.filter(tournament=event).select_related("user").first().user
    partner = get_user_model().objects.create_user(username="history-partner", password="pw")
    later = make_tournament(name="Later pairs", start_at=event.start_at + ROUND * 10)
    earlier = make_tournament(name="Earlier pairs", start_at=event.start_at - ROUND * 10)
    for pairs_event in (later, earlier):
        register_pairs_in_bulk(tournament=pairs_event, players=[member, partner], at=t0)
    history = player_history(user=member)
    assert [(line.tournament.pk, bool(line.pair), bool(line.team)) for line in history] == [
        (later.pk, True, False),
        (event.pk, False, True),
        (earlier.pk, True, False),
    ]
    assert player_history(user=partner)[0].team is None
