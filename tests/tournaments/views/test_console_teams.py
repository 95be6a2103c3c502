"""The director's console runs a team event (RULES 11) as it runs a pairs event: a new
event's contestants, team seating, scoring and bye; the teams listed (members confirmed or
not, line-up set or not, withdrawn); each round's matches with both rooms' tables and
their progress; the rooms' tables are ordinary tables, so the result form and the
rulings work there; a team withdrawn through `teams.withdraw_team`."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import timezone

from tests.support.team_events import MINUTE, create_team_event, play_round
from tournaments.models import BoardResult, Match, Pair, Round, Team, TeamMember, Tournament
from tournaments.selectors import console as console_selectors
from tournaments.services import clock, teams

pytestmark = pytest.mark.django_db


@pytest.fixture
def helper(make_user):
    """A staff account outside the directors' group: it may open the console, not act."""
    user = make_user("helper")
    user.is_staff = True
    user.save(update_fields=["is_staff"])
    return user


@pytest.fixture
def event(organiser, t0):
    """Five teams, Swiss, round 1 in play: two matches and a bye."""
    event = create_team_event(organiser=organiser, t0=t0, teams=5, rounds=3, boards_per_round=2)
    clock.advance(now=t0)
    return event


def _new_event_data(**extra) -> dict:
    start = (timezone.localtime() + timedelta(days=2)).strftime("%Y-%m-%dT%H:%M")
    data = {
        "name": "Club Teams",
        "start_at": start,
        "rounds": "5",
        "boards_per_round": "8",
        "round_minutes": "60",
        "gap_minutes": "0",
        "contestants": "teams",
        "seating": "round_robin",
        "team_scoring": "vp",
        "bye_vp": "12.5",
    }
    data.update(extra)
    return data


def test_a_team_event_created_from_the_console(client, director):
    client.force_login(director)
    form = client.get(reverse("console_new")).content.decode()
    for name in ("contestants", "team_scoring", "bye_vp"):
        assert f'name="{name}"' in form
    assert 'data-for="teams"' in form and 'data-for="pairs"' in form
    assert 'value="round_robin"' in form
    response = client.post(reverse("console_new"), _new_event_data())
    created = Tournament.objects.get(name="Club Teams")
    assert response.url == reverse("console", args=[created.pk])
    assert (created.contestants, created.seating, created.team_scoring) == (
        "teams",
        "round_robin",
        "vp",
    )
    assert created.bye_vp == Decimal("12.5")
    page = client.get(response.url).content.decode()
    assert 'id="team-event"' in page and 'id="teams"' in page
    assert 'id="pairs"' not in page
    assert reverse("movement", args=[created.pk]) not in page  # a round robin has no movement


@pytest.mark.parametrize(
    ("extra", "says"),
    [
        ({"bye_vp": "21"}, "A bye is worth 0 to 20 victory points"),
        ({"contestants": "pairs"}, "A round robin is for teams"),
        ({"seating": "mitchell"}, "A team event is seated Swiss or as a round robin."),
    ],
)
def test_the_service_refuses_a_wrong_team_setting_and_the_form_says_why(
    client, director, extra, says
):
    client.force_login(director)
    response = client.post(reverse("console_new"), _new_event_data(**extra))
    assert response.status_code == 400
    assert says in response.content.decode()
    assert not Tournament.objects.filter(name="Club Teams").exists()


def test_an_imps_only_event_with_swiss_teams(client, director):
    client.force_login(director)
    data = _new_event_data(seating="swiss", team_scoring="imps", bye_vp="")
    client.post(reverse("console_new"), data)
    created = Tournament.objects.get(name="Club Teams")
    assert (created.seating, created.team_scoring, created.bye_vp) == ("swiss", "imps", 12)


def test_the_console_lists_the_teams_instead_of_the_pairs(client, director, organiser, t0):
    event = create_team_event(organiser=organiser, t0=t0, teams=2, rounds=2)
    first = Team.objects.get(tournament=event, registration_no=1)
    first.open_pair = None
    first.save(update_fields=["open_pair"])
    # A team still waiting: its captain confirmed, three players invited.
    made = [get_user_model().objects.create_user(username=f"pending{i}") for i in range(4)]
    captain, other = made[0], made[1:]
    pending = teams.propose_team(
        tournament=event,
        captain=captain,
        name="Waiting",
        members=[u.username for u in other],
        now=t0 - timedelta(hours=2),
    )
    client.force_login(director)
    page = client.get(reverse("console", args=[event.pk])).content.decode()
    teams_part = page[page.index('id="teams"') :]
    assert 'id="pairs"' not in page
    row = teams_part[teams_part.index(f'data-team="{first.pk}"') :].split("</tr>")[0]
    assert "no line-up" in row
    waiting = teams_part[teams_part.index(f'data-team="{pending.pk}"') :].split("</tr>")[0]
    assert "waiting: 1 of 4 confirmed" in waiting
    assert waiting.count("· not confirmed") == 3
    assert "Withdraw" not in waiting  # not registered: nothing to withdraw
    second = Team.objects.get(tournament=event, registration_no=2)
    row = teams_part[teams_part.index(f'data-team="{second.pk}"') :].split("</tr>")[0]
    assert ">set<" in row
    assert reverse("console_withdraw_team", args=[event.pk, second.pk]) in row
    # The start says which team has no line-up: the start would be refused.
    start = client.get(reverse("console_action", args=[event.pk, "start"])).content.decode()
    assert "2 registered teams will play." in start
    assert "these teams have no line-up: Team 1" in start
    assert "1 team still waiting for its members" in start
    # A search by name, by number.
    found = client.get(reverse("console", args=[event.pk]), {"q": "Waiting"}).content.decode()
    assert f'data-team="{pending.pk}"' in found and f'data-team="{second.pk}"' not in found
    found = client.get(reverse("console", args=[event.pk]), {"q": "2"}).content.decode()
    assert f'data-team="{second.pk}"' in found and f'data-team="{pending.pk}"' not in found
    assert TeamMember.objects.filter(team=pending).count() == 4


