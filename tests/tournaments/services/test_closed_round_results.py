"""Closed is closed (issue 12, point 4): once its round is closed (or its bell has rung),
a board's result changes only by the director's hand. Confirmations and disputes are
refused with the clock's kind of message and change nothing."""

from __future__ import annotations

from datetime import timedelta

import pytest

from tests.support.clock import submit
from tournaments.errors import RoundClosed
from tournaments.models import BoardResult, Round, Table
from tournaments.services import results
from tournaments.services.clock import advance

pytestmark = pytest.mark.django_db

MINUTE = timedelta(minutes=1)
CLOSED = (
    "Round 1 closed at 14:20:00; its results can no longer be confirmed or disputed. "
    "Ask the director."
)


@pytest.fixture
def round1(make_tournament, register_pairs, t0):
    """Round 1 of 2 is open; table 1 entered board 1 (North), board 2 is still empty."""
    tournament = make_tournament(rounds=2, boards_per_round=2)
    register_pairs(tournament, 4)
    advance(now=t0)
    table = Table.objects.select_related("ns_pair", "ew_pair").get(
        round__tournament=tournament, number=1
    )
    submit(table, 1, "3NT", "N", 9, now=t0 + MINUTE)
    return table


def rows(table) -> list[dict]:
    return list(BoardResult.objects.filter(table=table).order_by("id").values())


def test_a_confirmed_board_cannot_be_disputed_after_the_close(round1, t0):
    table, east, west = round1, round1.ew_pair.player1, round1.ew_pair.player2
    result = BoardResult.objects.get(table=table, board__number=1)
    results.confirm_result(result=result, user=east, now=t0 + 2 * MINUTE)
    advance(now=t0 + 20 * MINUTE)
    assert Round.objects.get(pk=table.round_id).status == "closed"
    before = rows(table)
    with pytest.raises(RoundClosed) as refused:
        results.dispute_result(result=result, user=west, note="it was 4S", now=t0 + 21 * MINUTE)
    assert str(refused.value) == CLOSED
    assert rows(table) == before  # still confirmed by East, no note


def test_an_unconfirmed_board_cannot_be_confirmed_after_the_close(round1, t0):
    table, east = round1, round1.ew_pair.player1
    advance(now=t0 + 20 * MINUTE)
    result = BoardResult.objects.get(table=table, board__number=1)
    before = rows(table)
    with pytest.raises(RoundClosed, match="can no longer be confirmed or disputed"):
        results.confirm_result(result=result, user=east, now=t0 + 21 * MINUTE)
    assert rows(table) == before


def test_a_cut_off_board_cannot_be_disputed_by_either_side(round1, t0):
    table = round1
    advance(now=t0 + 20 * MINUTE)
    cut = BoardResult.objects.get(table=table, board__number=2)
    assert cut.state == "not_played"
    before = rows(table)
    for player in (table.ns_pair.player1, table.ew_pair.player2):
        with pytest.raises(RoundClosed, match="Round 1 closed at 14:20:00"):
            results.dispute_result(result=cut, user=player, note=f"{player} was there")
    assert rows(table) == before


def test_after_the_bell_before_the_clock_ticks_it_is_refused_too(round1, t0):
    """The bell has rung but the tick is a moment late: the round is over all the same,
    as for a late entry."""
    table, east = round1, round1.ew_pair.player1
    result = BoardResult.objects.get(table=table, board__number=1)
    assert Round.objects.get(pk=table.round_id).status == "open"
    before = rows(table)
    with pytest.raises(RoundClosed, match="Round 1 closed at 14:20:00"):
        results.confirm_result(result=result, user=east, now=t0 + 20 * MINUTE)
    assert rows(table) == before
    # A second before the bell it was still the players' to confirm.
    results.confirm_result(result=result, user=east, now=t0 + 20 * MINUTE - timedelta(seconds=1))
    result.refresh_from_db()
    assert result.confirmed_by == east


def test_the_director_still_rules_on_a_closed_round(round1, organiser, t0):
    table = round1
    advance(now=t0 + 20 * MINUTE)
    ruled = results.director_set_result(
        table=table,
        board_number=2,
        by=organiser,
        ns_adjustment="A",
        ew_adjustment="A",
        reason="cut off: slow table, both sides at fault",
        now=t0 + 25 * MINUTE,
    )
    assert (ruled.state, ruled.adjusted_by) == ("adjusted", organiser)
