"""The live table server's limits on one client, on a real uvicorn process (issue 22,
items 3 and 8): sockets flooding actions are refused and closed with 4429 while another
table plays on at its usual pace; a message over the cap is closed with 1009 unread (the
server's own frame limit is uvicorn's, 16 MiB unless `--ws-max-size` says less); a key
sent in the URL is never written to the server's log, and is revoked.

The server runs `config.settings.base` (the test settings switch the write limits off),
on the test's PostgreSQL and the in-memory channel layer, with its limits as deployed:
API_WRITE_RATE_PER_USER 120/min. Each socket says which address it comes from in
X-Forwarded-For (uvicorn trusts it from 127.0.0.1, as a proxy's), so the eight flooding
players and the table they would slow down come from nine addresses, as on the internet,
and the per-address budget is not shared by accident of the test."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import multiprocessing
import statistics
import time

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from scoring import SEATS
from tests.support.online_ws import board_path, open_online_round, robot_action, seated_users
from tests.support.online_ws import token_of as key_of
from tests.support.servers import free_port, stop, wait_for_server_sessions
from tests.support.uvicorn import start_server, wait_until_listening
from tournaments.models import ApiToken
from tournaments.sockets.consumers import CLOSE_TOO_BIG, CLOSE_TOO_MANY, CLOSE_UNAUTHENTICATED

pytestmark = pytest.mark.django_db(transaction=True)
TIMEOUT = 20
ALONE_SECONDS = 2.5  # the tables play alone first: their round trips as usual
FLOOD_SECONDS = 4.0
FLOODERS = 8
PACE = 0.3


def server_env(**extra) -> dict:
    return {
        "DJANGO_SETTINGS_MODULE": "config.settings.base",
        "DEBUG": "false",
        "SECRET_KEY": "test-socket-limits-" + "x" * 40,
        "API_WRITE_RATE_PER_USER": "120/min",
        "API_WRITE_RATE_PER_ADDRESS": "1200/min",
        "TRUSTED_PROXIES": "0",  # uvicorn itself took the address from X-Forwarded-For
        "LOG_LEVEL": "WARNING",
        **extra,
    }


@pytest.fixture
def server(tmp_path):
    started = []

    def start(**extra):
        port, log_path = free_port(), tmp_path / f"server{len(started)}.log"
        process = start_server(port=port, log=log_path.open("w"), extra_env=server_env(**extra))
        started.append(process)
        wait_until_listening(port, process, log_path)
        return port, log_path

    yield start
    for process in started:
        stop(process)
    wait_for_server_sessions()


def headers(key: str, address: str) -> dict:
    return {"Authorization": f"Bearer {key}", "X-Forwarded-For": address}


async def flood(port: int, path: str, key: str, address: str, until: float) -> dict:
    """Send a refused action as fast as the socket takes them until closed or `until`."""
    frame = json.dumps({"type": "action", "seq": 99, "action": "card", "card": "SA"})
    heard: list[dict] = []
    sent = 0
    url = f"ws://127.0.0.1:{port}{path}"
    async with connect(url, additional_headers=headers(key, address), compression=None) as ws:
        heard.append(json.loads(await asyncio.wait_for(ws.recv(), TIMEOUT)))

        async def listen():
            async for raw in ws:
                heard.append(json.loads(raw))

        listener = asyncio.ensure_future(listen())
        with contextlib.suppress(ConnectionClosed):
            while time.time() < until:
                await ws.send(frame)
                sent += 1
                if sent % 16 == 0:
                    await asyncio.sleep(0)  # let the listener read
        with contextlib.suppress(ConnectionClosed):
            await asyncio.wait_for(listener, TIMEOUT)
        code = ws.close_code
    return {"sent": sent, "heard": heard, "code": code, "closed_at": time.time()}


def flood_from_another_process(port: int, floods: list[tuple], starts: float, until: float):
    """Every flooding socket at once from `starts` (time.time()), in a process of their
    own: their sending does not slow down the test's own clients, whose round trips are
    measured."""

    async def all_of_them():
        await asyncio.sleep(max(0.0, starts - time.time()))
        return await asyncio.gather(
            *(flood(port, path, key, address, until) for path, key, address in floods)
        )

    return asyncio.run(all_of_them())


async def play_paced(port: int, table, keys: dict, address: str, pace: float, until: float):
    """The table plays board 1, each seat on its own socket, waiting `pace` seconds before
    each action (a brisk robot's pace, under the write limits), until `until`: (when,
    round trip) of every action, from sending it to the seat's own view, in seconds."""
    timed = []
    sockets, views = {}, {}
    try:
        for seat in SEATS:
            sockets[seat] = await connect(
                f"ws://127.0.0.1:{port}{board_path(table, 1)}",
                additional_headers=headers(keys[seat], address),
                compression=None,
            )
            snapshot = json.loads(await asyncio.wait_for(sockets[seat].recv(), TIMEOUT))
            views[seat] = snapshot["view"]
        while not views["N"]["over"] and time.time() < until:
            await asyncio.sleep(pace)
            actor = next(seat for seat in SEATS if robot_action(views[seat]))
            action = robot_action(views[actor])
            started = time.perf_counter()
            await sockets[actor].send(
                json.dumps({**action, "type": "action", "action": action["type"]})
            )
            answer = json.loads(await asyncio.wait_for(sockets[actor].recv(), TIMEOUT))
            timed.append((time.time(), time.perf_counter() - started))
            assert answer["type"] == "view", answer
            views[actor] = answer["view"]
            for seat in SEATS:
                if seat != actor:
                    message = json.loads(await asyncio.wait_for(sockets[seat].recv(), TIMEOUT))
                    views[seat] = message["view"]
    finally:
        for ws in sockets.values():
            await ws.close()
    return timed


