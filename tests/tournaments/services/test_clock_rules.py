"""The round clock's rules one at a time (RULES 3): the bell, late ticks, the organiser's
actions (start now, close now, extend, pause/resume, re-score) and their refusals."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.db import IntegrityError, transaction

from tests.support import clock as clock_support
from tests.support.clock import submit
from tournaments.errors import ClockError, RoundClosed
from tournaments.models import (
    Board,
    BoardResult,
    ClockHeartbeat,
    MasterPointAward,
    Pair,
    PairBoardScore,
    PlayerProfile,
    Round,
    Standing,
    Table,
)
from tournaments.services import board_scoring, clock, registration, results
from tournaments.services.clock import advance

pytestmark = pytest.mark.django_db

MINUTE = timedelta(minutes=1)


def rounds_of(tournament) -> list[tuple]:
    """(number, status, starts_at, ends_at, closed_at) of each round, in order."""
    return clock_support.rounds_of(tournament, "closed_at")


def state(tournament) -> tuple:
    """Everything an organiser action may change, to prove a refusal changed nothing."""
    t = type(tournament).objects.filter(pk=tournament.pk).values().get()
    return (
        t,
        rounds_of(tournament),
        list(BoardResult.objects.filter(board__tournament=tournament).order_by("id").values()),
        list(Pair.objects.filter(tournament=tournament).order_by("id").values()),
        PairBoardScore.objects.filter(board__tournament=tournament).count(),
    )


@pytest.fixture
def event(make_tournament, register_pairs):
    """A 4-pair, 3-round, 2-board IMP event starting at t0 (14:00 Shanghai), 20' rounds."""

    def make(pairs: int = 4, **fields):
        tournament = make_tournament(**fields)
        register_pairs(tournament, pairs)
        return tournament

    return make


# --- start ------------------------------------------------------------------------------


def test_random_first_round_draw_seats_everyone(event, t0):
    tournament = event(pairs=6, first_round_draw="random")
    report = advance(now=t0)
    assert any("random draw seed" in e for e in report.events), report.events
    (rnd,) = Round.objects.filter(tournament=tournament)
    seated = Table.objects.filter(round=rnd).values_list("ns_pair_id", "ew_pair_id")
    assert sorted(p for t in seated for p in t) == sorted(
        Pair.objects.filter(tournament=tournament).values_list("id", flat=True)
    )


def test_the_random_draw_can_be_replayed_from_its_stored_seed(event, t0):
    import pairing

    tournament = event(pairs=8, first_round_draw="random")
    report = advance(now=t0)
    tournament.refresh_from_db()
    assert tournament.draw_seed is not None
    assert any(f"seed {tournament.draw_seed}" in e for e in report.events), report.events
    states = [
        pairing.PairState(pair_id=pid, registration_no=reg)
        for pid, reg in Pair.objects.filter(tournament=tournament)
        .order_by("registration_no")
        .values_list("id", "registration_no")
    ]
    replay = pairing.seat_first_round(states, random_draw=True, seed=tournament.draw_seed)
    seated = list(
        Table.objects.filter(round__tournament=tournament)
        .order_by("number")
        .values_list("ns_pair_id", "ew_pair_id")
    )
    assert [(t.ns, t.ew) for t in replay.tables] == seated


def test_seating_by_registration_order_has_no_seed(event, t0):
    tournament = event(pairs=4)
    advance(now=t0)
    tournament.refresh_from_db()
    assert tournament.draw_seed is None


def test_a_tournament_without_two_pairs_does_not_start(event, t0):
    tournament = event(pairs=1)
    assert not advance(now=t0 + MINUTE)
    tournament.refresh_from_db()
    assert tournament.status == "scheduled"
    assert not Round.objects.filter(tournament=tournament).exists()
    assert ClockHeartbeat.objects.get(name="clock").last_error == ""


def test_registration_closes_and_pending_proposals_lapse_at_the_start(event, make_user, t0):
    tournament = event(pairs=4)
    a, b = make_user(), make_user()
    pending = registration.propose_pair(
        tournament=tournament, proposer=a, partner_username=b.username, now=t0 - MINUTE
    )
    advance(now=t0)
    assert not Pair.objects.filter(pk=pending.pk).exists()
    assert registration.registration_problem(tournament, t0) is not None


