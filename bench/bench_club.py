"""A simulated club week (RULES 13, issue 28) through the real server: members form tables
in the lobby (`club.open_table` / `club.wait`), every seat is played by a robot over a
WebSocket (`play_robots`' runner with `club_all_seats`, heuristic plans, pace 0) against
uvicorn, board after board, until --boards results are stored. Then:

- nobody was given a deal twice (each (player, deal) once among the stored results, and
  in the given-deal rows);
- every stored score equals an independent recomputation from the stored results (this
  file's own datum, IMP scale, duplicate's fixed-once rule, full field re-scored, MP);
- the server time of a board-ending action: `table_play.act` timed inside the server
  process for each call that stored a club result (`bench/club_timed_asgi.py`), p50/p99;
- server CPU (uvicorn + PostgreSQL) per stored result, and from it an estimate of the
  tables the machine holds at human pace (a board every HUMAN_BOARD_SECONDS a table).

`make bench` runs it with BENCH_CLUB_PLAYERS (200) and BENCH_CLUB_BOARDS (5000).
"""

from __future__ import annotations

import argparse
import asyncio
import glob
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

# A person's board at the club: about 7 minutes (the auction and 13 tricks at a human
# pace, the claim and the next board's deal).
HUMAN_BOARD_SECONDS = 420
SYSTEMS = ("duplicate", "full_field_imps", "full_field_mp")
IMP_STEPS = (20, 50, 90, 130, 170, 220, 270, 320, 370, 430, 500, 600, 750, 900, 1100, 1300,
             1500, 1750, 2000, 2250, 2500, 3000, 3500, 4000)  # fmt: skip


# --- the independent recomputation ------------------------------------------------------


def imps(difference: int) -> int:
    won = sum(1 for step in IMP_STEPS if abs(difference) >= step)
    return won if difference >= 0 else -won


