"""Tournaments seated by a movement, run by the clock (RULES 10; issue 25 item 2).

The clock starts the event, fixes the movement for the pairs registered, stores each
pair's position and field, and seats every round from the movement; results are entered
through the services, the bells close the rounds to the end. Odd fields give the phantom's
opponent a bye; a late pair takes the phantom's place; a withdrawn pair keeps its own and
its later boards are forfeited by the withdrawal's one rule.
"""

from __future__ import annotations

from itertools import combinations

import pytest
from django.db.models import Q
from django.utils import translation

import movements
from tests.support.movement_events import (
    MINUTE,
    ROUND,
    create_movement_event,
    play_round,
    run_to_the_end,
)
from tournaments.errors import ClockError, RegistrationError
from tournaments.models import (
    Adjustment,
    BoardResult,
    Pair,
    PairBoardScore,
    ResultChange,
    ResultState,
    Round,
    Table,
    Tournament,
    TournamentStatus,
)
from tournaments.services import clock, registration
from tournaments.services.clock import advance
from tournaments.services.formats import format_of
from tournaments.services.formats.movement_pairs import seating_of

pytestmark = [pytest.mark.django_db]


@pytest.fixture(autouse=True)
def english():
    with translation.override("en"):
        yield


@pytest.fixture
def movement_event(organiser, t0):
    """create_movement_event(seating, rounds, …) → a tournament made by the setup service,
    starting at t0, 20-minute rounds, no gap."""

    def create(seating: str, rounds: int, boards_per_round: int = 2, **settings):
        return create_movement_event(
            organiser=organiser,
            t0=t0,
            seating=seating,
            rounds=rounds,
            boards_per_round=boards_per_round,
            **settings,
        )

    return create


def seats(tournament: Tournament, number: int) -> set[tuple[int, int, int]]:
    """Round `number`'s tables as (table, NS position, EW position)."""
    return {
        (table, ns, ew)
        for table, ns, ew in Table.objects.filter(
            round__tournament=tournament, round__number=number
        ).values_list("number", "ns_pair__position", "ew_pair__position")
    }


def movement_seats(movement: movements.Movement, number: int, *, skip: set[int]) -> set:
    return {
        (e.table, e.ns, e.ew)
        for e in movement.round(number)
        if e.ns not in skip and e.ew not in skip
    }


def test_a_seven_table_two_winner_mitchell_is_seated_by_its_movement_to_the_end(
    movement_event, register_pairs
):
    tournament = movement_event("mitchell", rounds=7, winners=2)
    assert tournament.neuberg  # on by default for a movement (SPEC 10)
    assert format_of(tournament).key == "movement_pairs"
    pairs = register_pairs(tournament, 14)
    fixed: list[movements.Movement] = []

    def check(number: int) -> None:
        if not fixed:
            tournament.refresh_from_db()
            fixed.append(movements.from_json(tournament.movement))
        assert seats(tournament, number) == movement_seats(fixed[0], number, skip=set())
        assert Round.objects.get(tournament=tournament, number=number).bye_pair_id is None

    run_to_the_end(tournament, check=check)
    movement = fixed[0]
    assert (movement.kind, movement.tables, movement.round_count) == ("mitchell", 7, 7)
    assert movement.directions is not None and movement.phantom is None
    # Positions in registration order; the first seven sit NS all event, the others EW.
    stored = list(Pair.objects.filter(tournament=tournament).order_by("registration_no"))
    assert [p.pk for p in stored] == [p.pk for p in pairs]
    assert [p.position for p in stored] == list(range(1, 15))
    assert [p.field for p in stored] == ["NS"] * 7 + ["EW"] * 7
    sides = Table.objects.filter(round__tournament=tournament)
    assert set(sides.values_list("ns_pair__field", "ew_pair__field").distinct()) == {("NS", "EW")}
    # No two pairs meet twice; every NS pair meets every EW pair once.
    meetings = [frozenset(m) for m in sides.values_list("ns_pair", "ew_pair")]
    assert len(meetings) == len(set(meetings)) == 49
    assert all(r.rematches == 0 for r in Round.objects.filter(tournament=tournament))
    # Every pair played and was scored on every board it met: 7 rounds × 2 boards.
    scored = PairBoardScore.objects.filter(pair__tournament=tournament)
    assert scored.count() == 14 * 14
    assert all(p.boards_completed == 14 for p in Pair.objects.filter(tournament=tournament))
    # Two winners: each field ranked on its own, so each has its first place.
    ranked = Pair.objects.filter(tournament=tournament)
    assert {p.field for p in ranked if p.rank == 1} == {"NS", "EW"}
    assert all(p.rank is not None and p.rank <= 7 for p in ranked)


