"""`manage.py play_robots`: what it refuses before any robot connects."""

from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command


@pytest.mark.django_db
def test_play_robots_needs_tournaments_or_a_mode():
    with pytest.raises(CommandError, match="Name the tournaments"):
        call_command("play_robots")


@pytest.mark.django_db
def test_play_robots_refuses_a_tournament_played_elsewhere(make_tournament):
    entered = make_tournament()  # played elsewhere (the default)
    with pytest.raises(CommandError, match="Not online tournaments"):
        call_command("play_robots", str(entered.pk))


@pytest.mark.django_db
@pytest.mark.parametrize("pace", ["fast", "6-2", "-1"])
def test_play_robots_refuses_a_bad_pace(make_tournament, pace):
    online = make_tournament(play="online")
    with pytest.raises(CommandError, match="--pace"):
        call_command("play_robots", str(online.pk), "--pace", pace)
