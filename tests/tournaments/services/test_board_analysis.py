"""Double-dummy analysis of the boards: solved off the request path, after the round
closes, in batches, through the one locked adapter (`tournaments.double_dummy`)."""

from __future__ import annotations

import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from io import StringIO
from pathlib import Path

import pytest
import time_machine
from django.conf import settings
from django.core.management import call_command
from django.db import connection
from django.urls import reverse
from django.utils import timezone, translation

from tests.support.servers import free_port, stop, worker_database_url
from tournaments import demo, double_dummy, tasks
from tournaments.models import Board, Round
from tournaments.services import analysis
from tournaments.services.clock import advance

# --- A real threaded server under a burst of board-page requests -------------------------


def get(url: str, *, timeout: float = 60) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


@pytest.fixture
def close_a_round(make_tournament, register_pairs, t0):
    """close_a_round(boards) -> round 1 of a 4-pair event, just closed; no board analysed."""

    def close(boards: int) -> Round:
        tournament = make_tournament(rounds=2, boards_per_round=boards, scoring_method="IMP")
        register_pairs(tournament, 4)
        advance(now=t0)
        round1 = Round.objects.get(tournament=tournament, number=1)
        advance(now=round1.ends_at)
        round1.refresh_from_db()
        assert round1.status == "closed"
        assert not Board.objects.filter(round=round1, double_dummy__isnull=False).exists()
        return round1

    return close


@pytest.fixture
def closed_round(close_a_round):
    """Four boards to analyse (each solve costs about half a second here)."""
    return close_a_round(4)


