"""The console's "start now" confirmation of an event seated by a movement (RULES 10)
says what round 1's start will do: the movement's tables (not the Swiss pairs / 2) and,
with an odd number of pairs, which position meets the phantom and sits round 1 out; or
that the start will be refused and why. What it says is what the start then does."""

from __future__ import annotations

import re
from datetime import timedelta

import lxml.html
import pytest
from django.urls import reverse
from django.utils import timezone

from tournaments.models import Round, Table, Tournament, TournamentStatus

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_pages")]

BYE = re.compile(r"position (\d+(?:NS|EW)?) meets the phantom \((\d+(?:NS|EW)?)\)")


@pytest.fixture
def scheduled(make_tournament, register_pairs):
    def make(pairs: int, **settings) -> Tournament:
        start = timezone.now() + timedelta(hours=1)
        tournament = make_tournament(
            start_at=start, registration_opens_at=start - timedelta(days=1), **settings
        )
        register_pairs(tournament, pairs, now=timezone.now())
        return tournament

    return make


def confirmation(client, tournament: Tournament, language: str = "en") -> str:
    url = reverse("console_action", args=[tournament.pk, "start"])
    response = client.get(url, HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200
    items = lxml.html.fromstring(response.content.decode()).xpath("//ul[@class='consequences']")
    return " ".join(items[0].text_content().split())


def mitchell_label(position: int, tables: int) -> str:
    return f"{position}NS" if position <= tables else f"{position - tables}EW"


def test_a_mitchell_with_a_phantom_opens_at_the_movements_tables(client, director, scheduled):
    tournament = scheduled(9, seating="mitchell", winners=2, rounds=5)
    client.force_login(director)
    text = confirmation(client, tournament)
    assert "9 registered pairs will be seated." in text
    assert "Round 1 opens at once at the movement's 5 tables (Mitchell movement)." in text
    assert "at 4 tables" not in text  # the Swiss count: pairs / 2
    bye, phantom = BYE.search(text).groups()
    assert "each round one pair sits out" in text

    # What the page said is what the start does.
    client.post(reverse("console_action", args=[tournament.pk, "start"]))
    tournament.refresh_from_db()
    assert tournament.status == TournamentStatus.RUNNING
    round1 = Round.objects.select_related("bye_pair").get(tournament=tournament, number=1)
    assert Table.objects.filter(round=round1).count() == 4
    assert mitchell_label(round1.bye_pair.position, 5) == bye
    held = set(tournament.pairs.values_list("position", flat=True))
    (free,) = set(range(1, 11)) - held
    assert mitchell_label(free, 5) == phantom


def test_a_howell_in_chinese(client, director, scheduled):
    tournament = scheduled(7, seating="howell", rounds=7)
    client.force_login(director)
    text = confirmation(client, tournament, "zh-hans")
    assert "第 1 轮立即在移位表的 4 张桌开始（豪威尔移位）。" in text
    assert re.search(r"其中一桌，位置 \d 的一对遇到虚拟对（\d），轮空", text), text


def test_a_start_the_movement_refuses_says_so_first(client, director, scheduled):
    tournament = scheduled(3, seating="howell", rounds=7)
    client.force_login(director)
    text = confirmation(client, tournament)
    assert "The start will be refused: A Howell movement for 3 pairs has 3 rounds, not 7" in text
    assert "opens at once" not in text
    client.post(reverse("console_action", args=[tournament.pk, "start"]))
    tournament.refresh_from_db()
    assert tournament.status == TournamentStatus.SCHEDULED


def test_a_swiss_start_still_counts_pairs_by_two(client, director, scheduled):
    tournament = scheduled(5)
    client.force_login(director)
    text = confirmation(client, tournament)
    assert "Round 1 opens at once at 2 tables. One pair has a bye." in text
    assert "movement" not in text