def p99(values: list[float]) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[98]


def ms(seconds: float) -> float:
    return round(1000 * seconds, 1)


def test_flooding_sockets_are_closed_and_other_tables_play_on(
    server, make_tournament, register_pairs
):
    """Four tables play at a brisk robot's pace (an action every 0.3 s) from one address;
    eight players of two other tables, each from an address of their own, send refused
    actions as fast as their sockets take them. Each flooding socket is refused and
    closed with 4429 after at most SOCKET_MESSAGE_BURST messages, and the four tables'
    round trips stay as they were."""
    _round, tables = open_online_round(make_tournament, register_pairs, pairs=12, boards=1)
    victims = [
        (table, {s: key_of(u) for s, u in seated_users(table).items()}) for table in tables[:4]
    ]
    flooding_players = [(t, user) for t in tables[4:6] for user in seated_users(t).values()]
    floods = [
        (board_path(table, 1), key_of(user), f"10.0.1.{i}")
        for i, (table, user) in enumerate(flooding_players, start=1)
    ]
    assert len(floods) == FLOODERS
    port, _log = server()
    begin = time.time()
    flood_starts = begin + ALONE_SECONDS
    until = flood_starts + FLOOD_SECONDS
    forked = concurrent.futures.ProcessPoolExecutor(
        1, mp_context=multiprocessing.get_context("fork")
    )

    async def scenario():
        loop = asyncio.get_running_loop()
        flooding = loop.run_in_executor(
            forked, flood_from_another_process, port, floods, flood_starts, until
        )
        timed = await asyncio.gather(
            *(play_paced(port, table, keys, "10.0.0.1", PACE, until) for table, keys in victims)
        )
        return [pair for one in timed for pair in one], await flooding

    with forked:
        timed, flood_results = asyncio.run(scenario())
    alone = [rt for at, rt in timed if at < flood_starts]
    during = [rt for at, rt in timed if at >= flood_starts]
    first_close = min(f["closed_at"] for f in flood_results) - flood_starts
    last_close = max(f["closed_at"] for f in flood_results) - flood_starts
    figures = {
        "alone": {"round_trips": len(alone), "p50_ms": ms(statistics.median(alone)),
                  "p99_ms": ms(p99(alone)), "max_ms": ms(max(alone))},
        "during_flood": {"round_trips": len(during), "p50_ms": ms(statistics.median(during)),
                         "p99_ms": ms(p99(during)), "max_ms": ms(max(during))},
        "flooders": FLOODERS,
        "messages_sent_per_flooder": [f["sent"] for f in flood_results],
        "answered_before_the_close": [len(f["heard"]) - 2 for f in flood_results],
        "closed_after_s": [round(first_close, 3), round(last_close, 3)],
    }  # fmt: skip
    figures["slowest_during"] = sorted(
        ((ms(rt), round(at - flood_starts, 3)) for at, rt in timed if at >= flood_starts),
        reverse=True,
    )[:3]  # (round trip in ms, seconds after the flood began)
    print("socket flood:", json.dumps(figures))
    for result in flood_results:
        assert result["code"] == CLOSE_TOO_MANY, result["heard"][-2:]
        last = result["heard"][-1]
        assert last["type"] == "error" and last["error"].startswith("Too many requests")
        # A refused message costs three of the burst of ten (and the opening one).
        assert len(result["heard"]) - 2 <= 4
    assert len(during) >= 40 and len(alone) >= 20, figures
    # The figure itself (p99 30-83 ms against 100 ms) is measured on a quiet machine and
    # kept in BENCHMARKS.md; the suite shares its cores with other tests, so here the
    # flood may cost no more than a few times the tables' own pace before it. Without
    # the limits it was 375 ms (the probe) and 1,430 ms here: that still fails.
    bound = max(300, 4 * figures["alone"]["p99_ms"])
    assert figures["during_flood"]["p99_ms"] <= bound, figures