def test_a_four_table_howell_face_to_face_ranks_one_field(movement_event, register_pairs):
    tournament = movement_event("howell", rounds=7)
    register_pairs(tournament, 8)
    fixed: list[movements.Movement] = []

    def check(number: int) -> None:
        if not fixed:
            tournament.refresh_from_db()
            fixed.append(movements.from_json(tournament.movement))
        assert seats(tournament, number) == movement_seats(fixed[0], number, skip=set())

    run_to_the_end(tournament, check=check)
    stored = list(Pair.objects.filter(tournament=tournament).order_by("registration_no"))
    assert [p.position for p in stored] == list(range(1, 9))
    assert {p.field for p in stored} == {""}
    meetings = {
        frozenset(m)
        for m in Table.objects.filter(round__tournament=tournament).values_list(
            "ns_pair", "ew_pair"
        )
    }
    assert meetings == {frozenset(m) for m in combinations([p.pk for p in stored], 2)}
    # One list: eight places, not two lists of four.
    ranks = sorted(p.rank for p in Pair.objects.filter(tournament=tournament))
    assert ranks[0] == 1 and ranks[-1] > 4, ranks


def test_an_odd_field_gives_the_phantoms_opponent_the_bye_each_round(
    movement_event, register_pairs
):
    tournament = movement_event("howell", rounds=4)
    register_pairs(tournament, 7)
    fixed: list[movements.Movement] = []

    def check(number: int) -> None:
        if not fixed:
            tournament.refresh_from_db()
            fixed.append(movements.from_json(tournament.movement))
        movement = fixed[0]
        phantom = movement.phantom
        assert phantom is not None
        assert seats(tournament, number) == movement_seats(movement, number, skip={phantom})
        (against,) = [
            e.ew if e.ns == phantom else e.ns
            for e in movement.round(number)
            if phantom in (e.ns, e.ew)
        ]
        bye = Round.objects.get(tournament=tournament, number=number).bye_pair
        assert bye is not None and bye.position == against

    run_to_the_end(tournament, check=check)
    byes = list(Round.objects.filter(tournament=tournament).values_list("bye_pair", flat=True))
    assert len(byes) == len(set(byes)) == 4  # a different pair sits out each round
    assert not Pair.objects.filter(tournament=tournament, position=fixed[0].phantom).exists()


def test_a_late_entry_takes_the_phantoms_position_from_the_next_round(
    movement_event, register_pairs, organiser, make_user, t0
):
    tournament = movement_event("howell", rounds=4)
    register_pairs(tournament, 7)
    advance(now=t0)
    tournament.refresh_from_db()
    movement = movements.from_json(tournament.movement)
    assert Round.objects.get(tournament=tournament, number=1).bye_pair_id is not None
    a, b = make_user(), make_user()
    late = registration.add_late_pair(
        tournament=tournament, usernames=[a.username, b.username], by=organiser, now=t0 + MINUTE
    )
    assert late.position == movement.phantom and late.field == ""
    play_round(tournament, 1, now=t0 + 2 * MINUTE)
    advance(now=t0 + ROUND)
    round_2 = Round.objects.get(tournament=tournament, number=2)
    assert round_2.bye_pair_id is None
    assert seats(tournament, 2) == movement_seats(movement, 2, skip=set())
    assert Table.objects.filter(Q(ns_pair=late) | Q(ew_pair=late), round=round_2).exists()
    # The round it missed is not played (RULES 1).
    assert not PairBoardScore.objects.filter(pair=late, board__round__number=1).exists()


def test_a_late_entry_into_a_two_winner_mitchell_plays_in_the_phantoms_field(
    movement_event, register_pairs, organiser, make_user, t0
):
    tournament = movement_event("mitchell", rounds=3, winners=2)
    register_pairs(tournament, 9)  # five tables, the phantom is 5EW
    advance(now=t0)
    tournament.refresh_from_db()
    movement = movements.from_json(tournament.movement)
    a, b = make_user(), make_user()
    late = registration.add_late_pair(
        tournament=tournament, usernames=[a.username, b.username], by=organiser, now=t0 + MINUTE
    )
    assert movement.label(late.position) == "5EW" and late.field == "EW"
    play_round(tournament, 1, now=t0 + 2 * MINUTE)
    advance(now=t0 + ROUND)
    table = Table.objects.get(ew_pair=late, round__number=2)
    assert (table.number, table.ns_pair.field) == (
        next(e.table for e in movement.round(2) if e.ew == late.position),
        "NS",
    )


def test_a_late_entry_into_a_movement_with_no_free_position_is_refused(
    movement_event, register_pairs, organiser, make_user, t0
):
    tournament = movement_event("howell", rounds=4)
    register_pairs(tournament, 8)
    advance(now=t0)
    before = list(Pair.objects.filter(tournament=tournament).values())
    a, b = make_user(), make_user()
    assert "no free place" in registration.late_pair_problem(
        tournament=tournament, usernames=[a.username, b.username], by=organiser
    )
    with pytest.raises(RegistrationError, match="no free place"):
        registration.add_late_pair(
            tournament=tournament, usernames=[a.username, b.username], by=organiser
        )
    assert list(Pair.objects.filter(tournament=tournament).values()) == before