@pytest.fixture
def threaded_server(tmp_path):
    """`manage.py runserver` (threaded, as `make run` serves) on a free loopback port,
    on this test's database; yields (base url, process, log path)."""
    port = free_port()
    log = tmp_path / "server.log"
    env = {
        **os.environ,
        "DATABASE_URL": worker_database_url(),
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "PYTHONUNBUFFERED": "1",
    }
    with log.open("w") as out:
        process = subprocess.Popen(
            [sys.executable, "manage.py", "runserver", "--noreload", f"127.0.0.1:{port}"],
            cwd=settings.BASE_DIR,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None, f"the server exited:\n{log.read_text()[-3000:]}"
            try:
                if get(f"{base}/healthz", timeout=2)[0] == 200:
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline, f"no server:\n{log.read_text()[-3000:]}"
            time.sleep(0.1)
        yield base, process, log
    finally:
        stop(process)


@pytest.mark.django_db(transaction=True)
def test_a_burst_of_board_pages_after_the_bell_never_runs_the_solver(
    close_a_round, threaded_server
):
    """32 viewers open the boards of a round that has just closed, all at once. Each
    page used to solve its board inside the request, and DDS is not thread-safe: the
    server died ("Sum 8 is not four", then SIGSEGV). Now no request solves."""
    base, process, log = threaded_server
    closed_round = close_a_round(8)
    tournament_id = closed_round.tournament_id
    urls = [f"{base}/t/{tournament_id}/boards/{n % 8 + 1}/" for n in range(32)]
    start = threading.Barrier(len(urls))

    def fetch(url):
        start.wait(timeout=30)
        try:
            return get(url)
        except OSError as error:  # the connection died with the server
            return None, repr(error)

    with ThreadPoolExecutor(max_workers=len(urls)) as pool:
        answers = list(pool.map(fetch, urls))

    def server_log() -> str:
        return log.read_text()[-3000:]

    assert process.poll() is None, f"the server died ({process.returncode}):\n{server_log()}"
    statuses = [status for status, _html in answers]
    assert statuses == [200] * len(urls), (statuses, server_log())
    for _status, html in answers:
        assert "Analysis is being prepared" in html
        assert "dd-table" not in html
        assert 'class="hand seat-N"' in html  # the deal and the results are there
        assert 'class="data traveller' in html
    assert get(f"{base}/healthz")[0] == 200
    # Nothing was solved (and so nothing stored) by the pages.
    assert not Board.objects.filter(round=closed_round, double_dummy__isnull=False).exists()


# --- The adapter: the one locked way into the solver -------------------------------------

SOLVER_IMPORT = re.compile(
    r"^\s*(?:from\s+endplay\.(?:dds|_dds)\b|import\s+endplay\.(?:dds|_dds)\b"
    r"|from\s+endplay\s+import\s+[^\n]*\b_?dds\b)",
    re.MULTILINE,
)
ADAPTER = Path("tournaments/double_dummy.py")


def test_no_module_but_the_adapter_reaches_the_solver():
    root = Path(settings.BASE_DIR)
    sources = [
        path.relative_to(root)
        for path in root.rglob("*.py")
        if not any(part.startswith(".") for part in path.relative_to(root).parts)
    ]
    assert ADAPTER in sources and len(sources) > 50
    assert SOLVER_IMPORT.search((root / ADAPTER).read_text())  # the scan sees an import
    offenders = [
        str(path)
        for path in sources
        if path != ADAPTER and SOLVER_IMPORT.search((root / path).read_text())
    ]
    assert offenders == []


def deals(count: int, *, seed: int) -> list[double_dummy.Deal]:
    """Reproducible random deals with assorted vulnerabilities and dealers."""
    rng = random.Random(seed)
    ranks = "AKQJT98765432"
    found = []
    for _ in range(count):
        cards = [suit + rank for suit in "SHDC" for rank in ranks]
        rng.shuffle(cards)
        hands = []
        for seat in range(4):
            hand = cards[seat * 13 : (seat + 1) * 13]
            hands.append(
                ".".join(
                    "".join(sorted((c[1] for c in hand if c[0] == suit), key=ranks.index))
                    for suit in "SHDC"
                )
            )
        found.append(
            double_dummy.Deal(
                "N:" + " ".join(hands),
                rng.choice(double_dummy.VULNERABILITIES),
                rng.choice(double_dummy.SEATS),
            )
        )
    return found


@pytest.fixture
def fresh_tables(monkeypatch):
    """An empty per-process table cache, so that every deal is really solved."""
    monkeypatch.setattr(double_dummy, "_TABLES", {})


@pytest.fixture
def solver_batches(monkeypatch):
    """The deals of each solver call (calls still made)."""
    calls = []
    real = double_dummy._solve_batch

    def spy(pbns):
        assert double_dummy._SOLVER.locked(), "a solver call without the lock"
        calls.append(list(pbns))
        return real(pbns)

    monkeypatch.setattr(double_dummy, "_solve_batch", spy)
    return calls


def test_concurrent_callers_get_the_single_threaded_answers(fresh_tables, monkeypatch):
    """Without the lock this crashes the test process; with it, every thread gets the
    same answer as a solve on its own."""
    sample = deals(8, seed=11)
    expected = double_dummy.analyse(sample)
    assert all(0 <= n <= 13 for e in expected for row in e["tricks"].values() for n in row.values())
    monkeypatch.setattr(double_dummy, "_TABLES", {})  # solve them all again, at once

    # Overlapping shares: several threads ask for the same deal at the same moment.
    shares = [sample[0:3], sample[2:5], sample[4:8], sample[6:8] + sample[0:1], sample[1:6]]
    start = threading.Barrier(len(shares) + 1)

    def analyse(share):
        start.wait(timeout=30)
        return double_dummy.analyse(share)

    def tricks_only():
        start.wait(timeout=30)
        return double_dummy.tricks([deal.pbn for deal in reversed(sample)])

    with ThreadPoolExecutor(max_workers=len(shares) + 1) as pool:
        analysed = [pool.submit(analyse, share) for share in shares]
        tables = pool.submit(tricks_only)
        answers = [future.result(timeout=300) for future in analysed]
        assert tables.result(timeout=300) == [e["tricks"] for e in reversed(expected)]
    by_deal = dict(zip(sample, expected, strict=True))
    for share, answer in zip(shares, answers, strict=True):
        assert answer == [by_deal[deal] for deal in share]


def test_every_solve_waits_for_the_one_lock(fresh_tables):
    """Whoever holds the solver lock, a solve from any thread waits for it."""
    [deal] = deals(1, seed=3)
    answers = []
    with double_dummy._SOLVER:
        solving = threading.Thread(target=lambda: answers.append(double_dummy.analyse([deal])))
        solving.start()
        solving.join(timeout=1.0)
        assert solving.is_alive() and answers == []  # waiting, not solving
    solving.join(timeout=120)
    assert not solving.is_alive() and len(answers) == 1
    assert set(answers[0][0]) == {"tricks", "par_score", "par"}


def test_the_batch_is_what_one_solver_call_takes(fresh_tables, solver_batches, monkeypatch):
    assert double_dummy.BATCH == analysis.BATCH == 32  # CalcAllTables: at most 40 deals
    monkeypatch.setattr(double_dummy, "BATCH", 2)
    sample = deals(5, seed=5)
    double_dummy.tricks([deal.pbn for deal in sample])
    assert [len(call) for call in solver_batches] == [2, 2, 1]
    # A deal is solved once per process: asked again, it is not solved again.
    double_dummy.analyse(sample)
    assert len(solver_batches) == 3


# --- Analysis after the close, off the request path --------------------------------------


@pytest.mark.django_db
def test_closing_a_round_never_solves(make_tournament, register_pairs, t0, monkeypatch):
    def no_solve(*args, **kwargs):
        raise AssertionError("the solver ran inside the clock's transition")

    monkeypatch.setattr(double_dummy, "analyse", no_solve)
    monkeypatch.setattr(double_dummy, "tricks", no_solve)
    tournament = make_tournament(rounds=1, boards_per_round=3)
    register_pairs(tournament, 4)
    advance(now=t0)
    round1 = Round.objects.get(tournament=tournament)
    advance(now=round1.ends_at)
    round1.refresh_from_db()
    assert round1.status == "closed"
    assert analysis.pending_boards().count() == 3


@pytest.mark.django_db
def test_the_closed_boards_are_analysed_in_batches_stored_once_and_shown(
    client, closed_round, fresh_tables, solver_batches, monkeypatch, t0
):
    # Round 2 is open: its boards are not analysed, whatever happens.
    round2 = Round.objects.get(tournament=closed_round.tournament, number=2)
    assert round2.status == "open"
    monkeypatch.setattr(analysis, "BATCH", 3)
    monkeypatch.setattr(double_dummy, "BATCH", 3)
    with time_machine.travel(closed_round.ends_at + timedelta(seconds=2), tick=False):
        assert analysis.analysis_needed()
        assert analysis.analyse_pending_boards(limit=None) == 4
    assert [len(call) for call in solver_batches] == [3, 1]
    boards = list(Board.objects.filter(round=closed_round))
    assert all(b.double_dummy["v"] == analysis.FORMAT_VERSION for b in boards)
    assert all(b.analysis_claimed_at is None for b in boards)
    assert not Board.objects.filter(round=round2, double_dummy__isnull=False).exists()

    # Stored once: nothing left to do, nothing solved again.
    assert not analysis.analysis_needed()
    assert analysis.analyse_pending_boards(limit=None) == 0
    assert len(solver_batches) == 2

    # The page shows it, and only reads it.
    board = boards[0]
    stored = analysis.double_dummy(board=board)
    monkeypatch.setattr(double_dummy, "analyse", None)  # a page that solved would fail
    html = client.get(reverse("board", args=[board.tournament_id, board.number])).content
    html = html.decode()
    assert "Makeable contracts" in html and 'class="data dd-table"' in html
    assert "Analysis is being prepared" not in html
    table = html[
        html.index('class="data dd-table"') : html.index("</table>", html.index("dd-table"))
    ]
    cells = re.findall(r'<td class="num">(.*?)</td>', table)
    assert cells == [
        str(level) if level else '<span class="muted">–</span>'
        for seat in "NSEW"
        for level in (stored.makeable(seat, strain) for strain in analysis.STRAINS)
    ]
    par = html[html.index('<p class="par">') : html.index("</p>", html.index('<p class="par">'))]
    assert str(abs(stored.par_score)) in par


@pytest.mark.django_db
def test_a_limit_bounds_one_call(closed_round, fresh_tables, solver_batches):
    assert analysis.analyse_pending_boards(limit=3) == 3
    assert [len(call) for call in solver_batches] == [3]
    assert analysis.pending_boards().count() == 1
    assert analysis.analyse_pending_boards(tournament_id=closed_round.tournament_id) == 1


@pytest.mark.django_db
def test_claimed_boards_are_left_alone_until_the_claim_expires(closed_round, fresh_tables):
    now = timezone.now()
    first = Board.objects.filter(round=closed_round).order_by("number").first()
    Board.objects.filter(pk=first.pk).update(analysis_claimed_at=now - timedelta(seconds=10))
    # Another worker is on a board: the tick starts no second worker …
    assert not analysis.analysis_needed(now=now)
    # … and a worker that runs anyway solves only the other boards.
    assert analysis.analyse_pending_boards(limit=None, now=now) == 3
    assert list(analysis.pending_boards()) == [first]
    # The first worker died: after CLAIM_TIMEOUT its board is taken over.
    later = now + analysis.CLAIM_TIMEOUT
    assert analysis.analysis_needed(now=later)
    assert analysis.analyse_pending_boards(limit=None, now=later) == 1
    assert not analysis.pending_boards().exists()


@pytest.mark.django_db
def test_a_failed_solve_keeps_its_claim_and_is_tried_again_later(
    closed_round, fresh_tables, monkeypatch
):
    def broken(deals):
        raise RuntimeError("DDS error")

    monkeypatch.setattr(double_dummy, "analyse", broken)
    now = timezone.now()
    with pytest.raises(RuntimeError):
        analysis.analyse_pending_boards(limit=None, now=now)
    monkeypatch.undo()
    # Not retried on every tick (a deal that always fails would cost a solve per tick) …
    assert analysis.analyse_pending_boards(limit=None, now=now + timedelta(seconds=5)) == 0
    # … but once the claim has expired.
    later = now + analysis.CLAIM_TIMEOUT + timedelta(seconds=1)
    assert analysis.analyse_pending_boards(limit=None, now=later) == 4


@pytest.mark.django_db
def test_the_per_tick_checks_cost_one_query(closed_round, django_assert_num_queries):
    with django_assert_num_queries(1):
        assert analysis.analysis_needed()
    analysis.analyse_pending_boards(limit=None)
    with django_assert_num_queries(1):
        assert not analysis.analysis_needed()
    with django_assert_num_queries(1):
        assert analysis.analyse_pending_boards() == 0


@pytest.mark.django_db(transaction=True)
def test_workers_running_at_once_never_solve_a_board_twice(closed_round, monkeypatch):
    """Three workers (threads with their own connections, like Celery children) start
    together: every board is solved exactly once, whoever claims it."""
    solved = []
    real = analysis.solve

    def spy(*, deals):
        solved.extend(deal.pbn for deal in deals)
        time.sleep(0.2)  # a slow solve: the others run meanwhile
        return real(deals=deals)

    monkeypatch.setattr(analysis, "solve", spy)
    start = threading.Barrier(3)

    def worker():
        try:
            start.wait(timeout=30)
            total = 0
            while stored := analysis.analyse_pending_boards(limit=1):
                total += stored
            return total
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=3) as pool:
        totals = [f.result(timeout=300) for f in [pool.submit(worker) for _ in range(3)]]
    assert sum(totals) == 4
    deals_of_round = set(Board.objects.filter(round=closed_round).values_list("deal", flat=True))
    assert sorted(solved) == sorted(deals_of_round)  # each once
    assert not analysis.pending_boards().exists()