def test_a_message_over_the_cap_is_closed_with_1009_unread(server, make_tournament, register_pairs):
    _round, tables = open_online_round(make_tournament, register_pairs, boards=1)
    key = key_of(seated_users(tables[0])["N"])
    port, _log = server()

    async def scenario():
        url = f"ws://127.0.0.1:{port}{board_path(tables[0], 1)}"
        async with connect(url, additional_headers=headers(key, "10.0.0.2")) as ws:
            await asyncio.wait_for(ws.recv(), TIMEOUT)
            action = {"type": "action", "seq": 1, "action": "call", "call": "P"}
            await ws.send(json.dumps({**action, "alert": "x" * 16384}))
            error = json.loads(await asyncio.wait_for(ws.recv(), TIMEOUT))
            with pytest.raises(ConnectionClosed):
                await asyncio.wait_for(ws.recv(), TIMEOUT)
            return error, ws.close_code

    error, code = asyncio.run(scenario())
    assert code == CLOSE_TOO_BIG and "too long" in error["error"]


def test_a_key_in_the_url_is_never_logged_and_is_revoked(server, make_tournament, register_pairs):
    _round, tables = open_online_round(make_tournament, register_pairs, boards=1)
    user = seated_users(tables[0])["E"]
    key = key_of(user)
    # uvicorn's INFO log writes each handshake's path and query ("WebSocket /ws/…?…").
    port, log_path = server(LOG_LEVEL="INFO", UVICORN_LOG_LEVEL="info")

    async def scenario():
        url = f"ws://127.0.0.1:{port}{board_path(tables[0], 1)}?token={key}"
        async with connect(url) as ws:
            error = json.loads(await asyncio.wait_for(ws.recv(), TIMEOUT))
            with pytest.raises(ConnectionClosed):
                await asyncio.wait_for(ws.recv(), TIMEOUT)
            return error, ws.close_code

    error, code = asyncio.run(scenario())
    time.sleep(0.3)  # the log line is written at the accept; let it reach the file
    log = log_path.read_text()
    assert code == CLOSE_UNAUTHENTICATED and "revoked" in error["error"]
    assert "WebSocket /ws/tables/" in log  # the handshake was logged …
    assert key not in log and key[:8] not in log  # … without the key
    assert ApiToken.objects.get(user=user).revoked_at is not None