def datum(scores: list[int]) -> int:
    n = len(scores)
    k = 0 if n <= 2 else max(1, n // 10)
    kept = sorted(scores)[k : n - k]
    return round(Fraction(sum(kept), len(kept)) / 10) * 10  # a 5 to the even ten


def percentages(scores: list[int]) -> list[float]:
    n = len(scores)
    if n == 1:
        return [50.0]
    return [
        100.0
        * sum(2 if mine > o else 1 if mine == o else 0 for j, o in enumerate(scores) if j != i)
        / (2 * (n - 1))
        for i, mine in enumerate(scores)
    ]


def expected_ns(system: str, scores: list[int]) -> list[tuple[float, bool]]:
    """(NS points, scored) of each result of a deal, in arrival order."""
    n = len(scores)
    if system == "duplicate":
        if n < 6:
            return [(0.0, False)] * n
        return [
            (float(imps(s - datum(scores[: max(6, i + 1)]))), True) for i, s in enumerate(scores)
        ]
    if system == "full_field_mp":
        return [(p, True) for p in percentages(scores)]
    d = datum(scores)
    return [(float(imps(s - d)), True) for s in scores]


# --- the week ---------------------------------------------------------------------------


def make_members(count: int, prefix: str = "clubbench"):
    from django.contrib.auth.models import Permission

    from tournaments import permissions
    from tournaments.services.bulk_registration import ensure_players

    members = ensure_players([f"{prefix}{i + 1:05d}" for i in range(count)])
    permission = Permission.objects.get(
        content_type__app_label=permissions.APP, codename=permissions.CLUB_MEMBER_CODENAME
    )
    permission.user_set.add(*members)
    return list(type(members[0]).objects.filter(pk__in=[m.pk for m in members]).order_by("pk"))


def form_tables(members: list, *, systems=SYSTEMS) -> list:
    """Tables of four through the lobby: one member opens a table, three wait for one
    (`club.wait` seats them at the oldest forming table with room); the fourth starts it.
    Systems in turn."""
    from tournaments.services import club

    tables = []
    for i in range(0, len(members) - 3, 4):
        system = systems[(i // 4) % len(systems)]
        table = club.open_table(user=members[i], system=system, seat="N")
        for member in members[i + 1 : i + 4]:
            seated = club.wait(user=member, system=system)
            assert seated is not None and seated.pk == table.pk, "not seated at the open table"
        table.refresh_from_db()
        assert table.status == "playing", table.status
        tables.append(table)
    return tables


def stored_results(field_ids) -> int:
    from tournaments.models import BoardResult

    return BoardResult.objects.filter(
        board__club_deal__field_id__in=list(field_ids), table__club_table__isnull=False
    ).count()


def check_week(field_ids) -> dict:
    """Nobody given a deal twice, every stored score equal to the recomputation; the
    counts checked. Raises AssertionError on the first difference."""
    from django.db.models import Count

    from tournaments.models import ClubDealSeen, ClubField, ClubScore

    field_ids = list(field_ids)
    twice = (
        ClubDealSeen.objects.filter(deal__field_id__in=field_ids)
        .values("user", "deal")
        .annotate(n=Count("id"))
        .filter(n__gt=1)
        .count()
    )
    assert twice == 0, f"{twice} players given a deal twice"
    systems = dict(ClubField.objects.filter(pk__in=field_ids).values_list("pk", "system"))
    rows = (
        ClubScore.objects.filter(field_id__in=field_ids)
        .values_list("deal_id", "field_id", "arrival", "result_id", "result__ns_score",
                     "user_id", "seat", "points", "scored", "robot")
        .order_by("deal_id", "arrival")
    )  # fmt: skip
    deals: dict[int, dict[int, list]] = {}
    played: Counter = Counter()
    for deal_id, field_id, arrival, result_id, ns, user_id, seat, points, scored, robot in rows:
        deals.setdefault(deal_id, {}).setdefault(arrival, []).append(
            (field_id, result_id, ns, user_id, seat, points, scored)
        )
        if not robot:
            played[user_id, deal_id] += 1
    assert not [k for k, n in played.items() if n > 1], "a player scored twice on a deal"
    checked = 0
    for arrivals in deals.values():
        assert sorted(arrivals) == list(range(1, len(arrivals) + 1)), "arrivals not 1..n"
        ordered = [arrivals[a] for a in sorted(arrivals)]
        assert all(len({r[1] for r in result}) == 1 and len(result) == 4 for result in ordered)
        system = systems[ordered[0][0][0]]
        want = expected_ns(system, [result[0][2] for result in ordered])
        for (ns_points, scored), result in zip(want, ordered, strict=True):
            ew_points = 100.0 - ns_points if system == "full_field_mp" else -ns_points
            for _f, _r, _ns, _u, seat, points, is_scored in result:
                target = ns_points if seat in "NS" else ew_points
                assert is_scored == scored and abs(points - target) < 1e-6, (
                    f"deal scores differ: {system} {seat} stored {points} expected {target}"
                )
                checked += 1
    return {"deals": len(deals), "scores_checked": checked, "players_deals": len(played)}


def act_times(prefix: str) -> list[float]:
    times: list[float] = []
    for path in glob.glob(prefix + ".*"):
        with open(path, encoding="utf-8") as f:
            times += [float(line) for line in f if line.strip()]
    return times


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))] if ordered else 0.0


# --- the run ----------------------------------------------------------------------------


def start_uvicorn(port: int, log: Path, times: str) -> subprocess.Popen:
    env = {
        **os.environ,
        "CHANNEL_LAYER_URL": "",
        "CELERY_BROKER_URL": "",
        "API_WRITE_RATE_PER_USER": "",  # the robots play at full speed from one address
        "API_WRITE_RATE_PER_ADDRESS": "",
        "CLUB_ACT_TIMES": times,
    }
    command = [sys.executable, "-m", "uvicorn", "bench.club_timed_asgi:application"]
    command += ["--host", "127.0.0.1", "--port", str(port), "--lifespan", "off"]
    command += ["--no-access-log", "--log-level", "warning", "--no-proxy-headers"]
    return subprocess.Popen(command, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT,
                            cwd=str(Path(__file__).resolve().parent.parent))  # fmt: skip