# --- The clock drivers -------------------------------------------------------------------


@pytest.mark.django_db
def test_the_celery_tick_queues_one_analysis_task_and_the_task_analyses(closed_round, monkeypatch):
    queued = []
    monkeypatch.setattr(tasks.analyse_boards, "apply_async", lambda *a, **kw: queued.append(kw))
    # Just after round 1's bell, round 2 running: the tick has nothing to do on the clock.
    with time_machine.travel(closed_round.ends_at + timedelta(seconds=1), tick=False):
        assert tasks.clock_tick.apply().get() == []  # nothing due on the clock itself
        assert len(queued) == 1 and queued[0]["expires"] == tasks.ANALYSE_EXPIRES
        # While a worker is on the boards, the tick queues no second task.
        Board.objects.filter(round=closed_round).update(analysis_claimed_at=timezone.now())
        tasks.clock_tick.apply()
        assert len(queued) == 1
        Board.objects.filter(round=closed_round).update(analysis_claimed_at=None)

        assert tasks.analyse_boards.apply().get() == 4
        assert not analysis.pending_boards().exists()
        tasks.clock_tick.apply()
        assert len(queued) == 1


@pytest.mark.django_db
def test_a_failing_analysis_check_never_fails_the_tick(
    make_tournament, register_pairs, t0, monkeypatch
):
    def broken(**kwargs):
        raise RuntimeError("database away")

    monkeypatch.setattr(analysis, "analysis_needed", broken)
    tournament = make_tournament()
    register_pairs(tournament, 4)
    with time_machine.travel(t0, tick=False):
        events = tasks.clock_tick.apply().get()
    assert events == [f"{tournament.name}: started, round 1 seated (2 tables)"]


