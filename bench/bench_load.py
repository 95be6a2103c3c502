"""Load test: the last minute of a round, when every table submits at once.

Run: DATABASE_URL=postgres://… .venv/bin/python bench/bench_load.py (or make bench)

1. Builds a 1,000-table (2,000-pair) event in bulk and plays round 1 (bulk results,
   closed by the organiser action) so the standings are real; round 2 is open for 30 min.
2. Starts gunicorn (gthread) on 127.0.0.1 against the same PostgreSQL.
3. For each scenario it gives every table's North player an API token, plans the table's
   four results (double-dummy-based, as the simulated tables play them) and runs locust
   headless: once every user is started (a few seconds), 1,000 table users submit their
   4,000 results through `PUT /api/v1/…/boards/{b}` at random moments of a 50 s window
   (a few correct a board afterwards), and the run ends 10 s after the window.
   Scenario one is the entry burst alone; scenario two (on the next round, after a real
   close) adds 200 spectators who arrive over the first 20 s and then poll the standings
   (the HTML fragment every 3 s, or the API's full standings every 15 s).
4. Reports requests/s, p50/p95/p99 and failures per request type, then checks that every
   accepted result is stored exactly once, with the values of its last accepted entry.

Targets: p99 ≤ 300 ms for result entry, 0 failures. On a 2-core machine the server,
PostgreSQL and locust itself share the CPU; the figures say so.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import random
import resource
import secrets
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from datetime import timedelta
from pathlib import Path

from common import (
    ROOT,
    build_field,
    bulk_results,
    director,
    free_port,
    postmaster_pid,
    print_table,
    record,
    setup_django,
    tree_cpu,
)

TARGET_P99_MS = 300
BIN = Path(sys.executable).parent


def build(tables: int, boards: int, rng: random.Random):
    """The event, round 1 played and closed, round 2 open for half an hour."""
    from django.utils import timezone

    from tournaments.models import Round
    from tournaments.services import clock

    now = timezone.now().replace(microsecond=0)
    tournament = build_field(
        pairs=tables * 2,
        rounds=4,
        boards_per_round=boards,
        start_at=now,
        round_length=timedelta(minutes=30),
        name="Bench load",
    )
    clock.advance_tournament(tournament_id=tournament.id, now=now)
    first = Round.objects.get(tournament=tournament, number=1)
    bulk_results(round=first, rng=rng, unfinished=0.05, now=timezone.now())
    clock.close_round_now(tournament=tournament, by=director(), now=timezone.now(), round_number=1)
    return tournament


def next_round(tournament) -> None:
    """The organiser closes the open round early: scored, and the next one opens now."""
    from django.utils import timezone

    from tournaments.services import clock

    current = tournament.round_set.current()
    clock.close_round_now(
        tournament=tournament, by=director(), now=timezone.now(), round_number=current.number
    )


def plan_round(tournament, readers: int, rng: random.Random) -> dict:
    """Tokens for the open round's North players and each table's four results."""
    from django.utils import timezone

    from tournaments.models import ApiToken, Table
    from tournaments.services.simulator import board_facts, plausible_entry

    current = tournament.round_set.current()
    assert current.status == "open" and current.ends_at > timezone.now() + timedelta(minutes=5)
    seats = list(
        Table.objects.filter(round=current)
        .order_by("number")
        .values_list("number", "ns_pair__player1_id")
    )
    users = [user_id for _n, user_id in seats]
    ApiToken.objects.filter(user_id__in=users).delete()
    keys = {user_id: secrets.token_hex(20) for user_id in users}
    tokens = []
    for user_id, key in keys.items():
        token = ApiToken(user_id=user_id)
        token.set_key(key)  # only the hash is stored, as `api_token` issues them
        tokens.append(token)
    ApiToken.objects.bulk_create(tokens, batch_size=2000)
    board_list = list(current.boards.order_by("number"))
    facts = board_facts(board_list)
    plan_tables = []
    for number, user_id in seats:
        planned = []
        for board in board_list:
            entry = plausible_entry(facts[board.id], rng)
            result = {"board": board.number, "contract": entry.contract}
            if entry.declarer:
                result.update(declarer=entry.declarer, tricks=entry.tricks, lead=entry.lead)
            planned.append(result)
        plan_tables.append({"number": number, "token": keys[user_id], "results": planned})
    return {
        "tournament": tournament.id,
        "round": current.number,
        "round_id": current.id,
        "readers": readers,
        "tables": plan_tables,
    }


def start_server(port: int, workers: int, threads: int, log: Path) -> subprocess.Popen:
    env = dict(
        os.environ,
        DJANGO_SETTINGS_MODULE="config.settings.base",
        DEBUG="false",
        ALLOWED_HOSTS="127.0.0.1,localhost",
        LOG_LEVEL="WARNING",
        SECRET_KEY=secrets.token_urlsafe(40),
        # Every table device is on 127.0.0.1 here; in an event they are a thousand
        # addresses. The per-user (token) rate stays on, as in production.
        API_WRITE_RATE_PER_ADDRESS="",
    )
    return subprocess.Popen(
        [
            str(BIN / "gunicorn"),
            "config.wsgi",
            "-w",
            str(workers),
            "-k",
            "gthread",
            "--threads",
            str(threads),
            "-b",
            f"127.0.0.1:{port}",
            "--log-level",
            "warning",
            "--backlog",
            "2048",
            # Table devices pause for seconds between boards: a short keep-alive makes the
            # server close connections the client is about to reuse (a proxy in front
            # would hold them in production). Import the app once, before forking.
            "--keep-alive",
            "75",
            "--preload",
        ],
        cwd=ROOT,
        env=env,
        stdout=open(log, "w"),  # noqa: SIM115 - lives as long as the server
        stderr=subprocess.STDOUT,
    )


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)  # locust, once it has exited
    return usage.ru_utime + usage.ru_stime


def wait_until_up(url: str, process: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            sys.exit(f"bench_load: gunicorn exited with {process.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.3)
    sys.exit("bench_load: gunicorn did not answer in time")


def warm(host: str, tournament_id: int, requests: int) -> None:
    """The API must exist in this build, and every worker should have loaded its
    templates and opened its connections before anything is measured."""
    for _ in range(requests):
        for url in (
            f"{host}/api/v1/tournaments/{tournament_id}/standings",
            f"{host}/t/{tournament_id}/standings/",
        ):
            try:
                urllib.request.urlopen(url, timeout=120).read()
            except urllib.error.HTTPError as error:
                sys.exit(f"bench_load: {url} answered {error.code}; is it there?")


def run_locust(host: str, plan: dict, args, work: Path, tag: str) -> tuple[list, dict]:
    plan_path = work / f"load_{tag}_plan.json"
    accepted_path = work / f"load_{tag}_accepted.json"
    plan_path.write_text(json.dumps(plan), encoding="utf-8")
    prefix = str(work / f"load_{tag}")
    users = len(plan["tables"]) + plan["readers"]
    # Every device connects first; then the tables' entries spread over the window.
    start = math.ceil(users / args.spawn_rate) + 2
    duration = args.duration or f"{math.ceil(start + args.window + 10)}s"
    locust = subprocess.run(
        [
            str(BIN / "locust"),
            "-f",
            str(ROOT / "bench" / "locustfile.py"),
            "--headless",
            "-u",
            str(users),
            "-r",
            str(args.spawn_rate),
            "-t",
            duration,
            "--host",
            host,
            "--csv",
            prefix,
            "--only-summary",
            "--loglevel",
            "WARNING",
            "--stop-timeout",
            "10",
        ],
        cwd=ROOT,
        env=dict(
            os.environ,
            LOAD_PLAN=str(plan_path),
            LOAD_ACCEPTED=str(accepted_path),
            LOAD_WINDOW=str(args.window),
            LOAD_START=str(start),
        ),
        stdout=open(work / f"locust_{tag}.txt", "w"),  # noqa: SIM115
        stderr=subprocess.STDOUT,
    )
    if locust.returncode not in (0, 1):  # 1: some requests failed, reported below
        print((work / f"locust_{tag}.txt").read_text()[-3000:])
        sys.exit(f"bench_load: locust exited with {locust.returncode}")
    with open(f"{prefix}_stats.csv", encoding="utf-8") as f:
        stats = list(csv.DictReader(f))
    failures_csv = Path(f"{prefix}_failures.csv")
    if failures_csv.exists():
        with open(failures_csv, encoding="utf-8") as f:
            for row in list(csv.DictReader(f))[:5]:
                print(
                    f"  failure ×{row['Occurrences']}: {row['Method']} {row['Name']}: "
                    f"{row['Error'][:160]}"
                )
    log = json.loads(accepted_path.read_text()) if accepted_path.exists() else {}
    return stats, log


def verify(plan: dict, log: dict) -> dict:
    """Every accepted result is stored once, with its last accepted values (or those of a
    correction still in flight when the run stopped); nothing is stored that was not sent.
    """
    from tournaments.models import BoardResult

    def values(entry: dict) -> tuple:
        return (entry["contract"], entry.get("declarer", ""), entry.get("tricks"))

    accepted, sent = log.get("accepted", []), log.get("sent", [])
    last: dict[tuple[int, int], tuple] = {}
    for entry in accepted:
        last[(entry["table"], entry["board"])] = values(entry)
    sent_values: dict[tuple[int, int], set] = {}
    for entry in sent:
        sent_values.setdefault((entry["table"], entry["board"]), set()).add(values(entry))
    rows = list(
        BoardResult.objects.filter(table__round_id=plan["round_id"]).values_list(
            "table__number", "board__number", "contract", "declarer", "tricks"
        )
    )
    stored: dict[tuple[int, int], tuple] = {}
    duplicates = 0
    for table, board, contract, declarer, tricks in rows:
        duplicates += (table, board) in stored
        stored[(table, board)] = (contract, declarer or "", tricks)
    missing = [key for key in last if key not in stored]
    never_sent = [key for key in stored if key not in sent_values]
    unanswered = [key for key in stored if key in sent_values and key not in last]
    mismatched = [
        key
        for key, want in last.items()
        if key in stored and stored[key] != want and stored[key] not in sent_values[key]
    ]
    return {
        "sent": len(sent),
        "accepted_responses": len(accepted),
        "distinct_accepted": len(last),
        "rows": len(rows),
        "duplicates": duplicates,
        "missing": len(missing),
        "never_sent": len(never_sent),
        "in_flight_at_stop": len(unanswered),
        "mismatched": len(mismatched),
        "ok": not (duplicates or missing or never_sent or mismatched),
    }


def report(label: str, stats: list[dict], check: dict) -> dict | None:
    rows = []
    for row in stats:
        figures = {
            "name": row["Name"] if row["Name"] != "Aggregated" else "all requests",
            "requests": int(row["Request Count"]),
            "failures": int(row["Failure Count"]),
            "rps": float(row["Requests/s"]),
            "p50": float(row["50%"] or 0),
            "p95": float(row["95%"] or 0),
            "p99": float(row["99%"] or 0),
            "max": float(row["Max Response Time"] or 0),
        }
        rows.append(figures)
        record("load", scenario=label, **figures)
    print_table(
        ["request", "count", "fail", "req/s", "p50 ms", "p95 ms", "p99 ms", "max ms"],
        [
            [
                r["name"],
                r["requests"],
                r["failures"],
                f"{r['rps']:.1f}",
                f"{r['p50']:.0f}",
                f"{r['p95']:.0f}",
                f"{r['p99']:.0f}",
                f"{r['max']:.0f}",
            ]
            for r in rows
        ],
    )
    record("load_check", scenario=label, **check)
    print(
        f"stored exactly once: {check['sent']} sent, {check['accepted_responses']} accepted "
        f"({check['distinct_accepted']} distinct table-boards), {check['rows']} rows; "
        f"duplicates {check['duplicates']}, accepted but missing {check['missing']}, "
        f"stored but never sent {check['never_sent']}, values differing "
        f"{check['mismatched']}; {check['in_flight_at_stop']} stored whose answer was "
        "still in flight at the stop → " + ("OK" if check["ok"] else "FAILED")
    )
    put = next((r for r in rows if r["name"] == "PUT result"), None)
    if put:
        ok = put["p99"] <= TARGET_P99_MS and put["failures"] == 0
        print(
            f"result entry: p99 {put['p99']:.0f} ms (target ≤ {TARGET_P99_MS}), "
            f"{put['failures']} failures → target {'met' if ok else 'MISSED on this machine'}"
        )
    return put


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=1000)
    parser.add_argument("--boards", type=int, default=4)
    parser.add_argument("--readers", type=int, default=200)
    parser.add_argument(
        "--scenarios",
        default="entries,readers",
        help="comma-separated: entries (the burst alone), readers (burst + spectators)",
    )
    parser.add_argument(
        "--duration",
        default=None,
        help="locust run time per scenario (default: spawning, the window and 10 s more)",
    )
    parser.add_argument("--window", type=float, default=50, help="seconds to spread entries")
    parser.add_argument("--workers", type=int, default=3, help="gunicorn worker processes")
    parser.add_argument("--threads", type=int, default=6, help="threads per worker")
    parser.add_argument("--spawn-rate", type=int, default=500, help="users started per second")
    parser.add_argument("--seed", type=int, default=8)
    args = parser.parse_args()
    setup_django()

    from django.db import connections

    work = Path(os.environ.get("BENCH_OUT") or tempfile.mkdtemp(prefix="swissload."))
    rng = random.Random(args.seed)
    print(f"load: building {args.tables} tables, round 1 played, round 2 open …", flush=True)
    began = time.perf_counter()
    tournament = build(args.tables, args.boards, rng)
    print(f"  built in {time.perf_counter() - began:.1f} s (tournament {tournament.id})")
    connections.close_all()  # the server and this process must not share a connection

    pg = postmaster_pid()
    port = free_port()
    host = f"http://127.0.0.1:{port}"
    server = start_server(port, args.workers, args.threads, work / "gunicorn.txt")
    try:
        wait_until_up(f"{host}/healthz", server)
        warm(host, tournament.id, args.workers * 2)
        print(
            f"  gunicorn: {args.workers} workers × {args.threads} threads on {host} "
            f"({os.cpu_count()} CPUs shared with PostgreSQL and locust)",
            flush=True,
        )
        scenarios = [s.strip() for s in args.scenarios.split(",") if s.strip()]
        for index, scenario in enumerate(scenarios):
            readers = args.readers if scenario == "readers" else 0
            label = f"{args.tables} tables × {args.boards}" + (
                f" + {readers} readers" if readers else " (entries only)"
            )
            if index:
                next_round(tournament)
                connections.close_all()
            plan = plan_round(tournament, readers, rng)
            connections.close_all()
            print(
                f"\nscenario {index + 1}: {label}, round {plan['round']}, "
                f"{len(plan['tables']) + readers} locust users, entries over {args.window:.0f} s",
                flush=True,
            )
            cpu_before = (tree_cpu(server.pid), tree_cpu(pg), _children_cpu())
            stats, log = run_locust(host, plan, args, work, scenario)
            cpu = [
                after - before
                for after, before in zip(
                    (tree_cpu(server.pid), tree_cpu(pg), _children_cpu()), cpu_before, strict=True
                )
            ]
            load = os.getloadavg()[0]
            check = verify(plan, log)
            connections.close_all()
            report(label, stats, check)
            total = sum(int(row["Request Count"]) for row in stats if row["Name"] == "Aggregated")
            if total:
                per = [seconds * 1000 / total for seconds in cpu]
                capacity = os.cpu_count() * 1000 / sum(per)
                print(
                    f"CPU per request: gunicorn {per[0]:.1f} ms, PostgreSQL {per[1]:.1f} ms, "
                    f"locust {per[2]:.1f} ms → about {capacity:.0f} requests/s if these three "
                    f"had the {os.cpu_count()} cores to themselves (load average at the end "
                    f"of the run: {load:.1f})"
                )
                record(
                    "load_cpu",
                    scenario=label,
                    gunicorn_ms=round(per[0], 1),
                    postgres_ms=round(per[1], 1),
                    locust_ms=round(per[2], 1),
                    capacity_rps=round(capacity),
                    load_average=round(load, 1),
                )
            if not check["ok"]:
                sys.exit(1)
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()


if __name__ == "__main__":
    main()
