"""Live tables under load (issue 17.4): N tables × 4 robot clients on WebSockets to the
real ASGI server (uvicorn, `config.asgi`) with the Redis channel layer and PostgreSQL.

Each scenario builds an online event of 2N pairs (one round of 4 boards), opens its
round, starts uvicorn (one process, or two sharing Redis, the clients split between
them), connects the 4N robots (`tournaments.robots.client`, heuristic plans, claims
after 6 tricks) and lets them play for a bounded window:

- human pace: each seat waits 2–6 s before acting (an action every 2–6 s per table);
  sizes grow (--sizes) until connections are no longer all held, on one uvicorn process
  and then on two sharing Redis (each table's seats split between them); the largest
  held and the largest within the 250 ms p99 target are reported for each;
- saturation: the robots act at once (pace 0); actions per second and the latency then.

Reported per scenario: connections held; latency from an action sent to all four seats
notified (p50/p95/p99); actions lost, duplicated or out of order (each seat's received
sequence numbers against each table's stored log, and every action a robot sent
against the log); cards leaked (a hand or card a seat may not see, checked on every
message from the deal); server CPU per stored action (uvicorn + PostgreSQL + Redis);
server memory per connection (uvicorn RSS, connected minus idle).

Loopback only; every scenario is bounded in time (--window). `make bench` runs it with
small defaults (BENCH_PLAY_SIZES to change them). BENCH_PLAY_LEAK_DEBUG=1 prints each
message counted as a leak.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import random
import re
import shutil
import subprocess
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import uvloop

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import (  # noqa: E402
    free_port,
    postmaster_pid,
    print_table,
    record,
    setup_django,
    tree_cpu,
)

PARTNER = {"N": "S", "S": "N", "E": "W", "W": "E"}
SEATS = ("N", "E", "S", "W")
# Every call a view's `legal` may hold: none is a card ("SA"), so none can leak one.
CALLS = frozenset(
    {"P", "X", "XX"} | {f"{n}{s}" for n in range(1, 8) for s in ("C", "D", "H", "S", "NT")}
)
TARGET_P99_MS = 250
# Sockets being opened at once (handshake to snapshot), and how long the connecting may
# go without a new socket in before the window starts without the rest (`run_robots`).
CONNECTING_AT_ONCE = 64
CONNECT_STALL_SECONDS = 60.0


def _rss_of(pid: int) -> int:
    with open(f"/proc/{pid}/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def cpu_of(roots: list[int]) -> float:
    return sum(tree_cpu(root) for root in roots)


def _own_cpu() -> float:
    """CPU seconds of this process: the robots themselves share the two cores."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


# --- the event -------------------------------------------------------------------------


def build_event(tables: int, boards: int, tag: str, rounds: int = 1):
    """An online event of 2×`tables` pairs, round 1 open now: (tournament, tables)."""
    from django.utils import timezone

    from tournaments.models import PlayMode, Table, Tournament
    from tournaments.services import clock
    from tournaments.services.bulk_registration import ensure_players, register_pairs_in_bulk

    now = timezone.now()
    players = ensure_players([f"bench{i + 1:05d}" for i in range(tables * 4)])
    tournament = Tournament.objects.create(
        name=f"Play bench {tag} ({tables} tables)",
        registration_opens_at=now - timedelta(days=1),
        start_at=now - timedelta(seconds=1),
        rounds=rounds,
        boards_per_round=boards,
        round_length=timedelta(hours=2),
        gap_length=timedelta(0),
        scoring_method="IMP",
        play=PlayMode.ONLINE,
    )
    register_pairs_in_bulk(tournament=tournament, players=players, at=now - timedelta(hours=1))
    clock.advance(now=now)
    seated = list(
        Table.objects.filter(round__tournament=tournament)
        .select_related("ns_pair", "ew_pair")
        .order_by("number")
    )
    return tournament, seated