def test_start_now_and_its_refusals(organiser, event, t0):
    early = t0 - timedelta(hours=2)
    lonely = event(pairs=1)
    before = state(lonely)
    with pytest.raises(ClockError, match="at least two registered pairs"):
        clock.start_now(by=organiser, tournament=lonely, now=early)
    assert state(lonely) == before

    tournament = event(pairs=4)
    events = list(clock.start_now(by=organiser, tournament=tournament, now=early).messages)
    assert events == [f"{tournament.name}: started, round 1 seated (2 tables)"]
    assert rounds_of(tournament) == [(1, "open", early, early + timedelta(minutes=20), None)]
    before = state(tournament)
    with pytest.raises(ClockError, match="already started"):
        clock.start_now(by=organiser, tournament=tournament, now=early + MINUTE)
    assert state(tournament) == before

    paused = event(pairs=4)
    clock.pause(by=organiser, tournament=paused, now=early)
    with pytest.raises(ClockError, match="paused; resume it first"):
        clock.start_now(by=organiser, tournament=paused, now=early + MINUTE)


def test_advance_reads_the_real_clock_when_not_told(event, t0):
    tournament = event()
    with time_machine.travel(t0 + timedelta(seconds=1), tick=False):
        advance()
    assert rounds_of(tournament)[0][:3] == (1, "open", t0)
    beat = ClockHeartbeat.objects.get(name="clock")
    assert beat.last_tick_at == t0 + timedelta(seconds=1)


def test_heartbeat_records_every_tick(event, t0):
    event()
    advance(now=t0, driver="pytest")
    advance(now=t0 + MINUTE, driver="pytest-2")
    beat = ClockHeartbeat.objects.get(name="clock")
    assert (beat.last_tick_at, beat.last_driver, beat.ticks, beat.last_error) == (
        t0 + MINUTE,
        "pytest-2",
        2,
        "",
    )


# --- late ticks ---------------------------------------------------------------------------


def test_a_slightly_late_tick_keeps_the_timetable(event, t0):
    tournament = event()
    advance(now=t0 + timedelta(seconds=30))
    advance(now=t0 + timedelta(minutes=20, seconds=45))
    assert rounds_of(tournament) == [
        (1, "closed", t0, t0 + 20 * MINUTE, t0 + timedelta(minutes=20, seconds=45)),
        (2, "open", t0 + 20 * MINUTE, t0 + 40 * MINUTE, None),
    ]


def test_a_stalled_clock_gives_the_next_round_its_full_length(event, t0):
    tournament = event()
    advance(now=t0)
    woke = t0 + 25 * MINUTE  # five minutes after the bell
    advance(now=woke)
    assert rounds_of(tournament) == [
        (1, "closed", t0, t0 + 20 * MINUTE, woke),
        (2, "open", woke, woke + 20 * MINUTE, None),
    ]


def test_a_tick_later_than_a_short_round_does_not_cut_it_off(event, t0):
    """Rounds of seconds (the Celery test): a tick 5 s late must not open round 1 and
    close it in the same breath with nobody having played."""
    tournament = event(round_length=timedelta(seconds=3))
    late = t0 + timedelta(seconds=5)
    advance(now=late)
    assert rounds_of(tournament) == [(1, "open", late, late + timedelta(seconds=3), None)]


def test_a_round_seated_in_a_gap_the_clock_slept_through_still_gets_played(event, t0):
    tournament = event(gap_length=5 * MINUTE)
    advance(now=t0)
    advance(now=t0 + 20 * MINUTE)
    assert rounds_of(tournament)[1] == (2, "scheduled", t0 + 25 * MINUTE, t0 + 45 * MINUTE, None)
    woke = t0 + 60 * MINUTE  # past round 2's own bell
    advance(now=woke)
    assert rounds_of(tournament)[1] == (2, "open", woke, woke + 20 * MINUTE, None)


# --- the bell -----------------------------------------------------------------------------


