"""Benchmark: the bell of a Swiss-teams round, and a match's score card page (issue 26).

Run: DATABASE_URL=postgres://… .venv/bin/python bench/bench_team_close.py (or make bench)

For fields of 100, 500 and 1,000 teams (`--teams`; each match is two tables, so 1,000
teams sit at 1,000 tables) of four players with their line-ups, built in bulk, 8-board
matches: the real clock (`clock.advance`) starts the event and closes rounds 1–4 over
bulk-entered plausible results in both rooms, then the close of round 5 is timed: cut off
the unfinished boards, score every board between the two rooms of each match (IMPs, VPs),
rank the teams (VPs, head-to-head, IMP quotient) with a standing row per team and round,
seat round 6 by the Swiss engine on VP totals and open it. The queries are counted (the
count must not grow with the field) and the time broken down by phase. Then the score
card page of one 16-board match (a separate event) is fetched through the test client:
median of `--repeat` requests and its query count.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time

from bench_round_close import Phases
from common import bench_start, bulk_results, print_table, record, setup_django

OFFSET_DAYS = 400  # far from the other benchmarks' fields: no shared bell
TARGET_SECONDS = 2.0


def build_team_field(*, teams: int, rounds: int, boards: int, start_at, name: str):
    """A scheduled team event with `teams` registered teams of four and their line-ups:
    the rows `services.teams` writes, in bulk."""
    from datetime import timedelta

    from tournaments.models import Pair, PairStatus, Team, TeamMember, Tournament
    from tournaments.services.bulk_registration import ensure_players

    players = ensure_players([f"benchteam{i + 1:05d}" for i in range(teams * 4)])
    at = start_at - timedelta(hours=1)
    tournament = Tournament.objects.create(
        name=f"{name} ({teams} teams)",
        registration_opens_at=start_at - timedelta(days=1),
        start_at=start_at,
        rounds=rounds,
        boards_per_round=boards,
        round_length=timedelta(minutes=60),
        gap_length=timedelta(0),
        scoring_method="IMP",
        contestants="teams",
    )
    made = Team.objects.bulk_create(
        Team(
            tournament=tournament,
            name=f"Team {n + 1}",
            captain=players[4 * n],
            status=PairStatus.CONFIRMED,
            confirmed_at=at,
            registration_no=n + 1,
        )
        for n in range(teams)
    )
    TeamMember.objects.bulk_create(
        TeamMember(tournament=tournament, team=team, user=players[4 * n + k], confirmed_at=at)
        for n, team in enumerate(made)
        for k in range(4)
    )
    pairs = Pair.objects.bulk_create(
        Pair(
            tournament=tournament,
            team=team,
            player1=players[4 * n + 2 * k],
            player2=players[4 * n + 2 * k + 1],
            status=PairStatus.CONFIRMED,
            confirmed_at=at,
            registration_no=2 * n + k + 1,
        )
        for n, team in enumerate(made)
        for k in range(2)
    )
    for n, team in enumerate(made):
        team.open_pair, team.closed_pair = pairs[2 * n], pairs[2 * n + 1]
    Team.objects.bulk_update(made, ["open_pair", "closed_pair"], batch_size=2000)
    return tournament


def wrapped(connection) -> Phases:
    from tournaments.services import clock
    from tournaments.services.formats import team_matches

    phases = Phases(connection)
    phases.wrap(clock, "_cut_off_unplayed", "cut off unfinished boards")
    phases.wrap(team_matches, "score_matches", "score both rooms: IMPs, VPs")
    phases.wrap(team_matches, "rank_teams", "rank the teams, standings")
    phases.wrap(team_matches, "team_states", "seating: load history")
    phases.wrap(team_matches.teams, "swiss_round", "seating: Swiss engine on VPs")
    phases.wrap(clock, "_create_round", "open next round (boards, tables)")
    phases.wrap(team_matches.TeamMatches, "seated", "pair the rooms into matches")
    return phases


def run(teams: int, boards: int, close_round: int, offset: int, rng: random.Random) -> dict:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from tournaments.models import Match, Round, RoundStatus, TeamStanding, TournamentStatus
    from tournaments.services import clock

    began = time.perf_counter()
    start = bench_start(offset)
    tournament = build_team_field(
        teams=teams, rounds=close_round + 2, boards=boards, start_at=start, name="Bench teams"
    )
    clock.advance(now=start)
    for number in range(1, close_round):
        current = Round.objects.get(tournament=tournament, number=number)
        bulk_results(round=current, rng=rng, unfinished=0.03, now=current.ends_at)
        clock.advance(now=current.ends_at)
    current = Round.objects.get(tournament=tournament, number=close_round)
    entered = bulk_results(round=current, rng=rng, unfinished=0.03, now=current.ends_at)
    built = time.perf_counter() - began

    phases = wrapped(connection)
    try:
        with CaptureQueriesContext(connection) as queries:
            cpu0 = phases.cpu()
            t0 = time.perf_counter()
            report = clock.advance(now=current.ends_at)
            seconds = time.perf_counter() - t0
            cpu1 = phases.cpu()
    finally:
        phases.restore()
    current.refresh_from_db()
    assert current.status == RoundStatus.CLOSED, report.events
    following = Round.objects.get(tournament=tournament, number=close_round + 1)
    assert Match.objects.filter(round=following).count() == teams // 2, "next round not seated"
    assert TeamStanding.objects.filter(round=current).count() == teams
    assert not Match.objects.filter(round=current, home_vp__isnull=True).exists()
    type(tournament).objects.filter(pk=tournament.pk).update(status=TournamentStatus.FINISHED)
    return {
        "teams": teams,
        "tables": teams,
        "boards": boards,
        "results": entered,
        "seconds": seconds,
        "queries": len(queries.captured_queries),
        "build_seconds": built,
        "cpu": (cpu1[0] - cpu0[0], cpu1[1] - cpu0[1]),
        "phases": [
            (label, phases.seconds[label], phases.queries[label], phases.python[label])
            for label in phases.order
        ],
    }


def score_card_page(*, boards: int, repeat: int, rng: random.Random) -> dict:
    """The score card of one closed match of `boards` boards, through the test client."""
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext
    from django.urls import reverse

    from tournaments.models import Match, Round, TournamentStatus
    from tournaments.services import clock

    start = bench_start(OFFSET_DAYS + 50)
    tournament = build_team_field(
        teams=2, rounds=1, boards=boards, start_at=start, name="Bench score card"
    )
    clock.advance(now=start)
    first = Round.objects.get(tournament=tournament, number=1)
    bulk_results(round=first, rng=rng, unfinished=0.0, now=first.ends_at)
    clock.advance(now=first.ends_at)
    tournament.refresh_from_db()
    assert tournament.status == TournamentStatus.FINISHED
    match = Match.objects.get(round=first)
    url = reverse("match", args=[tournament.pk, match.pk])
    client = Client()
    assert client.get(url).status_code == 200  # warm
    samples = []
    for _ in range(repeat):
        with CaptureQueriesContext(connection) as queries:
            t0 = time.perf_counter()
            response = client.get(url)
            samples.append(time.perf_counter() - t0)
        assert response.status_code == 200
        assert response.content.count(b"data-board=") == boards
    return {
        "boards": boards,
        "median_ms": statistics.median(samples) * 1000,
        "p95_ms": sorted(samples)[int(0.95 * (len(samples) - 1))] * 1000,
        "queries": len(queries.captured_queries),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--teams",
        default=os.environ.get("BENCH_TEAM_CLOSE_TEAMS", "100,500,1000"),
        help="comma-separated field sizes in teams (even)",
    )
    parser.add_argument("--boards", type=int, default=8, help="boards per match")
    parser.add_argument("--round", type=int, default=5, help="the round whose close is timed")
    parser.add_argument("--card-boards", type=int, default=16)
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--seed", type=int, default=26)
    args = parser.parse_args()
    setup_django()
    rng = random.Random(args.seed)
    sizes = [int(n) for n in args.teams.split(",")]
    rows, results = [], []
    for k, teams in enumerate(sizes):
        result = run(teams, args.boards, args.round, OFFSET_DAYS + 10 * k, rng)
        results.append(result)
        rows.append(
            [
                f"{teams}",
                f"{result['tables']}",
                f"{result['seconds']:.3f} s",
                f"{result['queries']}",
                f"{result['cpu'][0]:.3f} s",
                f"{result['cpu'][1]:.3f} s",
            ]
        )
    print(f"\nSwiss teams: the close of round {args.round} ({args.boards}-board matches)")
    print_table(["teams", "tables", "close", "queries", "Python CPU", "PostgreSQL CPU"], rows)
    biggest = results[-1]
    print(f"\nphases at {biggest['teams']} teams:")
    print_table(
        ["phase", "wall", "queries", "Python CPU"],
        [
            [label, f"{wall:.3f} s", f"{q}", f"{py:.3f} s"]
            for label, wall, q, py in biggest["phases"]
        ],
    )
    card = score_card_page(boards=args.card_boards, repeat=args.repeat, rng=rng)
    print(
        f"\nmatch score card, {card['boards']} boards: median {card['median_ms']:.1f} ms, "
        f"p95 {card['p95_ms']:.1f} ms, {card['queries']} queries"
    )
    record(
        "team_close",
        sizes=[(r["teams"], r["seconds"], r["queries"]) for r in results],
        seconds=biggest["seconds"],
        queries=[r["queries"] for r in results],
        card_median_ms=card["median_ms"],
        card_queries=card["queries"],
    )
    if len({r["queries"] for r in results}) != 1:
        raise SystemExit("the round close's query count grows with the field")


if __name__ == "__main__":
    main()
