"""Online play over HTTP: every refusal is a 409 (or 403) and changes nothing; a resend
changes nothing and answers the current view; the seats and their swap."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from tests.support.api import Api, assert_error, result_path, snapshot, token_for
from tests.support.online import (
    players_by_seat,
    table_at,
)
from tournaments.models import PairSeats, PlayAction
from tournaments.selectors import table_seats
from tournaments.services import clock, table_play

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]


def board_path(tournament, round_number=1, table=1, board=1) -> str:
    return result_path(tournament, round_number, table, board)


def everything() -> dict:
    data = snapshot()
    data["PlayAction"] = list(PlayAction.objects.order_by("pk").values())
    # Who sits where; a refusal's view may fix a pair's seats (a hand is sent), as any
    # view does, and changes no seat.
    data["swapped seats"] = list(
        PairSeats.objects.filter(swapped=True).order_by("pk").values("table_id", "pair_id")
    )
    return data


@pytest.fixture
def apis(online_running):
    tournament, _pairs = online_running
    table = table_at(tournament)
    return tournament, table, {s: Api(token_for(u)) for s, u in players_by_seat(table).items()}


def post(api, tournament, action, board=1):
    return api.post(board_path(tournament, board=board) + "/actions", action)


def test_actions_answer_the_new_view_and_tournaments_show_play(apis, organiser_api):
    tournament, _table, api = apis
    shown = organiser_api.get(f"/tournaments/{tournament.pk}").json()
    assert shown["play"] == "online"
    response = post(api["N"], tournament, {"seq": 1, "type": "call", "call": "1N"})
    assert response.status_code == 200, response.content
    view = response.json()
    assert view["auction"] == [{"seat": "N", "call": "1NT"}]
    assert view["next_seq"] == 2 and view["turn"] == "E" and view["legal"] == []
    east = api["E"].get(board_path(tournament) + "/view").json()
    assert east["legal"][:3] == ["P", "X", "2C"]


@pytest.mark.parametrize(
    "seat, action, fragment",
    [
        ("E", {"seq": 1, "type": "call", "call": "P"}, "not your turn"),
        ("N", {"seq": 1, "type": "card", "card": "SA"}, "auction is not over"),
        ("N", {"seq": 1, "type": "call", "call": "X"}, "nothing to double"),
        ("N", {"seq": 1, "type": "call", "call": "8S"}, "unknown call"),
        ("N", {"seq": 2, "type": "call", "call": "P"}, "out of date"),
        ("N", {"seq": 1, "type": "claim", "tricks": 3}, "no claim during the auction"),
        ("N", {"seq": 1, "type": "accept"}, "no claim to answer"),
    ],
)
def test_illegal_out_of_turn_and_stale_actions_are_409_and_change_nothing(
    apis, seat, action, fragment
):
    tournament, _table, api = apis
    before = everything()
    assert_error(post(api[seat], tournament, action), 409, fragment)
    assert everything() == before


def test_insufficient_bid_revoke_and_stale_seq_after_some_play(apis):
    tournament, table, api = apis
    for seq, (seat, call) in enumerate([("N", "2H"), ("E", "P"), ("S", "P"), ("W", "P")], 1):
        assert (
            post(api[seat], tournament, {"seq": seq, "type": "call", "call": call}).status_code
            == 200
        )
    view = api["E"].get(board_path(tournament) + "/view").json()
    assert view["contract"] == "2H" and view["declarer"] == "N" and view["turn"] == "E"
    lead = view["legal"][0]
    assert post(api["E"], tournament, {"seq": 5, "type": "card", "card": lead}).status_code == 200
    before = everything()
    # South is dummy: declarer plays its cards, not South.
    dummy = api["N"].get(board_path(tournament) + "/view").json()
    assert_error(
        post(api["S"], tournament, {"seq": 6, "type": "card", "card": dummy["legal"][0]}),
        409,
        "declarer plays dummy's cards",
    )
    other_suits = [c for c in dummy["hands"]["S"] if c[0] != lead[0]]
    if len(other_suits) < len(dummy["hands"]["S"]) and other_suits:
        assert_error(
            post(api["N"], tournament, {"seq": 6, "type": "card", "card": other_suits[0]}),
            409,
            "follow suit",
        )
    assert_error(post(api["N"], tournament, {"seq": 5, "type": "call", "call": "3H"}), 409)
    assert_error(post(api["W"], tournament, {"seq": 6, "type": "claim", "tricks": 14}), 409)
    assert everything() == before
    assert PlayAction.objects.filter(table=table).count() == 5


def test_a_resend_answers_the_current_view_and_changes_nothing(apis):
    tournament, _table, api = apis
    first = post(api["N"], tournament, {"seq": 1, "type": "call", "call": "1S", "alert": "5+"})
    assert first.status_code == 200
    assert post(api["E"], tournament, {"seq": 2, "type": "call", "call": "P"}).status_code == 200
    before = everything()
    again = post(api["N"], tournament, {"seq": 1, "type": "call", "call": "1S", "alert": "5+"})
    assert again.status_code == 200
    assert again.json()["next_seq"] == 3  # the current state, not the old answer
    assert everything() == before
    # The same number with other content is not a resend: refused.
    assert_error(post(api["N"], tournament, {"seq": 1, "type": "call", "call": "2S"}), 409)
    assert everything() == before


def test_after_the_bell_actions_are_refused(apis, organiser):
    tournament, table, api = apis
    assert post(api["N"], tournament, {"seq": 1, "type": "call", "call": "P"}).status_code == 200
    round = table.round
    round.starts_at = timezone.now() - timedelta(minutes=10)
    round.ends_at = timezone.now() - timedelta(seconds=1)
    round.save(update_fields=["starts_at", "ends_at"])
    before = everything()
    assert_error(post(api["E"], tournament, {"seq": 2, "type": "call", "call": "P"}), 409, "closed")
    assert everything() == before
    clock.advance(now=timezone.now())
    assert_error(post(api["E"], tournament, {"seq": 2, "type": "call", "call": "P"}), 409, "closed")


def test_only_the_players_of_the_table_may_act_or_watch(apis, make_user, organiser_api):
    tournament, _table, _api = apis
    other = Api(token_for(table_at(tournament, 1, 2).ns_pair.player1))
    before = everything()
    assert_error(post(other, tournament, {"seq": 1, "type": "call", "call": "P"}), 403)
    assert_error(other.get(board_path(tournament) + "/view"), 403)
    assert_error(Api().get(board_path(tournament) + "/view"), 403)
    assert_error(Api().post(board_path(tournament) + "/actions", {"seq": 1, "type": "call"}), 401)
    assert_error(organiser_api.post(board_path(tournament) + "/actions",
                                    {"seq": 1, "type": "call", "call": "P"}), 403)  # fmt: skip
    watched = organiser_api.get(board_path(tournament) + "/view").json()
    assert set(watched["hands"]) == set("NESW")
    assert everything() == before


def test_session_login_works_like_a_token(apis):
    tournament, table, _api = apis
    client = Client()
    client.force_login(players_by_seat(table)["N"])
    url = "/api/v1" + board_path(tournament)
    assert client.get(url + "/view").json()["seat"] == "N"
    response = client.post(
        url + "/actions", {"seq": 1, "type": "call", "call": "P"}, content_type="application/json"
    )
    assert response.status_code == 200 and response.json()["next_seq"] == 2


def test_boards_are_played_in_order(apis):
    tournament, _table, api = apis
    before = everything()
    assert_error(post(api["E"], tournament, {"seq": 1, "type": "call", "call": "P"}, board=2), 409,
                 "in order")  # fmt: skip
    assert everything() == before


def test_players_cannot_enter_results_of_an_online_tournament(apis, organiser_api):
    tournament, _table, api = apis
    entry = {"contract": "3NT", "declarer": "N", "tricks": 9}
    before = everything()
    assert_error(api["N"].put(board_path(tournament), entry), 400, "played online")
    assert everything() == before
    # The director still may.
    assert organiser_api.put(board_path(tournament), entry).status_code == 200


def test_seats_swap_until_the_first_call_and_two_devices_share_a_seat(apis):
    tournament, table, api = apis
    north, south = players_by_seat(table)["N"], players_by_seat(table)["S"]
    assert table_seats.seat_of(table, north) == "N"
    swapped = api["S"].post(f"/tournaments/{tournament.pk}/rounds/1/tables/1/swap")
    assert swapped.status_code == 200, swapped.content
    assert swapped.json()["seats"]["N"] == south.username
    assert table_seats.seat_of(table, south) == "N" and table_seats.seat_of(table, north) == "S"
    # Two devices of the same player: the same seat and the same view.
    first, second = Api(token_for(south)), Api(token_for(south))
    assert (
        first.get(board_path(tournament) + "/view").json()
        == second.get(board_path(tournament) + "/view").json()
    )
    assert table_play.board_view(table=table, board_number=1, user=south)["seat"] == "N"
    assert post(api["S"], tournament, {"seq": 1, "type": "call", "call": "P"}).status_code == 200
    before = everything()
    assert_error(api["N"].post(f"/tournaments/{tournament.pk}/rounds/1/tables/1/swap"), 409,
                 "first call")  # fmt: skip
    assert everything() == before


def test_the_view_and_actions_are_in_the_openapi_schema(public_api):
    schema = public_api.get("/openapi.json").json()
    paths = schema["paths"]
    base = "/api/v1/tournaments/{tournament_id}/rounds/{number}/tables/{table}/boards/{board}"
    assert "get" in paths[base + "/view"] and "post" in paths[base + "/actions"]
    assert "409" in paths[base + "/actions"]["post"]["responses"]
    assert "play" in schema["components"]["schemas"]["TournamentIn"]["properties"]


@pytest.mark.parametrize(
    "body, status",
    [
        ({"seq": 10**30, "type": "call", "call": "P"}, 409),
        ({"seq": -1, "type": "call", "call": "P"}, 409),
        ({"seq": 0, "type": "call", "call": "P"}, 409),
        ({"seq": "one", "type": "call", "call": "P"}, 422),
        ({"seq": 1, "type": "dance"}, 422),
        ({"seq": 1, "type": "call"}, 409),
        ({"seq": 1, "type": "call", "call": "P\x00"}, 422),
        ({"seq": 1, "type": "call", "call": "1NT", "alert": "x" * 5000}, 200),
        ({"seq": 1, "type": "card", "card": "ZZ"}, 409),
        ({"seq": 1, "type": "claim", "tricks": 10**30}, 409),
        ({"seq": 1, "type": "claim", "tricks": -3}, 409),
        ({"type": "call", "call": "P"}, 422),
    ],
)
def test_hostile_bodies_are_refused_with_4xx_never_a_server_error(apis, body, status):
    tournament, table, api = apis
    before = everything()
    response = post(api["N"], tournament, body)
    assert response.status_code == status, response.content
    if status != 200:
        assert everything() == before
    else:  # a long alert is kept, cut to its limit
        assert len(PlayAction.objects.get(table=table, seq=1).alert) == 200
