"""Benchmark: the bell of a two-winner Mitchell's round, end to end on PostgreSQL (issue 25).

Run: DATABASE_URL=postgres://… .venv/bin/python bench/bench_movement_close.py (or make bench)

A 30-table Mitchell (60 pairs, `--tables`), two winners, matchpoints with Neuberg as a
movement event has them, `--rounds` rounds (the first rounds of the movement) of
`--boards` boards: the field built in bulk as bench/bench_round_close.py builds its own,
the real clock (`clock.advance`) starts the event (round 1 fixes the movement and stores
each pair's position and field) and closes the rounds before `--round` over
bulk-entered plausible results. Then it times the clock's close of `--round`: cut off the
unfinished boards, score every board across the field, rewrite the totals and each
field's standings, seat the next round from the stored movement and open it; and, the
remaining rounds played the same way, the last close (each field's final ranks and master
points). Queries are counted with CaptureQueriesContext and the time is broken down by
phase (bench_round_close.Phases).
"""

from __future__ import annotations

import argparse
import os
import random
import time

from bench_round_close import Phases
from common import bench_start, build_field, bulk_results, print_table, record, setup_django

# Far from the round-close bench's fields (0, 30, 60 days): no shared bell.
OFFSET_DAYS = 200


def timed_close(clock_now, phases: Phases) -> tuple[float, list[str], object]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from tournaments.services import clock

    try:
        with CaptureQueriesContext(connection) as queries:
            began = time.perf_counter()
            report = clock.advance(now=clock_now)
            seconds = time.perf_counter() - began
    finally:
        phases.restore()
    return seconds, [q["sql"] for q in queries.captured_queries], report


def wrapped(connection) -> Phases:
    import tournaments.selectors.movements as movement_selectors
    from tournaments.services import board_scoring, clock
    from tournaments.services.formats import movement_pairs

    phases = Phases(connection)
    phases.wrap(clock, "_cut_off_unplayed", "cut off unfinished boards")
    phases.wrap(board_scoring, "score_round", "score boards across the field")
    phases.wrap(board_scoring, "update_totals", "running totals")
    phases.wrap(board_scoring, "record_standings", "standings after the round (per field)")
    phases.wrap(board_scoring, "finalize_results", "final ranks, master points (per field)")
    phases.wrap(movement_pairs, "stored_movement", "seating: read the stored movement")
    phases.wrap(movement_selectors, "positions", "seating: the pairs' positions")
    phases.wrap(movement_pairs, "seating_of", "seating: the movement's round")
    phases.wrap(clock, "_create_round", "open next round (boards, tables)")
    return phases


