"""The director's console for ladders (RULES 11): creating a ladder, and a director's
actions on a challenge — the result, who turned up, a forfeit — each through
`services.ladder`, refused with a message and no change for a user without the power, in
English and Chinese."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.test import Client
from django.urls import reverse

from tests.tournaments.ladder.conftest import by_position, team
from tournaments.models import Ladder, LadderChallenge, LadderHistory
from tournaments.services import ladder as services

pytestmark = pytest.mark.django_db

DAY = timedelta(days=1)


def console_of(user, language: str = "en") -> Client:
    client = Client(headers={"accept-language": language})
    client.force_login(user)
    return client


def test_a_director_creates_a_ladder_and_a_refusal_changes_nothing(director):
    client = console_of(director)
    assert "data-ladders-link" in client.get(reverse("console_index")).content.decode()
    form = {
        "name": "春季梯级赛",
        "challenge_range": 0,
        "accept_days": 4,
        "play_days": 7,
        "rematch_days": 14,
        "boards_per_match": 16,
    }
    refused = client.post(reverse("console_ladders"), form)
    assert refused.status_code == 200 and not Ladder.objects.exists()
    assert "form-error" in refused.content.decode()
    created = client.post(reverse("console_ladders"), {**form, "challenge_range": 2})
    ladder = Ladder.objects.get()
    assert created.status_code == 302 and created["Location"] == reverse(
        "console_ladder", args=[ladder.pk]
    )
    assert (ladder.name, ladder.challenge_range, ladder.boards_per_match) == ("春季梯级赛", 2, 16)
    zh = console_of(director, "zh-hans").get(reverse("console_ladders")).content.decode()
    assert "春季梯级赛" in zh and "新建梯级赛" in zh


def test_staff_without_the_power_creates_nothing(make_user):
    staff = make_user("plainstaff", staff=False)
    staff.is_staff = True
    staff.save()
    client = console_of(staff)
    page = client.get(reverse("console_ladders")).content.decode()
    assert "data-new-ladder" not in page
    client.post(reverse("console_ladders"), {"name": "X", "challenge_range": 3, "accept_days": 4,
                                             "play_days": 7, "rematch_days": 14,
                                             "boards_per_match": 8})  # fmt: skip
    assert not Ladder.objects.exists()


def test_the_director_records_the_result_and_the_teams_move(make_ladder, director, t0):
    ladder = make_ladder(5)
    t5, t3 = team(ladder, 5), team(ladder, 3)
    with time_machine.travel(t0 + DAY, tick=False):
        challenge = services.challenge(challenger=t5, challenged=t3, by=t5.captain)
        services.accept(challenge=challenge, by=t3.captain)
        client = console_of(director)
        page = client.get(reverse("console_ladder", args=[ladder.pk])).content.decode()
        assert f'data-challenge="{challenge.pk}"' in page and "data-result" in page
        url = reverse("console_ladder_challenge", args=[ladder.pk, challenge.pk, "result"])
        bad = client.post(url, {"challenger_vp": "21"}, follow=True)
        assert "0 to 20" in bad.content.decode()
        assert by_position(ladder) == ["Team 1", "Team 2", "Team 3", "Team 4", "Team 5"]
        client.post(url, {"challenger_vp": "15.50"})
    challenge.refresh_from_db()
    assert challenge.state == "played"
    assert by_position(ladder) == ["Team 1", "Team 2", "Team 5", "Team 3", "Team 4"]
    assert LadderHistory.objects.filter(ladder=ladder, kind="moved").count() == 3


def test_showed_and_forfeit_from_the_console_and_refused_without_the_power(
    make_ladder, director, make_user, t0
):
    ladder = make_ladder(4)
    t4, t3 = team(ladder, 4), team(ladder, 3)
    staff = make_user("viewer", staff=False)
    staff.is_staff = True
    staff.save()
    with time_machine.travel(t0 + DAY, tick=False):
        challenge = services.challenge(challenger=t4, challenged=t3, by=t4.captain)
        services.accept(challenge=challenge, by=t3.captain)
        showed = reverse("console_ladder_challenge", args=[ladder.pk, challenge.pk, "showed"])
        forfeit = reverse("console_ladder_challenge", args=[ladder.pk, challenge.pk, "forfeit"])
        refused = console_of(staff).post(forfeit, {"team": t3.pk}, follow=True)
        assert "message error" in refused.content.decode()
        assert LadderChallenge.objects.get(pk=challenge.pk).state == "accepted"
        console_of(director).post(showed, {"team": t4.pk})
        assert LadderChallenge.objects.get(pk=challenge.pk).challenger_showed
        console_of(director).post(forfeit, {"team": t3.pk})
    assert LadderChallenge.objects.get(pk=challenge.pk).state == "forfeited"
    assert by_position(ladder) == ["Team 1", "Team 2", "Team 4", "Team 3"]
