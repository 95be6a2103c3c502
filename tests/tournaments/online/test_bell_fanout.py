"""The bell at the sockets (issue 23): each socket answers from the bell's message and the
board its process keeps, counts how it answered (`sockets.bell_tally`, the figure each
server process logs per bell), reads the board only when it is not kept as the bell says
it is stored, and sends nothing of the board after its `round_closed` — not even an
action's event that was still on its way when the bell rang. Through the real ASGI
application on PostgreSQL and the in-memory channel layer (as tests/…/test_ws.py)."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer

import play
from scoring import SEATS
from tests.support.online_ws import (
    board_path,
    connect,
    open_online_round,
    robot_action,
    seated_users,
    token_of,
)
from tournaments.models import Board, PlayAction, Round
from tournaments.push import channel
from tournaments.selectors import replays, table_server
from tournaments.services import announcements, clock, table_play
from tournaments.sockets import bell_tally

pytestmark = pytest.mark.django_db(transaction=True)
TIMEOUT = 10


@pytest.fixture
def table(make_tournament, register_pairs):
    _first_round, tables = open_online_round(make_tournament, register_pairs, boards=2)
    return tables[0]


async def seats_play(table, tokens, *, actions: int, held: list | None = None):
    """The four seats connect to board 1 and their robots take `actions` actions; with
    `held`, the table's events go there instead of to the sockets (only the actor hears
    its own action, from its reply)."""
    sockets, views = {}, {}
    for seat in SEATS:
        sockets[seat], _ = await connect(board_path(table, 1), token=tokens[seat])
        views[seat] = (await sockets[seat].receive_json_from(timeout=TIMEOUT))["view"]
    await seats_play_on(sockets, views, actions=actions, held=held)
    return sockets, views


async def seats_play_on(sockets, views, *, actions: int, held: list | None = None):
    """`actions` more actions by the robots at `sockets`, from each seat's `views`."""
    for _ in range(actions):
        actor = next(seat for seat in SEATS if robot_action(views[seat]))
        action = robot_action(views[actor])
        await sockets[actor].send_json_to({**action, "type": "action", "action": action["type"]})
        for seat in SEATS if held is None else [actor]:
            views[seat] = (await sockets[seat].receive_json_from(timeout=TIMEOUT))["view"]


async def close_round(table, monkeypatch) -> dict:
    """The clock closes the table's round, its announcement held back; the bell's message
    for `table` (`table_server.bell_news`)."""
    round = await database_sync_to_async(Round.objects.get)(pk=table.round_id)
    with monkeypatch.context() as quiet:
        quiet.setattr(announcements, "round_closed", lambda **_: None)
        await database_sync_to_async(clock.advance)(now=round.ends_at + timedelta(seconds=1))
    news = await database_sync_to_async(table_server.bell_news)(closed_round_id=table.round_id)
    return dict(news)[table.pk]


def test_a_socket_whose_board_is_not_kept_reads_it_and_each_answer_is_counted(table, monkeypatch):
    """Kept boards answer without a read; a process that keeps none (restarted, or the
    board pushed out) reads it, and its view is the same. The tally says which."""
    users = seated_users(table)
    tokens = {seat: token_of(user) for seat, user in users.items()}
    bell_tally.report(table.round_id)  # nothing left from another test

    async def scenario():
        sockets, _views = await seats_play(table, tokens, actions=5)
        news = await close_round(table, monkeypatch)
        layer = get_channel_layer()
        group = channel.table_group(table.pk)
        await layer.group_send(group, news)
        kept = {seat: await sockets[seat].receive_json_from(timeout=TIMEOUT) for seat in SEATS}
        tally_kept = bell_tally.report(table.round_id)
        for ws in sockets.values():
            await ws.disconnect()
        again = {}
        for seat in SEATS:
            again[seat], _ = await connect(board_path(table, 1), token=tokens[seat])
            await again[seat].receive_json_from(timeout=TIMEOUT)
        replays.forget_all()  # the snapshots just built it again
        await layer.group_send(group, news)
        read = {seat: await again[seat].receive_json_from(timeout=TIMEOUT) for seat in SEATS}
        tally_read = bell_tally.report(table.round_id)
        for ws in again.values():
            await ws.disconnect()
        return kept, tally_kept, read, tally_read

    kept, tally_kept, read, tally_read = async_to_sync(scenario)()
    assert tally_kept == bell_tally.Answers(kept=4, carried=0, read=0)
    # The first socket's read keeps the board again: a socket answering after it has it.
    assert tally_read.read >= 1 and tally_read.kept + tally_read.read == 4
    for seat in SEATS:
        view = table_play.board_view(table=table, board_number=1, user=users[seat])
        assert kept[seat]["type"] == read[seat]["type"] == "round_closed"
        assert kept[seat]["view"] == read[seat]["view"] == view
        assert len(view["hands"]) == 4 and view["next_seq"] == 6


