"""`make run`'s one server (config.asgi_embedded) analyses the boards of the rounds it
closes: the double-dummy table appears on a board page for a round closed after start-up,
without Celery and without `run_clock`."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.utils import timezone

from tests.support.browser.events import make_people, running_event
from tests.support.uvicorn import (
    EMBEDDED,
    free_port,
    start_server,
    stop,
    wait_until_listening,
)
from tournaments.models import Board, Round, RoundStatus

pytestmark = pytest.mark.browser


@pytest.mark.django_db(transaction=True)
def test_the_embedded_server_analyses_a_board_closed_after_start_up(
    make_tournament, make_user, open_page, tmp_path
):
    people = make_people(make_user, 8)
    tournament, round1, _tables = running_event(
        make_tournament, people, n_pairs=4, rounds=2, boards_per_round=2
    )
    port, log_path = free_port(), tmp_path / "server.log"
    server = start_server(port=port, log=log_path.open("w"), **EMBEDDED)
    try:
        wait_until_listening(port, server, log_path)
        # The bell rings now that the server runs: its clock closes the round.
        Round.objects.filter(pk=round1.pk).update(ends_at=timezone.now() + timedelta(seconds=1))
        deadline = time.monotonic() + 60
        while Round.objects.get(pk=round1.pk).status != RoundStatus.CLOSED:
            assert time.monotonic() < deadline, log_path.read_text()[-3000:]
            time.sleep(0.3)
        page = open_page()
        page.goto(f"http://127.0.0.1:{port}/t/{tournament.pk}/boards/1/")
        # Pending for a moment, then the page's own poll (every 5 s) brings the table.
        page.wait_for_selector("table.dd-table", timeout=90_000)
        assert "Par" in page.inner_text("#dd")
        assert "being prepared" not in page.inner_text("#dd")
    finally:
        stop(server)
    assert not Board.objects.filter(round=round1, double_dummy__isnull=True).exists()