def test_a_result_is_accepted_up_to_the_bell_and_refused_from_it(event, t0):
    tournament = event()
    advance(now=t0)
    rnd = Round.objects.get(tournament=tournament, number=1)
    t1, t2 = Table.objects.filter(round=rnd).order_by("number")
    bell = rnd.ends_at
    submit(t1, 1, "3NT", "N", 9, now=bell - timedelta(microseconds=1))
    before = state(tournament)
    # The clock has not ticked yet, but the bell has rung: refused all the same.
    with pytest.raises(RoundClosed) as refused:
        submit(t2, 1, "4S", "S", 10, now=bell)
    assert str(refused.value) == ("Round 1 closed at 14:20:00; results can no longer be entered.")
    assert state(tournament) == before
    # The tick comes three seconds late; the message still names the bell.
    advance(now=bell + timedelta(seconds=3))
    with pytest.raises(RoundClosed, match="Round 1 closed at 14:20:00;"):
        submit(t1, 2, "4S", "S", 10, now=bell + timedelta(seconds=4))
    stored = BoardResult.objects.get(table=t1, board__number=1)
    assert (stored.state, stored.ns_score) == ("played", 400)
    assert PairBoardScore.objects.filter(result=stored, completed=True).count() == 2
    cut = BoardResult.objects.get(table=t2, board__number=1)
    assert (cut.state, cut.entered_by) == ("not_played", None)


def test_a_round_in_its_gap_refuses_results_until_it_starts(event, t0):
    tournament = event(gap_length=5 * MINUTE)
    advance(now=t0)
    advance(now=t0 + 20 * MINUTE)
    table = Table.objects.filter(round__tournament=tournament, round__number=2).first()
    with pytest.raises(RoundClosed, match="Round 2 has not started yet; it starts at 14:25:00."):
        submit(table, 3, "3NT", "N", 9, now=t0 + 22 * MINUTE)
    # From its start time on, even before the tick that marks it open.
    submit(table, 3, "3NT", "N", 9, now=t0 + 25 * MINUTE)
    advance(now=t0 + 25 * MINUTE + timedelta(seconds=1))
    assert rounds_of(tournament)[1][:3] == (2, "open", t0 + 25 * MINUTE)
    assert BoardResult.objects.get(table=table, board__number=3).ns_score == 400


def test_deals_come_from_the_operating_system_csprng():
    import secrets

    from tournaments import deals

    assert isinstance(deals._system_random, secrets.SystemRandom)
    hands = deals.hands_of(deals.generate_deal())
    assert sorted(hands) == ["E", "N", "S", "W"]
    assert sum(deals.high_card_points(hand) for hand in hands.values()) == 40


def test_a_result_cannot_be_entered_for_another_round_board(event, t0):
    tournament = event()
    advance(now=t0)
    table = Table.objects.filter(round__tournament=tournament).first()
    with pytest.raises(results.NotFound, match="Board 3 is not played in round 1"):
        submit(table, 3, "3NT", "N", 9, now=t0 + MINUTE)


# --- organiser actions --------------------------------------------------------------------


def test_close_round_now(organiser, event, t0):
    tournament = event(gap_length=2 * MINUTE)
    before = state(tournament)
    with pytest.raises(ClockError, match="no round in play"):
        clock.close_round_now(by=organiser, tournament=tournament, now=t0 - MINUTE)
    assert state(tournament) == before

    advance(now=t0)
    table = Table.objects.filter(round__tournament=tournament).order_by("number").first()
    submit(table, 1, "3NT", "N", 9, now=t0 + 5 * MINUTE)
    event_text = clock.close_round_now(
        by=organiser, tournament=tournament, now=t0 + 10 * MINUTE, round_number=1
    ).text
    assert event_text == f"{tournament.name}: round 1 closed, round 2 seated"
    assert rounds_of(tournament) == [
        (1, "closed", t0, t0 + 20 * MINUTE, t0 + 10 * MINUTE),
        (2, "scheduled", t0 + 12 * MINUTE, t0 + 32 * MINUTE, None),
    ]
    with pytest.raises(RoundClosed, match="Round 1 closed at 14:10:00;"):
        submit(table, 2, "3NT", "N", 9, now=t0 + 11 * MINUTE)
    assert not advance(now=t0 + 11 * MINUTE)

    # Round 2 is seated but not open: there is nothing to close.
    before = state(tournament)
    with pytest.raises(ClockError, match="no open round"):
        clock.close_round_now(by=organiser, tournament=tournament, now=t0 + 11 * MINUTE)
    assert state(tournament) == before
    advance(now=t0 + 12 * MINUTE)
    # The organiser looked at round 1; round 2 is in play by the time of the click.
    before = state(tournament)
    with pytest.raises(ClockError, match="Round 1 is no longer in play"):
        clock.close_round_now(
            by=organiser, tournament=tournament, now=t0 + 13 * MINUTE, round_number=1
        )
    assert state(tournament) == before