def test_an_action_told_after_the_bell_is_not_sent_after_round_closed(table, monkeypatch):
    """An action stored just before the close, whose event reaches the other seats only
    after the bell (its process was slow to publish): the bell's view holds it, and the
    late event sends nothing — each action reaches a socket once, and nothing of the
    board follows `round_closed`."""
    tokens = {seat: token_of(user) for seat, user in seated_users(table).items()}
    held: list[tuple] = []
    monkeypatch.setattr(announcements, "send", lambda groups, message: held.append(message))

    async def scenario():
        sockets, _views = await seats_play(table, tokens, actions=1, held=held)
        news = await close_round(table, monkeypatch)
        layer = get_channel_layer()
        group = channel.table_group(table.pk)
        await layer.group_send(group, news)
        told = {seat: await sockets[seat].receive_json_from(timeout=TIMEOUT) for seat in SEATS}
        (late,) = [message for message in held if message["type"] == "table.views"]
        await layer.group_send(group, late)
        after = {seat: await sockets[seat].receive_nothing(timeout=0.3) for seat in SEATS}
        for ws in sockets.values():
            await ws.disconnect()
        return told, late, after

    told, late, after = async_to_sync(scenario)()
    assert late["type"] == "table.views" and late["seq"] == 1
    for seat in SEATS:
        assert told[seat]["type"] == "round_closed" and told[seat]["view"]["next_seq"] == 2
    assert after == dict.fromkeys(SEATS, True)


def test_a_process_that_missed_the_last_actions_catches_up_from_the_bell(table, monkeypatch):
    """The other process stored the board's last two actions and this one has not heard
    their events yet (its kept board is two behind): the bell carries each board's last
    actions, and the sockets answer from them — no read, the same view."""
    users = seated_users(table)
    tokens = {seat: token_of(user) for seat, user in users.items()}
    bell_tally.report(table.round_id)
    board = Board.objects.get(round_id=table.round_id, number=1)
    key = {"table_id": table.pk, "board_id": board.pk}

    async def scenario():
        sockets, views = await seats_play(table, tokens, actions=3)
        behind = await database_sync_to_async(stored_now)(table, board)
        kept_then = replays.kept_state(**key, stored=behind)
        await seats_play_on(sockets, views, actions=2)
        # This process, as if it had not heard actions 4 and 5: its board is after 3.
        replays.remember(
            **key, stored=behind, deal=(board.deal, board.dealer, board.vulnerability),
            state=kept_then,
        )  # fmt: skip
        news = await close_round(table, monkeypatch)
        await get_channel_layer().group_send(channel.table_group(table.pk), news)
        told = {seat: await sockets[seat].receive_json_from(timeout=TIMEOUT) for seat in SEATS}
        tally = bell_tally.report(table.round_id)
        for ws in sockets.values():
            await ws.disconnect()
        return kept_then, news, told, tally

    kept_then, news, told, tally = async_to_sync(scenario)()
    assert kept_then is not None
    rows = list(PlayAction.objects.filter(table=table, board=board).order_by("seq"))
    assert [r[1] for r in news["last_rows"]["1"]] == [3, 4, 5]
    assert [r[0] for r in news["last_rows"]["1"]] == [row.pk for row in rows[-3:]]
    assert tally.read == 0 and tally.carried >= 1 and tally.kept + tally.carried == 4
    for seat in SEATS:
        view = table_play.board_view(table=table, board_number=1, user=users[seat])
        assert told[seat]["type"] == "round_closed" and told[seat]["view"] == view
        assert view["next_seq"] == 6


def stored_now(table, board) -> replays.Stored:
    rows = list(PlayAction.objects.filter(table=table, board=board).order_by("seq"))
    return replays.Stored(len(rows), rows[-1].pk)


