"""Has the bell rung? One rule (`tournaments.round_rules`, RULES 3's table of what a pause
does), the same on every path that writes a round's play."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from tests.support.clock import submit
from tournaments import round_rules
from tournaments.errors import ClockError, RoundClosed
from tournaments.models import BoardResult, Round, Table
from tournaments.services import clock, results
from tournaments.services.clock import advance

MINUTE = timedelta(minutes=1)
NOON = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    "status, tournament_status, paused_at, now, rung",
    [
        ("open", "running", None, NOON - MINUTE, False),
        ("open", "running", None, NOON, True),  # the bell rings at ends_at
        ("open", "paused", NOON - MINUTE, NOON + MINUTE, False),  # paused before it
        ("open", "paused", NOON + MINUTE, NOON + 2 * MINUTE, True),  # paused after it
        ("open", "paused", NOON, NOON + MINUTE, True),  # paused at the very bell
        # A pause's time left behind once the tournament runs again counts for nothing.
        ("open", "running", NOON - MINUTE, NOON + MINUTE, True),
        ("closed", "running", None, NOON - MINUTE, True),  # closed early by the director
        ("closed", "paused", NOON - 2 * MINUTE, NOON - MINUTE, True),
        ("scheduled", "running", None, NOON - MINUTE, False),
    ],
)
def test_the_bell_rule(status, tournament_status, paused_at, now, rung):
    assert (
        round_rules.bell_rung(
            status=status,
            ends_at=NOON,
            tournament_status=tournament_status,
            paused_at=paused_at,
            now=now,
        )
        is rung
    )


def test_the_bell_time_of_a_round_closed_early_is_its_close():
    assert round_rules.bell_time(status="closed", ends_at=NOON, closed_at=NOON - MINUTE) == (
        NOON - MINUTE
    )
    assert round_rules.bell_time(status="closed", ends_at=NOON, closed_at=NOON + MINUTE) == NOON
    assert round_rules.bell_time(status="open", ends_at=NOON, closed_at=None) == NOON


@pytest.fixture
def running(make_tournament, register_pairs, t0):
    """Round 1 (20 minutes) open at t0, one result entered at table 1."""
    tournament = make_tournament(rounds=2, boards_per_round=2)
    register_pairs(tournament, 4)
    advance(now=t0)
    table = Table.objects.select_related("ns_pair__player1", "ew_pair__player1").get(
        round__tournament=tournament, round__number=1, number=1
    )
    entered = submit(table, 1, "4S", "N", 10, now=t0 + MINUTE)
    return tournament, table, entered


@pytest.mark.django_db
def test_a_bell_that_rang_before_the_pause_stays_rung_through_it_and_after(running, organiser, t0):
    tournament, table, entered = running
    round1 = Round.objects.get(tournament=tournament, number=1)
    bell = round1.ends_at
    clock.pause(tournament=tournament, by=organiser, now=bell + MINUTE)  # before any tick
    with pytest.raises(RoundClosed, match="closed at"):
        submit(table, 2, "3NT", "S", 9, now=bell + 2 * MINUTE)
    with pytest.raises(RoundClosed, match="can no longer be confirmed"):
        results.confirm_result(result=entered, user=table.ew_pair.player1, now=bell + 2 * MINUTE)
    with pytest.raises(ClockError, match="already reached its bell"):
        clock.extend_round(tournament=tournament, minutes=5, by=organiser, now=bell + 2 * MINUTE)
    clock.resume(tournament=tournament, by=organiser, now=bell + 10 * MINUTE)
    round1.refresh_from_db()
    assert round1.ends_at == bell  # not moved on: it had rung
    advance(now=bell + 10 * MINUTE)
    round1.refresh_from_db()
    assert round1.status == "closed"
    assert BoardResult.objects.get(pk=entered.pk).confirmed_by is None


@pytest.mark.django_db
def test_during_a_pause_before_the_bell_entries_wait_and_the_rest_goes_on(running, organiser, t0):
    tournament, table, entered = running
    round1 = Round.objects.get(tournament=tournament, number=1)
    bell = round1.ends_at
    clock.pause(tournament=tournament, by=organiser, now=bell - 5 * MINUTE)
    after_the_old_bell = bell + MINUTE
    with pytest.raises(RoundClosed, match="paused"):
        submit(table, 2, "3NT", "S", 9, now=after_the_old_bell)
    confirmed = results.confirm_result(
        result=entered, user=table.ew_pair.player1, now=after_the_old_bell
    )
    assert confirmed.confirmed_by == table.ew_pair.player1
    clock.extend_round(tournament=tournament, minutes=5, by=organiser, now=after_the_old_bell)
    clock.resume(tournament=tournament, by=organiser, now=bell + 10 * MINUTE)
    round1.refresh_from_db()
    # Five minutes were left at the pause, and five more were given.
    assert round1.ends_at == bell + 10 * MINUTE + 5 * MINUTE + 5 * MINUTE
    submit(table, 2, "3NT", "S", 9, now=bell + 11 * MINUTE)
