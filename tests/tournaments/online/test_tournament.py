"""A whole tournament played online through the HTTP actions alone — players,
tournament, pairs, start, every board of every round played call by call and card by
card, each round closed — and its standings equal those of a second tournament whose
identical results were entered the old way."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from tests.support.api import Api, token_for
from tests.support.online import play_board
from tournaments.models import BoardResult

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]
PAIRS = 8
ROUNDS = 3
BOARDS = 2


def create(organiser_api, name: str, play: str) -> int:
    response = organiser_api.post(
        "/tournaments",
        {
            "name": name,
            "start_at": (timezone.now() + timedelta(hours=2)).isoformat(),
            "rounds": ROUNDS,
            "boards_per_round": BOARDS,
            "round_minutes": 30,
            "scoring": "IMP",
            "play": play,
        },
    )
    assert response.status_code == 201, response.content
    assert response.json()["play"] == play
    return response.json()["id"]


def register(organiser_api, tid: int, usernames: list[str]) -> dict[int, int]:
    reg_no = {}
    for i in range(PAIRS):
        pair = organiser_api.post(
            f"/tournaments/{tid}/pairs", {"players": usernames[2 * i : 2 * i + 2]}
        ).json()
        reg_no[pair["id"]] = pair["registration_no"]
    return reg_no


def seating(tid: int, number: int, reg_no: dict[int, int]) -> list[tuple]:
    round_ = Api().get(f"/tournaments/{tid}/rounds/{number}").json()
    assert round_["status"] == "open"
    return [
        (t["table"], reg_no[t["ns"]], reg_no[t["ew"]], t["ns_players"], t["ew_players"])
        for t in round_["tables"]
    ]


def http_player(path: str, apis: dict):
    def view_of(username):
        response = apis[username].get(path + "/view")
        assert response.status_code == 200, response.content
        return response.json()

    def act(username, action):
        response = apis[username].post(path + "/actions", action)
        assert response.status_code == 200, (action, response.content)
        return response.json()

    return view_of, act


def test_a_tournament_played_online_scores_like_the_same_results_entered(organiser):
    organiser_api = Api(token_for(organiser))
    usernames = [f"o{i:02d}" for i in range(1, 2 * PAIRS + 1)]
    for name in usernames:
        assert organiser_api.post("/players", {"username": name}).status_code == 201
    users = {u.username: u for u in get_user_model().objects.filter(username__in=usernames)}
    apis = {name: Api(token_for(user)) for name, user in users.items()}

    online = create(organiser_api, "Online Swiss", "online")
    entered = create(organiser_api, "Entered Swiss", "entered")
    online_no = register(organiser_api, online, usernames)
    entered_no = register(organiser_api, entered, usernames)
    for tid in (online, entered):
        assert organiser_api.post(f"/tournaments/{tid}/start").status_code == 200

    kinds = set()
    for number in range(1, ROUNDS + 1):
        tables = seating(online, number, online_no)
        # The same standings so far seat the same pairs at the same tables.
        assert [t[:3] for t in tables] == [t[:3] for t in seating(entered, number, entered_no)]
        for table, _ns, _ew, ns_players, ew_players in tables:
            # Player 1 sits North (East), player 2 South (West).
            by_seat = {
                "N": ns_players[0]["username"], "S": ns_players[1]["username"],
                "E": ew_players[0]["username"], "W": ew_players[1]["username"],
            }  # fmt: skip
            for board in range(number * BOARDS - 1, number * BOARDS + 1):
                path = f"/tournaments/{online}/rounds/{number}/tables/{table}/boards/{board}"
                view_of, act = http_player(path, apis)
                last = play_board(view_of, act, by_seat, seed=board * 100 + table)
                assert last["over"]
                stored = BoardResult.objects.get(
                    table__round__tournament_id=online, table__number=table, board__number=board
                )
                assert stored.played_online and stored.ns_score == last["result"]["ns_score"]
                kinds.add(stored.state)
                # The same result, entered the old way by a player of the other event.
                body = {"contract": stored.contract}
                if stored.state == "played":
                    body.update(declarer=stored.declarer, tricks=stored.tricks, lead=stored.lead)
                entry_path = f"/tournaments/{entered}/rounds/{number}/tables/{table}/boards/{board}"
                response = apis[by_seat["E"]].put(entry_path, body)
                assert response.status_code == 200, response.content
                assert response.json()["ns_score"] == stored.ns_score
        for tid in (online, entered):
            closed = organiser_api.post(f"/tournaments/{tid}/rounds/{number}/close")
            assert closed.status_code == 200, closed.content

    assert "played" in kinds
    online_rows = Api().get(f"/tournaments/{online}/standings").json()
    entered_rows = Api().get(f"/tournaments/{entered}/standings").json()
    assert Api().get(f"/tournaments/{online}").json()["status"] == "finished"

    def comparable(rows):
        return [
            (r["registration_no"], r["rank"], round(r["total"], 6), r["boards_completed"],
             r["completed"], r["master_points"])
            for r in rows
        ]  # fmt: skip

    assert comparable(online_rows) == comparable(entered_rows)
    assert [r["boards_completed"] for r in online_rows] == [ROUNDS * BOARDS] * PAIRS
