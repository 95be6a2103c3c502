"""Board sets that travel face to face (RULES 10; issue 25): each table plays the set the
movement gives it, a board is dealt when a table first plays it and scored — and seen —
only once its last table has played it, the bell cuts off each table's own set, Neuberg's
E is the tables that play the board, a bye sits out the phantom's set, and an
arrow-switched Mitchell is one field. The scores are checked against an oracle written
here (matchpoints by brute force from the stored results)."""

from __future__ import annotations

import dataclasses
from collections import defaultdict

import pytest
from django.test import Client
from django.urls import reverse
from hypothesis import given, settings
from hypothesis import strategies as st

import movements
from tests.support.movement_events import MINUTE, create_movement_event, run_to_the_end
from tournaments import visibility
from tournaments.errors import ServiceError
from tournaments.models import (
    Board,
    BoardResult,
    Pair,
    PairBoardScore,
    ResultState,
    Round,
    Table,
    Tournament,
    TournamentStatus,
)
from tournaments.selectors import score_card
from tournaments.services import registration, settings_change
from tournaments.services.clock import advance
from tournaments.services.formats.movement_pairs import movement_problem, travelling_boards
from tournaments.services.formats.movement_rules import check_sets

# Messages are compared in English (tests/support/api.py's `english`).
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]


@pytest.fixture
def travelling(organiser, t0):
    def create(seating: str, rounds: int, **settings) -> Tournament:
        settings.setdefault("boards_travel", True)
        return create_movement_event(
            organiser=organiser, t0=t0, seating=seating, rounds=rounds, **settings
        )

    return create


def oracle_percentages(tournament: Tournament) -> dict[int, float]:
    """Each pair's MP total as RULES 5.3 and 10 have it, by brute force from the stored
    results: a played NS score beats, ties or loses to every other played NS score of the
    board; Neuberg's MP′ = (MP + 1)·E/A − 1 over E = the tables that play the board; a bye
    is 50 %; the total is the mean over the boards completed."""
    sets = list(
        Table.objects.filter(round__tournament=tournament).values_list("first_board", "last_board")
    )
    by_board = defaultdict(list)
    for number, ns, ew, state, score in BoardResult.objects.filter(
        board__tournament=tournament
    ).values_list("board__number", "table__ns_pair", "table__ew_pair", "state", "ns_score"):
        by_board[number].append((ns, ew, state, score))
    percentages = defaultdict(list)
    for number, lines in by_board.items():
        played = [line for line in lines if line[2] in (ResultState.PLAYED, ResultState.PASSED_OUT)]
        a = len(played)
        e = sum(1 for first, last in sets if first <= number <= last) if tournament.neuberg else a
        for ns, ew, _state, score in played:
            mp = sum(2 if score > other[3] else 1 if score == other[3] else 0 for other in played)
            mp -= 1  # itself, a tie
            if e == 1:
                pct = 50.0
            else:
                mp = (mp + 1) * e / a - 1
                pct = 100 * mp / (2 * (e - 1))
            percentages[ns].append(pct)
            percentages[ew].append(100 - pct)
    for rnd in Round.objects.filter(tournament=tournament, bye_pair__isnull=False):
        movement = movements.from_json(tournament.movement)
        position = Pair.objects.get(pk=rnd.bye_pair_id).position
        sat_out = next(e for e in movement.round(rnd.number) if position in (e.ns, e.ew))
        percentages[rnd.bye_pair_id] += [50.0] * len(sat_out.boards)
    return {pair: sum(p) / len(p) for pair, p in percentages.items()}