def test_close_round_now_on_the_last_round_publishes_results(organiser, event, t0):
    tournament = event(rounds=1)
    advance(now=t0)
    text = clock.close_round_now(by=organiser, tournament=tournament, now=t0 + 5 * MINUTE).text
    assert text == f"{tournament.name}: round 1 closed, results published"
    tournament.refresh_from_db()
    assert (tournament.status, tournament.finished_at) == ("finished", t0 + 5 * MINUTE)
    with pytest.raises(ClockError, match="no round in play"):
        clock.close_round_now(by=organiser, tournament=tournament, now=t0 + 6 * MINUTE)


def test_extend_round_and_its_refusals(organiser, event, t0):
    tournament = event()
    for minutes in (0, -5, 24 * 60 + 1, None):
        with pytest.raises(ClockError, match="positive number of minutes"):
            clock.extend_round(by=organiser, tournament=tournament, minutes=minutes, now=t0)
    with pytest.raises(ClockError, match="no round in play"):
        clock.extend_round(by=organiser, tournament=tournament, minutes=5, now=t0 - MINUTE)
    advance(now=t0)
    clock.extend_round(by=organiser, tournament=tournament, minutes=5, now=t0 + 10 * MINUTE)
    assert rounds_of(tournament) == [(1, "open", t0, t0 + 25 * MINUTE, None)]
    assert not advance(now=t0 + 20 * MINUTE)
    table = Table.objects.filter(round__tournament=tournament).first()
    submit(table, 1, "3NT", "N", 9, now=t0 + 22 * MINUTE)  # the extra time is playable
    before = state(tournament)
    with pytest.raises(ClockError, match="Round 2 is no longer in play"):
        clock.extend_round(by=organiser, tournament=tournament, minutes=5, now=t0, round_number=2)
    # Past the (extended) bell but before the tick: too late to extend.
    with pytest.raises(ClockError, match="already reached its bell"):
        clock.extend_round(by=organiser, tournament=tournament, minutes=5, now=t0 + 25 * MINUTE)
    assert state(tournament) == before
    advance(now=t0 + 25 * MINUTE)
    assert rounds_of(tournament)[0][1] == "closed"


def test_pause_stops_the_clock_and_resume_moves_the_deadlines(organiser, event, t0):
    tournament = event(gap_length=3 * MINUTE)
    advance(now=t0)
    table = Table.objects.filter(round__tournament=tournament).first()
    clock.pause(by=organiser, tournament=tournament, now=t0 + 5 * MINUTE)
    with pytest.raises(ClockError, match="Only a scheduled or running"):
        clock.pause(by=organiser, tournament=tournament, now=t0 + 6 * MINUTE)
    before = state(tournament)
    with pytest.raises(RoundClosed, match="paused"):
        submit(table, 1, "3NT", "N", 9, now=t0 + 6 * MINUTE)
    assert not advance(now=t0 + 21 * MINUTE), "no bell while paused"
    assert state(tournament) == before

    clock.resume(by=organiser, tournament=tournament, now=t0 + 22 * MINUTE)  # paused 17 minutes
    assert rounds_of(tournament) == [(1, "open", t0, t0 + 37 * MINUTE, None)]
    submit(table, 1, "3NT", "N", 9, now=t0 + 30 * MINUTE)
    with pytest.raises(ClockError, match="not paused"):
        clock.resume(by=organiser, tournament=tournament, now=t0 + 31 * MINUTE)
    assert not advance(now=t0 + 37 * MINUTE - timedelta(seconds=1))
    advance(now=t0 + 37 * MINUTE)
    assert rounds_of(tournament)[1] == (2, "scheduled", t0 + 40 * MINUTE, t0 + 60 * MINUTE, None)

    # A pause in the gap moves the next round's start as well as its end.
    clock.pause(by=organiser, tournament=tournament, now=t0 + 38 * MINUTE)
    clock.resume(by=organiser, tournament=tournament, now=t0 + 48 * MINUTE)
    assert rounds_of(tournament)[1] == (2, "scheduled", t0 + 50 * MINUTE, t0 + 70 * MINUTE, None)


