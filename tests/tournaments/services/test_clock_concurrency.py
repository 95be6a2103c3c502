"""Exactly once, whatever happens (RULES 3), on the real PostgreSQL.

Several workers tick at the same instant; a result races the bell; a worker dies in the
middle of a close, by an exception and by SIGKILL. Each test uses real transactions and
one database connection per thread (closed when the thread ends) or per process.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
from django.conf import settings
from django.db import connection, transaction

from tests.support.clock import submit, wait_for_lock_wait
from tournaments.errors import RoundClosed
from tournaments.models import (
    BoardResult,
    MasterPointAward,
    PairBoardScore,
    Round,
    Standing,
    Table,
    Tournament,
)
from tournaments.services import board_scoring, clock, results
from tournaments.services.clock import advance

pytestmark = pytest.mark.django_db(transaction=True)

MINUTE = timedelta(minutes=1)
WORKERS = 4


def in_threads(count: int, target) -> list:
    """Run target(i) in `count` threads released together; return what each returned or
    raised. Every thread closes its own database connection."""
    barrier = threading.Barrier(count)
    outcomes: list = [None] * count

    def run(i: int) -> None:
        try:
            barrier.wait(timeout=30)
            outcomes[i] = target(i)
        except BaseException as error:  # reported to the test, never lost in a thread
            outcomes[i] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
        assert not thread.is_alive(), "a worker hung"
    return outcomes


def counts(tournament) -> dict:
    return {
        "rounds": Round.objects.filter(tournament=tournament).count(),
        "tables": Table.objects.filter(round__tournament=tournament).count(),
        "results": BoardResult.objects.filter(board__tournament=tournament).count(),
        "scores": PairBoardScore.objects.filter(board__tournament=tournament).count(),
        "standings": Standing.objects.filter(round__tournament=tournament).count(),
        "awards": MasterPointAward.objects.filter(tournament=tournament).count(),
    }


@pytest.fixture
def calls(monkeypatch):
    """Counts the scoring steps the clock runs, and records any exception raised inside
    a tournament's transition (advance() logs those instead of raising them)."""
    counter: Counter = Counter()
    errors: list = []
    lock = threading.Lock()

    def counting(name, real):
        def wrapper(**kwargs):
            with lock:
                counter[(name, kwargs.get("round", kwargs.get("tournament")).pk)] += 1
            return real(**kwargs)

        return wrapper

    for name in ("score_round", "record_standings", "finalize_results"):
        monkeypatch.setattr(board_scoring, name, counting(name, getattr(board_scoring, name)))
    real_advance_tournament = clock.advance_tournament

    def recording(**kwargs):
        try:
            return real_advance_tournament(**kwargs)
        except Exception as error:
            with lock:
                errors.append(error)
            raise

    monkeypatch.setattr(clock, "advance_tournament", recording)
    return counter, errors


def test_simultaneous_ticks_do_every_transition_exactly_once(
    make_tournament, register_pairs, calls, t0
):
    counter, errors = calls
    trials = 20
    for trial in range(trials):
        tournament = make_tournament(rounds=2, boards_per_round=1, name=f"race {trial}")
        register_pairs(tournament, 5)  # odd: a bye every round
        events: list[str] = []
        for phase, now in enumerate((t0, t0 + 20 * MINUTE, t0 + 40 * MINUTE)):
            outcomes = in_threads(WORKERS, lambda i, now=now: advance(now=now, driver=f"w{i}"))
            for outcome in outcomes:
                assert not isinstance(outcome, BaseException), outcome
                events += outcome.events
            if phase == 0:
                rnd = Round.objects.get(tournament=tournament, number=1)
                for table in Table.objects.filter(round=rnd):
                    submit(table, 1, "3NT", "N", 8 + table.number, now=t0 + MINUTE)
        assert errors == [], "an exception inside a transition (e.g. IntegrityError)"
        mine = [e for e in events if e.startswith(f"{tournament.name}:")]
        assert sorted(mine) == sorted(
            [
                f"{tournament.name}: started, round 1 seated (2 tables)",
                f"{tournament.name}: round 1 closed, round 2 seated",
                f"{tournament.name}: round 2 closed, results published",
            ]
        ), f"trial {trial}: {mine}"
        tournament.refresh_from_db()
        assert tournament.status == "finished"
        rounds = list(Round.objects.filter(tournament=tournament).order_by("number"))
        assert [r.number for r in rounds] == [1, 2]
        for rnd in rounds:
            assert counter[("score_round", rnd.pk)] == 1
            assert counter[("record_standings", rnd.pk)] == 1
        assert counter[("finalize_results", tournament.pk)] == 1
        # 5 pairs x 2 boards (byes included), 5 standings per round, 2 tables per round.
        got = counts(tournament)
        assert {k: got[k] for k in ("rounds", "tables", "results", "scores", "standings")} == {
            "rounds": 2,
            "tables": 4,
            "results": 4,
            "scores": 10,
            "standings": 10,
        }
        # F = 5 completers are not all: byes and played boards count, 1 board of 2 is 50 %.
        assert got["awards"] == 2 * sum(1 for p in tournament.pairs.all() if p.master_points > 0)


