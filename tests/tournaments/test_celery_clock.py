"""The production clock end to end: a real redis-server, Celery beat and a Celery worker
run a tiny tournament from its start to published results with nobody touching it."""

from __future__ import annotations

import os
import subprocess
import time
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings
from django.utils import timezone

from tests.support.servers import stop, worker_database_url
from tournaments.errors import RoundClosed
from tournaments.models import (
    Board,
    ClockHeartbeat,
    Pair,
    PairBoardScore,
    Round,
    Standing,
    Table,
)
from tournaments.services import clock, results

CELERY = Path(settings.BASE_DIR) / ".venv" / "bin" / "celery"


def wait_for(predicate, *, timeout: float, what: str, logs=()):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    tails = "\n".join(f"--- {log.name}\n{log.read_text()[-3000:]}" for log in logs)
    raise AssertionError(f"timed out waiting for {what}\n{tails}")


def enter(table: Table, contract: str, declarer: str, tricks: int) -> None:
    table = Table.objects.select_related("ns_pair__player1").get(pk=table.pk)
    results.submit_result(
        table=table,
        board_number=1,
        entry=results.ContractEntry(contract=contract, declarer=declarer, tricks=tricks),
        user=table.ns_pair.player1,
    )


@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_beat_and_worker_run_a_tournament_by_themselves(
    redis_url, make_tournament, register_pairs, tmp_path
):
    now = timezone.now()
    tournament = make_tournament(
        registration_opens_at=now - timedelta(hours=1),
        start_at=now + timedelta(seconds=1),
        rounds=2,
        boards_per_round=1,
        round_length=timedelta(seconds=3),
        gap_length=timedelta(0),
        scoring_method="IMP",
        unplayed_policy="avg",  # the boards nobody enters still count: all 4 pairs rank
    )
    p1, p2, p3, p4 = register_pairs(tournament, 4, now=now - timedelta(minutes=1))

    env = {
        **os.environ,
        "DATABASE_URL": worker_database_url(),
        "CELERY_BROKER_URL": redis_url,
        "CLOCK_TICK_SECONDS": "1",
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
    }
    logs = [tmp_path / "worker.log", tmp_path / "beat.log"]
    commands = [
        [str(CELERY), "-A", "config", "worker", "--pool=solo", "-l", "info"]
        + ["--without-gossip", "--without-mingle", "--without-heartbeat"],
        [str(CELERY), "-A", "config", "beat", "-l", "info"]
        + ["-s", str(tmp_path / "beat-schedule"), "--pidfile", str(tmp_path / "beat.pid")],
    ]
    processes = []
    try:
        for command, log in zip(commands, logs, strict=True):
            with log.open("w") as out:
                processes.append(
                    subprocess.Popen(
                        command,
                        cwd=settings.BASE_DIR,
                        env=env,
                        stdout=out,
                        stderr=subprocess.STDOUT,
                    )
                )

        # Round 1 opens on the first tick; both tables enter a result before its bell.
        round1 = wait_for(
            lambda: Round.objects.filter(tournament=tournament, number=1, status="open").first(),
            timeout=60,
            what="round 1 to open",
            logs=logs,
        )
        t1, t2 = Table.objects.filter(round=round1).order_by("number")
        try:
            enter(t1, "3NT", "N", 9)  # +400, nobody vulnerable on board 1
            enter(t2, "4S", "S", 9)  # -50: 450 apart, 10 IMPs
        except RoundClosed as error:  # the machine stalled for a whole 3-second round
            pytest.fail(f"round 1 closed before the test could enter its results: {error}")

        def finished():
            tournament.refresh_from_db()
            return tournament.status == "finished"

        wait_for(finished, timeout=60, what="the tournament to finish", logs=logs)
        # The ticks after each close queued `analyse_boards`: the worker analyses the
        # closed boards (no page ever solves one).
        wait_for(
            lambda: (
                Board.objects.filter(tournament=tournament, double_dummy__isnull=False).count()
                == 2  # rounds × boards per round
            ),
            timeout=60,
            what="the worker to analyse the boards",
            logs=logs,
        )
    finally:
        for process in processes:
            stop(process)

    try:
        check_results(tournament, (p1, p2, p3, p4), (t1, t2))
    except AssertionError as error:
        tails = "\n".join(f"--- {log.name}\n{log.read_text()[-4000:]}" for log in logs)
        raise AssertionError(f"{error}\n{tails}") from error


def check_results(tournament, pairs, tables):
    p1, p2, p3, p4 = pairs
    t1, t2 = tables
    rounds = list(Round.objects.filter(tournament=tournament).order_by("number"))
    assert [(r.number, r.status) for r in rounds] == [(1, "closed"), (2, "closed")]
    # Round 2 started at round 1's bell (gap 0), or when the tick came if it came more
    # than a tenth of the round late; either way it lasted its full 3 seconds.
    late = rounds[0].closed_at - rounds[0].ends_at
    assert timedelta(0) <= late < timedelta(seconds=30)
    tolerance = timedelta(seconds=3) / clock.SCHEDULE_TOLERANCE_SHARE
    expected_start = rounds[0].ends_at if late <= tolerance else rounds[0].closed_at
    assert rounds[1].starts_at == expected_start
    assert rounds[1].ends_at - rounds[1].starts_at == timedelta(seconds=3)
    assert rounds[1].closed_at >= rounds[1].ends_at
    assert PairBoardScore.objects.filter(board__tournament=tournament).count() == 8
    assert Standing.objects.filter(round__tournament=tournament).count() == 8
    pairs = {p.id: p for p in Pair.objects.filter(tournament=tournament)}
    # Round 1 by registration order: p1 v p2 and p3 v p4. Round 2 boards were cut off at
    # average (0 IMPs), so the totals are round 1's.
    assert (t1.ns_pair_id, t1.ew_pair_id, t2.ns_pair_id, t2.ew_pair_id) == (
        p1.id,
        p2.id,
        p3.id,
        p4.id,
    )
    assert {pid: pair.total for pid, pair in pairs.items()} == {
        p1.id: 10.0,
        p2.id: -10.0,
        p3.id: -10.0,
        p4.id: 10.0,
    }
    # Ties on total and boards go to the earlier registration; F = 4: ranks 1-2 score.
    assert {pid: (pair.rank, pair.master_points) for pid, pair in pairs.items()} == {
        p1.id: (1, 3),
        p4.id: (2, 2),
        p2.id: (3, 0),
        p3.id: (4, 0),
    }
    beat = ClockHeartbeat.objects.get(name="clock")
    assert beat.last_driver == "celery"
    assert beat.ticks >= 3
    assert beat.last_error == ""
