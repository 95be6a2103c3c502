"""A busy broadcast beside the players' tables (issue 27, RULES 12): N tables of robots
at human pace on two uvicorn processes sharing Redis, with one table broadcast to S
spectator sockets (split between the processes, opened from a process of their own so
the load generator's two halves do not share a core's loop), against the same run with
no spectator.

Reported per run: the players' latency (an action sent → all four seats notified,
p50/p99, `bench_play.latencies`), actions lost or leaked (`bench_play.check`), and for
the spectators: how many were in, how many boards each was shown, and the latency from a
board's release (the moment the last table finished it: `visibility.board_release_at`,
delay 0) to its `released` message at the spectator (p50/p99). Also whether any
spectator was sent a card of a board before its release (a leak).

Three runs: without spectators, with, without again; the players' p99 with spectators
is compared with the mean of the two without (target: within 20 %). `make bench` runs it
at BENCH_BROADCAST_TABLES (200) and BENCH_BROADCAST_SPECTATORS (2000), each run a
BENCH_BROADCAST_WINDOW (300 s) of play after the connecting. Loopback only; bounded.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import uvloop

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bench_play import (  # noqa: E402
    Watch,
    build_event,
    check,
    latencies,
    percentile,
    run_robots,
    seat_jobs,
    start_redis,
    start_uvicorn,
    stop_servers,
    wait_listening,
)
from bench.common import free_port, print_table, record, setup_django  # noqa: E402

# Spectators opened at once (handshake to snapshot): people arrive over minutes.
SPECTATORS_OPENING_AT_ONCE = 32


def _is_card(text) -> bool:
    return (
        isinstance(text, str)
        and len(text) == 2
        and text[0] in "SHDC"
        and text[1] in "AKQJT98765432"
    )


def _cards(message) -> int:
    if isinstance(message, dict):
        return sum(_cards(v) for v in message.values())
    if isinstance(message, list):
        return sum(_cards(v) for v in message)
    return 1 if _is_card(message) else 0


async def _spectate(url: str, seconds: float, opening: asyncio.Semaphore, out: dict) -> None:
    import websockets

    shown: dict[int, float] = {}
    early = 0
    await opening.acquire()
    released = False
    try:
        async with websockets.connect(url, max_size=2**22, open_timeout=60) as socket:
            ends = time.monotonic() + seconds
            while True:
                left = ends - time.monotonic()
                if left <= 0:
                    break
                try:
                    text = await asyncio.wait_for(socket.recv(), timeout=left)
                except TimeoutError:
                    break
                at = time.time()
                message = json.loads(text)
                kind = message.get("type")
                if kind == "snapshot":
                    if not released:
                        released = True
                        opening.release()
                        out["in"] += 1
                    for line in message["broadcast"]["boards"]:
                        if line["released"]:
                            shown.setdefault(line["number"], 0.0)  # shown before: no latency
                        elif _cards(line):
                            early += 1
                elif kind == "released":
                    shown.setdefault(message["board"]["number"], at)
                elif _cards(message):
                    early += 1
    except Exception as error:  # refused or dropped: counted
        out["errors"].append(repr(error)[:200])
    finally:
        if not released:
            opening.release()
        out["shown"].append(shown)
        out["early"] += early


async def _spectators(urls: list[str], count: int, seconds: float) -> dict:
    """Every spectator's outcome; SIGTERM ends them all and answers what they saw."""
    import signal

    out: dict = {"in": 0, "errors": [], "shown": [], "early": 0}
    opening = asyncio.Semaphore(SPECTATORS_OPENING_AT_ONCE)
    tasks = [
        asyncio.ensure_future(_spectate(urls[i % len(urls)], seconds, opening, out))
        for i in range(count)
    ]
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, lambda: [task.cancel() for task in tasks])
    await asyncio.gather(*tasks, return_exceptions=True)
    return out


def spectators_main(argv: list[str]) -> None:
    """`--spectators COUNT SECONDS OUT URL…`: the spectators' own process."""
    count, seconds, out_path, urls = int(argv[0]), float(argv[1]), argv[2], argv[3:]
    result = uvloop.run(_spectators(urls, count, seconds))
    Path(out_path).write_text(json.dumps(result))


def _release_times(tournament) -> dict[int, float]:
    """Board number → when the last table finished it (its release, delay 0)."""
    from django.db.models import Count, Max

    from tournaments.models import BoardResult, Table

    tables = Table.objects.filter(round__tournament=tournament).count()
    found = {}
    for number, n, last in (
        BoardResult.objects.filter(board__tournament=tournament)
        .values("board__number")
        .annotate(n=Count("id"), last=Max("entered_at"))
        .values_list("board__number", "n", "last")
    ):
        if n >= tables:
            found[number] = last.timestamp()
    return found