def test_a_mitchell_plays_each_tables_set_and_scores_a_board_once_its_last_table_has(
    travelling, register_pairs, make_user
):
    tournament = travelling("mitchell", rounds=5, winners=2)
    register_pairs(tournament, 10)
    stranger = make_user("stranger")
    first_pair = {}

    def check(number: int) -> None:
        tournament.refresh_from_db()
        movement = movements.from_json(tournament.movement)
        # Each table played the set the movement gave it, not the round's boards.
        played = Table.objects.filter(round__tournament=tournament, round__number=number)
        assert {(t.number, t.first_board, t.last_board) for t in played} == {
            (e.table, e.boards[0], e.boards[-1]) for e in movement.round(number)
        }
        if number == 1:
            # Every board is played in every round of a 5-table Mitchell: none is complete
            # before the last bell, so nothing is scored and nothing is public.
            assert Board.objects.filter(tournament=tournament).count() == 10
            assert not Board.objects.filter(tournament=tournament, round__isnull=False).exists()
            assert not PairBoardScore.objects.filter(pair__tournament=tournament).exists()
            board = Board.objects.get(tournament=tournament, number=1)
            assert not visibility.deal_public(board.round)
            table = played.get(number=1)
            assert not visibility.may_see_result(stranger, round=board.round, table=table)
            assert not visibility.may_see_deal(stranger, board, table.round)  # its round closed
            pair = Pair.objects.get(tournament=tournament, position=1)
            first_pair["pair"] = pair
            card = score_card(pair=pair)
            assert card[0].shown and card[0].boards
            assert all(b.pending and b.result is None for b in card[0].boards)
            # The API's board and the board page: no deal, no traveller, no round yet.
            api = Client().get(f"/api/v1/tournaments/{tournament.pk}/boards/1")
            assert api.status_code == 200
            assert (api.json()["round"], api.json()["deal"], api.json()["results"]) == (
                None, None, []
            )  # fmt: skip
            page = Client().get(reverse("board", args=[tournament.pk, 1]))
            html = page.content.decode()
            assert page.status_code == 200 and board.deal.split()[1] not in html
            assert "tables of the coming rounds still play it" in html

    run_to_the_end(tournament, after=check)
    # After the last bell every board is complete, scored across its five tables.
    assert not Board.objects.filter(tournament=tournament, round__isnull=True).exists()
    last = Round.objects.get(tournament=tournament, number=5)
    assert set(Board.objects.filter(tournament=tournament).values_list("round", flat=True)) == {
        last.pk
    }
    assert all(
        BoardResult.objects.filter(board=b).count() == 5
        for b in Board.objects.filter(tournament=tournament)
    )
    expected = oracle_percentages(tournament)
    for pair in Pair.objects.filter(tournament=tournament):
        assert pair.boards_completed == 10
        assert pair.total == pytest.approx(expected[pair.pk], abs=1e-6)
    api = Client().get(f"/api/v1/tournaments/{tournament.pk}/boards/1").json()
    assert api["round"] == 5 and api["deal"] is not None
    # Its five lines from the five rounds, each with the round its table played it in.
    assert sorted(line["round"] for line in api["results"]) == [1, 2, 3, 4, 5]
    card = score_card(pair=first_pair["pair"])
    assert not any(b.pending for r in card for b in r.boards)
    assert all(b.result is not None for r in card for b in r.boards)
    ranked = Pair.objects.filter(tournament=tournament)
    assert {p.field for p in ranked if p.rank == 1} == {"NS", "EW"}


def test_an_arrow_switched_mitchell_with_travelling_sets_is_one_field(travelling, register_pairs):
    tournament = travelling("mitchell", rounds=7, arrow_switch=True)
    assert tournament.winners == 1  # an arrow-switch merges the fields
    register_pairs(tournament, 14)
    run_to_the_end(tournament)
    movement = movements.from_json(tournament.movement)
    assert movement.arrow_switch_rounds and movement.directions is None
    # In a switched round the "EW" position sits NS: its NS score is compared with the
    # other tables' NS scores of that board, so the pair meets the other field there.
    expected = oracle_percentages(tournament)
    pairs = list(Pair.objects.filter(tournament=tournament))
    for pair in pairs:
        assert pair.field == ""
        assert pair.total == pytest.approx(expected[pair.pk], abs=1e-6)
    assert max(p.rank for p in pairs) > 7  # one list of fourteen, not two of seven


