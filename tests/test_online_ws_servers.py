"""The live table server as deployed: two uvicorn processes serving `config.asgi` on one
real Redis channel layer and the test's PostgreSQL. Four programs, two on each process,
play a board to the end over WebSockets; each sees every action once, in order."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time

import pytest
from online_ws_support import board_path, open_online_round, robot_action, seated_users, token_of
from test_celery_clock import free_port, redis_url, stop, worker_database_url  # noqa: F401
from websockets.asyncio.client import connect

from scoring import SEATS
from tournaments.models import BoardResult, PlayAction

TIMEOUT = 20


def start_server(*, port: int, redis: str, log) -> subprocess.Popen:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "DATABASE_URL": worker_database_url(),
        "CHANNEL_LAYER_URL": redis,
    }
    command = [sys.executable, "-m", "uvicorn", "config.asgi:application"]
    command += ["--host", "127.0.0.1", "--port", str(port), "--lifespan", "off"]
    return subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)


def wait_until_listening(port: int, server: subprocess.Popen, log_path) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if server.poll() is not None:
            break
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"server on {port} did not start:\n{log_path.read_text()[-3000:]}")


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