def run(tables: int, spectators: int, window: float, work: Path, redis: str, tokens) -> dict:
    from django.contrib.auth import get_user_model
    from django.db import connections

    from tournaments.robots.client import Pace
    from tournaments.services import broadcasts

    label = f"spectators-{spectators}-{time.monotonic():.0f}"
    tournament, seated = build_event(tables, 4, label)
    organiser = get_user_model().objects.filter(is_superuser=True).first()
    if organiser is None:
        organiser = get_user_model().objects.create_superuser("bench-organiser", password=None)
    item = broadcasts.start_broadcast(by=organiser, tournament=tournament, table=seated[0])
    jobs, deals = seat_jobs(tournament, seated, tokens)
    connections.close_all()
    ports = [free_port() for _ in range(2)]
    servers = [start_uvicorn(p, redis, work / f"uvicorn-{label}-{p}.log") for p in ports]
    spectator_out = work / f"{label}.json"
    watcher = None
    try:
        for port, server in zip(ports, servers, strict=True):
            wait_listening(port, server)
        time.sleep(1)
        if spectators:
            urls = [f"ws://127.0.0.1:{p}/ws/broadcasts/{item.pk}/" for p in ports]
            watcher = subprocess.Popen(
                [sys.executable, __file__, "--spectators", str(spectators), str(window + 240)]
                + [str(spectator_out), *urls],
                env={**os.environ},
            )
            time.sleep(min(120.0, spectators / 20))  # the spectators come in first
        watch = Watch(deals)
        began = time.monotonic()
        held, connect_s, failures = uvloop.run(
            run_robots(jobs, watch, ports, Pace(1.0, 3.0), window, claim_after=6)
        )
        wall = time.monotonic() - began
    finally:
        if watcher is not None:
            watcher.terminate()
            try:
                watcher.wait(timeout=30)
            except subprocess.TimeoutExpired:
                watcher.kill()
        stop_servers(servers)
    checked = check(watch, tournament, seated)
    lat = latencies(watch)
    row = {
        "scenario": label,
        "tables": tables,
        "players_held": f"{held}/{len(jobs)}",
        "failures": failures,
        "actions": checked["stored"],
        "actions_per_s": round(checked["stored"] / wall, 1),
        "players_p50_ms": round(percentile(lat, 50), 1),
        "players_p99_ms": round(percentile(lat, 99), 1),
        "lost": checked["lost"],
        "leaked": watch.leaks,
    }
    if spectators:
        seen = json.loads(spectator_out.read_text()) if spectator_out.exists() else None
        released = _release_times(tournament)
        delays = []
        boards_shown = 0
        if seen is not None:
            for shown in seen["shown"]:
                for number, at in shown.items():
                    boards_shown += 1
                    number = int(number)
                    if at and number in released:
                        delays.append(at - released[number])
        row.update(
            {
                "spectators": spectators,
                "spectators_in": seen["in"] if seen else 0,
                "spectator_errors": len(seen["errors"]) if seen else None,
                "boards_released": len(released),
                "boards_shown": boards_shown,
                "release_p50_ms": round(percentile(delays, 50), 1),
                "release_p99_ms": round(percentile(delays, 99), 1),
                "shown_early": seen["early"] if seen else None,
            }
        )
    record("broadcast", **row)
    return row


def main() -> None:
    if sys.argv[1:2] == ["--spectators"]:
        spectators_main(sys.argv[2:])
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--tables", type=int, default=int(os.environ.get("BENCH_BROADCAST_TABLES", 200))
    )
    parser.add_argument(
        "--spectators", type=int, default=int(os.environ.get("BENCH_BROADCAST_SPECTATORS", 2000))
    )
    parser.add_argument(
        "--window", type=float, default=float(os.environ.get("BENCH_BROADCAST_WINDOW", 300))
    )
    args = parser.parse_args()
    random.seed(27)
    # The spectators all come from 127.0.0.1 without a login: the servers' cap on anonymous
    # sockets per address (a guard against one client opening thousands) is lifted for the
    # load generator, as bench_play lifts the write limits for its robots.
    os.environ["ANONYMOUS_SOCKETS_PER_ADDRESS"] = "0"
    work = Path(tempfile.mkdtemp(prefix="benchcast."))
    redis_process, redis = start_redis(work)
    os.environ["CHANNEL_LAYER_URL"] = redis
    setup_django()
    tokens: dict[int, str] = {}
    rows = []
    try:
        # Without, with, without: the run with spectators is compared with the mean of the
        # two around it, so a machine that grows busier or quieter meanwhile (2 cores shared)
        # does not pass for the spectators' cost.
        for spectators in (0, args.spectators, 0):
            row = run(args.tables, spectators, args.window, work, redis, tokens)
            rows.append(row)
            print(" ".join(f"{k}={v}" for k, v in row.items()), flush=True)
    finally:
        redis_process.terminate()
        redis_process.wait(timeout=10)
    busy = rows[1]
    base = (rows[0]["players_p99_ms"] + rows[2]["players_p99_ms"]) / 2
    ratio = busy["players_p99_ms"] / base if base else None
    print_table(
        ["run", "players p50", "players p99", "lost", "leaked", "spectators in",
         "boards shown", "release p50", "release p99", "shown early"],
        [
            [r["scenario"], r["players_p50_ms"], r["players_p99_ms"], r["lost"], r["leaked"],
             r.get("spectators_in", "-"), r.get("boards_shown", "-"),
             r.get("release_p50_ms", "-"), r.get("release_p99_ms", "-"),
             r.get("shown_early", "-")]
            for r in rows
        ],
    )  # fmt: skip
    if ratio is not None:
        print(
            f"players' p99 with spectators / without (the mean of the runs before and after):"
            f" {ratio:.2f} (target <= 1.20)"
        )
        record("broadcast_ratio", players_p99_ratio=round(ratio, 3))


if __name__ == "__main__":
    main()