def test_each_match_shows_both_rooms_and_their_progress(client, director, event, t0):
    matches = list(
        Match.objects.filter(round__tournament=event, away__isnull=False).select_related(
            "open_table", "closed_table", "home", "away"
        )
    )
    assert len(matches) == 2
    first = matches[0]
    play_round(event, 1, now=t0 + MINUTE, skip={first.closed_table.number})
    client.force_login(director)
    page = client.get(reverse("console", args=[event.pk])).content.decode()
    part = page[page.index('id="matches"') :]
    card = part[part.index(f'data-match="{first.pk}"') :].split("</article>")[0]
    assert first.home.name in card and first.away.name in card
    open_room = card[card.index('data-room="1"') :].split("</li>")[0]
    closed_room = card[card.index('data-room="2"') :].split("</li>")[0]
    assert f"table {first.open_table.number}" in open_room
    assert "0 of 2 boards settled" in open_room  # entered, not yet confirmed
    assert f'href="#table-{first.open_table.number}"' in open_room
    assert f'href="#table-{first.closed_table.number}"' in closed_room
    assert reverse("match", args=[event.pk, first.pk]) in card
    assert "The round off: 12.00 VP." in part  # five teams: one has the bye
    # The grid's rows are the rooms' tables, each pair named with its team.
    assert f'id="table-{first.open_table.number}"' in page
    assert f"{first.home.name} · " in page
    # A room's board is an ordinary table's: the director's result form works there.
    url = reverse("console_result", args=[event.pk, first.closed_table.pk, 1])
    assert client.get(url).status_code == 200
    response = client.post(
        url,
        {
            "level": "3",
            "strain": "NT",
            "declarer": "N",
            "tricks": "9",
            "reason": "entered for the room",
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    result = BoardResult.objects.get(table=first.closed_table, board__number=1)
    assert result.contract == "3NT" and result.adjusted_by == director
    page = client.get(reverse("console", args=[event.pk])).content.decode()
    card = page[page.index(f'data-match="{first.pk}"') :].split("</article>")[0]
    closed_room = card[card.index('data-room="2"') :].split("</li>")[0]
    assert "1 of 2 boards settled" in closed_room


def test_the_console_withdraws_a_team_through_the_service(client, director, helper, organiser):
    now = timezone.now()  # round 1 in play now: its bell has not rung
    event = create_team_event(organiser=organiser, t0=now, teams=4, rounds=2, boards_per_round=2)
    clock.advance(now=now)
    match = Match.objects.filter(round__tournament=event, away__isnull=False).first()
    team = match.away
    url = reverse("console_withdraw_team", args=[event.pk, team.pk])
    client.force_login(helper)
    page = client.get(url).content.decode()
    assert "Only a director who manages players can withdraw a team." in page
    refused = client.post(url)
    assert refused.status_code == 400
    assert "Only the team&#x27;s captain or an organiser can withdraw it." in (
        refused.content.decode()
    )
    team.refresh_from_db()
    assert team.withdrawn_at is None
    client.force_login(director)
    page = client.get(url).content.decode()
    assert "average plus to the opponents" in page  # its round is in play
    response = client.post(url)
    assert response.url == reverse("console", args=[event.pk])
    team.refresh_from_db()
    assert team.withdrawn_at is not None
    assert not Pair.objects.filter(team=team, withdrawn_at__isnull=True).exists()
    # Its pair's boards in play are adjusted at once (the service's rule).
    assert BoardResult.objects.filter(table=match.open_table, state="adjusted").count() == 2
    listed = client.get(reverse("console", args=[event.pk])).content.decode()
    row = listed[listed.index(f'data-team="{team.pk}"') :].split("</tr>")[0]
    assert "withdrawn" in row and "Withdraw" not in row
    again = client.post(url)
    assert "This team has already withdrawn." in again.content.decode()


def test_the_seating_page_of_a_team_event_changes_nothing(client, director, organiser, t0):
    event = create_team_event(organiser=organiser, t0=t0, teams=2, rounds=1)
    client.force_login(director)
    page = client.get(reverse("console_seating", args=[event.pk])).content.decode()
    assert "it has no movement to change" in page
    assert (
        client.post(reverse("console_seating", args=[event.pk]), {"seating": "howell"}).status_code
        == 400
    )
    event.refresh_from_db()
    assert event.seating == "swiss"


def test_the_console_speaks_chinese_for_a_team_event(client, director, event):
    client.force_login(director)
    page = client.get(
        reverse("console", args=[event.pk]), headers={"accept-language": "zh-hans"}
    ).content.decode()
    assert "开室" in page and "闭室" in page
    assert "Open room" not in page and "boards settled" not in page
    assert Round.objects.filter(tournament=event).count() == 1


def test_the_team_reads_cost_a_fixed_number_of_queries(
    organiser, t0, django_assert_max_num_queries
):
    event = create_team_event(organiser=organiser, t0=t0, teams=12, rounds=2, boards_per_round=2)
    clock.advance(now=t0)
    round = Round.objects.get(tournament=event, number=1)
    with django_assert_max_num_queries(3):
        page = console_selectors.teams_page(tournament=event)
        rows = list(page.object_list)
    assert len(rows) == 12 and all(row.line_up and row.confirmed_count == 4 for row in rows)
    with django_assert_max_num_queries(3):
        matches = console_selectors.match_progress(round=round)
    assert len(matches) == 6 and all(len(m.rooms) == 2 for m in matches)
