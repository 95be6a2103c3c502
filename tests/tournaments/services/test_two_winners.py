"""Two winners (RULES 10): a Mitchell's NS and EW pairs are ranked as two fields, the
standings after each round, completion, tie-breaks, ranks and master points within each
(F the field's own completers), checked against an oracle written here from SPEC 6 and 7;
one winner is one list as before; the work is a fixed number of queries."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.support.two_winners import CONTRACTS, build_mitchell
from tournaments import selectors
from tournaments.models import MasterPointAward, Pair, Round, Standing
from tournaments.services import board_scoring

pytestmark = pytest.mark.django_db


def oracle_master_points(rank: int, completers: int) -> int:
    """SPEC 7, read afresh: rank 1 gets 3; with 20 or more completers ranks 2–4 get 2 and
    5–10 get 1; below 20 only the top half (rank ≤ F / 2) scores, 2 for ranks 2–4, else 1."""
    if rank == 1:
        return 3
    if completers >= 20:
        return 2 if rank <= 4 else (1 if rank <= 10 else 0)
    if rank > completers / 2:
        return 0
    return 2 if rank <= 4 else 1


def oracle(pairs, *, total_boards: int, threshold: float) -> dict[int, tuple]:
    """{pair id: (rank, master points)}, each field ranked as its own event (SPEC 6, 10)."""
    expected: dict[int, tuple] = {}
    for field in ("NS", "EW"):
        members = sorted(
            (p for p in pairs if p.field == field),
            key=lambda p: (-round(p.total, 6), -p.boards_completed, p.registration_no),
        )
        finishers = [
            p
            for p in members
            if p.boards_completed > 0 and p.boards_completed / total_boards >= threshold - 1e-9
        ]
        for rank, pair in enumerate(finishers, start=1):
            expected[pair.pk] = (rank, oracle_master_points(rank, len(finishers)))
        for pair in members:
            expected.setdefault(pair.pk, (None, 0))
    return expected


def test_each_field_is_ranked_apart_with_its_own_completers_and_master_points(
    make_tournament, register_pairs
):
    event = build_mitchell(make_tournament, register_pairs, tables=5, rounds=3)
    tournament = event.tournament
    pairs = list(Pair.objects.filter(tournament=tournament).order_by("registration_no"))
    assert [p.field for p in pairs] == ["NS"] * 5 + ["EW"] * 5
    expected = oracle(pairs, total_boards=tournament.total_boards, threshold=0.7)
    assert {p.pk: (p.rank, int(p.master_points)) for p in pairs} == expected
    assert all(p.completed == (p.rank is not None) for p in pairs)

    # What the scenario was built to show: tables 1 and 2 always scored the same, so NS
    # pairs 1 and 2 tie on total and registration order places them; the table cut off
    # in rounds 1 and 2 leaves NS 4 and the two EW pairs it met below the threshold, so
    # the fields have 4 and 3 completers (F per field: NS rank 2 scores, EW rank 2 does
    # not; with one field of 7, ranks 2 and 3 would both have scored 2).
    ns1, ns2, ns4 = pairs[0], pairs[1], pairs[3]
    assert ns1.total == ns2.total and (ns1.rank, ns2.rank) == (1, 2)
    assert not ns4.completed
    completers = {f: sum(p.completed for p in pairs if p.field == f) for f in ("NS", "EW")}
    assert completers == {"NS": 4, "EW": 3}
    by_rank = {(p.field, p.rank): int(p.master_points) for p in pairs if p.rank}
    assert by_rank == {
        ("NS", 1): 3, ("NS", 2): 2, ("NS", 3): 0, ("NS", 4): 0,
        ("EW", 1): 3, ("EW", 2): 0, ("EW", 3): 0,
    }  # fmt: skip

    # Both players of each awarded pair, at the rank within its field.
    awards = sorted(
        MasterPointAward.objects.filter(tournament=tournament).values_list(
            "pair__field", "rank", "points"
        )
    )
    assert awards == sorted(
        [("EW", 1, Decimal(3))] * 2 + [("NS", 1, Decimal(3))] * 2 + [("NS", 2, Decimal(2))] * 2
    )

    # The standings rows the pages, API and exports read: NS then EW, each its own list.
    rows = selectors.standings(tournament=tournament)
    assert [r.field for r in rows] == ["NS"] * 5 + ["EW"] * 5
    lists = selectors.by_field(rows)
    assert [group.field for group in lists] == ["NS", "EW"]
    for group in lists:
        assert [r.position for r in group.rows] == list(range(1, 6))
        ranked = [r.rank for r in group.rows if r.rank is not None]
        assert ranked == list(range(1, len(ranked) + 1))
    ns_rows = {r.pair_id: r for r in lists[0].rows}
    assert ns_rows[ns1.pk].tie_break == ns_rows[ns2.pk].tie_break == "registration"
    # A tie is only ever with a neighbour of the same field.
    assert lists[1].rows[0].tie_break is None or lists[1].rows[1].total == lists[1].rows[0].total


def test_standings_after_each_round_are_positions_in_each_field(make_tournament, register_pairs):
    event = build_mitchell(make_tournament, register_pairs, tables=5, rounds=3)
    fields = {p.pk: p.field for p in event.pairs}
    registration = {p.pk: p.registration_no for p in event.pairs}
    for round in Round.objects.filter(tournament=event.tournament).order_by("number"):
        standings = list(Standing.objects.filter(round=round))
        assert len(standings) == 10
        for field in ("NS", "EW"):
            mine = [s for s in standings if fields[s.pair_id] == field]
            by_position = sorted(mine, key=lambda s: s.position)
            assert [s.position for s in by_position] == [1, 2, 3, 4, 5]
            assert by_position == sorted(
                mine,
                key=lambda s: (-round_6(s.total), -s.boards_completed, registration[s.pair_id]),
            )
        # A re-score of the round (the totals read back from the board scores) stores
        # the very standings the bell stored.
        before = sorted(
            Standing.objects.filter(round=round).values_list(
                "pair_id", "round_score", "total", "boards_completed", "position"
            )
        )
        board_scoring.record_standings(round=Round.objects.get(pk=round.pk))
        after = sorted(
            Standing.objects.filter(round=round).values_list(
                "pair_id", "round_score", "total", "boards_completed", "position"
            )
        )
        assert after == before


def round_6(value: float) -> float:
    return round(value, 6)


def test_a_live_two_winner_event_shows_positions_per_field_and_no_rank(
    make_tournament, register_pairs
):
    event = build_mitchell(make_tournament, register_pairs, tables=3, rounds=3, finish=False)
    rows = selectors.standings(tournament=event.tournament)
    assert [r.field for r in rows] == ["NS"] * 3 + ["EW"] * 3
    assert [r.position for r in rows] == [1, 2, 3, 1, 2, 3]
    assert all(r.rank is None for r in rows)


def test_one_winner_is_one_list_whatever_the_fields_say(make_tournament, register_pairs):
    """A one-winner movement (a Howell, an arrow-switched Mitchell) ranks every pair in
    one field, even if a field were stored on its pairs."""
    event = build_mitchell(make_tournament, register_pairs, tables=3, rounds=2, missing=frozenset())
    tournament = event.tournament
    two = sorted(Pair.objects.filter(tournament=tournament).values_list("field", "rank"))
    assert two == [("EW", 1), ("EW", 2), ("EW", 3), ("NS", 1), ("NS", 2), ("NS", 3)]
    tournament.winners = 1
    tournament.save(update_fields=["winners"])
    board_scoring.finalize_results(tournament=tournament, now=tournament.start_at)
    ranks = sorted(Pair.objects.filter(tournament=tournament).values_list("rank", flat=True))
    assert ranks == [1, 2, 3, 4, 5, 6]
    # F = 6 in one field, not 3 in each: ranks 1–3 (the top half) score 3, 2, 2.
    points = Pair.objects.filter(tournament=tournament).order_by("rank")
    assert [int(p.master_points) for p in points] == [oracle_master_points(r, 6) for r in ranks]
    assert [int(p.master_points) for p in points] == [3, 2, 2, 0, 0, 0]
    rows = selectors.standings(tournament=tournament)
    assert {r.field for r in rows} == {""}
    assert [r.rank for r in rows] == [1, 2, 3, 4, 5, 6]
    assert len(selectors.by_field(rows)) == 1


def _queries(work) -> int:
    with CaptureQueriesContext(connection) as captured:
        work()
    return len(captured.captured_queries)


def test_the_ranking_of_two_fields_costs_the_same_queries_at_any_size(
    make_tournament, register_pairs
):
    small = build_mitchell(make_tournament, register_pairs, tables=3, rounds=3, name="small")
    big = build_mitchell(make_tournament, register_pairs, tables=9, rounds=3, name="big")
    counts = []
    for event in (small, big):
        tournament = event.tournament
        last = Round.objects.select_related("tournament").get(tournament=tournament, number=3)
        counts.append(
            (
                _queries(lambda: board_scoring.record_standings(round=last)),  # noqa: B023
                _queries(
                    lambda: board_scoring.finalize_results(  # noqa: B023
                        tournament=tournament,  # noqa: B023
                        now=tournament.start_at,  # noqa: B023
                    )
                ),
                _queries(lambda: selectors.standings(tournament=tournament)),  # noqa: B023
            )
        )
    assert counts[0] == counts[1]
    assert counts[0][2] == 1


def test_the_clock_ranks_a_two_winner_mitchell_in_two_fields(
    make_tournament, register_pairs, organiser
):
    """End to end through the clock and the movement's format: round 1 fixes the
    Mitchell and the pairs' fields, each bell stores positions per field, the last one
    ranks each field against the oracle."""
    from django.utils import timezone

    from tests.support.clock import submit
    from tournaments.models import Table
    from tournaments.services import clock

    now = timezone.now()
    tournament = make_tournament(
        seating="mitchell",
        winners=2,
        rounds=3,
        boards_per_round=2,
        scoring_method="MP",
        start_at=now + timedelta(hours=1),
        registration_opens_at=now - timedelta(days=1),
    )
    register_pairs(tournament, 10, now=now)
    clock.start_now(by=organiser, tournament=tournament)
    for number in (1, 2, 3):
        for table in Table.objects.filter(round__tournament=tournament, round__number=number):
            if (number, table.number) in {(1, 4), (2, 4)}:
                continue  # cut off at the bell
            contract, declarer, tricks = CONTRACTS[table.number - 1]
            for board in tournament.board_numbers(number):
                submit(table, board, contract, declarer, tricks, now=timezone.now())
        clock.close_round_now(by=organiser, tournament=tournament)
    tournament.refresh_from_db()
    assert tournament.status == "finished"
    pairs = list(Pair.objects.filter(tournament=tournament).order_by("registration_no"))
    assert sorted(p.field for p in pairs) == ["EW"] * 5 + ["NS"] * 5
    for table in Table.objects.filter(round__tournament=tournament).select_related(
        "ns_pair", "ew_pair"
    ):
        assert (table.ns_pair.field, table.ew_pair.field) == ("NS", "EW")
    expected = oracle(pairs, total_boards=tournament.total_boards, threshold=0.7)
    assert {p.pk: (p.rank, int(p.master_points)) for p in pairs} == expected
    assert {f: sum(p.completed for p in pairs if p.field == f) for f in ("NS", "EW")} == {
        "NS": 4,
        "EW": 3,
    }
    for round in Round.objects.filter(tournament=tournament):
        for field in ("NS", "EW"):
            positions = Standing.objects.filter(round=round, pair__field=field).values_list(
                "position", flat=True
            )
            assert sorted(positions) == [1, 2, 3, 4, 5]