def seat_jobs(tournament, tables, tokens: dict[int, str]):
    import play
    from simulation.robot import heuristic_plan
    from tournaments.models import Board
    from tournaments.robots.client import BoardJob, SeatJob
    from tournaments.selectors import table_seats
    from tournaments.services.tokens import issue_token

    boards = list(Board.objects.filter(round__tournament=tournament).order_by("number"))
    plans = {}
    deals = {}
    for board in boards:
        state = play.BoardState.start(board.deal, board.dealer, board.vulnerability)
        hands = {seat: state.hand_of(seat) for seat in SEATS}
        plans[board.number] = heuristic_plan(hands)
        deals[board.number] = {seat: set(cards) for seat, cards in hands.items()}
    jobs = []
    from django.contrib.auth import get_user_model

    users = get_user_model().objects.in_bulk(
        {u for t in tables for u in table_seats.table_seats(t, set()).values()}
    )
    for table in tables:
        for seat, user_id in table_seats.table_seats(table, set()).items():
            if user_id not in tokens:
                tokens[user_id] = issue_token(user=users[user_id])[1]
            jobs.append(
                SeatJob(
                    table_id=table.pk,
                    seat=seat,
                    token=tokens[user_id],
                    boards=tuple(BoardJob(b.number, b.deal, plans[b.number]) for b in boards),
                )
            )
    return jobs, deals


# --- servers ---------------------------------------------------------------------------


def start_redis(work: Path) -> tuple[subprocess.Popen, str]:
    binary = shutil.which("redis-server")
    if binary is None:
        sys.exit("bench_play: redis-server is not installed")
    port = free_port()
    process = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        + ["--dir", str(work), "--maxclients", "20000"],
        stdout=subprocess.DEVNULL,
    )
    time.sleep(0.5)
    return process, f"redis://127.0.0.1:{port}/0"


def start_uvicorn(port: int, redis: str, log: Path) -> subprocess.Popen:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.base",
        "CHANNEL_LAYER_URL": redis,
        "CELERY_BROKER_URL": "",
        "DEBUG": "false",
        "LOG_LEVEL": "WARNING",
        # Each process's tally of how its sockets answered the bell (kept board, or read).
        "BELL_LOG_LEVEL": "INFO",
        # Every robot plays from 127.0.0.1 at full speed: the per-client write limits
        # (4429 on the socket) are for people, not for the load generator.
        "API_WRITE_RATE_PER_USER": "",
        "API_WRITE_RATE_PER_ADDRESS": "",
    }
    command = [sys.executable, "-m", "uvicorn", "config.asgi:application", "--host", "127.0.0.1"]
    command += ["--port", str(port), "--lifespan", "off", "--no-access-log", "--log-level"]
    command += ["warning", "--backlog", "8192", "--ws-max-queue", "64"]
    command += ["--no-proxy-headers"]  # as in production: the address is the connection's
    command += ["--ws-max-size", "16384"]
    return subprocess.Popen(command, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT)


def stop_servers(servers: list[subprocess.Popen]) -> None:
    """Ask every server to stop, then wait for each (killed after 20 s)."""
    for server in servers:
        server.terminate()
    for server in servers:
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()


def wait_listening(port: int, process: subprocess.Popen) -> None:
    import socket

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            sys.exit("bench_play: uvicorn exited")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.2)
    sys.exit("bench_play: uvicorn did not listen")


# --- the robots and what they saw ------------------------------------------------------