def test_a_pause_before_the_start_moves_the_start(organiser, event, t0):
    tournament = event()
    clock.pause(by=organiser, tournament=tournament, now=t0 - 10 * MINUTE)
    assert not advance(now=t0)
    clock.resume(by=organiser, tournament=tournament, now=t0 + 5 * MINUTE)
    tournament.refresh_from_db()
    assert (tournament.status, tournament.start_at) == ("scheduled", t0 + 15 * MINUTE)
    assert not advance(now=t0 + 14 * MINUTE)
    advance(now=t0 + 15 * MINUTE)
    assert rounds_of(tournament)[0][:3] == (1, "open", t0 + 15 * MINUTE)


def test_close_round_now_while_paused_resumes_first(organiser, event, t0):
    tournament = event()
    advance(now=t0)
    clock.pause(by=organiser, tournament=tournament, now=t0 + 5 * MINUTE)
    clock.close_round_now(by=organiser, tournament=tournament, now=t0 + 8 * MINUTE)
    tournament.refresh_from_db()
    assert (tournament.status, tournament.paused_at) == ("running", None)
    assert rounds_of(tournament)[1][:3] == (2, "open", t0 + 8 * MINUTE)


# --- withdrawals --------------------------------------------------------------------------


def test_everyone_but_one_withdraws(event, t0):
    tournament = event(pairs=3, rounds=2, boards_per_round=1)
    advance(now=t0)
    pairs = list(Pair.objects.filter(tournament=tournament).order_by("registration_no"))
    for pair in pairs[:2]:
        registration.withdraw_pair(pair=pair, by=pair.player1, now=t0 + MINUTE)
    advance(now=t0 + 20 * MINUTE)
    second = Round.objects.get(tournament=tournament, number=2)
    assert second.bye_pair_id == pairs[2].id
    assert not Table.objects.filter(round=second).exists()
    advance(now=t0 + 40 * MINUTE)
    tournament.refresh_from_db()
    assert tournament.status == "finished"
    lone = Pair.objects.get(pk=pairs[2].id)
    # Two byes, both average, both completed.
    assert (lone.total, lone.boards_completed, lone.rank) == (0.0, 2, 1)


# --- re-scoring and adjusted scores -------------------------------------------------------


def scores_without_ids(tournament) -> list[tuple]:
    return sorted(
        PairBoardScore.objects.filter(board__tournament=tournament).values_list(
            "pair_id", "board_id", "result_id", "direction", "points", "completed"
        )
    )


