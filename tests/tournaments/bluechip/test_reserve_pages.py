"""A program's seat from the pages (SPEC 14): the console's "Seat a program…" for a
director, "Give my seat to a program…" on the table's page for its player; the form, the
ticket shown once (never cached, not on any later page), and the service's refusal."""

from __future__ import annotations

import html
import re

import pytest
from django.test import Client
from django.urls import reverse

from tests.support.online_ws import open_online_round, seated_users
from tournaments.models import ProgramSeat
from tournaments.services import programs

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]

TICKET = re.compile(r"tkt-[0-9a-f]{32}")


@pytest.fixture
def table(make_tournament, register_pairs):
    _round, tables = open_online_round(make_tournament, register_pairs, boards=1, rounds=1)
    return tables[0]


def words(response) -> str:
    """The page's text, its tags gone."""
    return html.unescape(re.sub(r"<[^>]+>", "", response.content.decode()))


def client_of(user) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(user)
    return client


def console_url(table) -> str:
    return reverse("console_program", args=[table.round.tournament_id, table.pk])


def table_url(table) -> str:
    return reverse("play_table_program", args=[table.round.tournament_id, 1, table.number])


def test_the_console_offers_every_seat_and_shows_the_ticket_once(table, director):
    client = client_of(director)
    console = client.get(reverse("console", args=[table.round.tournament_id])).content.decode()
    assert console_url(table) in console and "Seat a program…" in console
    form = client.get(console_url(table))
    assert form.status_code == 200
    page = form.content.decode()
    for seat in "NESW":
        assert f'value="{seat}"' in page
    assert 'name="think_seconds"' in page and 'name="program"' in page
    answer = client.post(console_url(table), {"seat": "W", "program": "GIB", "think_seconds": 45})
    assert answer.status_code == 200
    assert "no-store" in answer["Cache-Control"]
    text = answer.content.decode()
    (ticket,) = set(TICKET.findall(text))
    assert f'Connecting "{ticket}" as West using protocol version 18' in words(answer)
    assert "manage.py bluechip_gateway --port 2000" in words(answer) and "make run" in text
    held = ProgramSeat.objects.get()
    assert (held.seat, held.program, held.think_seconds) == ("W", "GIB", 45)
    assert held.ticket_digest == programs.digest(ticket)
    # Shown once: no later page holds it (the console lists the program, not its ticket).
    for later in (console_url(table), reverse("console", args=[table.round.tournament_id])):
        again = client.get(later).content.decode()
        assert ticket not in again and not TICKET.search(again)


def test_a_player_gives_their_own_seat_from_the_table_s_page(table):
    users = seated_users(table)
    client = client_of(users["S"])
    play = reverse("play_table", args=[table.round.tournament_id, 1, table.number])
    assert "Give my seat to a program…" in client.get(play).content.decode()
    page = client.get(table_url(table)).content.decode()
    assert 'value="S"' in page and 'value="N"' not in page  # their own seat only
    answer = client.post(table_url(table), {"seat": "S", "program": "", "think_seconds": 60})
    text = answer.content.decode()
    (ticket,) = set(TICKET.findall(text))
    assert f'Connecting "{ticket}" as South using protocol version 18' in words(answer)
    assert ProgramSeat.objects.get().seat == "S"
    assert ticket not in client.get(play).content.decode()


def test_a_refusal_is_shown_and_changes_nothing(table, make_user, director):
    stranger = client_of(make_user("stranger"))
    answer = stranger.post(table_url(table), {"seat": "N", "program": "BEN", "think_seconds": 60})
    assert answer.status_code == 400
    assert "Only the player in seat N or a director" in answer.content.decode()
    answer = client_of(director).post(
        console_url(table), {"seat": "N", "program": "BEN", "think_seconds": 1}
    )
    assert answer.status_code == 400
    assert "from 2 to 600" in answer.content.decode()
    assert not ProgramSeat.objects.exists()


def test_the_refusal_reads_in_chinese(table, make_user):
    client = Client(HTTP_ACCEPT_LANGUAGE="zh-hans")
    client.force_login(make_user("stranger"))
    client.cookies["django_language"] = "zh-hans"
    answer = client.post(table_url(table), {"seat": "N", "think_seconds": 60})
    assert "只有 N 座位的牌手或裁判可以把该座位交给程序" in answer.content.decode()
