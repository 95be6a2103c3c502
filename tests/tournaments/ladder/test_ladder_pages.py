"""The ladder's pages (RULES 11) with Django's test client, in English and Chinese: the
standing ladder (positions, open challenges with their deadlines, latest history, a
captain's challenge form listing the challengeable teams, accept and decline for the
challenged captain, entering a team) and a ladder team's page."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.test import Client
from django.urls import reverse

from tests.tournaments.ladder.conftest import by_position, team
from tournaments.models import LadderChallenge, LadderTeam
from tournaments.services import ladder as services

pytestmark = pytest.mark.django_db

DAY = timedelta(days=1)


def client_of(user=None, language: str = "en") -> Client:
    client = Client(headers={"accept-language": language})
    if user is not None:
        client.force_login(user)
    return client


def test_the_ladder_page_shows_positions_challenges_and_history(make_ladder, t0):
    ladder = make_ladder(5)
    t5, t3 = team(ladder, 5), team(ladder, 3)
    with time_machine.travel(t0 + DAY, tick=False):
        services.challenge(challenger=t5, challenged=t3, by=t5.captain)
        page = client_of().get(reverse("ladder", args=[ladder.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    at = [html.index(f'data-team="{team(ladder, n).pk}"') for n in range(1, 6)]
    assert at == sorted(at)
    assert "Open challenges" in html and "Accept by" in html
    assert "2026-12-06" in html  # the accept deadline, four days on
    assert "Team 5 challenged Team 3." in html
    assert "Team 1 entered the ladder at position 1." in html
    assert 'name="challenged"' not in html  # no form for a visitor
    assert 'name="viewport"' in html  # phone-friendly base

    zh = client_of(language="zh-hans").get(reverse("ladder", args=[ladder.pk])).content.decode()
    assert "未结束的挑战" in zh and "Team 5 向 Team 3 发起挑战。" in zh


def test_a_captain_challenges_from_the_page_and_the_challenged_captain_accepts(make_ladder, t0):
    ladder = make_ladder(5, challenge_range=2)
    t5, t4, t3 = team(ladder, 5), team(ladder, 4), team(ladder, 3)
    with time_machine.travel(t0 + DAY, tick=False):
        page = client_of(t5.captain).get(reverse("ladder", args=[ladder.pk])).content.decode()
        assert 'name="challenged"' in page
        options = page.split('name="challenged"')[1].split("</select>")[0]
        assert f'value="{t4.pk}"' in options and f'value="{t3.pk}"' in options
        assert f'value="{team(ladder, 2).pk}"' not in options  # out of range
        response = client_of(t5.captain).post(
            reverse("ladder_challenge", args=[ladder.pk]), {"challenged": t3.pk}
        )
        assert response.status_code == 302
        made = LadderChallenge.objects.get(challenger=t5)
        assert made.challenged == t3 and made.state == "open"
        # the challenged captain sees the buttons; another player does not
        own = client_of(t3.captain).get(reverse("ladder", args=[ladder.pk])).content.decode()
        assert reverse("ladder_accept", args=[ladder.pk, made.pk]) in own
        other = client_of(t4.captain).get(reverse("ladder", args=[ladder.pk])).content.decode()
        assert reverse("ladder_accept", args=[ladder.pk, made.pk]) not in other
        # a stranger's accept is refused with a message, nothing changes
        refused = client_of(t4.captain, "zh-hans").post(
            reverse("ladder_accept", args=[ladder.pk, made.pk]), follow=True
        )
        assert "只有被挑战队的队长" in refused.content.decode()
        assert LadderChallenge.objects.get(pk=made.pk).state == "open"
        client_of(t3.captain).post(reverse("ladder_accept", args=[ladder.pk, made.pk]))
    made.refresh_from_db()
    assert made.state == "accepted"
    with time_machine.travel(t0 + 2 * DAY, tick=False):
        html = client_of().get(reverse("ladder", args=[ladder.pk])).content.decode()
    assert "Play by" in html and "Team 3 accepted the challenge of Team 5." in html


def test_decline_from_the_page_is_a_forfeit(make_ladder, t0):
    ladder = make_ladder(4)
    t4, t3 = team(ladder, 4), team(ladder, 3)
    with time_machine.travel(t0 + DAY, tick=False):
        made = services.challenge(challenger=t4, challenged=t3, by=t4.captain)
        client_of(t3.captain).post(reverse("ladder_decline", args=[ladder.pk, made.pk]))
    assert by_position(ladder) == ["Team 1", "Team 2", "Team 4", "Team 3"]


def test_entering_a_team_from_the_page(make_ladder, make_user, t0):
    ladder = make_ladder(2)
    captain = make_user("newcap")
    for name in ("n1", "n2", "n3"):
        make_user(name)
    page = client_of(captain).get(reverse("ladder", args=[ladder.pk])).content.decode()
    assert reverse("ladder_enter", args=[ladder.pk]) in page
    response = client_of(captain).post(
        reverse("ladder_enter", args=[ladder.pk]),
        {"name": "Newcomers", "member1": "n1", "member2": "n2", "member3": "n3"},
    )
    entered = LadderTeam.objects.get(ladder=ladder, name="Newcomers")
    assert response.status_code == 302 and entered.position == 3
    assert entered.members.count() == 4


def test_the_team_page_lists_members_challenges_and_results(make_ladder, organiser, t0):
    ladder = make_ladder(4)
    t4, t2 = team(ladder, 4), team(ladder, 2)
    with time_machine.travel(t0 + DAY, tick=False):
        made = services.challenge(challenger=t4, challenged=t2, by=t4.captain)
        services.accept(challenge=made, by=t2.captain)
        services.record_result(challenge=made, challenger_vp="15.50", by=organiser)
    for language, words in (
        ("en", ("Players", "Played", "Captain")),
        ("zh-hans", ("牌手", "已打", "队长")),
    ):
        page = client_of(language=language).get(reverse("ladder_team", args=[ladder.pk, t4.pk]))
        assert page.status_code == 200
        html = page.content.decode()
        for word in words:
            assert word in html, (language, word)
        assert "15.50 – 4.50" in html
        assert "t4p1" in html  # a member
    assert client_of().get(reverse("ladders")).status_code == 200
    assert client_of().get(reverse("ladder_team", args=[ladder.pk, 999999])).status_code == 404