@pytest.mark.django_db(transaction=True)
def test_run_clock_once_analyses_the_closed_round(closed_round):
    out, err = StringIO(), StringIO()
    with time_machine.travel(closed_round.ends_at + timedelta(seconds=1), tick=False):
        call_command("run_clock", "--once", stdout=out, stderr=err)
    assert err.getvalue() == ""
    assert not analysis.pending_boards().exists()
    assert Board.objects.filter(round=closed_round, double_dummy__isnull=False).count() == 4


@pytest.mark.django_db(transaction=True)
def test_the_embedded_clock_analyses_in_the_background_and_stops_cleanly(closed_round):
    env = {
        **os.environ,
        "DATABASE_URL": worker_database_url(),
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
    }
    process = subprocess.Popen(
        [sys.executable, "manage.py", "run_clock", "--interval", "0.2"],
        cwd=settings.BASE_DIR,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 120
        while analysis.pending_boards().exists():
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "run_clock never analysed the boards"
            time.sleep(0.2)
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 0, err
    assert "failed" not in err and out.rstrip().endswith("run_clock: stopped")
    assert Board.objects.filter(round=closed_round, double_dummy__isnull=False).count() == 4


# --- The demos ---------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_finished_demo_is_analysed_when_seeded(t0, fresh_tables, solver_batches):
    organiser = demo.ensure_organiser()
    finished, created = demo.ensure_finished_demo(
        organiser, now=t0, pairs=4, rounds=2, boards_per_round=2
    )
    assert created and finished.status == "finished"
    assert finished.boards.count() == 4
    assert not finished.boards.filter(double_dummy__isnull=True).exists()
    # The simulation solved the deals to play them; the analysis only added par.
    assert sum(len(call) for call in solver_batches) == 4


def test_the_pending_notice_is_translated():
    message = "Analysis is being prepared; it appears here in a moment."
    with translation.override("zh-hans"):
        assert translation.gettext(message) != message
