"""A small simulated club week (RULES 13) through the real server — `bench/bench_club.py`
in miniature: 24 members form six tables in the lobby (duplicate, full field in IMPs and
in MP), every seat a `play_robots` robot on a WebSocket to a uvicorn subprocess, board
after board until 100 results are stored; nobody was given a deal twice and every stored
score equals the bench's independent recomputation from the stored results."""

from __future__ import annotations

import time

import pytest
from django.utils import timezone

from bench.bench_club import check_week, form_tables, make_members, stored_results
from tests.support.robots import Robots
from tests.support.uvicorn import free_port, start_server, stop, wait_until_listening
from tournaments.robots.client import Pace
from tournaments.robots.runner import Options
from tournaments.services import club

BOARDS = 100


@pytest.mark.django_db(transaction=True)
def test_a_small_week_of_robots_is_scored_as_recomputed(club_director, tmp_path):
    members = make_members(24, prefix="week-")
    field_ids = list(club.current_week(now=timezone.now()).fields.values_list("pk", flat=True))
    tables = form_tables(members)
    assert len(tables) == 6
    port, log_path = free_port(), tmp_path / "server.log"
    server = start_server(
        port=port,
        log=log_path.open("w"),
        extra_env={"API_WRITE_RATE_PER_USER": "", "API_WRITE_RATE_PER_ADDRESS": ""},
    )
    robots = Robots(None, port)
    robots.options = Options(base=f"ws://127.0.0.1:{port}", pace=Pace(), claim_after=2,
                             heuristic=True, poll=0.2, club_all_seats=True)  # fmt: skip
    try:
        wait_until_listening(port, server, log_path)
        robots.thread.start()
        deadline = time.monotonic() + 120
        while stored_results(field_ids) < BOARDS:
            assert time.monotonic() < deadline, log_path.read_text()[-3000:]
            assert robots.thread.is_alive(), robots.error
            time.sleep(0.5)
    finally:
        try:
            robots.stop()
        finally:
            stop(server)
    assert robots.error is None, robots.error
    checked = check_week(field_ids)
    assert checked["scores_checked"] >= 4 * BOARDS
