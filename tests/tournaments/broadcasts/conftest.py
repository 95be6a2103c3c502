"""The broadcasts' shared fixtures: a running online team event's match, a commentator."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from django.utils import timezone

from tests.tournaments.broadcasts.test_broadcast import _team_event
from tournaments.models import Match, Round
from tournaments.services import clock


@pytest.fixture
def match(organiser, db):
    event = _team_event(organiser)
    clock.advance(now=timezone.now())
    assert Round.objects.get(tournament=event).status == "open"
    return Match.objects.select_related(
        "open_table", "closed_table", "round__tournament", "home", "away"
    ).get(round__tournament=event)


@pytest.fixture
def commentator(make_user):
    user = make_user("commentator")
    user.user_permissions.add(Permission.objects.get(codename="comment_broadcasts"))
    return type(user).objects.get(pk=user.pk)