class Watch:
    """Everything the robots sent and received, checked as it arrives.

    The robots share the cores with the server, so the check of each message is cheap:
    the cards a seat may see are precomputed once per board, seat and stage (own hand;
    with dummy's; all four), and a view whose hands and legal cards are all within them
    — every view of a correct server — costs a few set look-ups. Anything else is
    counted exactly as the full rule says (`_leaked`)."""

    def __init__(self, deals):
        self.deals = deals
        self.sent: dict[tuple, tuple[float, dict]] = {}  # (table, board, seq) -> (t, msg)
        self.seen: dict[tuple, dict[str, float]] = defaultdict(dict)  # (t, b, seq) -> seat->t
        # (table, board, seat) -> the seqs of each connection (a snapshot starts one)
        self.received: dict[tuple, list[list[int]]] = defaultdict(list)
        self.refused = 0
        self.reconnects = 0
        self.window_began = float("inf")  # set once every socket is in
        # (table, seat) -> (when its robot stopped, how: `play_seat`'s outcome)
        self.ended: dict[tuple[int, str], tuple[float, str]] = {}
        self.joined: dict[tuple[int, str], float] = {}  # (table, seat) -> its first snapshot
        self.leaks = 0
        self.messages = 0
        # (board, seat, dummy or None, over, claimer or None) -> the cards that seat may see,
        # and the same with every call (a call in `legal` is no card): a view within them
        # leaks nothing.
        self._visible: dict[tuple, tuple[frozenset[str], frozenset[str]]] = {}

    def observer(self, table_id: int):
        def observe(event: str, seat: str, data: dict, at: float) -> None:
            self.messages += 1
            kind = data.get("type")
            board = data.get("board")
            if kind == "error" and "view" in data:
                self.refused += 1
            if kind == "snapshot" and self.received.get((table_id, board, seat)):
                self.reconnects += 1  # this seat's socket for this board dropped
            # A refusal carries the state to play from: both opponents answer a claim
            # from the same view, one is stored and the other is told, with the view of
            # the action that took its place (the connection gets no second copy).
            if kind == "error" and "view" in data:
                # Counted only when it brings a state this connection has not had.
                connections = self.received.get((table_id, board, seat))
                if connections and connections[-1] and data["seq"] > connections[-1][-1]:
                    connections[-1].append(data["seq"])
                    self.seen[table_id, board, data["seq"]][seat] = at
            elif kind in ("snapshot", "view"):
                connections = self.received[table_id, board, seat]
                if kind == "snapshot" or not connections:
                    connections.append([])
                connections[-1].append(data["seq"])
                if kind == "view":
                    self.seen[table_id, board, data["seq"]][seat] = at
            view = data.get("view")
            if view is not None and board is not None:
                cards, or_calls = self._visible_to(seat, board, view)
                if not (
                    all(cards.issuperset(hand) for hand in view["hands"].values())
                    and or_calls.issuperset(view.get("legal", []))
                ):
                    leaked = self._leaked(seat, board, view)
                    self.leaks += leaked
                    if leaked and os.environ.get("BENCH_PLAY_LEAK_DEBUG"):
                        print("leak:", table_id, seat, data, flush=True)

        return observe

    def _visible_to(
        self, seat: str, board: int, view: dict
    ) -> tuple[frozenset[str], frozenset[str]]:
        """The cards `seat` may see in `view` (those `_leaked` allows), and with the calls."""
        dummy = PARTNER[view["declarer"]] if view["play"] and view["declarer"] else None
        claimer = (view.get("claim") or {}).get("seat")
        key = (board, seat, dummy, bool(view["over"]), claimer)
        visible = self._visible.get(key)
        if visible is None:
            deal = self.deals[board]
            if key[3]:
                cards = frozenset(set().union(*deal.values()))
            else:
                cards = frozenset(deal[seat] | deal.get(dummy, set()) | deal.get(claimer, set()))
            visible = self._visible[key] = (cards, cards | CALLS)
        return visible

    def _leaked(self, seat: str, board: int, view: dict) -> int:
        """Cards shown that `seat` may not see now: a hand other than its own, dummy's
        after the opening lead, the claimer's while a claim waits for its answers (Law
        68), or all four once over; legal cards not its to play."""
        deal = self.deals[board]
        allowed = set(deal[seat])
        if view["play"] and view["declarer"]:
            allowed |= deal[PARTNER[view["declarer"]]]
        claimer = (view.get("claim") or {}).get("seat")
        if claimer is not None:
            allowed |= deal[claimer]
        if view["over"]:
            allowed = set().union(*deal.values())
        shown = {card for cards in view["hands"].values() for card in cards}
        shown |= {c for c in view.get("legal", []) if len(c) == 2 and c[0] in "SHDC"}
        return len(shown - allowed - {e["card"] for e in view["play"]})


