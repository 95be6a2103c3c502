"""The club in the API (RULES 13): a program opens a table, robots sit, it finds its
table and board in the lobby and plays it through the online-play endpoints; every
refusal a 4xx with the service's message and nothing changed; "my boards" and a deal's
field only for those given the deal while the week is open; standings per system."""

from __future__ import annotations

import random

import pytest
from django.utils import timezone

from tests.support.api import Api, assert_error, english, token_for  # noqa: F401
from tests.support.club import board_in_play, play_club_board, seat_four
from tests.support.online import choose
from tournaments.models import ClubSeat, ClubSystem, ClubTable, ClubWaiting

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]


def _api(user) -> Api:
    return Api(token_for(user))


def _state() -> list:
    return [
        list(ClubTable.objects.order_by("pk").values("pk", "status")),
        list(ClubSeat.objects.order_by("pk").values()),
        list(ClubWaiting.objects.order_by("pk").values()),
    ]


def test_a_program_opens_a_table_with_robots_and_plays_its_board(make_member):
    member = make_member(name="Bot owner")
    api = _api(member)
    opened = api.post("/club/tables", {"system": ClubSystem.DUPLICATE, "seat": "S"})
    assert opened.status_code == 200, opened.content
    table = opened.json()
    assert table["status"] == "forming" and table["play"] is None
    assert table["host"] == "Bot owner"
    assert [s["you"] for s in table["seats"]] == [False, False, True, False]
    started = api.post(f"/club/tables/{table['id']}/robots").json()
    assert started["status"] == "playing"
    assert {s["seat"] for s in started["seats"] if s["robot"]} == {"N", "E", "W"}
    assert all(s["name"].startswith("Robot") for s in started["seats"] if s["robot"])
    # The lobby names the table's address and board; the play API plays it.
    lobby = api.get("/club/lobby").json()
    play = lobby["my_table"]["play"]
    assert lobby["member"] and play["board"] is not None
    assert play["socket"] == f"/ws/tables/{play['table_id']}/boards/{play['board']}/"
    view = api.get(play["view"].removeprefix("/api/v1")).json()
    assert view["seat"] == "S" and len(view["hands"]["S"]) == 13
    actions = play["view"].removeprefix("/api/v1").replace("/view", "/actions")
    rng = random.Random(1)
    if view["legal"]:
        acted = api.post(actions, {**choose(view, rng, 0.0)})
        assert acted.status_code == 200, acted.content


def test_refusals_are_4xx_with_the_services_message_and_change_nothing(make_member, make_user):
    guest, member, other = make_user(), make_member(), make_member()
    before = _state()
    assert_error(
        _api(guest).post("/club/tables", {"system": ClubSystem.DUPLICATE}), 403, "club members"
    )
    assert_error(_api(member).post("/club/tables", {"system": "bridge"}), 400, "Choose duplicate")
    assert_error(_api(member).post("/club/wait", {"system": "bridge"}), 400, "Choose duplicate")
    assert_error(
        _api(member).post("/club/tables", {"system": ClubSystem.HANDICAP, "seat": "Q"}),
        400,
        "A seat is N, E, S or W",
    )
    assert _state() == before
    table = _api(member).post("/club/tables", {"system": ClubSystem.DUPLICATE, "seat": "N"})
    table_id = table.json()["id"]
    before = _state()
    assert_error(_api(other).post(f"/club/tables/{table_id}/sit", {"seat": "N"}), 400, "taken")
    assert_error(
        _api(guest).post(f"/club/tables/{table_id}/sit", {"seat": "S"}), 403, "club members"
    )
    assert_error(_api(other).post(f"/club/tables/{table_id}/robots"), 403, "Only a player")
    assert_error(_api(other).post(f"/club/tables/{table_id}/leave"), 400, "do not sit")
    assert_error(_api(other).post("/club/tables/999999/sit", {"seat": "S"}), 404, "no such")
    assert_error(Api().post("/club/tables", {"system": ClubSystem.HANDICAP}), 401)
    assert_error(Api().get("/club/boards"), 401)
    assert _state() == before


def test_wait_stop_and_leave(make_member):
    waiter, opener = make_member(), make_member()
    waited = _api(waiter).post("/club/wait", {"system": ClubSystem.FULL_FIELD_IMPS}).json()
    assert waited == {"seated": False, "table": None}
    assert _api(waiter).get("/club/lobby").json()["waiting_for"] == "full_field_imps"
    assert _api(waiter).post("/club/wait/stop").json()["waiting_for"] is None
    _api(waiter).post("/club/wait", {"system": ClubSystem.FULL_FIELD_IMPS})
    table = _api(opener).post("/club/tables", {"system": ClubSystem.FULL_FIELD_IMPS}).json()
    assert sum(1 for s in table["seats"] if s["user_id"]) == 2
    left = _api(waiter).post(f"/club/tables/{table['id']}/leave").json()
    assert left["my_table"] is None


def test_my_boards_and_a_deals_field_only_for_those_given_it(make_member):
    now = timezone.now()
    players = [make_member(name=f"Q{i}") for i in range(4)]
    outsider = make_member()
    table = seat_four(players, system=ClubSystem.DUPLICATE, now=now)
    deal = board_in_play(table).club_deal
    play_club_board(table, seed=5)
    mine = _api(players[0]).get("/club/boards").json()
    assert mine["total"] == 1
    board = mine["boards"][0]
    assert board["deal_id"] == deal.pk and board["seat"] == "N"
    assert board["scored"] is False  # duplicate: one result of six
    assert [r["yours"] for r in board["field"]] == [True]
    assert _api(outsider).get("/club/boards").json() == {"total": 0, "boards": []}
    assert_error(_api(outsider).get(f"/club/deals/{deal.pk}"), 404)
    assert_error(Api().get(f"/club/deals/{deal.pk}"), 404)
    assert _api(players[2]).get(f"/club/deals/{deal.pk}").json()["field"][0]["players"]["N"] == (
        "Q0"
    )
    standings = Api().get("/club/standings/duplicate").json()
    assert {line["name"] for line in standings["lines"]} == {"Q0", "Q1", "Q2", "Q3"}
    assert {line["pending"] for line in standings["lines"]} == {1}
    assert_error(Api().get("/club/standings/bridge"), 404)
    assert_error(Api().get("/club/boards", token=token_for(outsider), week_id=999999), 404)
