"""Master points of a team event (SPEC 7 with teams in place of pairs, SPEC 11): the
final rank's points to every player of the team who played at least a third of the
boards. Here each team has a fifth player who plays only round 1 of 4 (a quarter of the
boards): the winners' other four players score 3 each, the fifth nothing."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model

from tests.support.team_events import MINUTE, ROUND, create_team_event, play_round
from tournaments.models import MasterPointAward, Pair, PairStatus, Team, TeamMember
from tournaments.services.clock import advance

pytestmark = pytest.mark.django_db


def test_the_winners_who_played_a_third_of_the_boards_earn_the_master_points(organiser, t0):
    event = create_team_event(organiser=organiser, t0=t0, teams=2, rounds=4, boards_per_round=2)
    fifth: dict[int, object] = {}
    regulars: dict[int, set[int]] = {}
    for team in Team.objects.filter(tournament=event):
        extra = get_user_model().objects.create_user(username=f"fifth{team.pk}", password="pw")
        TeamMember.objects.create(tournament=event, team=team, user=extra, confirmed_at=t0)
        closed = team.closed_pair
        regulars[team.pk] = {
            team.open_pair.player1_id,
            team.open_pair.player2_id,
            closed.player1_id,
            closed.player2_id,
        }
        # Round 1: the fifth player sits in the closed room in place of its second player.
        stand_in = Pair.objects.create(
            tournament=event,
            team=team,
            player1=closed.player1,
            player2=extra,
            status=PairStatus.CONFIRMED,
            confirmed_at=t0,
            registration_no=100 + team.registration_no,
        )
        team.closed_pair = stand_in
        team.save(update_fields=["closed_pair"])
        fifth[team.pk] = (extra, closed)
    now = t0
    advance(now=now)
    for team_id, (_extra, closed) in fifth.items():
        # From round 2 on, the regular closed pair again (set before round 1's bell).
        Team.objects.filter(pk=team_id).update(closed_pair=closed)
    for number in range(1, 5):
        play_round(event, number, now=now + MINUTE)
        now += ROUND
        advance(now=now)
    event.refresh_from_db()
    assert event.status == "finished"
    winner = Team.objects.get(tournament=event, rank=1)
    awards = {
        a.user_id: a for a in MasterPointAward.objects.filter(tournament=event).select_related()
    }
    # Two teams (F < 20): only the top half scores, rank 1 gets 3.
    assert set(awards) == regulars[winner.pk]
    assert all(
        a.points == Decimal(3) and a.rank == 1 and a.team_id == winner.pk for a in awards.values()
    )
    assert fifth[winner.pk][0].pk not in awards
    for user_id in awards:
        assert get_user_model().objects.get(pk=user_id).profile.master_points == Decimal(3)
