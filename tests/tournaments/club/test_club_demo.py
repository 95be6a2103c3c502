"""The club in `make run`'s demo: members and two tables formed by the seeding, played
board after board by the demo's robots on the embedded server (the demo's members never
log in), formed once a week however often the seeding runs."""

from __future__ import annotations

import time

import pytest

from tests.support.robots import Robots
from tests.support.uvicorn import free_port, start_server, stop, wait_until_listening
from tournaments import permissions
from tournaments.demo.club import club_usernames, ensure_club_demo
from tournaments.demo.online import DEMO_ONLINE_NAME
from tournaments.models import ClubScore, ClubSystem, ClubTableStatus
from tournaments.robots.client import Pace
from tournaments.robots.runner import Options


@pytest.mark.django_db(transaction=True)
def test_the_demos_club_tables_are_played_by_its_robots(tmp_path, django_user_model):
    made = ensure_club_demo()
    assert sorted(t.field.system for t in made) == [ClubSystem.FULL_FIELD_IMPS, ClubSystem.HANDICAP]
    for table in made:
        table.refresh_from_db()
        assert table.status == ClubTableStatus.PLAYING
    assert ensure_club_demo() == []  # already playing this week
    for user in django_user_model.objects.filter(username__in=club_usernames()):
        assert user.has_perm(permissions.CLUB_MEMBER)
    port, log_path = free_port(), tmp_path / "server.log"
    server = start_server(
        port=port, log=log_path.open("w"), app="config.asgi_embedded:application", lifespan="on"
    )
    robots = Robots(None, port)  # as `play_robots --demo`
    robots.options = Options(
        base=f"ws://127.0.0.1:{port}", pace=Pace(), claim_after=3, names=(DEMO_ONLINE_NAME,)
    )
    try:
        wait_until_listening(port, server, log_path)
        robots.thread.start()
        deadline = time.monotonic() + 120
        while ClubScore.objects.values("field").distinct().count() < 2:
            assert time.monotonic() < deadline, log_path.read_text()[-3000:]
            assert robots.thread.is_alive(), robots.error
            time.sleep(0.5)
    finally:
        try:
            robots.stop()
        finally:
            stop(server)
    # Both tables finished a board and were dealt their next.
    for table in made:
        table.refresh_from_db()
        assert table.table.round.boards.count() >= 2
