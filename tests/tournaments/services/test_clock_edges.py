"""Small edges of the clock (issue 14, point 8): registration while paused before the
start, extending a paused round whose bell passed during the pause, and a clock that
stalled through a whole round."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse

from tests.support.clock import rounds_of, submit
from tournaments.errors import ClockError, RegistrationError
from tournaments.models import Pair, Round, Table
from tournaments.services import clock, registration
from tournaments.services.clock import advance

pytestmark = pytest.mark.django_db

MINUTE = timedelta(minutes=1)


def test_a_tournament_paused_before_it_starts_still_takes_registrations(
    make_tournament, register_pairs, make_user, organiser, t0
):
    tournament = make_tournament()
    clock.pause(tournament=tournament, by=organiser, now=t0 - 30 * MINUTE)
    tournament.refresh_from_db()
    assert registration.registration_problem(tournament, t0 - 20 * MINUTE) is None
    register_pairs(tournament, 2, now=t0 - 20 * MINUTE)  # the organiser's way
    a, b = make_user(), make_user()
    pair = registration.propose_pair(
        tournament=tournament, proposer=a, partner_username=b.username, now=t0 - 20 * MINUTE
    )
    registration.confirm_pair(pair=pair, user=b, now=t0 - 19 * MINUTE)  # the players' way
    assert Pair.objects.filter(tournament=tournament, status="confirmed").count() == 3

    # Once it has started, paused or not, registration is closed.
    clock.resume(tournament=tournament, by=organiser, now=t0 - 10 * MINUTE)  # start: t0+20
    advance(now=t0 + 20 * MINUTE)
    clock.pause(tournament=tournament, by=organiser, now=t0 + 21 * MINUTE)
    tournament.refresh_from_db()
    with pytest.raises(RegistrationError, match="has started"):
        register_pairs(tournament, 1, now=t0 + 22 * MINUTE)
    assert Pair.objects.filter(tournament=tournament).count() == 3


def test_a_paused_round_whose_bell_passed_during_the_pause_can_be_extended(
    make_tournament, register_pairs, organiser, t0
):
    tournament = make_tournament()
    register_pairs(tournament, 4)
    advance(now=t0)  # round 1: t0 to t0+20
    clock.pause(tournament=tournament, by=organiser, now=t0 + 10 * MINUTE)
    # The original bell (t0+20) has passed; the round is paused, not over.
    clock.extend_round(tournament=tournament, by=organiser, minutes=5, now=t0 + 30 * MINUTE)
    assert rounds_of(tournament)[0][3] == t0 + 25 * MINUTE
    clock.resume(tournament=tournament, by=organiser, now=t0 + 40 * MINUTE)
    # Resume moves the bell by the pause's 30 minutes anyway: 15 minutes left, as at the pause
    # plus the 5 added.
    assert rounds_of(tournament)[0] == (1, "open", t0, t0 + 55 * MINUTE)
    table = Table.objects.filter(round__tournament=tournament).first()
    submit(table, 1, "3NT", "N", 9, now=t0 + 50 * MINUTE)
    assert not advance(now=t0 + 54 * MINUTE)
    advance(now=t0 + 55 * MINUTE)
    assert rounds_of(tournament)[0][1] == "closed"


def test_a_bell_that_rang_before_the_pause_cannot_be_extended(
    make_tournament, register_pairs, organiser, t0
):
    tournament = make_tournament()
    register_pairs(tournament, 4)
    advance(now=t0)
    clock.pause(tournament=tournament, by=organiser, now=t0 + 21 * MINUTE)  # the tick was late
    before = rounds_of(tournament)
    with pytest.raises(ClockError, match="already reached its bell"):
        clock.extend_round(tournament=tournament, by=organiser, minutes=5, now=t0 + 22 * MINUTE)
    assert rounds_of(tournament) == before


def test_a_clock_that_woke_late_in_the_gap_keeps_the_timetable_and_says_so(
    make_tournament, register_pairs, organiser, client, t0
):
    tournament = make_tournament(gap_length=30 * MINUTE)
    register_pairs(tournament, 4)
    advance(now=t0)
    advance(now=t0 + 35 * MINUTE)  # 15 minutes after the bell, still in the gap
    assert rounds_of(tournament) == [
        (1, "closed", t0, t0 + 20 * MINUTE),
        (2, "scheduled", t0 + 50 * MINUTE, t0 + 70 * MINUTE),  # as planned
    ]
    r1, r2 = Round.objects.filter(tournament=tournament).order_by("number")
    assert "The bell of 14:20 rang at 14:35" in r1.clock_note
    assert "starts as planned" in r2.clock_note

    client.force_login(organiser)
    page = client.get(reverse("admin:tournaments_tournament_change", args=[tournament.pk]))
    assert "The bell of 14:20 rang at 14:35" in page.content.decode()


def test_a_clock_that_stalled_through_a_whole_round_gives_the_next_its_full_length_and_says_so(
    make_tournament, register_pairs, t0
):
    tournament = make_tournament(rounds=3)
    register_pairs(tournament, 4)
    advance(now=t0)
    advance(now=t0 + 20 * MINUTE)  # round 2: t0+20 to t0+40
    woke = t0 + 65 * MINUTE  # slept through round 2's bell and round 3's planned slot
    advance(now=woke)
    assert rounds_of(tournament) == [
        (1, "closed", t0, t0 + 20 * MINUTE),
        (2, "closed", t0 + 20 * MINUTE, t0 + 40 * MINUTE),
        (3, "open", woke, woke + 20 * MINUTE),
    ]
    r2, r3 = Round.objects.filter(tournament=tournament, number__gte=2).order_by("number")
    assert "The bell of 14:40 rang at 15:05" in r2.clock_note
    assert "Scheduled to start at 14:40" in r3.clock_note
    assert "woke at 15:05" in r3.clock_note


def test_an_on_time_clock_writes_no_note(make_tournament, register_pairs, t0):
    tournament = make_tournament()
    register_pairs(tournament, 4)
    advance(now=t0)
    advance(now=t0 + 20 * MINUTE + 30 * timedelta(seconds=1))
    notes = Round.objects.filter(tournament=tournament).values_list("clock_note", flat=True)
    assert set(notes) == {""}