async def play_until(field_ids, *, base: str, boards: int, timeout: float, claim_after: int):
    from tournaments.robots.client import Pace
    from tournaments.robots.runner import Options, drive

    stop = asyncio.Event()
    options = Options(base=base, pace=Pace(), claim_after=claim_after, heuristic=True,
                      poll=0.2, club_all_seats=True)  # fmt: skip
    runner = asyncio.create_task(drive(tournament_ids=None, options=options, stop=stop,
                                       log=lambda m: None))  # fmt: skip
    began = time.monotonic()
    try:
        while True:
            done = await asyncio.to_thread(_count_closing, field_ids)
            if done >= boards or time.monotonic() - began > timeout or runner.done():
                return done, time.monotonic() - began
            await asyncio.sleep(1.0)
    finally:
        stop.set()
        counts = await runner
        print(f"bench_club: the robots' runs ended {counts}")


def _count_closing(field_ids) -> int:
    from django.db import connections

    try:
        return stored_results(field_ids)
    finally:
        connections.close_all()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--players", type=int, default=int(os.environ.get("BENCH_CLUB_PLAYERS", 200))
    )
    parser.add_argument(
        "--boards", type=int, default=int(os.environ.get("BENCH_CLUB_BOARDS", 5000))
    )
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds at most")
    parser.add_argument("--claim-after", type=int, default=3, help="declarer claims after n tricks")
    args = parser.parse_args()

    from bench.common import free_port, postmaster_pid, record, setup_django, tree_cpu

    setup_django()
    import uvloop
    from django.utils import timezone

    from tournaments.services import club

    members = make_members(args.players, prefix=f"clubbench{int(time.time()) % 100000}-")
    week = club.current_week(now=timezone.now())
    field_ids = list(week.fields.values_list("pk", flat=True))
    before = stored_results(field_ids)
    tables = form_tables(members)
    print(f"bench_club: {len(members)} members at {len(tables)} tables, {', '.join(SYSTEMS)}")
    work = Path(tempfile.mkdtemp(prefix="benchclub"))
    times = str(work / "act-ms")
    port = free_port()
    server = start_uvicorn(port, work / "uvicorn.log", times)
    try:
        deadline = time.monotonic() + 120
        import socket

        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    sys.exit(
                        "bench_club: uvicorn did not start\n" + (work / "uvicorn.log").read_text()
                    )
                time.sleep(0.2)
        postmaster = postmaster_pid()
        cpu_before = tree_cpu(server.pid) + tree_cpu(postmaster)
        done, seconds = uvloop.run(
            play_until(field_ids, base=f"ws://127.0.0.1:{port}", boards=before + args.boards,
                       timeout=args.timeout, claim_after=args.claim_after)
        )  # fmt: skip
        cpu = tree_cpu(server.pid) + tree_cpu(postmaster) - cpu_before
    finally:
        server.terminate()
        server.wait(timeout=30)
    results = done - before
    print(f"bench_club: {results} results in {seconds:.0f} s ({results / seconds:.1f} a second)")
    checked = check_week(field_ids)
    print(f"bench_club: checked {checked}: nobody given a deal twice, every score recomputed")
    ms = act_times(times)
    cpu_per_board = cpu / max(1, results)
    cores = os.cpu_count() or 1
    tables_human = int(cores / (cpu_per_board / HUMAN_BOARD_SECONDS))
    figures = {
        "players": len(members),
        "tables": len(tables),
        "results": results,
        "seconds": round(seconds, 1),
        "results_per_second": round(results / seconds, 2),
        "end_act_ms_p50": round(statistics.median(ms), 2) if ms else None,
        "end_act_ms_p99": round(percentile(ms, 99), 2),
        "end_acts_timed": len(ms),
        "server_cpu_ms_per_board": round(1000 * cpu_per_board, 1),
        "tables_at_human_pace_cpu_bound": tables_human,
        **checked,
    }
    for key, value in figures.items():
        print(f"  {key}: {value}")
    record("club", **figures)
    if results < args.boards:
        sys.exit(f"bench_club: only {results} of {args.boards} boards in {args.timeout:.0f} s")


if __name__ == "__main__":
    main()
