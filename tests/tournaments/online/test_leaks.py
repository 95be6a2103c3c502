"""No hand leaks over HTTP (RULES 9): a board is played to its end through the API and,
after every action, each seat, a player of another table and an anonymous visitor ask
for the view. Every answer is inspected as raw JSON: no card appears that its reader
may not see at that moment — their own hand, dummy after the opening lead, the cards
already played, and all four hands only once the board is over."""

from __future__ import annotations

import json

import pytest

import play
from tests.support.api import Api, result_path, token_for
from tests.support.online import actor_of, choose, players_by_seat, table_at
from tournaments.services import clock

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]
DECK = sorted(play.DECK)
PARTNER = {"N": "S", "S": "N", "E": "W", "W": "E"}


def cards_in(body: bytes) -> set[str]:
    text = body.decode()
    return {card for card in DECK if f'"{card}"' in text}


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_no_answer_holds_a_card_its_reader_may_not_see(online_running, organiser, seed):
    import random

    tournament, _pairs = online_running
    table = table_at(tournament)
    users = players_by_seat(table)
    dealt = dict(zip("NESW", play.parse_deal(tournament.boards.get(number=1).deal), strict=True))
    apis = {seat: Api(token_for(user)) for seat, user in users.items()}
    outsiders = [Api(token_for(table_at(tournament, 1, 2).ew_pair.player2)), Api()]
    path = result_path(tournament, 1, 1, 1)
    rng = random.Random(seed)
    answers = 0
    for _ in range(200):
        views = {}
        for seat, api in apis.items():
            response = api.get(path + "/view")
            assert response.status_code == 200
            view = views[seat] = response.json()
            played = {p["card"] for p in view["play"]}
            allowed = dealt[seat] | played
            if view["play"]:  # dummy is on the table after the opening lead
                allowed |= dealt[PARTNER[view["declarer"]]]
            if view["claim"]:  # the claimer faces his cards while it waits (Law 68)
                allowed |= dealt[view["claim"]["seat"]]
            if view["over"]:
                allowed = set(DECK)
            assert cards_in(response.content) <= allowed, (seat, view)
            answers += 1
        for outsider in outsiders:
            response = outsider.get(path + "/view")
            assert response.status_code == 403
            assert cards_in(response.content) == set()
        north = views["N"]
        seat = actor_of(north)
        if seat is None:
            break
        response = apis[seat].post(path + "/actions", choose(views[seat], rng))
        assert response.status_code == 200, response.content
        # The actor's own answer obeys the same rule.
        view = response.json()
        allowed = dealt[seat] | {p["card"] for p in view["play"]}
        if view["play"]:
            allowed |= dealt[PARTNER[view["declarer"]]]
        if view["claim"]:
            allowed |= dealt[view["claim"]["seat"]]
        if not view["over"]:
            assert cards_in(response.content) <= allowed
    else:
        raise AssertionError("the board did not end")
    assert answers > 4
    # After the close, everyone may read the record: all 52 cards.
    clock.close_round_now(tournament=tournament, by=organiser, round_number=1)
    for outsider in outsiders:
        response = outsider.get(path + "/view")
        assert response.status_code == 200 and cards_in(response.content) == set(DECK)
        assert json.loads(response.content)["seat"] is None
