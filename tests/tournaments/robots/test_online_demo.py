"""The demo played card by card: the seeding creates the online events, `make run`'s one
server (config.asgi_embedded: the clock inside) opens their rounds, and the robots play
their tables through the WebSockets; a player who logs in takes their seat back; the
robots' event is followed by the next before it ends, so something is always live; a
person takes a seat in the other event, at a person's pace, and is never left an empty
seat in the next one; the home page says what the site is and how to take a seat."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from tests.support.browser.pw import log_in, shot
from tests.support.robots import Robots
from tests.support.uvicorn import free_port, start_server, stop, wait_until_listening
from tournaments.demo.online import (
    DEMO_ONLINE_NAME,
    DEMO_SEATS_NAME,
    SEATS,
    SHOWCASE,
    ensure_online_demo,
    ensure_online_demos,
    online_usernames,
)
from tournaments.demo.seed import DEMO_PLAYER_PASSWORD
from tournaments.models import (
    BoardResult,
    Pair,
    PlayAction,
    PlayMode,
    Round,
    RoundStatus,
    Tournament,
    TournamentStatus,
)
from tournaments.robots.client import Pace
from tournaments.robots.runner import HUMAN_HOLDS, Options, RobotTokens, open_seats
from tournaments.selectors.home import tournament_cards
from tournaments.services.clock import advance


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


def _players(tournament) -> set[str]:
    return {
        name
        for names in Pair.objects.filter(tournament=tournament).values_list(
            "player1__username", "player2__username"
        )
        for name in names
    }


@pytest.mark.django_db
def test_the_robots_event_is_followed_before_it_ends_so_something_is_always_live():
    """An hour of `make run` on the clock, as the robots' runner calls the demo before
    each poll: from the first start on, a robots' event is always running (the home page's
    "Playing now"), its successor already running before its last bell, each with players
    of its own."""
    start = timezone.now().replace(microsecond=0)
    ensure_online_demos(now=start)
    first = Tournament.objects.get(name=DEMO_ONLINE_NAME)
    overlaps = set()
    moment = first.start_at + timedelta(seconds=1)
    while moment < start + timedelta(hours=1):
        advance(now=moment)
        ensure_online_demos(now=moment)
        running = [
            c.tournament for c in tournament_cards(now=moment)["running"]
            if c.tournament.name == DEMO_ONLINE_NAME
        ]  # fmt: skip
        assert running, f"nothing of the robots' is being played at {moment}"
        if len(running) == 2:
            overlaps.add(tuple(sorted(t.pk for t in running)))
            assert not _players(running[0]) & _players(running[1])
        moment += timedelta(seconds=10)
    # A robots' event lasts about twelve minutes: four changes of event in the hour, each
    # with both events live at once.
    assert len(overlaps) >= 4, overlaps
    # The finished ones but the last are removed; the seat-taking event rolled on too.
    assert (
        Tournament.objects.filter(name=DEMO_ONLINE_NAME, status=TournamentStatus.FINISHED).count()
        == 1
    )
    assert (
        Tournament.objects.filter(name=DEMO_SEATS_NAME)
        .exclude(status=TournamentStatus.FINISHED)
        .exists()
    )


@pytest.mark.django_db(transaction=True)  # the robots' reading closes its connection
def test_a_person_who_took_a_seat_leaves_no_empty_seat_in_the_next_event():
    now = timezone.now().replace(microsecond=0)
    event = ensure_online_demo(kind=SEATS, now=now).tournament
    # Human-paced: minutes per board, where the robots' event gives them 50 seconds.
    assert event.round_length / event.boards_per_round >= timedelta(minutes=4)
    assert SHOWCASE.round_minutes * 60 / SHOWCASE.boards_per_round < 60
    # A login holds its seat for HUMAN_HOLDS: longer than the whole event.
    length = event.rounds * event.round_length + (event.rounds - 1) * event.gap_length
    assert length + timedelta(seconds=20) < HUMAN_HOLDS
    person = get_user_model().objects.get(username="seat01")
    assert "seat01" in _players(event)
    person.last_login = now + timedelta(minutes=1)  # takes the seat
    person.save(update_fields=["last_login"])
    Tournament.objects.filter(pk=event.pk).update(status=TournamentStatus.FINISHED)
    later = now + timedelta(minutes=10)
    following = ensure_online_demo(kind=SEATS, now=later)
    assert following.created
    assert "seat01" not in _players(following.tournament)
    assert len(_players(following.tournament)) == SEATS.pairs * 2
    # Its round opens: the robots take every seat of it; none waits for a person gone.
    advance(now=following.tournament.start_at)
    round1 = Round.objects.get(tournament=following.tournament, number=1)
    assert round1.status == RoundStatus.OPEN
    seats = open_seats(
        tournament_ids=[following.tournament.pk],
        since=now,
        tokens=RobotTokens(),
        heuristic=True,
        plan_cache={},
        now=following.tournament.start_at,
    )
    assert len(seats) == SEATS.pairs * 2  # every player's seat: two to a pair


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_home_page_says_what_the_site_is_and_how_to_take_a_seat(open_page, live_server):
    made = {d.tournament.name: d.tournament for d in ensure_online_demos(starts_in_seconds=0)}
    seats_event = made[DEMO_SEATS_NAME]
    advance(now=seats_event.start_at)  # round 1 opens
    base = live_server.url
    for locale, language, width, height in (
        ("en-GB", "en", 1280, 900),
        ("en-GB", "en", 390, 844),
        ("zh-CN", "zh-hans", 1280, 900),
        ("zh-CN", "zh-hans", 390, 844),
    ):
        page = open_page(locale=locale, width=width, height=height)
        page.goto(f"{base}/")
        welcome = page.locator("section.welcome")
        text = welcome.inner_text()
        offered = welcome.locator(".login-name").first.inner_text()
        assert offered == "seat01"
        if language == "en":
            assert "Swiss pairs" in text and "Take a seat" in text
            assert "9 minutes for 2 boards" in text and DEMO_PLAYER_PASSWORD in text
        else:
            assert "瑞士移位双人赛" in text and "入座" in text
            assert "每轮有 9 分钟打 2 副牌" in text and DEMO_PLAYER_PASSWORD in text
        shot(page, f"home-welcome-{language}-{width}")
    # The person logs in as the player offered and finds their table in that event.
    page = open_page()
    log_in(page, base, "seat01", DEMO_PLAYER_PASSWORD)
    assert not page.locator("section.welcome").count()
    seat = page.locator("section.your-table")
    assert DEMO_SEATS_NAME in seat.inner_text()
    seat.get_by_role("link", name="Sit down at your table").wait_for()
    # Nobody else is offered the seat just taken.
    other = open_page()
    other.goto(f"{base}/")
    assert other.locator("section.welcome .login-name").first.inner_text() == "seat02"
