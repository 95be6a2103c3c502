"""The demo played card by card: the seeding creates an online event, `make run`'s one
server (config.asgi_embedded: the clock inside) opens its round, and the robots play its
tables through the WebSockets; a player who logs in takes their seat back; when the
event ends the next one is created."""

from __future__ import annotations

import time

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from tests.support.uvicorn import free_port, start_server, stop, wait_until_listening
from tests.tournaments.robots.test_robot_tournament import Robots
from tournaments.demo.online import DEMO_ONLINE_NAME, ensure_online_demo, online_usernames
from tournaments.models import BoardResult, PlayAction, PlayMode, Tournament, TournamentStatus
from tournaments.robots.client import Pace
from tournaments.robots.runner import Options


@pytest.mark.django_db(transaction=True)
def test_the_online_demo_is_played_by_robots_on_the_embedded_server(tmp_path):
    demo = ensure_online_demo(
        pairs=4, rounds=2, boards_per_round=2, round_minutes=3, starts_in_seconds=2
    )
    tournament = demo.tournament
    assert demo.created and tournament.play == PlayMode.ONLINE
    assert tournament.pairs.count() == 4
    port, log_path = free_port(), tmp_path / "server.log"
    server = start_server(
        port=port,
        log=log_path.open("w"),
        app="config.asgi_embedded:application",
        lifespan="on",
    )
    robots = Robots(None, port)  # every seat of the online demo, as `play_robots --demo`
    robots.options = Options(
        base=f"ws://127.0.0.1:{port}",
        pace=Pace(),
        claim_after=3,
        names=(DEMO_ONLINE_NAME,),
        double_dummy=True,  # as `make run` plays it: the solver's cards
    )
    try:
        wait_until_listening(port, server, log_path)
        robots.thread.start()
        deadline = time.monotonic() + 240
        played = BoardResult.objects.filter(board__round__tournament=tournament, played_online=True)
        while not played.exists():
            assert time.monotonic() < deadline, log_path.read_text()[-3000:]
            assert robots.thread.is_alive(), robots.error
            time.sleep(0.5)
        # A player logs in: the robot in their seat leaves, and nothing more is played
        # from it (the others wait for them).
        username = online_usernames(8)[0]
        player = get_user_model().objects.get(username=username)
        player.last_login = timezone.now()
        player.save(update_fields=["last_login"])
        time.sleep(3)
        by_player = PlayAction.objects.filter(by=player)
        before = by_player.count()
        time.sleep(4)
        assert by_player.count() == before
    finally:
        try:
            robots.stop()
        finally:
            stop(server)
    assert PlayAction.objects.filter(table__round__tournament=tournament).count() > 20


@pytest.mark.django_db
def test_when_the_online_demo_ends_the_next_one_starts():
    first = ensure_online_demo(pairs=4, rounds=1, boards_per_round=1)
    again = ensure_online_demo(pairs=4, rounds=1, boards_per_round=1)
    assert first.created and not again.created
    assert again.tournament.pk == first.tournament.pk
    Tournament.objects.filter(pk=first.tournament.pk).update(status=TournamentStatus.FINISHED)
    second = ensure_online_demo(pairs=4, rounds=1, boards_per_round=1)
    assert second.created and second.tournament.pk != first.tournament.pk
    Tournament.objects.filter(pk=second.tournament.pk).update(status=TournamentStatus.FINISHED)
    third = ensure_online_demo(pairs=4, rounds=1, boards_per_round=1)
    # The last finished one stays (its results), older ones go.
    names = Tournament.objects.filter(name=DEMO_ONLINE_NAME)
    assert set(names.values_list("pk", flat=True)) == {second.tournament.pk, third.tournament.pk}