def test_the_bell_cuts_off_a_tables_own_set_and_neuberg_counts_every_table_of_the_board(
    travelling, register_pairs
):
    tournament = travelling("mitchell", rounds=5, winners=2, unplayed_policy="not_played")
    assert tournament.neuberg
    register_pairs(tournament, 10)
    missed = {}

    def check(number: int) -> None:
        if number == 2:
            table = Table.objects.get(round__tournament=tournament, round__number=2, number=3)
            missed["boards"] = set(range(table.first_board, table.last_board + 1))
            cut = BoardResult.objects.filter(table=table)
            assert {r.board.number for r in cut} == missed["boards"]
            assert {r.state for r in cut} == {ResultState.NOT_PLAYED}
            # The other tables of the round entered theirs; no other result was cut off.
            assert not BoardResult.objects.filter(
                table__round__number=2, table__round__tournament=tournament,
                state=ResultState.NOT_PLAYED,
            ).exclude(table=table).exists()  # fmt: skip

    run_to_the_end(tournament, skip=lambda number: {3} if number == 2 else (), after=check)
    for number in missed["boards"]:
        board = Board.objects.get(tournament=tournament, number=number)
        played = BoardResult.objects.filter(board=board, state=ResultState.PLAYED).count()
        assert played == 4  # of the five tables that play it (E = 5)
    expected = oracle_percentages(tournament)
    for pair in Pair.objects.filter(tournament=tournament):
        assert pair.total == pytest.approx(expected[pair.pk], abs=1e-6)


def test_a_bye_sits_out_the_phantoms_set(travelling, register_pairs):
    tournament = travelling("howell", rounds=7, boards_per_round=2)  # 7 pairs: a phantom
    register_pairs(tournament, 7)
    run_to_the_end(tournament)
    movement = movements.from_json(tournament.movement)
    assert movement.phantom is not None
    for rnd in Round.objects.filter(tournament=tournament):
        assert rnd.bye_pair_id is not None
        position = Pair.objects.get(pk=rnd.bye_pair_id).position
        sat_out = next(e for e in movement.round(rnd.number) if position in (e.ns, e.ew))
        byes = PairBoardScore.objects.filter(pair_id=rnd.bye_pair_id, result__isnull=True)
        assert set(sat_out.boards) <= set(byes.values_list("board__number", flat=True))
    expected = oracle_percentages(tournament)
    for pair in Pair.objects.filter(tournament=tournament):
        assert pair.total == pytest.approx(expected[pair.pk], abs=1e-6)


def test_a_withdrawn_pair_forfeits_its_tables_own_set(travelling, register_pairs, organiser, t0):
    tournament = travelling("mitchell", rounds=5, winners=2)
    pairs = register_pairs(tournament, 10)
    advance(now=t0)
    leaving = pairs[0]
    registration.withdraw_pair(pair=leaving, by=organiser, now=t0 + MINUTE)
    table = Table.objects.get(round__tournament=tournament, round__number=1, ns_pair=leaving)
    forfeited = BoardResult.objects.filter(table=table)
    assert {r.board.number for r in forfeited} == set(
        range(table.first_board, table.last_board + 1)
    )
    assert {(r.ns_adjustment, r.ew_adjustment) for r in forfeited} == {("A-", "A+")}


@pytest.mark.parametrize(
    ("settings", "says"),
    [
        ({"seating": "swiss", "boards_travel": True}, "Swiss seating plays the round's boards"),
        ({"seating": "howell", "boards_travel": True, "play": "online"}, "only face to face"),
        ({"seating": "mitchell", "arrow_switch": True}, "needs board sets that travel"),
        ({"seating": "mitchell", "winners": 1, "boards_travel": True}, "has two winners"),
    ],
)
def test_settings_that_cannot_travel_are_refused_and_nothing_is_stored(travelling, settings, says):
    before = Tournament.objects.count()
    settings.setdefault("boards_travel", False)
    with pytest.raises(ServiceError, match=says):
        travelling(rounds=5, **settings)
    assert Tournament.objects.count() == before