def test_a_result_racing_the_bell_is_stored_and_scored_or_refused(
    make_tournament, register_pairs, t0
):
    """Many trials of one thread entering a result 1 ms before the bell while another
    rings it: the result is either in and scored, or refused and the board cut off."""
    outcomes_seen: Counter = Counter()
    for trial in range(30):
        start = t0 + timedelta(days=trial)
        tournament = make_tournament(
            start_at=start,
            registration_opens_at=start - timedelta(days=1),
            rounds=1,
            boards_per_round=1,
            name=f"bell {trial}",
        )
        register_pairs(tournament, 4, now=start - timedelta(hours=1))
        advance(now=start)
        t1, t2 = Table.objects.filter(round__tournament=tournament).order_by("number")
        bell = start + 20 * MINUTE
        submit(t2, 1, "4S", "S", 9, now=start + MINUTE)  # -50
        jitter = random.Random(trial)

        def race(i, jitter=jitter, t1=t1, bell=bell):
            time.sleep(jitter.uniform(0, 0.02))
            if i == 0:
                return submit(t1, 1, "3NT", "N", 9, now=bell - timedelta(milliseconds=1))
            return advance(now=bell)

        submitted, ticked = in_threads(2, race)
        assert not isinstance(ticked, BaseException), ticked
        assert Round.objects.get(tournament=tournament).status == "closed"
        stored = BoardResult.objects.get(table=t1, board__number=1)
        scores = dict(
            PairBoardScore.objects.filter(board__tournament=tournament).values_list(
                "pair_id", "points"
            )
        )
        if isinstance(submitted, BoardResult):
            outcomes_seen["stored"] += 1
            assert (stored.state, stored.ns_score, stored.entered_by_id) == (
                "played",
                400,
                t1.ns_pair.player1_id,
            )
            # 400 against -50: 10 IMPs either way, over one comparison.
            assert scores == {
                t1.ns_pair_id: 10.0,
                t1.ew_pair_id: -10.0,
                t2.ns_pair_id: -10.0,
                t2.ew_pair_id: 10.0,
            }
        else:
            outcomes_seen["refused"] += 1
            assert isinstance(submitted, RoundClosed), submitted
            assert str(submitted) == (
                "Round 1 closed at 14:20:00; results can no longer be entered."
            )
            assert (stored.state, stored.ns_score, stored.entered_by_id) == (
                "not_played",
                None,
                None,
            )
            assert scores == {
                t1.ns_pair_id: None,
                t1.ew_pair_id: None,
                t2.ns_pair_id: 0.0,
                t2.ew_pair_id: 0.0,
            }
    print(f"bell race outcomes over 30 trials: {dict(outcomes_seen)}")


def _submit_before_the_bell(table, bell, outcome: dict) -> None:
    """In a thread: North enters board 1 a second before the bell; the stored result or
    the refusal goes in `outcome["submit"]`."""
    try:
        outcome["submit"] = submit(table, 1, "3NT", "N", 9, now=bell - timedelta(seconds=1))
    except Exception as error:
        outcome["submit"] = error
    finally:
        connection.close()


def _ring_the_bell(bell, outcome: dict) -> None:
    try:
        outcome["tick"] = advance(now=bell)
    finally:
        connection.close()


@pytest.fixture
def two_table_round(make_tournament, register_pairs, t0):
    tournament = make_tournament(rounds=1, boards_per_round=1)
    register_pairs(tournament, 4)
    advance(now=t0)
    t1, t2 = Table.objects.filter(round__tournament=tournament).order_by("number")
    submit(t2, 1, "4S", "S", 9, now=t0 + MINUTE)
    return tournament, t1, t0 + 20 * MINUTE


