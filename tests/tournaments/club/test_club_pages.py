"""The club's pages (RULES 13): the lobby and its actions with their refusals, the table
page at a club table, "my boards" with the field only for those given the deal, the
standings per system and the organiser's membership page."""

from __future__ import annotations

import json

import pytest
from django.utils import timezone

from tests.support.club import board_in_play, play_club_board, seat_four
from tournaments.models import (
    ClubPenalty,
    ClubScore,
    ClubSeat,
    ClubSystem,
    ClubTable,
    ClubTableStatus,
    ClubWaiting,
)
from tournaments.selectors import club as reads
from tournaments.services import club

pytestmark = pytest.mark.django_db

PAIR = '<span>%s</span><span class="sep"> – </span><span>%s</span>'


def _client(client, user):
    client.force_login(user)
    return client


def _page(response) -> str:
    assert response.status_code == 200, response.status_code
    return response.content.decode()


def _messages(response) -> list[str]:
    return [str(m) for m in response.context["messages"]] if response.context else []


def test_the_lobby_is_open_to_all_and_asks_a_visitor_to_log_in(client):
    page = _page(client.get("/club/"))
    assert "Log in to play at the club." in page
    assert "Duplicate (scores fixed once given)" in page
    assert 'href="/club/"' in page  # the header's link


def test_a_member_opens_a_table_three_sit_and_the_fourth_goes_to_the_table(client, make_member):
    players = [make_member(name=n) for n in ("Ann", "Bob", "Cy", "Di")]
    c = _client(client, players[0])
    response = c.post("/club/open/", {"system": ClubSystem.DUPLICATE, "seat": "N"})
    assert response.status_code == 302 and response.url == "/club/"
    table = ClubTable.objects.get()
    page = _page(c.get("/club/"))
    assert "Your table is waiting for players" in page and "Ann" in page
    # The others find it by who opened it, in their language.
    listed = _page(_client(client, players[1]).get("/club/"))
    assert "<strong>Ann's table</strong>" in listed and f"Table {table.pk}" not in listed
    chinese = _page(client.get("/club/", HTTP_ACCEPT_LANGUAGE="zh-hans"))
    assert "<strong>Ann 的牌桌</strong>" in chinese
    for user, seat in ((players[1], "E"), (players[2], "S")):
        _client(client, user).post("/club/sit/", {"table": table.pk, "seat": seat})
    last = _client(client, players[3]).post("/club/sit/", {"table": table.pk, "seat": "W"})
    table.refresh_from_db()
    assert table.status == ClubTableStatus.PLAYING
    assert last.status_code == 302 and last.url.endswith("/tables/1/play/")
    page = _page(client.get(last.url))
    assert "Club table" in page and "Round" not in page.split("<main", 1)[1].split("bt-config")[0]
    config = json.loads(page.split('id="bt-config" type="application/json">')[1].split("<")[0])
    assert config["club"]["lobbyUrl"] == "/club/" and config["seat"] == "W"
    assert config["current"] == board_in_play(table).number
    # The poll sees the table playing, with the link to it.
    fragment = _page(client.get("/club/", HTTP_HX_REQUEST="true"))
    assert 'id="club-go"' in fragment and last.url in fragment


def test_a_table_is_named_after_its_opener_while_they_sit_there(client, make_member):
    ann, bob, cy = (make_member(name=n) for n in ("Ann", "Bob", "Cy"))
    table = club.open_table(user=ann, system=ClubSystem.DUPLICATE, seat="S")
    club.sit(user=bob, club_table_id=table.pk, seat="W")
    names = [t.host for t in reads.lobby(user=cy, now=timezone.now()).systems[0].tables]
    assert names == ["Ann"]
    club.leave(user=ann, club_table_id=table.pk)
    names = [t.host for t in reads.lobby(user=cy, now=timezone.now()).systems[0].tables]
    assert names == ["Bob"]  # Ann has gone: the table is no longer hers


