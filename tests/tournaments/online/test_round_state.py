"""The round as the server has it, on the socket (issue 24, items 3, 5 and 6): every view
of a paused tournament says so and offers nothing; the snapshot carries the round's
clock; the bell says what it made of a board it cut off, and after the last round that
the tournament is over, with its results' address. Through the real ASGI application."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from asgiref.sync import async_to_sync
from django.urls import reverse
from django.utils import timezone

from scoring import SEATS
from tests.support.online_ws import (
    board_path,
    connect,
    open_online_round,
    robot_action,
    seated_users,
    token_of,
)
from tournaments.models import Round, Tournament, UnplayedPolicy
from tournaments.services import clock, table_play

pytestmark = pytest.mark.django_db(transaction=True)
TIMEOUT = 10


async def _snapshots(table, tokens, board=1) -> dict:
    found = {}
    for seat in SEATS:
        ws, _ = await connect(board_path(table, board), token=tokens[seat])
        found[seat] = await ws.receive_json_from(timeout=TIMEOUT)
        await ws.disconnect()
    return found


def test_the_snapshot_carries_the_rounds_clock_as_the_server_has_it(room):
    table, tokens, first = room["table"], room["tokens"], room["round"]
    before = timezone.now()
    snapshots = async_to_sync(_snapshots)(table, tokens)
    for seat, snapshot in snapshots.items():
        clock_now = snapshot["clock"]
        now = datetime.fromisoformat(clock_now.pop("now"))
        assert before <= now <= timezone.now(), seat
        assert clock_now == {
            "round": 1,
            "status": "running",
            "starts_at": first.starts_at.isoformat(),
            "ends_at": first.ends_at.isoformat(),
            "paused": False,
        }, seat
        assert snapshot["view"]["paused"] is False


def test_while_paused_every_view_says_so_and_offers_nothing_and_after_the_resume_play_goes_on(
    room, organiser
):
    table, tokens, users = room["table"], room["tokens"], room["users"]
    tournament = room["round"].tournament
    clock.pause(tournament=tournament, by=organiser)

    async def paused_scenario():
        snapshots = await _snapshots(table, tokens)
        ws, _ = await connect(board_path(table, 1), token=tokens["N"])
        await ws.receive_json_from(timeout=TIMEOUT)
        await ws.send_json_to({"type": "action", "seq": 1, "action": "call", "call": "1C"})
        refused = await ws.receive_json_from(timeout=TIMEOUT)
        await ws.disconnect()
        return snapshots, refused

    snapshots, refused = async_to_sync(paused_scenario)()
    for seat, snapshot in snapshots.items():
        assert snapshot["view"]["paused"] is True and snapshot["view"]["legal"] == [], seat
        assert snapshot["clock"]["paused"] is True, seat
    assert refused["type"] == "error"
    assert refused["error"].startswith("The tournament is paused")
    assert refused["view"]["paused"] is True and refused["view"]["legal"] == []
    for seat, user in users.items():  # over HTTP too: the same view
        view = table_play.board_view(table=table, board_number=1, user=user)
        assert view["paused"] is True and view["legal"] == [], seat

    clock.resume(tournament=Tournament.objects.get(pk=tournament.pk), by=organiser)
    resumed = async_to_sync(_snapshots)(table, tokens)
    assert resumed["N"]["view"]["paused"] is False and resumed["N"]["view"]["legal"][:1] == ["P"]
    assert resumed["N"]["clock"]["paused"] is False


def _play_some(table, tokens, actions: int):
    async def scenario():
        sockets, views = {}, {}
        for seat in SEATS:
            sockets[seat], _ = await connect(board_path(table, 1), token=tokens[seat])
            views[seat] = (await sockets[seat].receive_json_from(timeout=TIMEOUT))["view"]
        for _ in range(actions):
            actor = next(seat for seat in SEATS if robot_action(views[seat]))
            action = robot_action(views[actor])
            await sockets[actor].send_json_to(
                {**action, "type": "action", "action": action["type"]}
            )
            for seat in SEATS:
                views[seat] = (await sockets[seat].receive_json_from(timeout=TIMEOUT))["view"]
        return sockets

    return scenario


def test_the_bell_says_what_it_made_of_a_cut_off_board_and_that_the_tournament_is_over(
    make_tournament, register_pairs
):
    first, tables = open_online_round(make_tournament, register_pairs, boards=2, rounds=1)
    Tournament.objects.filter(pk=first.tournament_id).update(unplayed_policy=UnplayedPolicy.AVG)
    table = tables[0]
    tokens = {seat: token_of(user) for seat, user in seated_users(table).items()}

    async def scenario():
        sockets = await _play_some(table, tokens, actions=5)()  # the auction and the lead
        round = await Round.objects.aget(pk=table.round_id)
        from channels.db import database_sync_to_async

        await database_sync_to_async(clock.advance)(now=round.ends_at + timedelta(seconds=1))
        told = {seat: await sockets[seat].receive_json_from(timeout=TIMEOUT) for seat in SEATS}
        for ws in sockets.values():
            await ws.disconnect()
        return told

    told = async_to_sync(scenario)()
    for seat, message in told.items():
        assert message["type"] == "round_closed", seat
        assert message["cut_off"] == {
            "board": 1,
            "policy": "avg",
            "text": "Board 1 was not finished at the bell: scored as average (A=).",
            "result": {"state": "adjusted", "ns": "A", "ew": "A"},
        }, seat
        assert message["tournament_over"] is True
        assert message["results_url"] == reverse("results", args=[first.tournament_id])
        assert message["next"] is None


def test_a_board_finished_before_the_bell_was_not_cut_off(room, organiser):
    table, users = room["table"], room["users"]
    tokens = room["tokens"]
    from tests.support.online import play_board, service_player

    view_of, act = service_player(table, 1)
    play_board(view_of, act, users, seed=3, claim_rate=0.0)
    tournament = room["round"].tournament

    async def scenario():
        ws, _ = await connect(board_path(table, 1), token=tokens["S"])
        await ws.receive_json_from(timeout=TIMEOUT)
        from channels.db import database_sync_to_async

        await database_sync_to_async(clock.close_round_now)(
            tournament=tournament, by=organiser, round_number=1
        )
        told = await ws.receive_json_from(timeout=TIMEOUT)
        await ws.disconnect()
        return told

    told = async_to_sync(scenario)()
    assert told["type"] == "round_closed" and told["cut_off"] is None
    assert told["tournament_over"] is False and told["results_url"] is None


def test_the_bell_speaks_the_sockets_language(make_tournament, register_pairs, organiser):
    from channels.db import database_sync_to_async
    from channels.testing import WebsocketCommunicator

    from config.asgi import application

    first, tables = open_online_round(make_tournament, register_pairs, boards=1, rounds=2)
    Tournament.objects.filter(pk=first.tournament_id).update(
        unplayed_policy=UnplayedPolicy.AVG_MINUS
    )
    tournament = Tournament.objects.get(pk=first.tournament_id)
    table = tables[0]
    key = token_of(seated_users(table)["W"])

    async def scenario():
        ws = WebsocketCommunicator(
            application,
            board_path(table, 1),
            headers=[(b"authorization", f"Bearer {key}".encode()), (b"accept-language", b"zh")],
        )
        await ws.connect(timeout=TIMEOUT)
        await ws.receive_json_from(timeout=TIMEOUT)
        await database_sync_to_async(clock.close_round_now)(
            tournament=tournament, by=organiser, round_number=1
        )
        told = await ws.receive_json_from(timeout=TIMEOUT)
        await ws.disconnect()
        return told

    told = async_to_sync(scenario)()
    assert told["cut_off"]["text"] == "第 1 副牌在铃响时没有打完：双方计平均减（A−）。"
    assert told["cut_off"]["result"] == {"state": "adjusted", "ns": "A-", "ew": "A-"}
    assert told["tournament_over"] is False and told["next"]["round"] == 2