def test_a_given_movement_whose_table_plays_boards_not_in_a_row_cannot_travel(
    travelling, organiser
):
    # A 3-table Mitchell with boards 2 and 3 swapped everywhere: every check of RULES 10
    # still passes, but table 1 of round 1 plays boards 1 and 3, which no set holds.
    movement = movements.mitchell(3, 2)
    swap = {2: 3, 3: 2}
    odd = dataclasses.replace(
        movement,
        rounds=tuple(
            tuple(
                dataclasses.replace(e, boards=tuple(sorted(swap.get(b, b) for b in e.boards)))
                for e in round
            )
            for round in movement.rounds
        ),
    )
    movements.verify(odd)
    tournament = travelling("howell", rounds=3, boards_travel=False)
    with pytest.raises(ServiceError, match="consecutive"):
        settings_change.change_movement(
            tournament=tournament,
            by=organiser,
            seating="movement",
            winners=2,
            movement=movements.to_json(odd),
            boards_travel=True,
        )
    tournament.refresh_from_db()
    assert (tournament.seating, tournament.boards_travel) == ("howell", False)
    # Duplicated boards (every table on the round's boards) take it as it is.
    settings_change.change_movement(
        tournament=tournament, by=organiser, seating="movement", winners=2,
        movement=movements.to_json(odd),
    )  # fmt: skip
    tournament.refresh_from_db()
    assert (tournament.seating, tournament.boards_travel) == ("movement", False)


def test_the_three_table_howell_shares_a_set_among_all_three_tables_so_cannot_travel():
    movement = movements.howell(3, 2)
    with pytest.raises(ServiceError, match="shared by two"):
        check_sets(movement)


def test_a_partial_howell_whose_tables_share_one_set_cannot_travel(travelling, register_pairs):
    tournament = travelling("howell", rounds=3)
    register_pairs(tournament, 8)
    assert "shared by two" in movement_problem(tournament)
    advance(now=tournament.start_at)  # the clock refuses to start it, saying why
    tournament.refresh_from_db()
    assert tournament.status == TournamentStatus.SCHEDULED


SIZES = [("mitchell", t) for t in range(3, 16)] + [("howell", t) for t in range(2, 9)]


@settings(max_examples=60)
@given(size=st.sampled_from(SIZES), boards=st.integers(1, 4), data=st.data())
def test_each_board_is_dealt_once_and_completed_once_at_or_after_its_deal(size, boards, data):
    kind, tables = size
    complete = (
        movements.mitchell(tables, boards)
        if kind == "mitchell"
        else movements.howell(tables, boards)
    )
    rounds = data.draw(st.integers(1, complete.round_count), label="rounds played")
    movement = movements.Movement(**{**complete.__dict__, "rounds": complete.rounds[:rounds]})
    dealt_in, completed_in = {}, {}
    for number in range(1, rounds + 1):
        seated = [e.table for e in movement.round(number)]
        plan = travelling_boards(movement, number, last_round=rounds, tables=seated)
        for board in plan.dealt:
            assert board not in dealt_in
            dealt_in[board] = number
        for board in plan.completed:
            assert board not in completed_in
            completed_in[board] = number
        for encounter in movement.round(number):
            first, last = plan.sets[encounter.table]
            assert tuple(range(first, last + 1)) == encounter.boards
            # A table's boards exist by the time it plays them, and are not complete yet.
            assert all(
                dealt_in[b] <= number <= completed_in.get(b, rounds) for b in encounter.boards
            )
    if kind == "mitchell" or (rounds == complete.round_count and tables >= 4):
        check_sets(movement)  # one set to a table, or shared by two (a relay)
    assert set(dealt_in) == set(completed_in) == set(movement.boards)
    assert all(dealt_in[b] <= completed_in[b] for b in dealt_in)
    last_play = {b: n for n, r in enumerate(movement.rounds, 1) for e in r for b in e.boards}
    assert completed_in == last_play