def test_a_waiting_player_is_seated_when_a_table_opens_and_robots_fill_the_rest(
    client, make_member, make_user
):
    waiter, opener = make_member(name="Wen"), make_user(name="Oz")  # handicap: anyone
    _client(client, waiter).post("/club/wait/", {"system": ClubSystem.HANDICAP})
    assert ClubWaiting.objects.filter(user=waiter).exists()
    assert "You are waiting for a table" in _page(client.get("/club/"))
    c = _client(client, opener)
    c.post("/club/open/", {"system": ClubSystem.HANDICAP, "seat": "S"})
    table = ClubTable.objects.get()
    assert {s.user_id for s in table.seats.all()} == {waiter.pk, opener.pk}
    response = c.post("/club/robots/", {"table": table.pk})
    table.refresh_from_db()
    assert table.status == ClubTableStatus.PLAYING and response.url.endswith("/play/")
    lobby = _page(_client(client, waiter).get("/club/"))
    assert "Robot East" in lobby or "Robot West" in lobby
    assert lobby.count("Robot ") == 4  # two robots, in "your table" and the list


def test_refusals_say_why_and_change_nothing(client, make_user, make_member):
    guest = make_user()
    c = _client(client, guest)
    response = c.post("/club/open/", {"system": ClubSystem.DUPLICATE, "seat": "S"}, follow=True)
    assert any("for club members" in m for m in _messages(response))
    assert not ClubTable.objects.exists()
    response = c.post("/club/open/", {"system": "bridge", "seat": "S"}, follow=True)
    assert any("Choose duplicate" in m for m in _messages(response))
    assert not ClubTable.objects.exists()
    member, other = make_member(), make_member()
    table = club.open_table(user=member, system=ClubSystem.DUPLICATE, seat="N")
    before = list(ClubSeat.objects.values())
    response = _client(client, other).post(
        "/club/sit/", {"table": table.pk, "seat": "N"}, follow=True
    )
    assert any("Seat N is taken." in m for m in _messages(response))
    assert list(ClubSeat.objects.values()) == before
    # A guest at a members' table; robots asked by someone not at the table.
    response = _client(client, guest).post(
        "/club/sit/", {"table": table.pk, "seat": "S"}, follow=True
    )
    assert any("for club members" in m for m in _messages(response))
    response = _client(client, other).post("/club/robots/", {"table": table.pk}, follow=True)
    assert any("Only a player at this table" in m for m in _messages(response))
    assert list(ClubSeat.objects.values()) == before
    assert _client(client, other).post("/club/sit/", {"table": "x", "seat": "S"}).status_code == 404
    assert client.get("/club/open/").status_code == 405


def test_my_boards_show_the_field_only_to_those_given_the_deal(client, make_member):
    now = timezone.now()
    first = [make_member(name=f"A{i}") for i in range(4)]
    second = [make_member(name=f"B{i}") for i in range(4)]
    outsider = make_member(name="Zed")
    table_a = seat_four(first, system=ClubSystem.FULL_FIELD_IMPS, now=now)
    deal = board_in_play(table_a).club_deal
    play_club_board(table_a, seed=3)
    table_b = seat_four(second, system=ClubSystem.FULL_FIELD_IMPS, now=now)
    assert board_in_play(table_b).club_deal == deal
    play_club_board(table_b, seed=4)
    page = _page(_client(client, first[0]).get("/club/boards/"))
    assert f'data-deal="{deal.pk}"' in page
    assert PAIR % ("B0", "B2") in page and PAIR % ("A0", "A2") in page  # both tables, mine marked
    assert page.count("data-mine") == 1
    # Someone who has not played the deal, the week open: nothing of its field.
    c = _client(client, outsider)
    page = _page(c.get("/club/boards/"))
    # (Whole pair names: two letters alone can turn up in the page's random CSRF token.)
    assert PAIR % ("B0", "B2") not in page and PAIR % ("A0", "A2") not in page
    assert "You have not played" in page
    assert c.get(f"/club/deals/{deal.pk}/").status_code == 404
    assert client.logout() is None
    assert client.get(f"/club/deals/{deal.pk}/").status_code == 404
    # A player of the deal sees its page; everyone once the week has closed.
    assert PAIR % ("B0", "B2") in _page(_client(client, first[1]).get(f"/club/deals/{deal.pk}/"))
    deal.field.week.closed_at = now
    deal.field.week.save(update_fields=["closed_at"])
    assert PAIR % ("A0", "A2") in _page(_client(client, outsider).get(f"/club/deals/{deal.pk}/"))