def test_rescore_is_idempotent_and_follows_a_director_correction(event, organiser, t0):
    """4 pairs, 2 rounds of 1 IMP board. The director corrects a round-1 result after
    the event: totals, standings of both rounds, ranks and master points follow; the
    seating of round 2 stays as it was played."""
    tournament = event(pairs=4, rounds=2, boards_per_round=1)
    advance(now=t0)
    p1, p2, p3, p4 = Pair.objects.filter(tournament=tournament).order_by("registration_no")
    r1_t1, r1_t2 = Table.objects.filter(round__number=1, round__tournament=tournament).order_by(
        "number"
    )
    assert (r1_t1.ns_pair_id, r1_t1.ew_pair_id, r1_t2.ns_pair_id) == (p1.id, p2.id, p3.id)
    submit(r1_t1, 1, "3NT", "N", 9, now=t0 + MINUTE)  # board 1, nobody vulnerable: +400
    submit(r1_t2, 1, "4S", "S", 9, now=t0 + MINUTE)  # -50; 450 apart = 10 IMPs
    advance(now=t0 + 20 * MINUTE)
    round2_tables = list(
        Table.objects.filter(round__number=2, round__tournament=tournament).values_list(
            "id", "number", "ns_pair_id", "ew_pair_id"
        )
    )
    advance(now=t0 + 40 * MINUTE)  # round 2: board 2 unplayed at every table
    tournament.refresh_from_db()
    assert tournament.status == "finished"
    totals = dict(Pair.objects.filter(tournament=tournament).values_list("id", "total"))
    assert totals == {p1.id: 10.0, p2.id: -10.0, p3.id: -10.0, p4.id: 10.0}
    completed = dict(Pair.objects.filter(tournament=tournament).values_list("id", "completed"))
    assert set(completed.values()) == {False}  # 1 board of 2 is 50 % < 70 %

    # Complete the picture: the event's threshold is lowered and round 1 re-scored.
    tournament.completion_threshold = 50
    tournament.save(update_fields=["completion_threshold"])
    rnd1 = Round.objects.get(tournament=tournament, number=1)
    clock.rescore_round(by=organiser, round=rnd1, now=t0 + 50 * MINUTE)
    ranks = dict(Pair.objects.filter(tournament=tournament).values_list("id", "rank"))
    # p1 and p4 tie on 10 IMPs and 1 board: earlier registration first. F = 4: top half.
    assert ranks == {p1.id: 1, p4.id: 2, p2.id: 3, p3.id: 4}
    profile = PlayerProfile.objects.get(user=p1.player1)
    assert profile.master_points == 3

    def stored() -> tuple:
        # Standings are rewritten by a re-score, so they are compared without their ids.
        standings = Standing.objects.filter(round__tournament=tournament).order_by(
            "round__number", "pair_id"
        )
        return (
            scores_without_ids(tournament),
            list(
                standings.values(
                    "pair_id", "round_id", "round_score", "total", "boards_completed", "position"
                )
            ),
            list(Pair.objects.filter(tournament=tournament).order_by("id").values()),
            list(
                MasterPointAward.objects.filter(tournament=tournament)
                .order_by("user_id")
                .values_list("user_id", "rank", "points")
            ),
        )

    snapshot = stored()
    clock.rescore_round(by=organiser, round=rnd1, now=t0 + 51 * MINUTE)
    assert stored() == snapshot

    # The director: table 2 actually made 4S (+420, 20 more than 400: 1 IMP).
    results.director_set_result(
        table=r1_t2,
        board_number=1,
        by=organiser,
        entry=results.ContractEntry(contract="4S", declarer="S", tricks=10),
        reason="tricks misentered",
        now=t0 + 55 * MINUTE,
    )
    totals = dict(Pair.objects.filter(tournament=tournament).values_list("id", "total"))
    assert totals == {p1.id: -1.0, p2.id: 1.0, p3.id: 1.0, p4.id: -1.0}
    ranks = dict(Pair.objects.filter(tournament=tournament).values_list("id", "rank"))
    assert ranks == {p2.id: 1, p3.id: 2, p1.id: 3, p4.id: 4}
    mp = dict(Pair.objects.filter(tournament=tournament).values_list("id", "master_points"))
    assert mp == {p2.id: 3, p3.id: 2, p1.id: 0, p4.id: 0}
    for pair, points in ((p1, 0), (p2, 3), (p3, 2), (p4, 0)):
        for user in (pair.player1, pair.player2):
            assert PlayerProfile.objects.get(user=user).master_points == points
    assert MasterPointAward.objects.filter(tournament=tournament).count() == 4
    # Standings after round 2 include the corrected round 1.
    after_r2 = dict(
        Standing.objects.filter(round__tournament=tournament, round__number=2).values_list(
            "pair_id", "total"
        )
    )
    assert after_r2 == totals
    assert (
        list(
            Table.objects.filter(round__number=2, round__tournament=tournament).values_list(
                "id", "number", "ns_pair_id", "ew_pair_id"
            )
        )
        == round2_tables
    )
    corrected = BoardResult.objects.get(table=r1_t2, board__number=1)
    assert (corrected.ns_score, corrected.adjusted_by, corrected.adjustment_reason) == (
        420,
        organiser,
        "tricks misentered",
    )


def test_rescore_refuses_an_open_round(organiser, event, t0):
    tournament = event()
    advance(now=t0)
    rnd = Round.objects.get(tournament=tournament, number=1)
    with pytest.raises(ClockError, match="Only a closed round"):
        clock.rescore_round(by=organiser, round=rnd, now=t0 + MINUTE)