def test_a_kept_board_catches_up_only_from_rows_that_continue_it():
    """`replays.caught_up` applies the carried rows only when they are exactly the actions
    after the kept board's (the one it ends on has the kept board's last id, no gap, the
    last id as stored); otherwise None, and the socket reads the board."""
    from tournaments.selectors.board_views import action_of

    deal = ("N:AKQJ.T98.765.432 T98.765.432.AKQJ 765.432.AKQJ.T98 432.AKQJ.T98.765", "N", "None")
    rows = [replays.Row(100 + seq, seq, seat, "call", "P", "", "", None) for seq, seat in
            ((1, "N"), (2, "E"), (3, "S"))]  # fmt: skip
    start = play.BoardState.start(*deal)
    after_one = start.apply(action_of(rows[0]))
    key = {"table_id": -23, "board_id": -1}
    three = replays.Stored(3, 103)

    def keep_after_one(last_id=101):
        replays.remember(**key, stored=replays.Stored(1, last_id), deal=deal, state=after_one)

    keep_after_one()
    assert replays.caught_up(**key, stored=three, rows=rows[1:2]) is None  # a gap
    assert replays.caught_up(**key, stored=replays.Stored(3, 999), rows=rows) is None
    keep_after_one(last_id=555)  # built from another first row than the carried one
    assert replays.caught_up(**key, stored=three, rows=rows) is None
    keep_after_one()
    caught = replays.caught_up(**key, stored=three, rows=rows)
    assert caught == after_one.apply(action_of(rows[1])).apply(action_of(rows[2]))
    assert replays.kept_state(**key, stored=three) is caught
    assert replays.caught_up(**key, stored=three, rows=rows) is None  # not behind any more


@pytest.mark.redis
def test_the_bell_goes_to_redis_in_one_pipeline_and_reaches_every_socket_once(
    redis_url, make_tournament, register_pairs, tmp_path, monkeypatch
):
    """The clock's process hands the bell's messages (one per table) to Redis in one
    pipelined round trip (`push._publish_pipelined`), not one PUBLISH after the other:
    through a real uvicorn on that Redis, every seat of both tables hears it once."""
    import contextlib
    import json
    import subprocess

    from django.test import override_settings
    from websockets.asyncio.client import connect as ws_connect

    from tests.support.servers import free_port, stop
    from tests.support.uvicorn import start_server, wait_until_listening

    first_round, tables = open_online_round(make_tournament, register_pairs, boards=1)
    seats = [(t, seat, token_of(user)) for t in tables for seat, user in seated_users(t).items()]
    port, log_path = free_port(), tmp_path / "server.log"
    server: subprocess.Popen = start_server(port=port, redis=redis_url, log=log_path.open("w"))
    pipelined: list[bool] = []
    real = channel._publish_pipelined

    async def recorded(layer, messages):
        pipelined.append(await real(layer, messages))
        return pipelined[-1]

    monkeypatch.setattr(channel, "_publish_pipelined", recorded)
    layer = {
        "default": {
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {"hosts": [redis_url], "prefix": "swiss-tables"},
        }
    }

    async def hear_the_bell():
        sockets = []
        for t, _seat, token in seats:
            ws = await ws_connect(
                f"ws://127.0.0.1:{port}{board_path(t, 1)}",
                additional_headers={"Authorization": f"Bearer {token}"},
            )
            assert json.loads(await asyncio.wait_for(ws.recv(), 30))["type"] == "snapshot"
            sockets.append(ws)
        with override_settings(CHANNEL_LAYERS=layer):
            await asyncio.to_thread(ring, first_round)
        told = [json.loads(await asyncio.wait_for(ws.recv(), 30)) for ws in sockets]
        again = []
        for ws in sockets:
            with contextlib.suppress(TimeoutError):
                again.append(json.loads(await asyncio.wait_for(ws.recv(), 0.5)))
        for ws in sockets:
            await ws.close()
        return told, again

    try:
        wait_until_listening(port, server, log_path)
        told, again = asyncio.run(hear_the_bell())
    finally:
        stop(server)
    assert [m["type"] for m in told] == ["round_closed"] * 8, log_path.read_text()[-2000:]
    assert [m for m in again if m.get("type") != "round"] == []
    assert True in pipelined  # the bell's two messages went in one pipeline


def ring(first_round) -> None:
    """The real clock rings round 1, its announcement sent through the settings' layer."""
    from channels import layers
    from django.db import connection

    layers.channel_layers.backends.clear()  # the overridden CHANNEL_LAYERS, not a cached one
    try:
        end = Round.objects.get(pk=first_round.pk).ends_at
        clock.advance(now=end + timedelta(seconds=1))
    finally:
        layers.channel_layers.backends.clear()
        connection.close()