def test_a_submission_in_progress_holds_the_bell_until_it_is_stored(two_table_round, monkeypatch):
    """The submission has checked the clock and holds its share lock; the bell must wait
    for it, then score the result it wrote."""
    tournament, t1, bell = two_table_round
    inside, proceed = threading.Event(), threading.Event()
    real_refusal = results._entry_refusal

    def slow_refusal(**checks):
        # Called with the round's share lock held, after the bell check.
        outcome = real_refusal(**checks)
        if threading.current_thread().name == "submitter":
            inside.set()
            proceed.wait(timeout=30)
        return outcome

    monkeypatch.setattr(results, "_entry_refusal", slow_refusal)
    outcome: dict = {}

    threads = [
        threading.Thread(
            target=_submit_before_the_bell, args=(t1, bell, outcome), name="submitter"
        ),
        threading.Thread(target=_ring_the_bell, args=(bell, outcome), name="clock"),
    ]
    threads[0].start()
    assert inside.wait(timeout=30)
    threads[1].start()
    wait_for_lock_wait()  # the close is blocked behind the submission's share lock
    assert Round.objects.get(tournament=tournament).status == "open"
    proceed.set()
    for thread in threads:
        thread.join(timeout=60)
    assert isinstance(outcome["submit"], BoardResult)
    assert outcome["tick"].events == [f"{tournament.name}: round 1 closed, results published"]
    stored = BoardResult.objects.get(table=t1, board__number=1)
    assert (stored.state, stored.ns_score) == ("played", 400)
    assert PairBoardScore.objects.get(pair=t1.ns_pair, board=stored.board).points == 10.0


def test_a_submission_arriving_during_the_close_waits_and_is_refused(two_table_round, monkeypatch):
    """The close holds the round; a result sent a second before the bell arrives in the
    middle of it: it waits for the close, sees the round closed and is refused."""
    tournament, t1, bell = two_table_round
    inside, proceed = threading.Event(), threading.Event()
    real_cut_off = clock._cut_off_unplayed

    def slow_cut_off(tournament, round, now):
        inside.set()
        proceed.wait(timeout=30)
        return real_cut_off(tournament, round, now)

    monkeypatch.setattr(clock, "_cut_off_unplayed", slow_cut_off)
    outcome: dict = {}

    threads = [
        threading.Thread(target=_ring_the_bell, args=(bell, outcome)),
        threading.Thread(target=_submit_before_the_bell, args=(t1, bell, outcome)),
    ]
    threads[0].start()
    assert inside.wait(timeout=30)
    threads[1].start()
    wait_for_lock_wait()  # the submission is blocked behind the close
    proceed.set()
    for thread in threads:
        thread.join(timeout=60)
    assert isinstance(outcome["submit"], RoundClosed), outcome["submit"]
    assert str(outcome["submit"]) == (
        "Round 1 closed at 14:20:00; results can no longer be entered."
    )
    stored = BoardResult.objects.get(table=t1, board__number=1)
    assert (stored.state, stored.ns_score, stored.entered_by_id) == ("not_played", None, None)
    assert PairBoardScore.objects.get(pair=t1.ns_pair, board=stored.board).points is None


def test_a_stuck_transaction_does_not_stall_the_clock(
    make_tournament, register_pairs, monkeypatch, t0
):
    """A connection holds a round FOR SHARE and never finishes (a hung request): the
    bell of that tournament waits at most LOCK_TIMEOUT and is retried on the next tick,
    and the tournaments behind it in the same tick still advance."""
    monkeypatch.setattr(clock, "LOCK_TIMEOUT", timedelta(milliseconds=300))
    stuck = make_tournament(rounds=1, boards_per_round=1, name="stuck")
    other = make_tournament(rounds=1, boards_per_round=1, name="other")
    for t in (stuck, other):
        register_pairs(t, 2)
    advance(now=t0)
    holding, release = threading.Event(), threading.Event()

    def hung_request():
        try:
            with transaction.atomic():
                table = Table.objects.get(round__tournament=stuck)
                results._entry_context(round_id=table.round_id, table_id=table.pk, board_number=1)
                holding.set()
                release.wait(timeout=60)
        finally:
            connection.close()

    thread = threading.Thread(target=hung_request)
    thread.start()
    try:
        assert holding.wait(timeout=30)
        started = time.monotonic()
        report = advance(now=t0 + 20 * MINUTE)
        assert time.monotonic() - started < 10
        assert report.events == ["other: round 1 closed, results published"]
        assert Round.objects.get(tournament=stuck).status == "open"
        beat = clock.ClockHeartbeat.objects.get()
        assert f"tournament {stuck.pk}: " in beat.last_error
        assert "lock timeout" in beat.last_error
    finally:
        release.set()
        thread.join(timeout=30)
    report = advance(now=t0 + 20 * MINUTE + timedelta(seconds=2))
    assert report.events == ["stuck: round 1 closed, results published"]