def test_an_adjusted_score_in_a_closed_round_is_scored_at_once(event, organiser, t0):
    tournament = event(scoring_method="MP", rounds=2, boards_per_round=1)
    advance(now=t0)
    t1, t2 = Table.objects.filter(round__tournament=tournament).order_by("number")
    submit(t1, 1, "3NT", "N", 9, now=t0 + MINUTE)
    advance(now=t0 + 20 * MINUTE)  # t2 cut off: not played
    with pytest.raises(results.ResultRefused, match="Say why"):
        results.director_set_result(
            table=t2, board_number=1, by=organiser, ns_adjustment="A", ew_adjustment="A-"
        )
    results.director_set_result(
        table=t2,
        board_number=1,
        by=organiser,
        ns_adjustment="A",
        ew_adjustment="A-",
        reason="board fouled",
        now=t0 + 25 * MINUTE,
    )
    points = dict(
        PairBoardScore.objects.filter(board__number=1, board__tournament=tournament).values_list(
            "pair_id", "points"
        )
    )
    # The lone played result is 50 %; the adjusted sides get 50 % and 40 %.
    assert points == {
        t1.ns_pair_id: 50.0,
        t1.ew_pair_id: 50.0,
        t2.ns_pair_id: 50.0,
        t2.ew_pair_id: 40.0,
    }
    assert Pair.objects.get(pk=t2.ew_pair_id).boards_completed == 1


# --- master points and titles -------------------------------------------------------------


def test_master_points_add_up_across_events_into_titles(make_tournament, make_user, t0):
    winners = [make_user(), make_user()]
    for day in range(2):
        start = t0 + timedelta(days=day)
        tournament = make_tournament(
            start_at=start,
            registration_opens_at=start - timedelta(days=1),
            rounds=1,
            boards_per_round=1,
        )
        registration.register_pair(
            by=None,
            tournament=tournament,
            usernames=[u.username for u in winners],
            now=start - MINUTE,
        )
        others = [make_user(), make_user()]
        registration.register_pair(
            by=None,
            tournament=tournament,
            usernames=[u.username for u in others],
            now=start - MINUTE,
        )
        advance(now=start)
        table = Table.objects.get(round__tournament=tournament)
        submit(table, 1, "3NT", "N", 9, now=start + MINUTE)
        advance(now=start + 20 * MINUTE)
    for user in winners:
        profile = PlayerProfile.objects.get(user=user)
        assert profile.master_points == 6
        assert board_scoring.title_for(profile.master_points).name_zh == "中级牌手"


# --- the database backs the clock up -----------------------------------------------------


def test_a_second_round_or_board_with_the_same_number_is_impossible(event, t0):
    tournament = event()
    advance(now=t0)
    rnd = Round.objects.get(tournament=tournament, number=1)
    with pytest.raises(IntegrityError), transaction.atomic():
        Round.objects.create(tournament=tournament, number=1, starts_at=t0, ends_at=t0 + MINUTE)
    with pytest.raises(IntegrityError), transaction.atomic():
        Board.objects.create(
            tournament=tournament, round=rnd, number=1, dealer="N", vulnerability="None", deal=""
        )


def test_one_broken_tournament_does_not_stop_the_others(event, t0, monkeypatch):
    broken, healthy = event(), event()
    real_start = clock._start

    def start(tournament, now):
        if tournament.pk == broken.pk:
            raise RuntimeError("seating engine exploded")
        return real_start(tournament, now)

    monkeypatch.setattr(clock, "_start", start)
    advance(now=t0)
    assert Round.objects.filter(tournament=healthy).count() == 1
    assert not Round.objects.filter(tournament=broken).exists()
    beat = ClockHeartbeat.objects.get(name="clock")
    assert f"tournament {broken.pk}: RuntimeError('seating engine exploded')" in beat.last_error
    monkeypatch.setattr(clock, "_start", real_start)
    advance(now=t0 + MINUTE)
    assert Round.objects.filter(tournament=broken).count() == 1
    assert ClockHeartbeat.objects.get(name="clock").last_error == ""