async def run_robots(
    jobs, watch: Watch, ports: list[int], pace, window: float, claim_after, after_window=None
):
    from tournaments.robots.client import play_seat

    rng = random.Random(17)
    connected = 0
    refused = 0
    # At most this many sockets between opening and their snapshot: people arrive over
    # minutes, not all in the same second. Without the ramp, thousands of handshakes
    # queue at once, a client gives up on its handshake after websockets' 10 s, retries
    # while the server still works on the one abandoned (up to 5 times, then REFUSED),
    # and at 500 tables on one process half the seats never get in.
    opening = asyncio.Semaphore(CONNECTING_AT_ONCE)

    async def one(job, port):
        nonlocal connected, refused
        observe = watch.observer(job.table_id)

        def observer(event, seat, data, at):
            if event == "message" and data.get("type") == "snapshot" and not joined:
                nonlocal connected
                connected += 1  # this seat is in (a reconnection does not count again)
                joined.append(True)
                watch.joined[job.table_id, job.seat] = at
                opening.release()
            if event == "sent":
                watch.sent[job.table_id, current[0], data["seq"]] = (at, data)
                return
            if data.get("board"):
                current[0] = data["board"]
            observe(event, seat, data, at)

        current = [1]
        joined: list[bool] = []
        await opening.acquire()
        try:
            outcome = await play_seat(
                job,
                base=f"ws://127.0.0.1:{port}",
                pace=pace,
                rng=random.Random(rng.random()),
                claim_after=claim_after,
                observer=observer,
                timeout=window + 60,
            )
        except Exception as error:  # a refused or dropped connection
            refused += 1
            outcome = f"error {error!r}"
        finally:
            if not joined:
                opening.release()  # never got in: its place goes to the next seat
        watch.ended[job.table_id, job.seat] = (time.monotonic(), outcome)
        return outcome

    # The seats open their sockets in the order of the jobs (a table's four together),
    # CONNECTING_AT_ONCE at a time. Wait for everyone to connect while they still come
    # in (no new socket for CONNECT_STALL_SECONDS: the window starts without the rest),
    # then the window of play.
    tasks = [
        asyncio.create_task(one(job, ports[(i // 2) % len(ports)])) for i, job in enumerate(jobs)
    ]
    began = time.monotonic()
    progress_at, last_count = began, 0
    while connected < len(jobs) and time.monotonic() - progress_at < CONNECT_STALL_SECONDS:
        await asyncio.sleep(0.5)
        if connected != last_count:
            progress_at, last_count = time.monotonic(), connected
    connect_seconds = time.monotonic() - began
    held_at_start = connected
    # The window: every socket is in. Latency counts only actions sent from here on (while
    # thousands of sockets are still being opened, the first robots' actions queue behind
    # the handshakes: that is the connect time, reported apart). The robots' own process
    # does not collect cycles meanwhile: a pause of the load generator would be counted as
    # the server's latency.
    watch.window_began = time.monotonic()
    gc.collect()
    gc.disable()
    try:
        await asyncio.sleep(window)
        if after_window is not None:
            await after_window()
    finally:
        gc.enable()
    for task in tasks:
        task.cancel()
    outcomes = await asyncio.gather(*tasks, return_exceptions=True)
    errors = sum(1 for o in outcomes if isinstance(o, str) and o.startswith("error"))
    return held_at_start, connect_seconds, errors + refused


def check(watch: Watch, tournament, tables) -> dict:
    """Lost, duplicated, out-of-order actions: every seat's received seqs against the
    stored log, and every sent action against the log."""
    from tournaments.models import PlayAction

    log: dict[tuple, dict[int, PlayAction]] = defaultdict(dict)
    for row in PlayAction.objects.filter(table__in=tables).select_related("board"):
        log[row.table_id, row.board.number][row.seq] = row
    lost = duplicated = disorder = 0
    for (table_id, board, _seat), per_connection in watch.received.items():
        for seqs in per_connection:  # within one connection: once each, in order
            if len(seqs) != len(set(seqs)):
                duplicated += len(seqs) - len(set(seqs))
            if seqs != sorted(seqs):
                disorder += 1
        stored = log.get((table_id, board), {})
        first = per_connection[0][0] if per_connection and per_connection[0] else 0
        seen = {seq for seqs in per_connection for seq in seqs}
        for seqs in per_connection[1:]:  # a reconnection's snapshot holds all before it
            seen |= set(range(1, seqs[0] + 1)) if seqs else set()
        last = max(stored, default=0)
        # Every stored action after the first snapshot reached the seat (a message still
        # in flight when the window closed is not counted lost).
        if seen and max(seen) >= last:
            lost += len(set(range(first + 1, last + 1)) - seen)
    sent_lost = 0
    for (table_id, board, seq), (_at, message) in watch.sent.items():
        row = log.get((table_id, board), {}).get(seq)
        if row is None:
            continue  # refused (stale, or the window closed): answered with an error
        kind = message["action"]
        if row.kind != kind:
            continue  # another seat's action took that seq: this one was refused
        if kind == "card" and row.card != message["card"]:
            sent_lost += 1
    stored_total = sum(len(v) for v in log.values())
    return {
        "stored": stored_total,
        "lost": lost + sent_lost,
        "duplicated": duplicated,
        "out_of_order": disorder,
    }


def latencies(watch: Watch) -> list[float]:
    """Action sent → all four seats notified, for actions sent in the window."""
    found = []
    for key, (at, _message) in watch.sent.items():
        if at < watch.window_began:
            continue
        seen = watch.seen.get(key)
        if seen and len(seen) == 4:
            found.append(max(seen.values()) - at)
    return found


def percentile(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))] * 1000


def scenario(label, tables, processes, pace, window, work: Path, redis: str, tokens) -> dict:
    from django.db import connections

    from tournaments.robots.client import Pace

    tournament, seated = build_event(tables, 4, label)
    jobs, deals = seat_jobs(tournament, seated, tokens)
    connections.close_all()
    ports = [free_port() for _ in range(processes)]
    servers = [start_uvicorn(p, redis, work / f"uvicorn-{label}-{p}.log") for p in ports]
    try:
        for port, server in zip(ports, servers, strict=True):
            wait_listening(port, server)
        time.sleep(1)
        postmaster = postmaster_pid()
        roots = [s.pid for s in servers] + ([postmaster] if postmaster else [])
        idle_rss = sum(_rss_of(s.pid) for s in servers)
        watch = Watch(deals)
        cpu_before = cpu_of(roots)
        own_before = _own_cpu()
        began = time.monotonic()
        # The robots' loop is uvloop's, as the server's is (uvicorn picks it): a load
        # generator should not spend the cores it shares with the server on its loop.
        held, connect_s, failures = uvloop.run(
            run_robots(jobs, watch, ports, Pace(*pace), window, claim_after=6)
        )
        wall = time.monotonic() - began
        cpu = cpu_of(roots) - cpu_before
        own = _own_cpu() - own_before
        busy_rss = max(sum(_rss_of(s.pid) for s in servers), idle_rss)
    finally:
        stop_servers(servers)
    checked = check(watch, tournament, seated)
    lat = latencies(watch)
    row = {
        "scenario": label,
        "tables": tables,
        "processes": processes,
        "pace": f"{pace[0]:g}-{pace[1]:g}s",
        "connections": len(jobs),
        "held": held,
        "failures": failures,
        "reconnects": watch.reconnects,
        "connect_s": round(connect_s, 1),
        "actions": checked["stored"],
        "actions_per_s": round(checked["stored"] / wall, 1),
        "p50_ms": round(percentile(lat, 50), 1),
        "p95_ms": round(percentile(lat, 95), 1),
        "p99_ms": round(percentile(lat, 99), 1),
        "lost": checked["lost"],
        "duplicated": checked["duplicated"],
        "out_of_order": checked["out_of_order"],
        "refused": watch.refused,
        "leaked": watch.leaks,
        "cpu_ms_per_action": round(1000 * cpu / max(checked["stored"], 1), 1),
        "robots_cpu_ms_per_action": round(1000 * own / max(checked["stored"], 1), 1),
        "kb_per_connection": round((busy_rss - idle_rss) / 1024 / max(held, 1), 1),
    }
    record("play", **row)
    return row


class BellWatch(Watch):
    """`Watch` up to the bell, and each socket's `round_closed`: (when it came, with all
    four hands in its view, with its next seat in round 2), by (table, seat). From the
    close's commit (`rung_at`) on every hand is everyone's, so nothing after it is a leak
    (a robot's action refused at the bell comes back with the public view)."""

    def __init__(self, deals):
        super().__init__(deals)
        self.told: dict[tuple[int, str], tuple[float, bool, bool]] = {}
        self.ringing_at = float("inf")  # the close began (in its own process)
        self.rung_at = float("inf")  # the close committed
        # What came while the close ran: checked once it is known when it committed.
        self.pending: list[tuple[Callable, tuple]] = []

    def observer(self, table_id: int):
        observe = super().observer(table_id)

        def observer(event: str, seat: str, data: dict, at: float) -> None:
            after_the_bell = (
                data.get("type") == "snapshot"
                and (data.get("clock") or {}).get("status") == "closed"
            )
            if data.get("type") == "round_closed" or after_the_bell:
                # A socket opened as the bell rang (its seat moving to the next board)
                # hears it in its snapshot: the closing view and the next seat alike.
                view, following = data.get("view") or {}, data.get("next") or {}
                self.told.setdefault((table_id, seat), (
                    at,
                    len(view.get("hands", {})) == 4,
                    following.get("round") == 2 and following.get("table") is not None,
                ))  # fmt: skip
                return
            if at >= self.rung_at:
                return  # the round has closed: every hand is everyone's now (RULES 9)
            if at >= self.ringing_at:
                self.pending.append((observe, (event, seat, data, at)))
                return
            observe(event, seat, data, at)

        return observer

    def rung(self, at: float) -> None:
        """The close committed by `at` (when the clock's process could say so): what came
        before is checked as ever, except a refusal — the servers may have seen the
        commit first, and an action refused at the bell comes back with the public
        view. A view is never public before the bell: those are all checked."""
        self.rung_at = at
        for observe, (event, seat, data, came) in self.pending:
            if came < at and data.get("type") != "error":
                observe(event, seat, data, came)
        self.pending = []


def bell_scenario(tables, processes, play_seconds, work: Path, redis: str, tokens) -> dict:
    """The bell's fan-out: `tables` tables of robots at human pace, every seat's socket
    open on the board in play; after `play_seconds` the clock closes round 1 (seating
    round 2), and each socket's `round_closed` message is timed from the moment the close
    committed (its announcement starts: `announcements.round_closed`, run on commit) to
    its arrival, with its closing view (all four hands) and next seat checked. The clock
    runs in a process of its own (`ring`). Reported besides: the robots that had stopped
    before the bell, by how, the robots still in at the bell (`open_at_bell`), and each
    server's tally of how its sockets answered (`sockets.bell_tally`: kept board, rows
    the bell carried, read): "told" below the sockets the servers answered is an answer
    no robot heard (lost on the way, or its robot was leaving). BENCH_PLAY_BELL_DEBUG=1
    prints Redis's disconnection counters and subscribers after the wait."""
    from django.db import connections

    from tournaments.models import Round
    from tournaments.robots.client import Pace
    from tournaments.sockets import bell_tally

    redis_url = redis
    tournament, seated = build_event(tables, 4, "bell", rounds=2)
    jobs, deals = seat_jobs(tournament, seated, tokens)
    first = Round.objects.get(tournament=tournament, number=1)
    connections.close_all()
    ports = [free_port() for _ in range(processes)]
    logs = [work / f"uvicorn-bell-{p}.log" for p in ports]
    servers = [start_uvicorn(p, redis, log) for p, log in zip(ports, logs, strict=True)]
    watch = BellWatch(deals)
    told = watch.told
    timing: dict[str, float] = {}
    table_ids = {t.pk for t in seated}

    async def after_window():
        # The clock rings in a process of its own, as in production (`run_clock`): in
        # this one, the reading and sending of the bell would share the interpreter with
        # the thousands of robots (and their handling of it would be counted as its time).
        watch.ringing_at = time.monotonic()
        ringer = await asyncio.create_subprocess_exec(
            sys.executable, __file__, "--ring", str(first.pk), stdout=asyncio.subprocess.PIPE
        )
        assert ringer.stdout is not None
        async for line in ringer.stdout:
            name, _, at = line.decode().strip().partition(" ")
            timing[name] = float(at)
            if name == "committed":
                watch.rung(timing["committed"])
        await ringer.wait()
        deadline = time.monotonic() + 60
        while len(told) < len(jobs) and time.monotonic() < deadline:
            await asyncio.sleep(0.2)
        # Each process logs its tally `bell_tally.REPORT_AFTER_SECONDS` after its first
        # answer, and again for the answers after that: wait for the last.
        last = max((at for at, _v, _n in told.values()), default=time.monotonic())
        await asyncio.sleep(max(0.0, last + bell_tally.REPORT_AFTER_SECONDS + 5 - time.monotonic()))
        if os.environ.get("BENCH_PLAY_BELL_DEBUG"):
            import redis

            client = redis.Redis.from_url(redis_url)
            stats = client.info("stats")
            print("redis:", {k: v for k, v in stats.items() if "disconnect" in k or "reject" in k})
            print("redis pubsub clients:", len(client.client_list(_type="pubsub")))
            print("redis channels with a subscriber:", len(client.pubsub_channels()))

    try:
        for port, server in zip(ports, servers, strict=True):
            wait_listening(port, server)
        time.sleep(1)
        held, connect_s, failures = uvloop.run(
            run_robots(
                jobs, watch, ports, Pace(2.0, 6.0), play_seconds, claim_after=6,
                after_window=after_window,
            )
        )  # fmt: skip
    finally:
        stop_servers(servers)
    if "sent" not in timing:
        sys.exit("bench_play: the bell did not ring (the close failed: see the log above)")
    arrivals = [
        at - timing["committed"] for (t, _s), (at, _v, _n) in told.items() if t in table_ids
    ]
    row = {
        "scenario": f"bell-{processes}proc",
        "tables": tables,
        "processes": processes,
        "sockets": len(jobs),
        "held": held,
        "failures": failures,
        "told": len(told),
        # the robots in (a snapshot came) and not stopped when the close committed
        "open_at_bell": sum(
            1
            for key, at in watch.joined.items()
            if at < timing["committed"]
            and not (key in watch.ended and watch.ended[key][0] < timing["committed"])
        ),
        "connect_s": round(connect_s, 1),
        # The robots that had stopped before the bell, by how (`play_seat`'s outcome):
        # their sockets were closed, so they cannot be told.
        "gone_before_bell": dict(
            Counter(
                outcome.split("(")[0]
                for (at, outcome) in watch.ended.values()
                if at < timing["committed"]
            )
        ),
        # by the server process the seat's socket is on (`run_robots` alternates pairs of
        # seats N,E / S,W between processes)
        "told_by_process": [
            sum(1 for (_t, seat) in told if "NESW".index(seat) // 2 % processes == k)
            for k in range(processes)
        ],
        "without_view": sum(1 for _at, view, _n in told.values() if not view),
        "without_next": sum(1 for _at, _v, following in told.values() if not following),
        "close_ms": round(1000 * (timing["committed"] - timing["ring"]), 1),
        "announce_ms": round(1000 * (timing["sent"] - timing["committed"]), 1),
        "p50_ms": round(percentile(arrivals, 50), 1),
        "p99_ms": round(percentile(arrivals, 99), 1),
        "last_ms": round(1000 * max(arrivals, default=float("nan")), 1),
        "leaked": watch.leaks,
        # per server process: [from the kept board, from the rows the bell carried, read]
        "answers_by_process": tallies(logs),
    }
    record("play", **row)
    return row


_TALLY = re.compile(
    r"bell of round \d+: (\d+) sockets answered in this process, (\d+) from the kept board,"
    r" (\d+) from the rows the bell carried, (\d+) read the board"
)


def tallies(logs: list[Path]) -> list[list[int]]:
    """Each server's `bell_tally` lines summed, as [kept, carried, read], in the order of
    `logs` (a bell answered over more than `REPORT_AFTER_SECONDS` is logged in parts)."""
    found = []
    for log in logs:
        text = log.read_text(errors="replace") if log.exists() else ""
        parts = [[int(m[2]), int(m[3]), int(m[4])] for m in _TALLY.finditer(text)]
        found.append([sum(column) for column in zip(*parts, strict=True)] if parts else [0, 0, 0])
    return found


def ring(round_id: int) -> None:
    """The bell of round `round_id` by the real clock (`clock.advance` at its end),
    printing when it began, when the close committed (its announcement starts, run on
    commit: `announcements.round_closed`), when the announcement was handed to Redis,
    and when the clock returned, each as "name monotonic-seconds" (`bell_scenario`)."""
    from tournaments.models import Round
    from tournaments.services import announcements, clock

    first = Round.objects.get(pk=round_id)
    original = announcements.round_closed

    def timed_round_closed(**kwargs):
        print("committed", time.monotonic(), flush=True)
        original(**kwargs)
        print("sent", time.monotonic(), flush=True)

    announcements.round_closed = timed_round_closed
    print("ring", time.monotonic(), flush=True)
    clock.advance(now=first.ends_at)
    print("returned", time.monotonic(), flush=True)


def main() -> None:
    if sys.argv[1:2] == ["--ring"]:
        setup_django()
        ring(int(sys.argv[2]))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sizes = os.environ.get("BENCH_PLAY_SIZES", "50,200,500,1000")
    parser.add_argument("--sizes", default=sizes, help="tables per human-pace step")
    parser.add_argument(
        "--window", type=float, default=float(os.environ.get("BENCH_PLAY_WINDOW", 60))
    )
    parser.add_argument("--saturation-tables", type=int, default=0, help="0: the largest that held")
    bell = os.environ.get("BENCH_PLAY_BELL_TABLES", "200")
    parser.add_argument(
        "--bell-tables", default=bell, help="tables of the bell's fan-out (0: none)"
    )
    parser.add_argument("--bell-only", action="store_true", help="only the bell's fan-out")
    parser.add_argument(
        "--bell-processes",
        default=os.environ.get("BENCH_PLAY_BELL_PROCESSES", "1,2"),
        help="server processes of the bell's fan-out, e.g. 1,2",
    )
    args = parser.parse_args()
    import tempfile

    work = Path(tempfile.mkdtemp(prefix="benchplay."))
    redis_process, redis = start_redis(work)
    # This process rings the bell: its announcement goes through the servers' Redis.
    os.environ["CHANNEL_LAYER_URL"] = redis
    setup_django()
    tokens: dict[int, str] = {}
    rows = []
    bell_rows = []
    try:
        for tables in (int(t) for t in args.bell_tables.split(",") if t.strip() and int(t)):
            for processes in (int(p) for p in args.bell_processes.split(",")):
                row = bell_scenario(tables, processes, 20.0, work, redis, tokens)
                bell_rows.append(row)
                print_row(row)
        if args.bell_only:
            return
        sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
        summary = []
        for processes in (1, 2):
            largest = within = 0
            for size in sizes:
                label = "human" if processes == 1 else "human-2proc"
                row = scenario(label, size, processes, (2.0, 6.0), args.window, work, redis,
                               tokens)  # fmt: skip
                rows.append(row)
                print_row(row)
                if row["held"] != row["connections"] or row["failures"]:
                    break  # connections no longer held: the size is past what works
                largest = size
                if row["p99_ms"] <= TARGET_P99_MS:
                    within = size
            summary.append((processes, largest, within))
        top = max(largest for _p, largest, _w in summary) or sizes[0]
        sat = args.saturation_tables or min(max(top // 4, 10), 100)
        for processes in (1, 2):
            row = scenario(f"saturation-{processes}proc", sat, processes, (0.0, 0.0),
                           args.window / 2, work, redis, tokens)  # fmt: skip
            rows.append(row)
            print_row(row)
        print()
        for processes, largest, within in summary:
            print(f"{processes} process(es), human pace: every connection held up to {largest}"
                  f" tables; p99 <= {TARGET_P99_MS} ms up to {within} tables")  # fmt: skip
    finally:
        redis_process.terminate()
        redis_process.wait(timeout=10)
        if bell_rows:
            print_table(
                ["scenario", "tables", "sockets told", "no view", "no next", "close ms",
                 "announce ms", "p50 ms", "p99 ms", "last ms", "leaked"],
                [
                    [r["scenario"], r["tables"], f"{r['told']}/{r['sockets']}", r["without_view"],
                     r["without_next"], r["close_ms"], r["announce_ms"], r["p50_ms"],
                     r["p99_ms"], r["last_ms"], r["leaked"]]
                    for r in bell_rows
                ],
            )  # fmt: skip
    if not rows:
        return
    headers = ["scenario", "tables", "held", "actions/s", "p50", "p95", "p99", "lost", "dup",
               "order", "leaked", "cpu ms/act", "KB/conn"]  # fmt: skip
    print_table(
        headers,
        [
            [r["scenario"], r["tables"], f"{r['held']}/{r['connections']}", r["actions_per_s"],
             r["p50_ms"], r["p95_ms"], r["p99_ms"], r["lost"], r["duplicated"],
             r["out_of_order"], r["leaked"], r["cpu_ms_per_action"], r["kb_per_connection"]]
            for r in rows
        ],
    )  # fmt: skip


def print_row(row: dict) -> None:
    print(" ".join(f"{k}={v}" for k, v in row.items()), flush=True)


if __name__ == "__main__":
    main()
