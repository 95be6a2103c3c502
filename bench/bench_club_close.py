"""Benchmark: the club week's close with the Rate (issue 29) at 20,000 members and
1,000,000 board results.

Run: DATABASE_URL=postgres://… .venv/bin/python bench/bench_club_close.py (or make bench)

A closed-to-be week is built in bulk: 20,000 members; 25,000 library deals of the full
field (IMPs) each played at 40 tables (1,000,000 `BoardResult`s, each with its four
players' `ClubScore` rows: 4,000,000 rows, written by binary COPY), players drawn at
random (the bench times the close, not the lobby: a player may meet a deal twice here);
last week's Rates for every member. Then `club_week.close_due_weeks` is timed — the whole
close in its one transaction: the week's tables and rounds closed, the 4,000,000 score
rows read, the Rate engine, 20,000 `ClubRating` and `ClubWeekFigure` rows written — with
the process's peak memory (max RSS) before and after. Target: under 30 s.
"""

from __future__ import annotations

import argparse
import random
import resource
import time
from datetime import timedelta

from common import bench_start, print_table, record, setup_django

TARGET_SECONDS = 30.0
TABLES_A_DEAL = 40


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def build(*, players: int, deals: int, seed: int):
    from django.db import transaction

    from tournaments import sql
    from tournaments.models import (
        Board,
        BoardResult,
        ClubField,
        ClubRating,
        ClubScore,
        ClubSystem,
        ClubWeek,
        ClubWeekFigure,
        Pair,
        PairStatus,
        ResultState,
        Round,
        RoundStatus,
        Table,
    )
    from tournaments.services import club
    from tournaments.services.bulk_registration import ensure_players

    rng = random.Random(seed)
    now = bench_start(900)
    members = ensure_players([f"benchclub{i:05d}" for i in range(players)])
    ids = [m.pk for m in members]
    with transaction.atomic():
        previous = club.current_week(now=now - timedelta(weeks=1))
        ClubWeek.objects.filter(pk=previous.pk).update(closed_at=previous.ends_at)
        week = club.current_week(now=now)
        field = ClubField.objects.get(week=week, system=ClubSystem.FULL_FIELD_IMPS)
        tournament = field.tournament
        # Last week's Rates: everyone established (C 20–300), Rates around 50.
        ratings = [(u, 50 + rng.gauss(0, 6), rng.uniform(20, 300)) for u in ids]
        sql.copy_rows(
            ClubRating,
            ("user", "rate", "carried", "total_boards", "week"),
            [(u, r, c, int(c), previous.pk) for u, r, c in ratings],
        )
        sql.copy_rows(
            ClubWeekFigure,
            ("week", "user", "rate", "carried", "rated_boards", "total_boards", "points",
             "boards"),
            [(previous.pk, u, r, c, 0, int(c), 0.0, 0) for u, r, c in ratings],
        )  # fmt: skip
        # 40 sittings' tables, one per arrival on every deal (the result's table).
        round = Round.objects.create(
            tournament=tournament, number=1, status=RoundStatus.OPEN, starts_at=now,
            ends_at=week.ends_at,
        )  # fmt: skip
        pairs = Pair.objects.bulk_create(
            Pair(tournament=tournament, player1_id=ids[2 * k], player2_id=ids[2 * k + 1],
                 status=PairStatus.CONFIRMED, registration_no=k + 1, confirmed_at=now)
            for k in range(2 * TABLES_A_DEAL)
        )  # fmt: skip
        tables = Table.objects.bulk_create(
            Table(round=round, number=t + 1, ns_pair=pairs[2 * t], ew_pair=pairs[2 * t + 1])
            for t in range(TABLES_A_DEAL)
        )
        library = list(field.deals.all()[:1])[0]
        club.extend_library(field=field)  # the library's own chunk, then the bench's deals
        last = field.deals.order_by("-number").first().number
        sql.copy_rows(
            type(library),
            ("field", "number", "dealer", "vulnerability", "deal", "results", "given"),
            [(field.pk, last + d + 1, "N", "None", library.deal, TABLES_A_DEAL, TABLES_A_DEAL)
             for d in range(deals)],
        )  # fmt: skip
        deal_ids = list(
            field.deals.filter(number__gt=last).order_by("number").values_list("pk", flat=True)
        )
        sql.copy_rows(
            Board,
            ("tournament", "round", "number", "dealer", "vulnerability", "deal", "club_deal"),
            [(tournament.pk, round.pk, d + 1, "N", "None", library.deal, deal_ids[d])
             for d in range(deals)],
        )  # fmt: skip
        board_ids = list(
            Board.objects.filter(tournament=tournament)
            .order_by("number")
            .values_list("pk", flat=True)
        )
        scores = [rng.choice((-620, -100, 50, 110, 140, 420, 450, 620)) for _ in range(50)]
        sql.copy_rows(
            BoardResult,
            ("table", "board", "state", "contract", "declarer", "lead", "tricks", "ns_score",
             "entered_at", "confirmed_at", "played_online", "ns_adjustment", "ew_adjustment",
             "disputed", "dispute_note", "adjustment_reason"),
            [(tables[t].pk, board_ids[d], ResultState.PLAYED, "3NT", "N", "", 9,
              scores[(d * 7 + t) % 50], now, now, True, "", "", False, "", "")
             for d in range(deals) for t in range(TABLES_A_DEAL)],
        )  # fmt: skip
        # Read before the COPY below: a query cannot run on a connection in mid-COPY.
        results = list(
            BoardResult.objects.filter(board__tournament=tournament).values_list("pk", "board_id")
        )
        board_deal = dict(zip(board_ids, deal_ids, strict=True))
        arrivals: dict[int, int] = {}

        def score_rows():
            for result_id, board_id in results:
                arrival = arrivals[board_id] = arrivals.get(board_id, 0) + 1
                four = rng.sample(ids, 4)
                ns_imps = rng.randint(-12, 12)
                for seat, user_id in zip("NESW", four, strict=True):
                    points = ns_imps if seat in "NS" else -ns_imps
                    yield (result_id, board_deal[board_id], field.pk, user_id, seat, arrival,
                           float(points), True, False)  # fmt: skip

        sql.copy_rows(
            ClubScore,
            ("result", "deal", "field", "user", "seat", "arrival", "points", "scored", "robot"),
            score_rows(),
        )
    return week


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=20_000)
    parser.add_argument("--deals", type=int, default=25_000)
    parser.add_argument("--seed", type=int, default=29)
    args = parser.parse_args()
    setup_django()
    from django.db import connection

    from tournaments.models import ClubRating, ClubWeekFigure
    from tournaments.services import club_week

    began = time.perf_counter()
    week = build(players=args.players, deals=args.deals, seed=args.seed)
    built = time.perf_counter() - began
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    rss_before = _rss_mb()
    began = time.perf_counter()
    events = club_week.close_due_weeks(now=week.ends_at + timedelta(seconds=1))
    seconds = time.perf_counter() - began
    rss_after = _rss_mb()
    assert len(events) == 1, events
    figures = ClubWeekFigure.objects.filter(week=week).count()
    rated = ClubRating.objects.filter(week=week).count()
    results = args.deals * TABLES_A_DEAL
    print_table(
        ["members", "results", "build s", "close s", "peak RSS before MB", "peak RSS after MB",
         "figures", "target"],
        [[f"{args.players:,}", f"{results:,}", f"{built:.1f}", f"{seconds:.2f}",
          f"{rss_before:.0f}", f"{rss_after:.0f}", f"{figures:,}",
          "met" if seconds < TARGET_SECONDS else "MISSED"]],
    )  # fmt: skip
    record(
        "club_close",
        members=args.players,
        results=results,
        close_seconds=round(seconds, 2),
        peak_rss_mb=round(rss_after),
        target_met=seconds < TARGET_SECONDS,
    )
    assert rated == args.players, rated


if __name__ == "__main__":
    main()