def test_standings_per_system_add_penalties_and_leave_robots_out(client, make_member):
    now = timezone.now()
    players = [make_member(name=f"P{i}") for i in range(4)]
    table = seat_four(players, system=ClubSystem.HANDICAP, now=now)
    play_club_board(table, seed=7)
    table.refresh_from_db()
    board = board_in_play(table)
    ClubPenalty.objects.create(
        field=table.field, club_table=table, board=board, user=players[0], seat="N",
        points=-20, lost_at=now, counted_at=now,
    )  # fmt: skip
    found = reads.standings(week=table.field.week, system=ClubSystem.HANDICAP)
    by_user = {line.user_id: line for line in found.lines}
    north = ClubScore.objects.get(user=players[0]).points
    assert by_user[players[0].pk].points == round(north - 20, 2)
    assert by_user[players[0].pk].boards == 1 and by_user[players[0].pk].penalties == -20
    page = _page(client.get("/club/standings/handicap/"))
    assert "P0" in page and 'aria-current="page" data-system="handicap"' in page
    assert "Nobody has played" in _page(client.get("/club/standings/"))  # duplicate
    assert client.get("/club/standings/bridge/").status_code == 404
    assert client.get("/club/standings/?week=99999").status_code == 404


def test_robots_are_not_in_the_standings_and_mp_shows_the_average(client, make_member):
    now = timezone.now()
    player = make_member(name="Solo")
    table = club.open_table(user=player, system=ClubSystem.FULL_FIELD_MP, seat="S", now=now)
    club.add_robots(user=player, club_table_id=table.pk, now=now)
    play_club_board(table, seed=2)
    found = reads.standings(week=table.field.week, system=ClubSystem.FULL_FIELD_MP)
    assert [line.name for line in found.lines] == ["Solo"]
    assert found.lines[0].average == 50.0  # alone on the deal: an average
    page = _page(client.get("/club/standings/full_field_mp/"))
    assert "50.00%" in page and "Robot" not in page


def test_reads_take_a_bounded_number_of_queries(client, make_member, django_assert_max_num_queries):
    now = timezone.now()
    members = [make_member() for _ in range(12)]
    for i in range(3):
        seat_four(members[4 * i : 4 * i + 4], system=ClubSystem.DUPLICATE, now=now)
    for table in ClubTable.objects.all():
        play_club_board(table, seed=table.pk)
    week = ClubTable.objects.first().field.week
    with django_assert_max_num_queries(8):
        lobby = reads.lobby(user=members[0], now=now)
    assert len(lobby.systems[0].tables) == 3 and lobby.my_table is not None
    with django_assert_max_num_queries(4):
        reads.my_boards(user=members[0])
    with django_assert_max_num_queries(3):
        reads.standings(week=week, system=ClubSystem.DUPLICATE)


def test_the_organiser_grants_and_withdraws_membership(client, director, make_user):
    player = make_user("newcomer")
    c = _client(client, director)
    assert "Make a member" in _page(c.get("/console/club/members/"))
    c.post("/console/club/members/", {"username": "newcomer", "grant": "1"})
    assert club.is_member(type(player).objects.get(pk=player.pk))
    assert 'data-member="newcomer"' in _page(c.get("/console/club/members/"))
    c.post("/console/club/members/", {"username": "newcomer", "grant": "0"})
    assert not club.is_member(type(player).objects.get(pk=player.pk))
    response = c.post("/console/club/members/", {"username": "nobody", "grant": "1"}, follow=True)
    assert any("nobody" in m for m in _messages(response))
    assert _client(client, player).get("/console/club/members/").status_code == 403
