"""Benchmark: the public pages of a 2,000-pair event — queries and server time.

Run: DATABASE_URL=postgres://… .venv/bin/python bench/bench_pages.py (or make bench)

Builds a 2,000-pair (1,000-table) event in bulk, plays three rounds through the real
clock over bulk-entered plausible results, and requests each page with the Django test
client (the whole server side: URL routing, middleware, view, selectors, template):
the tournament page (anonymous and as a seated player), its polled standings fragment
(a full render, and the 204 answer when nothing changed), the results page, the
API's standings, and a seated player's result sheet with its poll. Then it plays the
event to the end and measures again.

Target per page: ≤ 10 queries and ≤ 200 ms. The director's pages (the console with its
1,000-table progress grid, its polled part, the pairs search, admin's tournament page)
are measured as a tournament director and aim at ≤ 20 queries and ≤ 500 ms ("well
under a second").
"""

from __future__ import annotations

import argparse
import random
import time
from urllib.parse import urlencode

from common import bench_start, build_field, bulk_results, print_table, record, setup_django

TARGET_QUERIES = 10
TARGET_MS = 200.0
DIRECTOR_TARGET_QUERIES = 20
DIRECTOR_TARGET_MS = 500.0
DIRECTOR_PAGES = ("console", "admin")


def measure(client, url: str, runs: int) -> dict:
    from django.db import connection

    response = client.get(url)  # warm: templates compiled, connection open
    # Counted at the cursor: the request_started signal clears connection.queries_log,
    # which would fool CaptureQueriesContext around a test-client request.
    executed = []
    with connection.execute_wrapper(
        lambda execute, sql, params, many, context: (
            executed.append(sql) or execute(sql, params, many, context)
        )
    ):
        response = client.get(url)
    samples = []
    for _ in range(runs):
        began = time.perf_counter()
        response = client.get(url)
        samples.append(time.perf_counter() - began)
    samples.sort()
    return {
        "status": response.status_code,
        "bytes": len(response.content),
        "queries": len(executed),
        "sql": executed,
        "median_ms": samples[len(samples) // 2] * 1000,
        "best_ms": samples[0] * 1000,
    }


def pages(tournament, seated_user) -> list[tuple[str, str, object]]:
    """(label, url, user or None) for every page that exists in this build."""
    from django.urls import NoReverseMatch, reverse

    from tournaments import selectors

    found = []
    kwargs = {"tournament_id": tournament.id}
    for label, name, user, query in [
        ("tournament page", "tournament", None, ""),
        ("tournament page, seated player", "tournament", seated_user, ""),
        ("standings fragment (full render)", "standings_fragment", None, ""),
        ("standings fragment (unchanged: 204)", "standings_fragment", None, "version"),
        ("results, page 1", "results", None, ""),
        ("results, last page", "results", None, "?page=9999"),
    ]:
        try:
            url = reverse(name, kwargs=kwargs)
        except NoReverseMatch:
            print(f"  {label}: URL name “{name}” does not exist yet, skipped")
            continue
        if query == "version":
            query = "?" + urlencode({"v": selectors.live_version(tournament_id=tournament.id)})
        found.append((label, url + query, user))
    found.append(
        ("API standings (JSON, every pair)", f"/api/v1/tournaments/{tournament.id}/standings", None)
    )
    found += table_pages(tournament, seated_user)
    found += director_pages(tournament)
    return found


def director_pages(tournament) -> list[tuple[str, str, object]]:
    """The director's console (clock, progress of every table, disputes, pairs), its
    polled part, a pairs search, and admin's tournament page, as a tournament director."""
    from django.contrib.auth import get_user_model
    from django.urls import NoReverseMatch, reverse

    from tournaments.services.permissions import directors_group

    director, _ = get_user_model().objects.get_or_create(
        username="bench-director", defaults={"is_staff": True}
    )
    director.groups.add(directors_group())
    found = []
    for label, name, query in [
        ("console (director)", "console", ""),
        ("console, polled progress (director)", "console_progress", ""),
        ("console, pairs search (director)", "console", "?q=Player 17"),
        ("console, pairs page 40 (director)", "console", "?page=40"),
    ]:
        try:
            url = reverse(name, args=[tournament.id])
        except NoReverseMatch:
            print(f"  {label}: URL name “{name}” does not exist yet, skipped")
            continue
        found.append((label, url + query, director))
    found.append(
        (
            "admin tournament page (director)",
            reverse("admin:tournaments_tournament_change", args=[tournament.id]),
            director,
        )
    )
    return found


def table_pages(tournament, seated_user) -> list[tuple[str, str, object]]:
    """The seated player's result sheet, and its poll when nothing changed (what every
    open table page asks every 3 s)."""
    import re

    from django.test import Client
    from django.urls import reverse

    from tournaments.services.results import seat_of

    round = tournament.round_set.current()
    table = next(
        t
        for t in round.tables.select_related("ns_pair", "ew_pair")
        if seat_of(t, seated_user) is not None
    )
    page = reverse("table", args=[tournament.id, table.id])
    client = Client()
    client.force_login(seated_user)
    html = client.get(page).content.decode()
    versions = dict(re.findall(r'name="(rv_\d+|rs)"[^>]*value="([^"]*)"', html))
    poll = reverse("table_updates", args=[tournament.id, table.id]) + "?" + urlencode(versions)
    return [
        ("table page, seated player", page, seated_user),
        ("table page poll (unchanged: 204)", poll, seated_user),
    ]


def measure_all(tournament, seated_user, runs: int, stage: str) -> list[dict]:
    from django.test import Client

    rows = []
    for label, url, user in pages(tournament, seated_user):
        client = Client()
        if user is not None:
            client.force_login(user)
        figures = measure(client, url, runs)
        director = label.startswith(DIRECTOR_PAGES)
        max_queries = DIRECTOR_TARGET_QUERIES if director else TARGET_QUERIES
        max_ms = DIRECTOR_TARGET_MS if director else TARGET_MS
        ok = figures["queries"] <= max_queries and figures["median_ms"] <= max_ms
        figures.update(label=label, url=url, stage=stage, ok=ok)
        rows.append(figures)
        record(
            "pages",
            stage=stage,
            page=label,
            status=figures["status"],
            queries=figures["queries"],
            median_ms=round(figures["median_ms"], 1),
            ok=ok,
        )
    print_table(
        ["page", "status", "queries", "median ms", "best ms", "KB", "target"],
        [
            [
                r["label"],
                r["status"],
                r["queries"],
                f"{r['median_ms']:.0f}",
                f"{r['best_ms']:.0f}",
                f"{r['bytes'] / 1024:.0f}",
                "ok" if r["ok"] else "MISSED",
            ]
            for r in rows
        ],
    )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--boards", type=int, default=4)
    parser.add_argument("--played", type=int, default=3, help="rounds closed before measuring")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--seed", type=int, default=8)
    args = parser.parse_args()
    setup_django()

    from tournaments.models import Round, Table, TournamentStatus
    from tournaments.services import clock

    rng = random.Random(args.seed)
    start = bench_start(100)
    print(f"pages: building {args.pairs} pairs, playing {args.played} rounds …", flush=True)
    began = time.perf_counter()
    tournament = build_field(
        pairs=args.pairs,
        rounds=args.rounds,
        boards_per_round=args.boards,
        start_at=start,
        name="Bench pages",
    )
    clock.advance_tournament(tournament_id=tournament.id, now=start)

    def play(number: int) -> None:
        current = Round.objects.get(tournament=tournament, number=number)
        bulk_results(round=current, rng=rng, unfinished=0.05, now=current.ends_at)
        clock.advance_tournament(tournament_id=tournament.id, now=current.ends_at)

    for number in range(1, args.played + 1):
        play(number)
    print(f"  built in {time.perf_counter() - began:.1f} s")
    current = Round.objects.get(tournament=tournament, number=args.played + 1)
    seated = Table.objects.filter(round=current).select_related("ns_pair__player1").first()
    seated_user = seated.ns_pair.player1

    print(f"\nwhile round {args.played + 1} is open ({args.pairs} pairs):")
    live = measure_all(tournament, seated_user, args.runs, "running")
    for number in range(args.played + 1, args.rounds + 1):
        play(number)
    tournament.refresh_from_db()
    assert tournament.status == TournamentStatus.FINISHED
    print(f"\nfinished ({args.rounds} rounds × {args.boards} boards):")
    final = measure_all(tournament, seated_user, args.runs, "finished")
    missed = [f"{r['label']} ({r['stage']})" for r in live + final if not r["ok"]]
    print(
        f"\nall pages within ≤ {TARGET_QUERIES} queries and ≤ {TARGET_MS:g} ms"
        if not missed
        else "\nmissed the target: " + "; ".join(missed)
    )


if __name__ == "__main__":
    main()