def run(tables: int, rounds: int, boards: int, close_round: int, rng: random.Random) -> dict:
    from django.db import connection

    import movements
    from tournaments.models import Pair, Round, RoundStatus, Standing, Table, TournamentStatus
    from tournaments.services import clock

    began = time.perf_counter()
    start = bench_start(OFFSET_DAYS)
    tournament = build_field(
        pairs=tables * 2,
        rounds=rounds,
        boards_per_round=boards,
        scoring_method="MP",
        start_at=start,
        name="Bench Mitchell close",
    )
    type(tournament).objects.filter(pk=tournament.pk).update(
        seating="mitchell", winners=2, neuberg=True
    )
    clock.advance(now=start)
    tournament.refresh_from_db()
    movement = movements.from_json(tournament.movement)
    assert (movement.kind, movement.tables, movement.round_count) == ("mitchell", tables, rounds)
    for number in range(1, close_round):
        current = Round.objects.get(tournament=tournament, number=number)
        bulk_results(round=current, rng=rng, unfinished=0.05, now=current.ends_at)
        clock.advance(now=current.ends_at)
    current = Round.objects.get(tournament=tournament, number=close_round)
    entered = bulk_results(round=current, rng=rng, unfinished=0.05, now=current.ends_at)
    built = time.perf_counter() - began

    phases = wrapped(connection)
    seconds, sql, report = timed_close(current.ends_at, phases)
    current.refresh_from_db()
    following = Round.objects.get(tournament=tournament, number=close_round + 1)
    assert current.status == RoundStatus.CLOSED, report.events
    positions = dict(Pair.objects.filter(tournament=tournament).values_list("id", "position"))
    seated = {
        (number, positions[ns], positions[ew])
        for number, ns, ew in Table.objects.filter(round=following).values_list(
            "number", "ns_pair", "ew_pair"
        )
    }
    assert seated == {(e.table, e.ns, e.ew) for e in movement.round(close_round + 1)}
    assert Standing.objects.filter(round=current).count() == tables * 2
    mid = {
        "seconds": seconds,
        "queries": len(sql),
        "sql": sql,
        "phases": [(label, phases.seconds[label], phases.queries[label]) for label in phases.order],
    }

    # The remaining rounds to the last bell, which ranks each field and ends the event.
    for number in range(close_round + 1, rounds):
        current = Round.objects.get(tournament=tournament, number=number)
        bulk_results(round=current, rng=rng, unfinished=0.05, now=current.ends_at)
        clock.advance(now=current.ends_at)
    last = Round.objects.get(tournament=tournament, number=rounds)
    bulk_results(round=last, rng=rng, unfinished=0.05, now=last.ends_at)
    phases = wrapped(connection)
    final_seconds, final_sql, report = timed_close(last.ends_at, phases)
    tournament.refresh_from_db()
    assert tournament.status == TournamentStatus.FINISHED, report.events
    ranks = Pair.objects.filter(tournament=tournament, rank=1).values_list("field", flat=True)
    assert sorted(ranks) == ["EW", "NS"], list(ranks)  # a winner in each field
    return {
        "tables": tables,
        "rounds": rounds,
        "boards": boards,
        "round": close_round,
        "results": entered,
        "build_seconds": built,
        "mid": mid,
        "final": {
            "seconds": final_seconds,
            "queries": len(final_sql),
            "sql": final_sql,
            "phases": [
                (label, phases.seconds[label], phases.queries[label]) for label in phases.order
            ],
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=30, help="Mitchell tables (odd or even)")
    parser.add_argument("--rounds", type=int, default=7, help="rounds of the movement played")
    parser.add_argument("--boards", type=int, default=4, help="boards per round")
    parser.add_argument("--round", type=int, default=5, help="the round whose close is timed")
    parser.add_argument("--seed", type=int, default=25)
    parser.add_argument("--show-sql", action="store_true", help="print the closes' queries")
    args = parser.parse_args()
    if not 1 <= args.round < args.rounds:
        parser.error("--round must be before the last round")
    setup_django()
    print(
        f"movement close: building a {args.tables}-table two-winner Mitchell, "
        f"{args.rounds} rounds × {args.boards} boards …",
        flush=True,
    )
    result = run(args.tables, args.rounds, args.boards, args.round, random.Random(args.seed))
    mid, final = result["mid"], result["final"]
    print(
        f"  built in {result['build_seconds']:.1f} s (load average "
        f"{os.getloadavg()[0]:.1f}); round {args.round}: {mid['seconds'] * 1000:.0f} ms, "
        f"{mid['queries']} queries; last round ({args.rounds}): "
        f"{final['seconds'] * 1000:.0f} ms, {final['queries']} queries"
    )
    for title, figures in ((f"close of round {args.round}", mid), ("the last close", final)):
        rest = (
            "the rest (round rows, commit, the clock's second step)",
            figures["seconds"] - sum(s for _label, s, _q in figures["phases"]),
            figures["queries"] - sum(q for _label, _s, q in figures["phases"]),
        )
        print(f"  {title}:")
        print_table(
            ["phase", "ms", "queries"],
            [[label, f"{s * 1000:.0f}", q] for label, s, q in [*figures["phases"], rest]],
        )
        if args.show_sql:
            for sql in figures["sql"]:
                print("   ", sql[:160])
    record(
        "movement_close",
        tables=args.tables,
        rounds=args.rounds,
        boards=args.boards,
        round=args.round,
        ms=round(mid["seconds"] * 1000),
        queries=mid["queries"],
        final_ms=round(final["seconds"] * 1000),
        final_queries=final["queries"],
        phases={label: round(s * 1000) for label, s, _q in mid["phases"]},
    )


if __name__ == "__main__":
    main()
