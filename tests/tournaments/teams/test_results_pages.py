"""A team event's results page and a match's score card (RULES 11), in English and
Chinese: the standings and each round's matches, the card's boards with both rooms'
results, each team's IMPs and the running score; nothing of a match's boards while its
round is in play."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.test import Client
from django.urls import reverse

from tests.support.team_events import MINUTE, ROUND, create_team_event, play_round
from tournaments.models import BoardResult, Match, PairBoardScore, Team
from tournaments.services.clock import advance

pytestmark = pytest.mark.django_db


@pytest.fixture
def event(organiser, t0):
    event = create_team_event(organiser=organiser, t0=t0, teams=3, rounds=2, boards_per_round=3)
    advance(now=t0)
    play_round(event, 1, now=t0 + MINUTE)
    advance(now=t0 + ROUND)  # round 1 closed, round 2 seated and in play
    play_round(event, 2, now=t0 + ROUND + MINUTE)
    return event


def test_the_results_page_lists_the_teams_by_vps_and_each_rounds_matches(event):
    page = Client().get(reverse("results", args=[event.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    teams = list(Team.objects.filter(tournament=event).order_by("-vp", "registration_no"))
    at = [html.index(f'data-team="{t.pk}"') for t in teams]
    assert at == sorted(at)  # standing order
    for team in teams:
        assert f"{team.vp:.2f}" in html
    round_one = Match.objects.filter(round__number=1, round__tournament=event, away__isnull=False)
    for m in round_one:
        assert f"{m.home_imps_won} – {m.away_imps_won}" in html
    # Round 2 is in play: no score of its matches yet.
    for m in Match.objects.filter(round__number=2, round__tournament=event, away__isnull=False):
        row = html[html.index(f'data-match="{m.pk}"') :].split("</tr>")[0]
        assert row.count('<td class="num">—</td>') == 2  # no IMPs, no VPs yet
        assert f"{m.home_imps_won} – {m.away_imps_won}" not in row
    assert "bye" in html  # three teams: one sits out each round


def test_the_match_card_shows_both_rooms_and_each_teams_imps(event):
    match = Match.objects.get(round__number=1, round__tournament=event, away__isnull=False)
    page = Client().get(reverse("match", args=[event.pk, match.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    running = 0
    for number in (1, 2, 3):
        row = html[html.index(f'data-board="{number}"') :].split("</tr>")[0]
        open_ns = BoardResult.objects.get(table=match.open_table, board__number=number).ns_score
        closed_ns = BoardResult.objects.get(table=match.closed_table, board__number=number).ns_score
        assert f">{open_ns}<" in row and f">{closed_ns}<" in row
        home = PairBoardScore.objects.get(
            pair=match.open_table.ns_pair, board__number=number, board__tournament=event
        ).points
        running += int(home)
        assert row.rstrip().endswith(f'<td class="num">{running}</td>')
    assert f"{match.home_imps_won} – {match.away_imps_won}" in html
    assert f"{match.home_vp:.2f} – {match.away_vp:.2f}" in html
    assert match.home_vp + match.away_vp == Decimal(20)


def test_a_match_in_play_shows_no_board(event):
    match = Match.objects.get(round__number=2, round__tournament=event, away__isnull=False)
    assert BoardResult.objects.filter(table=match.open_table).exists()
    html = Client().get(reverse("match", args=[event.pk, match.pk])).content.decode()
    assert "data-not-public" in html
    assert 'data-board="1"' not in html
    for ns in BoardResult.objects.filter(
        table__in=(match.open_table, match.closed_table)
    ).values_list("ns_score", flat=True):
        assert f">{ns}<" not in html


def test_the_pages_speak_chinese(event):
    client = Client(headers={"accept-language": "zh-hans"})
    match = Match.objects.get(round__number=1, round__tournament=event, away__isnull=False)
    results = client.get(reverse("results", args=[event.pk])).content.decode()
    card = client.get(reverse("match", args=[event.pk, match.pk])).content.decode()
    assert "胜利分" in results and "轮空" in results
    assert "开室" in card and "闭室" in card
    assert "轮空" in results


def test_a_round_robin_has_no_movement_tab(organiser, t0):
    event = create_team_event(
        organiser=organiser, t0=t0, teams=4, rounds=3, boards_per_round=1, seating="round_robin"
    )
    html = Client().get(reverse("results", args=[event.pk])).content.decode()
    assert reverse("movement", args=[event.pk]) not in html
