"""Build tournaments for page tests: a running event in a few calls, a big one in bulk."""

from __future__ import annotations

import random
from datetime import datetime, timedelta

from django.db import connection
from django.utils import timezone

import scoring
from tournaments.models import (
    Board,
    BoardResult,
    ResultState,
    Round,
    Table,
)
from tournaments.services import results
from tournaments.services.bulk_registration import ensure_players, register_pairs_in_bulk
from tournaments.services.clock import advance
from tournaments.services.registration import register_pair
from tournaments.services.results import ContractEntry, submit_result

# A handful of (contract, declarer, tricks) that make realistic, varied scores.
PLAYS = [
    ("4S", "N", 10),
    ("4S", "N", 11),
    ("3NT", "S", 9),
    ("3NT", "S", 8),
    ("4HX", "E", 9),
    ("2S", "W", 8),
    ("1NT", "N", 7),
    ("5DX", "W", 8),
    ("6S", "N", 12),
]

# Players of the browser tests: username the first name in lower case ("alice"), password
# "pw-" + username (tests/conftest.py: make_user).
PEOPLE = ["Alice Wang", "Bob Li", "Carol Zhang", "Dave Chen", "Erin Liu", "Frank Zhao"]
PEOPLE += ["Grace Sun", "Henry Wu", "Ivy Zhou", "Jack Xu", "Kate Ma", "Leo Hu"]


def make_people(make_user, n: int) -> list:
    """The first `n` of PEOPLE as users, in that order."""
    return [make_user(name.split()[0].lower(), name=name) for name in PEOPLE[:n]]


def bulk_pairs(tournament, n: int, *, prefix: str = "big"):
    """n confirmed pairs with profiles, made with a handful of bulk inserts."""
    players = ensure_players(
        [f"{prefix}{tournament.pk}-{i}" for i in range(2 * n)],
        names=[f"Player {i}" for i in range(2 * n)],
    )
    return register_pairs_in_bulk(
        tournament=tournament, players=players, at=tournament.start_at - timedelta(hours=1)
    )


def fill_round(round: Round, *, seed: int = 1, skip_every: int = 0) -> None:
    """A played result for every table and board of `round` (every `skip_every`th left out)."""
    rng = random.Random(seed)
    tables = list(Table.objects.filter(round=round).values_list("id", flat=True))
    boards = list(Board.objects.filter(round=round).values_list("id", "vulnerability"))
    results = []
    for i, table_id in enumerate(tables):
        if skip_every and i % skip_every == skip_every - 1:
            continue
        for board_id, vul in boards:
            contract, declarer, tricks = rng.choice(PLAYS)
            results.append(
                BoardResult(
                    table_id=table_id,
                    board_id=board_id,
                    state=ResultState.PLAYED,
                    contract=contract,
                    declarer=declarer,
                    tricks=tricks,
                    lead="SA",
                    ns_score=scoring.contract_score(contract, declarer, tricks, vul),
                    entered_at=round.starts_at,
                )
            )
    BoardResult.objects.bulk_create(results, batch_size=5000)


def play_rounds(tournament, closed_rounds: int, *, skip_every: int = 0) -> Round:
    """Start the event and close `closed_rounds` rounds with results; the current round."""
    analyze()
    advance(now=tournament.start_at)
    for number in range(1, closed_rounds + 1):
        round = Round.objects.get(tournament=tournament, number=number)
        fill_round(round, seed=number, skip_every=skip_every)
        analyze()
        advance(now=round.ends_at)
    analyze()
    return Round.objects.filter(tournament=tournament).order_by("-number").first()


def analyze() -> None:
    """Refresh the planner's statistics after a bulk load.

    The test's rows are uncommitted, so autovacuum never analyzes them; after earlier
    tests the planner may believe these tables nearly empty and pick plans that take
    minutes on thousands of rows. ANALYZE inside the transaction counts them.
    """
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")


def running_event(
    make_tournament,
    users,
    *,
    n_pairs: int,
    name: str = "Autumn Swiss",
    now: datetime | None = None,
    start_at: datetime | None = None,
    opened_at: datetime | None = None,
    **fields,
) -> tuple:
    """A live tournament in real time (the live server's and Chromium's clock): `users`
    registered in pairs in order (0–1, 2–3, …) half an hour ago, round 1 opened by the
    clock. Starts a minute before `now` (default: now) unless `start_at` says otherwise;
    the clock runs at `opened_at` (default: `now`). Returns the tournament, round 1 and
    its tables by number."""
    now = now or timezone.now()
    tournament = make_tournament(
        name=name,
        start_at=start_at or now - timedelta(minutes=1),
        registration_opens_at=now - timedelta(days=1),
        **fields,
    )
    for i in range(n_pairs):
        register_pair(
            by=None,
            tournament=tournament,
            usernames=[users[2 * i].username, users[2 * i + 1].username],
            now=now - timedelta(minutes=30),
        )
    advance(now=opened_at or now)
    round1 = Round.objects.get(tournament=tournament, number=1)
    return tournament, round1, list(Table.objects.filter(round=round1).order_by("number"))


def close_round_one(round1: Round, tables, *, board_number: int, entry: ContractEntry) -> None:
    """North-South at every table enter `entry` on `board_number` 30 seconds into round 1;
    then the bell."""
    for table in tables:
        submit_result(
            table=table, board_number=board_number, entry=entry,
            user=table.ns_pair.player1, now=round1.starts_at + timedelta(seconds=30),
        )  # fmt: skip
    advance(now=round1.ends_at)


def adjusted_round_one(make_tournament, users, organiser, **fields) -> tuple:
    """Five pairs (one sits out), round 1 closed: board 1 played 4♠= by North at every
    table, board 2 of table 1 adjusted average plus / average by the director (slow play).
    Returns the tournament, round 1 and its tables by number."""
    tournament, round1, tables = running_event(make_tournament, users, n_pairs=5, **fields)
    close_round_one(round1, tables, board_number=1, entry=ContractEntry("4S", "N", 10))
    results.director_set_result(
        table=tables[0], board_number=2, by=organiser, ns_adjustment="A+", ew_adjustment="A",
        reason="slow play",
    )  # fmt: skip
    return tournament, round1, tables