def full_state(tournament) -> dict:
    return {
        "tournament": Tournament.objects.filter(pk=tournament.pk).values().get(),
        "rounds": list(Round.objects.filter(tournament=tournament).order_by("id").values()),
        "results": list(
            BoardResult.objects.filter(board__tournament=tournament).order_by("id").values()
        ),
        "pairs": list(tournament.pairs.order_by("id").values()),
        **counts(tournament),
    }


@pytest.mark.parametrize("failing", ["record_standings", "finalize_results"])
def test_a_close_that_fails_midway_leaves_nothing_and_the_next_tick_redoes_it(
    failing, make_tournament, register_pairs, monkeypatch, t0
):
    rounds = 1 if failing == "finalize_results" else 2
    tournament = make_tournament(rounds=rounds, boards_per_round=2)
    register_pairs(tournament, 4)
    advance(now=t0)
    t1 = Table.objects.filter(round__tournament=tournament).order_by("number").first()
    submit(t1, 1, "3NT", "N", 9, now=t0 + MINUTE)
    before = full_state(tournament)
    real = getattr(board_scoring, failing)

    def explode(**kwargs):
        real(**kwargs)  # the work is done and written, then the worker fails
        raise RuntimeError("worker lost mid-close")

    monkeypatch.setattr(board_scoring, failing, explode)
    report = advance(now=t0 + 20 * MINUTE)
    assert not report
    assert full_state(tournament) == before, "no partial close"
    assert "worker lost mid-close" in clock.ClockHeartbeat.objects.get().last_error

    monkeypatch.setattr(board_scoring, failing, real)
    report = advance(now=t0 + 20 * MINUTE + timedelta(seconds=2))
    assert len(report.events) == 1 and "round 1 closed" in report.events[0]
    got = counts(tournament)
    assert (got["rounds"], got["scores"], got["standings"]) == (rounds, 8, 4)
    assert BoardResult.objects.filter(board__round__number=1).count() == 4
    tournament.refresh_from_db()
    assert tournament.status == ("finished" if rounds == 1 else "running")


def database_url() -> str:
    """DATABASE_URL with the test database's name, for worker processes."""
    parts = urlsplit(os.environ["DATABASE_URL"])
    return urlunsplit(parts._replace(path="/" + connection.settings_dict["NAME"]))


DOOMED_WORKER = """
import sys, time
from datetime import datetime
import django
django.setup()
from tournaments.services import board_scoring, clock

real = board_scoring.record_standings

def stall(**kwargs):
    real(**kwargs)
    print("IN_CLOSE", flush=True)
    time.sleep(300)

board_scoring.record_standings = stall
clock.advance(now=datetime.fromisoformat(sys.argv[1]), driver="doomed")
print("UNREACHABLE", flush=True)
"""


def test_a_worker_killed_in_the_middle_of_a_close(make_tournament, register_pairs, t0):
    """A separate process closes the round and is SIGKILLed while it holds the lock with
    everything scored but not committed. Meanwhile a tick elsewhere skips the locked
    tournament; after the kill the next tick closes the round, exactly once."""
    tournament = make_tournament(rounds=2, boards_per_round=2)
    register_pairs(tournament, 4)
    advance(now=t0)
    t1 = Table.objects.filter(round__tournament=tournament).order_by("number").first()
    submit(t1, 1, "3NT", "N", 9, now=t0 + MINUTE)
    bell = t0 + 20 * MINUTE
    before = full_state(tournament)

    env = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
    }
    worker = subprocess.Popen(
        [sys.executable, "-c", DOOMED_WORKER, bell.isoformat()],
        cwd=Path(settings.BASE_DIR),
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = worker.stdout.readline()  # blocks until the close is under way
        assert line.strip() == "IN_CLOSE", line + worker.stderr.read()
        # Another worker ticks now: the tournament is locked, so it skips it.
        assert not advance(now=bell, driver="bystander")
        assert full_state(tournament) == before
    finally:
        worker.send_signal(signal.SIGKILL)
        worker.wait(timeout=30)
        worker.stdout.close()
        worker.stderr.close()
    assert worker.returncode == -signal.SIGKILL

    # PostgreSQL rolls the dead worker's transaction back when its socket closes.
    deadline = time.monotonic() + 30
    report = advance(now=bell)
    while not report and time.monotonic() < deadline:
        time.sleep(0.1)
        report = advance(now=bell)
    assert report.events == [f"{tournament.name}: round 1 closed, round 2 seated"]
    got = counts(tournament)
    assert (got["rounds"], got["results"], got["scores"], got["standings"]) == (2, 4, 8, 4)
    assert Standing.objects.filter(round__number=1, round__tournament=tournament).count() == 4
    assert not advance(now=bell)
