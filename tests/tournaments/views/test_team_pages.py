"""A team event's registration pages (RULES 11), through Django's test client, in English
and Chinese: propose a team on the tournament page, the invited player sees the invitation
and joins, the team page with its members and the captain's line-up form, the line-up seen
by the team and the organisers only, cancel and withdraw."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from tournaments.models import Team, TeamMember
from tournaments.services import teams

pytestmark = pytest.mark.django_db

ZH = {"HTTP_ACCEPT_LANGUAGE": "zh-hans"}
EN = {"HTTP_ACCEPT_LANGUAGE": "en"}


@pytest.fixture
def event(make_tournament):
    return make_tournament(
        contestants="teams",
        seating="swiss",
        start_at=timezone.now() + timedelta(hours=2),
        registration_opens_at=timezone.now() - timedelta(days=1),
    )


@pytest.fixture
def people(make_user):
    return [make_user(name=f"Player {i}") for i in range(9)]


def registered(event, members, name="Lions") -> Team:
    team = teams.propose_team(
        tournament=event, captain=members[0], name=name, members=[u.username for u in members[1:]]
    )
    for user in members[1:4]:
        teams.confirm_membership(team=team, user=user)
    team.refresh_from_db()
    return team


def text(response) -> str:
    assert response.status_code == 200, response.status_code
    return response.content.decode()


@pytest.mark.parametrize(
    "headers,words",
    [
        (EN, ("Your team", "Propose a team", "Registered teams", "No team has registered yet.")),
        (ZH, ("你的队伍", "组建队伍", "已报名的队伍", "还没有队伍报名。")),
    ],
)
def test_the_tournament_page_offers_a_team_not_a_pair(client, event, people, headers, words):
    client.force_login(people[0])
    page = text(client.get(f"/t/{event.pk}/", **headers))
    for word in words:
        assert word in page
    assert "id_partner" not in page  # no pairs form in a team event
    assert f"/t/{event.pk}/teams/register/" in page
    assert page.count('name="member') == 5


def test_anonymous_visitors_are_asked_to_log_in(client, event):
    page = text(client.get(f"/t/{event.pk}/", **EN))
    assert "to register a team" in page
    assert "/teams/register/" not in page


@pytest.mark.parametrize("headers", [EN, ZH])
def test_propose_then_the_invited_players_join(client, event, people, headers):
    a, b, c, d = people[:4]
    client.force_login(a)
    response = client.post(
        f"/t/{event.pk}/teams/register/",
        {"name": "Lions", "member1": b.username, "member2": c.username, "member3": d.username},
        **headers,
    )
    team = Team.objects.get(tournament=event)
    assert response.status_code == 302 and response["Location"] == f"/t/{event.pk}/teams/{team.pk}/"
    page = text(client.get(response["Location"], **headers))
    assert "Lions" in page and "Player 1" in page
    assert ("Invited" if headers is EN else "已邀请") in page
    assert ("Cancel the team" if headers is EN else "取消队伍") in page
    # b sees the invitation on the tournament page and joins.
    client.force_login(b)
    page = text(client.get(f"/t/{event.pk}/", **headers))
    assert f"/t/{event.pk}/teams/{team.pk}/confirm/" in page
    assert (
        "invites you to play this tournament in team" if headers is EN else "邀请你加入"
    ) in page
    response = client.post(f"/t/{event.pk}/teams/{team.pk}/confirm/", **headers)
    assert response.status_code == 302
    for user in (c, d):
        client.force_login(user)
        client.post(f"/t/{event.pk}/teams/{team.pk}/confirm/", **headers)
    team.refresh_from_db()
    assert team.status == "confirmed" and team.registration_no == 1
    page = text(client.get(f"/t/{event.pk}/", **headers))
    expected = "registered as team no. 1" if headers is EN else "报名编号 1"
    assert expected in page
    assert f'href="/t/{event.pk}/teams/{team.pk}/"' in page


def test_a_refused_proposal_says_why_and_changes_nothing(client, event, people):
    registered(event, people[:4])
    client.force_login(people[4])
    response = client.post(
        f"/t/{event.pk}/teams/register/",
        {"name": "Tigers", "member1": people[5].username, "member2": people[1].username,
         "member3": people[6].username},
        follow=True,
        **EN,
    )  # fmt: skip
    assert "already in a team" in text(response)
    assert Team.objects.count() == 1
    response = client.post(
        f"/t/{event.pk}/teams/register/", {"name": "Tigers", "member1": "x"}, follow=True, **EN
    )
    assert "at least three members" in text(response)
    assert Team.objects.count() == 1


def test_decline(client, event, people):
    team = teams.propose_team(
        tournament=event,
        captain=people[0],
        name="Lions",
        members=[u.username for u in people[1:5]],
    )
    client.force_login(people[4])
    page = text(client.get(f"/t/{event.pk}/teams/{team.pk}/", **ZH))
    assert "加入本队" in page  # the invitation on the team page too
    response = client.post(f"/t/{event.pk}/teams/{team.pk}/decline/", follow=True, **ZH)
    assert "你已拒绝加入 Lions 队的邀请。" in text(response)
    assert not TeamMember.objects.filter(team=team, user=people[4]).exists()


@pytest.mark.parametrize("headers", [EN, ZH])
def test_the_line_up_is_seen_by_the_team_and_the_organisers(
    client, event, people, organiser, headers
):
    team = registered(event, people[:5])
    registered(event, people[5:9], name="Tigers")
    title = "Line-up for the next match" if headers is EN else "下一场比赛的阵容"
    form = f"/t/{event.pk}/teams/{team.pk}/line-up/"
    path = f"/t/{event.pk}/teams/{team.pk}/"
    # The public and the opponents: the members, not the line-up.
    page = text(client.get(path, **headers))
    assert "Player 1" in page and title not in page
    client.force_login(people[5])
    page = text(client.get(path, **headers))
    assert title not in page and form not in page
    # A member sees it, without the form; the captain and an organiser have the form.
    client.force_login(people[2])
    page = text(client.get(path, **headers))
    assert title in page and form not in page
    for user in (people[0], organiser):
        client.force_login(user)
        page = text(client.get(path, **headers))
        assert title in page and form in page
        assert ("Open room, first player" if headers is EN else "开室第一名队员") in page


def test_the_captain_sets_the_line_up(client, event, people):
    a, b, c, d, e = people[:5]
    team = registered(event, people[:5])
    teams.confirm_membership(team=team, user=e)
    client.force_login(a)
    response = client.post(
        f"/t/{event.pk}/teams/{team.pk}/line-up/",
        {"open1": e.username, "open2": c.username, "closed1": a.username, "closed2": b.username},
        follow=True,
        **EN,
    )
    assert "The line-up is set for the next match." in text(response)
    team.refresh_from_db()
    assert (team.open_pair.player1_id, team.open_pair.player2_id) == (e.pk, c.pk)
    assert (team.closed_pair.player1_id, team.closed_pair.player2_id) == (a.pk, b.pk)
    # The same player twice: refused, with the reason, nothing changed.
    response = client.post(
        f"/t/{event.pk}/teams/{team.pk}/line-up/",
        {"open1": e.username, "open2": e.username, "closed1": a.username, "closed2": b.username},
        follow=True,
        **ZH,
    )
    assert "阵容是四名不同的队员。" in text(response)
    team.refresh_from_db()
    assert team.open_pair.player2_id == c.pk
    # Not the captain: refused.
    client.force_login(b)
    response = client.post(
        f"/t/{event.pk}/teams/{team.pk}/line-up/",
        {"open1": a.username, "open2": b.username, "closed1": c.username, "closed2": d.username},
        follow=True,
        **EN,
    )
    assert "captain or an organiser can set its line-up" in text(response)
    team.refresh_from_db()
    assert team.open_pair.player1_id == e.pk


def test_cancel_and_withdraw(client, event, people):
    pending = teams.propose_team(
        tournament=event,
        captain=people[4],
        name="Tigers",
        members=[u.username for u in people[5:8]],
    )
    client.force_login(people[4])
    response = client.post(f"/t/{event.pk}/teams/{pending.pk}/cancel/", follow=True, **EN)
    assert "The team is cancelled." in text(response)
    assert not Team.objects.filter(pk=pending.pk).exists()

    team = registered(event, people[:4])
    path = f"/t/{event.pk}/teams/{team.pk}/"
    client.force_login(people[1])  # a member, not the captain: no withdrawal
    assert "/withdraw/" not in text(client.get(path, **EN))
    client.force_login(people[0])
    assert f"{path}withdraw/" in text(client.get(path, **EN))
    question = text(client.get(f"{path}withdraw/", **ZH))
    assert "确定让本队退赛？" in question
    team.refresh_from_db()
    assert team.withdrawn_at is None  # asking changes nothing
    response = client.post(f"{path}withdraw/", follow=True, **EN)
    assert "Team Lions has withdrawn." in text(response)
    team.refresh_from_db()
    assert team.withdrawn_at is not None
    page = text(client.get(path, **EN))
    assert "Withdrawn" in page and "/line-up/" not in page


def test_a_team_page_of_a_pairs_event_or_of_another_event_is_a_404(
    client, event, people, make_tournament
):
    team = registered(event, people[:4])
    other = make_tournament(contestants="teams", seating="swiss")
    assert client.get(f"/t/{other.pk}/teams/{team.pk}/").status_code == 404
    assert client.get(f"/t/{event.pk}/teams/999999/").status_code == 404


def test_the_phone_layout_uses_the_stacked_forms(client, event, people):
    """The forms are the site's stacked fields (one per line on a phone), no table."""
    team = registered(event, people[:4])
    client.force_login(people[0])
    page = text(client.get(f"/t/{event.pk}/teams/{team.pk}/", **EN))
    assert 'class="stacked line-up-form"' in page and "<table" not in page
    client.force_login(people[5])
    page = text(client.get(f"/t/{event.pk}/", **EN))
    assert 'class="stacked"' in page
