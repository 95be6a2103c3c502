"""Benchmark: the bell of a late round, end to end on PostgreSQL.

Run: DATABASE_URL=postgres://… .venv/bin/python bench/bench_round_close.py (or make bench)

For fields of 100, 1,000 and 5,000 tables × 4 boards (`--tables` or
BENCH_ROUND_CLOSE_TABLES="100,1000" for others) it builds the field in bulk, lets the real
clock (`clock.advance`) start the event and close rounds 1–4 over bulk-entered plausible
results (so the seating has history to avoid rematches against), then times the clock's
close of round 5: cut off the unfinished boards, score every board across the field,
rewrite the totals and standings, seat round 6 by the Swiss rule and open it. It counts
the queries with CaptureQueriesContext (the count must not grow with the field) and
breaks the time down by phase, so a slow phase points at its function.

Target: ≤ 2 s at 5,000 tables (10,000 pairs, the biggest events), with the same number of
queries at every size.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import random
import time
from collections import defaultdict
from functools import wraps

from common import (
    bench_start,
    build_field,
    bulk_results,
    print_table,
    record,
    setup_django,
)

TARGET_SECONDS = 2.0


def _cpu_seconds(pid: int | None) -> float:
    """CPU seconds (user + system) used so far by process `pid` (None: this process)."""
    if pid is None:
        return time.process_time()
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Phases:
    """Wall time, CPU and query count of the clock's steps, by wrapping them in place.

    CPU is this process's (Python) and the database backend's (PostgreSQL, read from
    /proc when it runs on this machine): on a shared machine the wall time swings with
    the load, the CPU a phase costs much less.
    """

    def __init__(self, connection):
        self.connection = connection
        self.seconds: dict[str, float] = defaultdict(float)
        self.python: dict[str, float] = defaultdict(float)
        self.postgres: dict[str, float] = defaultdict(float)
        self.queries: dict[str, int] = defaultdict(int)
        self.order: list[str] = []
        self._undo: list[tuple] = []
        self.backend: int | None = None
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            self.backend = cursor.fetchone()[0]

    def cpu(self) -> tuple[float, float]:
        """(Python, PostgreSQL) CPU seconds so far."""
        return _cpu_seconds(None), _cpu_seconds(self.backend)

    def wrap(self, owner, attr: str, label: str) -> None:
        original = getattr(owner, attr)
        phases = self

        @wraps(original)
        def timed(*args, **kwargs):
            before = len(phases.connection.queries_log)
            py0, pg0 = phases.cpu()
            began = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                phases.seconds[label] += time.perf_counter() - began
                py1, pg1 = phases.cpu()
                phases.python[label] += py1 - py0
                phases.postgres[label] += pg1 - pg0
                phases.queries[label] += len(phases.connection.queries_log) - before
                if label not in phases.order:
                    phases.order.append(label)

        setattr(owner, attr, timed)
        self._undo.append((owner, attr, original))

    def restore(self) -> None:
        for owner, attr, original in reversed(self._undo):
            setattr(owner, attr, original)
        self._undo.clear()


def run(
    tables: int,
    boards: int,
    close_round: int,
    offset: int,
    rng: random.Random,
    profile: bool = False,
) -> dict:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    import pairing
    from tournaments.models import Round, RoundStatus, Standing, Table, TournamentStatus
    from tournaments.services import board_scoring, clock
    from tournaments.services.formats import swiss_pairs

    began = time.perf_counter()
    start = bench_start(offset)
    tournament = build_field(
        pairs=tables * 2,
        rounds=close_round + 2,
        boards_per_round=boards,
        start_at=start,
        name="Bench round close",
    )
    clock.advance(now=start)
    earlier = []
    for number in range(1, close_round):
        current = Round.objects.get(tournament=tournament, number=number)
        bulk_results(round=current, rng=rng, unfinished=0.05, now=current.ends_at)
        t0 = time.perf_counter()
        clock.advance(now=current.ends_at)
        earlier.append(time.perf_counter() - t0)
    current = Round.objects.get(tournament=tournament, number=close_round)
    entered = bulk_results(round=current, rng=rng, unfinished=0.05, now=current.ends_at)
    built = time.perf_counter() - began

    phases = Phases(connection)
    phases.wrap(clock, "_cut_off_unplayed", "cut off unfinished boards")
    phases.wrap(board_scoring, "score_round", "score boards across the field")
    phases.wrap(board_scoring, "update_totals", "running totals")
    phases.wrap(board_scoring, "record_standings", "standings after the round")
    phases.wrap(swiss_pairs, "pair_states", "seating: load history")
    phases.wrap(pairing, "seat_round", "seating: Swiss engine")
    phases.wrap(clock, "_create_round", "open next round (boards, tables)")
    try:
        profiler = cProfile.Profile() if profile else None
        with CaptureQueriesContext(connection) as queries:
            cpu0 = phases.cpu()
            t0 = time.perf_counter()
            if profiler:
                profiler.enable()
            report = clock.advance(now=current.ends_at)
            if profiler:
                profiler.disable()
            seconds = time.perf_counter() - t0
            cpu1 = phases.cpu()
    finally:
        phases.restore()
    if profiler:
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(35)

    current.refresh_from_db()
    following = Round.objects.get(tournament=tournament, number=close_round + 1)
    assert current.status == RoundStatus.CLOSED, report.events
    assert Table.objects.filter(round=following).count() == tables, "next round not seated"
    assert Standing.objects.filter(round=current).count() == tables * 2
    # Leave the field out of later benchmarks' clock ticks.
    type(tournament).objects.filter(pk=tournament.pk).update(status=TournamentStatus.FINISHED)
    return {
        "tables": tables,
        "boards": boards,
        "round": close_round,
        "results": entered,
        "seconds": seconds,
        "queries": len(queries.captured_queries),
        "earlier_closes": earlier,
        "rematches": following.rematches,
        "build_seconds": built,
        "phases": [
            (
                label,
                phases.seconds[label],
                phases.queries[label],
                phases.python[label],
                phases.postgres[label],
            )
            for label in phases.order
        ],
        # Everything outside the phases: the commit (PostgreSQL checks the deferred
        # foreign keys of the rows written then: the new tables', the cut-off results'
        # and their history's; the board scores and standings have none since migration
        # 0018), the round's own rows, the clock's second step and heartbeat.
        "rest": (
            seconds - sum(phases.seconds.values()),
            len(queries.captured_queries) - sum(phases.queries.values()),
            cpu1[0] - cpu0[0] - sum(phases.python.values()),
            cpu1[1] - cpu0[1] - sum(phases.postgres.values()),
        ),
        "cpu": (cpu1[0] - cpu0[0], cpu1[1] - cpu0[1]),
        "sql": [q["sql"] for q in queries.captured_queries],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--tables",
        default=os.environ.get("BENCH_ROUND_CLOSE_TABLES", "100,1000,5000"),
        help="comma-separated field sizes (default: $BENCH_ROUND_CLOSE_TABLES or 100,1000,5000)",
    )
    parser.add_argument("--boards", type=int, default=4, help="boards per round")
    parser.add_argument("--round", type=int, default=5, help="the round whose close is timed")
    parser.add_argument("--seed", type=int, default=8)
    parser.add_argument("--show-sql", action="store_true", help="print the close's queries")
    parser.add_argument("--profile", action="store_true", help="cProfile the timed close")
    args = parser.parse_args()
    setup_django()
    rng = random.Random(args.seed)
    sizes = [int(s) for s in args.tables.split(",")]
    runs = []
    for offset, tables in enumerate(sizes):
        print(f"round close: building {tables} tables × {args.boards} boards …", flush=True)
        result = run(tables, args.boards, args.round, offset * 30, rng, args.profile)
        runs.append(result)
        earlier = ", ".join(f"{s:.2f}" for s in result["earlier_closes"])
        print(
            f"  built in {result['build_seconds']:.1f} s; closes of rounds 1–{args.round - 1}: "
            f"{earlier} s; round {args.round}: {result['seconds']:.3f} s, "
            f"{result['queries']} queries, {result['rematches']} rematches in the next round"
        )
        rest = ("commit (deferred key checks), the rest", *result["rest"])
        print_table(
            ["phase", "ms", "queries", "CPU ms: Python", "PostgreSQL"],
            [
                [label, f"{s * 1000:.0f}", q, f"{py * 1000:.0f}", f"{pg * 1000:.0f}"]
                for label, s, q, py, pg in [*result["phases"], rest]
            ],
        )
        py, pg = result["cpu"]
        print(f"  CPU of the close: Python {py:.2f} s, PostgreSQL {pg:.2f} s")
        if args.show_sql:
            for sql in result["sql"]:
                print("   ", sql[:160])
        record(
            "round_close",
            tables=tables,
            boards=args.boards,
            round=args.round,
            seconds=round(result["seconds"], 3),
            queries=result["queries"],
            phases={label: round(s * 1000) for label, s, *_ in result["phases"]},
            cpu_python=round(result["cpu"][0], 3),
            cpu_postgres=round(result["cpu"][1], 3),
        )
    print()
    print_table(
        ["tables × boards", "close (s)", "queries", "target"],
        [
            [
                f"{r['tables']} × {r['boards']}",
                f"{r['seconds']:.3f}",
                r["queries"],
                f"≤ {TARGET_SECONDS:g} s" if r["tables"] >= 1000 else "",
            ]
            for r in runs
        ],
    )
    if len(runs) >= 2:
        small, large = runs[0], runs[-1]
        growth = large["seconds"] / small["seconds"] if small["seconds"] else float("inf")
        same = "same" if small["queries"] == large["queries"] else "DIFFERENT"
        print(
            f"\n{large['tables'] // small['tables']}× the field: {growth:.1f}× the time; "
            f"query count {same} ({small['queries']} vs {large['queries']})"
        )
        record(
            "round_close_ratio",
            time_ratio=round(growth, 2),
            queries_small=small["queries"],
            queries_large=large["queries"],
            field_ratio=large["tables"] // small["tables"],
        )


if __name__ == "__main__":
    main()