def test_a_withdrawn_pair_keeps_its_position_and_its_later_boards_are_forfeited(
    movement_event, register_pairs, organiser, t0
):
    tournament = movement_event("howell", rounds=4)
    pairs = register_pairs(tournament, 8)
    advance(now=t0)
    gone = pairs[2]
    registration.withdraw_pair(pair=gone, by=organiser, now=t0 + MINUTE)
    # Round 1: the withdrawal's own forfeit of the boards its table had not finished.
    assert BoardResult.objects.filter(
        table__round__number=1, table__round__tournament=tournament, state=ResultState.ADJUSTED
    ).count() == 2  # fmt: skip
    play_round(tournament, 1, now=t0 + 2 * MINUTE)
    advance(now=t0 + ROUND)
    tournament.refresh_from_db()
    movement = movements.from_json(tournament.movement)
    gone.refresh_from_db()
    assert gone.position == 3
    for number in range(2, 5):
        rnd = Round.objects.get(tournament=tournament, number=number)
        assert seats(tournament, number) == movement_seats(movement, number, skip=set())
        assert rnd.bye_pair_id is None
        table = Table.objects.get(Q(ns_pair=gone) | Q(ew_pair=gone), round=rnd)
        withdrawn_side = "ns" if table.ns_pair_id == gone.pk else "ew"
        forfeits = list(BoardResult.objects.filter(table=table).order_by("board__number"))
        # At once, at the seating: before anyone could play, every board of the table.
        assert len(forfeits) == tournament.boards_per_round
        for result in forfeits:
            assert result.state == ResultState.ADJUSTED
            assert result.adjustment_reason == "Withdrawal"
            assert result.entered_by_id is None  # the system, at the clock's seating
            mine, theirs = (
                (result.ns_adjustment, result.ew_adjustment)
                if withdrawn_side == "ns"
                else (result.ew_adjustment, result.ns_adjustment)
            )
            assert (mine, theirs) == (Adjustment.AVG_MINUS, Adjustment.AVG_PLUS)
            assert ResultChange.objects.filter(result=result).count() == 1
        play_round(tournament, number, now=rnd.starts_at + MINUTE)
        advance(now=rnd.ends_at)
    tournament.refresh_from_db()
    assert tournament.status == TournamentStatus.FINISHED
    # Completed for both sides, the withdrawn pair's boards included.
    scored = PairBoardScore.objects.filter(pair=gone, board__round__number__gte=2)
    assert scored.count() == 3 * tournament.boards_per_round


def test_no_movement_for_the_pairs_registered_refuses_the_start_and_changes_nothing(
    movement_event, register_pairs, organiser, t0
):
    # A Mitchell needs three tables at least; four pairs make two.
    tournament = movement_event("mitchell", rounds=3)
    register_pairs(tournament, 4)
    with pytest.raises(ClockError, match="no Mitchell movement for 4 pairs"):
        clock.start_now(tournament=tournament, by=organiser, now=t0)
    tournament.refresh_from_db()
    assert tournament.status == TournamentStatus.SCHEDULED and tournament.movement is None
    assert not Round.objects.filter(tournament=tournament).exists()
    assert not Pair.objects.filter(tournament=tournament, position__isnull=False).exists()
    # The clock's own tick tries, fails the same way, and leaves it as it was.
    advance(now=t0)
    tournament.refresh_from_db()
    assert tournament.status == TournamentStatus.SCHEDULED


def test_a_pair_withdrawn_before_round_1_takes_no_position(
    movement_event, register_pairs, organiser, t0
):
    tournament = movement_event("howell", rounds=4)
    pairs = register_pairs(tournament, 9)
    registration.withdraw_pair(pair=pairs[0], by=organiser, now=t0 - MINUTE)
    advance(now=t0)
    tournament.refresh_from_db()
    movement = movements.from_json(tournament.movement)
    assert movement.pairs == 8 and movement.phantom is None
    positions = dict(Pair.objects.filter(tournament=tournament).values_list("pk", "position"))
    assert positions[pairs[0].pk] is None
    assert [positions[p.pk] for p in pairs[1:]] == list(range(1, 9))


def test_nobody_plays_at_a_table_of_the_phantom_or_of_two_withdrawn_pairs():
    """`seating_of` alone: the phantom's opponent has the bye unless it withdrew; two
    withdrawn pairs are not seated against each other; one withdrawn pair is seated (its
    boards are forfeited once the table exists)."""
    movement = movements.for_pairs(7, kind="howell", boards_per_round=2)
    phantom = movement.phantom
    holders = {p: 100 + p for p in range(1, 8)}  # pair ids by position; the phantom's free
    first = movement.round(1)
    (at_phantom,) = [e for e in first if phantom in (e.ns, e.ew)]
    alone = at_phantom.ew if at_phantom.ns == phantom else at_phantom.ns
    others = [e for e in first if e is not at_phantom]
    seating = seating_of(movement, 1, holders=holders, withdrawn=set())
    assert seating.bye == holders[alone] and len(seating.tables) == 3
    both = others[0]
    withdrawn = {holders[alone], holders[both.ns], holders[both.ew], holders[others[1].ns]}
    seating = seating_of(movement, 1, holders=holders, withdrawn=withdrawn)
    assert seating.bye is None
    assert [t.number for t in seating.tables] == [e.table for e in others[1:]]
