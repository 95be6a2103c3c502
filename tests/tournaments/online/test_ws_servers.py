"""The live table server as deployed: two uvicorn processes serving `config.asgi` on one
real Redis channel layer and the test's PostgreSQL. Four programs, two on each process,
play a board to the end over WebSockets; each sees every action once, in order."""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone
from websockets.asyncio.client import connect

from scoring import SEATS
from tests.support.online_ws import (
    board_path,
    open_online_round,
    robot_action,
    seated_users,
    token_of,
)
from tests.support.servers import free_port, stop
from tests.support.uvicorn import start_server, wait_until_listening
from tournaments.models import BoardResult, PlayAction, Round

TIMEOUT = 20


@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_four_programs_on_two_server_processes_play_a_board(
    redis_url,  # noqa: F811
    make_tournament,
    register_pairs,
    tmp_path,
):
    _round, tables = open_online_round(make_tournament, register_pairs, boards=1, rounds=1)
    table = tables[0]
    tokens = {seat: token_of(user) for seat, user in seated_users(table).items()}
    ports = [free_port(), free_port()]
    logs = [tmp_path / f"server{i}.log" for i in (0, 1)]
    servers = []
    try:
        for port, log_path in zip(ports, logs, strict=True):
            servers.append(start_server(port=port, redis=redis_url, log=log_path.open("w")))
        for port, server, log_path in zip(ports, servers, logs, strict=True):
            wait_until_listening(port, server, log_path)
        # North and South on the first process, East and West on the second.
        where = {"N": ports[0], "S": ports[0], "E": ports[1], "W": ports[1]}
        received = asyncio.run(play_board(table, tokens, where))
    finally:
        for server in servers:
            stop(server)

    actions = PlayAction.objects.filter(table=table).count()
    assert actions >= 4 + 52  # the auction and every card
    for seat in SEATS:
        # The snapshot (nothing played yet), then each action once, in order.
        assert [message["seq"] for message in received[seat]] == list(range(actions + 1)), seat
        assert received[seat][0]["type"] == "snapshot"
        final = received[seat][-1]["view"]
        assert final["over"] and final["result"] is not None
    result = BoardResult.objects.get(table=table, board__number=1)
    assert result.played_online
    assert result.ns_score == received["N"][-1]["view"]["result"]["ns_score"]


async def play_board(table, tokens, where) -> dict[str, list[dict]]:
    sockets = {}
    received: dict[str, list[dict]] = {seat: [] for seat in SEATS}
    views = {}
    try:
        for seat in SEATS:
            url = f"ws://127.0.0.1:{where[seat]}{board_path(table, 1)}"
            sockets[seat] = await connect(
                url, additional_headers={"Authorization": f"Bearer {tokens[seat]}"}
            )
            message = json.loads(await asyncio.wait_for(sockets[seat].recv(), TIMEOUT))
            received[seat].append(message)
            views[seat] = message["view"]
        while not views["N"]["over"]:
            actor = next(seat for seat in SEATS if robot_action(views[seat]))
            action = robot_action(views[actor])
            await sockets[actor].send(
                json.dumps({**action, "type": "action", "action": action["type"]})
            )
            for seat in SEATS:
                message = json.loads(await asyncio.wait_for(sockets[seat].recv(), TIMEOUT))
                received[seat].append(message)
                assert message["type"] == "view", (seat, message)
                views[seat] = message["view"]
        for seat in SEATS:  # nothing more: no event twice
            with pytest.raises(TimeoutError):
                await asyncio.wait_for(sockets[seat].recv(), 0.5)
    finally:
        for ws in sockets.values():
            await ws.close()
    return received


@pytest.mark.django_db(transaction=True)
def test_make_runs_server_closes_the_round_and_tells_the_seats(
    make_tournament, register_pairs, tmp_path
):
    """`make run`'s one process (config.asgi_embedded: the clock inside the server, the
    in-memory channel layer): the round's bell reaches the connected seats."""
    first_round, tables = open_online_round(make_tournament, register_pairs, boards=1, rounds=2)
    table = tables[0]
    tokens = {seat: token_of(user) for seat, user in seated_users(table).items()}
    port, log_path = free_port(), tmp_path / "server.log"
    server = start_server(
        port=port,
        redis="",
        log=log_path.open("w"),
        app="config.asgi_embedded:application",
        lifespan="on",
    )
    try:
        wait_until_listening(port, server, log_path)
        try:
            told = asyncio.run(hear_the_bell(table, tokens, port, first_round.pk))
        except TimeoutError:
            raise AssertionError(f"no bell heard:\n{log_path.read_text()[-4000:]}") from None
    finally:
        stop(server)
    first_round.refresh_from_db()
    assert first_round.status == "closed", log_path.read_text()[-3000:]
    for seat in SEATS:
        assert told[seat]["type"] == "round_closed" and told[seat]["round"] == 1, told[seat]
        assert told[seat]["next"]["round"] == 2


def ring_soon(round_id: int) -> None:
    """The round ends in a second (once every seat is connected, whatever the load)."""
    try:
        Round.objects.filter(pk=round_id).update(ends_at=timezone.now() + timedelta(seconds=1))
    finally:
        connection.close()  # this thread's own connection, or the test database stays busy


async def hear_the_bell(table, tokens, port, round_id) -> dict[str, dict]:
    sockets = {}
    told = {}
    try:
        for seat in SEATS:
            sockets[seat] = await connect(
                f"ws://127.0.0.1:{port}{board_path(table, 1)}",
                additional_headers={"Authorization": f"Bearer {tokens[seat]}"},
            )
            snapshot = json.loads(await asyncio.wait_for(sockets[seat].recv(), TIMEOUT))
            assert snapshot["type"] == "snapshot"
        await asyncio.to_thread(ring_soon, round_id)
        for seat in SEATS:
            told[seat] = json.loads(await asyncio.wait_for(sockets[seat].recv(), 30))
    finally:
        for ws in sockets.values():
            await ws.close()
    return told
