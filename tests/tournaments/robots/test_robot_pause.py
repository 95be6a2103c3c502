"""A robot-played round paused and resumed goes on to the bell with every table moving
(issue 24, item 10): robots hold their seats through a pause — nothing is played while it
lasts, and no robot leaves — and play on after the resume. `play_robots`' runner on its
own event loop, every seat a robot on a real WebSocket to a uvicorn subprocess; the
director's pause and resume reach the server's sockets over Redis, as in production."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.db.models import Count
from django.test import override_settings
from django.utils import timezone

from tests.support.online_ws import open_online_round
from tests.support.robots import Robots
from tests.support.servers import redis_url  # noqa: F401  (the fixture)
from tests.support.uvicorn import free_port, start_server, stop, wait_until_listening
from tournaments.models import BoardResult, PlayAction, Table, Tournament, TournamentStatus
from tournaments.robots.client import Pace
from tournaments.services import clock

PAIRS, BOARDS = 8, 3


def actions_by_table(round_id: int) -> dict[int, int]:
    counted = (
        PlayAction.objects.filter(table__round_id=round_id)
        .values("table_id")
        .annotate(n=Count("id"))
        .order_by()
    )
    found = {row["table_id"]: row["n"] for row in counted}
    return {t: found.get(t, 0) for t in Table.objects.filter(round_id=round_id).values_list(
        "id", flat=True)}  # fmt: skip


def wait_for(condition, *, seconds: float, log_path, robots) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, log_path.read_text()[-3000:]
        assert robots.thread.is_alive(), robots.error
        time.sleep(0.3)


def redis_layer(url: str) -> dict:
    return {
        "default": {
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {"hosts": [url], "prefix": "swiss-tables"},
        }
    }


@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_robots_hold_their_seats_through_a_pause_and_play_on_to_the_bell(
    make_tournament,
    register_pairs,
    director,
    tmp_path,
    redis_url,  # noqa: F811
):
    first, tables = open_online_round(
        make_tournament, register_pairs, pairs=PAIRS, boards=BOARDS, rounds=1,
        round_length=timedelta(hours=1),
    )  # fmt: skip
    tournament = Tournament.objects.get(pk=first.tournament_id)
    port, log_path = free_port(), tmp_path / "server.log"
    server = start_server(port=port, redis=redis_url, log=log_path.open("w"))
    robots = Robots(tournament.pk, port)
    robots.options = type(robots.options)(
        base=f"ws://127.0.0.1:{port}", pace=Pace(0.2, 0.4), claim_after=1, poll=0.5
    )
    try:
        wait_until_listening(port, server, log_path)
        robots.thread.start()
        # Every table is under way, and no board is over yet anywhere.
        wait_for(lambda: min(actions_by_table(first.pk).values()) >= 3, seconds=120,
                 log_path=log_path, robots=robots)  # fmt: skip
        with override_settings(CHANNEL_LAYERS=redis_layer(redis_url)):
            clock.pause(tournament=tournament, by=director)
        time.sleep(1.5)  # an action sent as the pause came is refused, or counted before
        at_pause = actions_by_table(first.pk)
        time.sleep(4)  # several of the runner's polls, and of the robots' paces
        assert actions_by_table(first.pk) == at_pause  # nothing played while paused
        assert robots.counts is None and robots.thread.is_alive()

        with override_settings(CHANNEL_LAYERS=redis_layer(redis_url)):
            clock.resume(tournament=Tournament.objects.get(pk=tournament.pk), by=director)
        # Every table moves again: each has more actions than at the pause.
        wait_for(
            lambda: all(n > at_pause[t] for t, n in actions_by_table(first.pk).items()),
            seconds=120, log_path=log_path, robots=robots,
        )  # fmt: skip
        # And goes on to the end of its boards: the director then rings the bell.
        wait_for(
            lambda: BoardResult.objects.filter(board__round=first).count()
            == len(tables) * BOARDS,
            seconds=300, log_path=log_path, robots=robots,
        )  # fmt: skip
        clock.close_round_now(tournament=Tournament.objects.get(pk=tournament.pk), by=director)
        clock.advance(now=timezone.now())
        robots.thread.join(timeout=60)
    finally:
        try:
            robots.stop()
        finally:
            stop(server)
    assert robots.error is None, robots.error
    assert Tournament.objects.get(pk=tournament.pk).status == TournamentStatus.FINISHED
    # Every seat's robot played its boards to the end: none left, none failed.
    assert robots.counts is not None and set(robots.counts) == {"done"}, robots.counts
    assert robots.counts["done"] == len(tables) * 4
    assert all(result.played_online for result in BoardResult.objects.filter(board__round=first))
