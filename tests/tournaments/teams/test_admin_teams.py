"""Admin's teams and matches (RULES 11): read only, and a running round's match scores
only for a director who may set results (`tournaments.visibility`)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from django.test import Client

from tests.support.team_events import MINUTE, ROUND, create_team_event, play_round
from tournaments.models import Match, Team
from tournaments.services.clock import advance

pytestmark = pytest.mark.django_db


def test_a_running_rounds_matches_only_for_a_director(organiser, director, make_user, t0):
    event = create_team_event(organiser=organiser, t0=t0, teams=2, rounds=2, boards_per_round=1)
    advance(now=t0)
    play_round(event, 1, now=t0 + MINUTE)
    advance(now=t0 + ROUND)  # round 1 closed, round 2 in play
    viewer = make_user("viewer")
    viewer.is_staff = True
    viewer.save()
    viewer.user_permissions.add(
        *Permission.objects.filter(codename__in=("view_match", "view_team"))
    )
    first, second = Match.objects.filter(round__tournament=event).order_by("round__number")
    for user, sees_running in ((viewer, False), (director, True)):
        client = Client()
        client.force_login(user)
        listing = client.get("/admin/tournaments/match/")
        assert listing.status_code == 200
        html = listing.content.decode()
        assert f"/admin/tournaments/match/{first.pk}/change/" in html
        assert (f"/admin/tournaments/match/{second.pk}/change/" in html) is sees_running
    client = Client()
    client.force_login(organiser)
    team = Team.objects.filter(tournament=event).first()
    page = client.get(f"/admin/tournaments/team/{team.pk}/change/")
    assert page.status_code == 200
    assert "open_pair" not in page.content.decode()  # the line-up stays the team's
    assert client.get("/admin/tournaments/team/add/").status_code == 403
