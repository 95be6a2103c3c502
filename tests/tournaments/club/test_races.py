"""The club's races on the real database (RULES 13): results and deals asked for at the
same moment, each request a thread with its own connection, released by a barrier."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.db import transaction
from django.db.models import Count

from tests.support.club import play_club_board, seat_four
from tests.support.club_races import at_once, to_last_action
from tournaments.models import (
    Board,
    ClubDeal,
    ClubDealSeen,
    ClubScore,
    ClubSystem,
    ClubTable,
)
from tournaments.services import club

pytestmark = pytest.mark.django_db(transaction=True)


def _deal_of(table: ClubTable) -> ClubDeal:
    table.refresh_from_db()
    board = club.unfinished_board(table.table)
    assert board is not None and board.club_deal is not None
    return board.club_deal


def test_the_sixth_and_seventh_results_at_once_score_every_player_once(make_member, t0):
    tables = [
        seat_four([make_member() for _ in range(4)], system=ClubSystem.DUPLICATE, now=t0)
        for _ in range(7)
    ]
    deal = _deal_of(tables[0])
    assert {_deal_of(t).pk for t in tables} == {deal.pk}  # all seven given deal 1
    for seed, table in enumerate(tables[:5]):
        play_club_board(table, seed=seed, now=t0 + timedelta(minutes=5))
    assert not ClubScore.objects.filter(deal=deal, scored=True).exists()
    last = [to_last_action(table, tricks=6 + i) for i, table in enumerate(tables[5:])]
    answers = at_once(*(action.send for action in last))
    assert all(isinstance(a, dict) and a["over"] for a in answers), answers
    deal.refresh_from_db()
    assert deal.results == 7
    rows = list(ClubScore.objects.filter(deal=deal))
    assert len(rows) == 28 and all(row.scored for row in rows)
    by_user = ClubScore.objects.filter(deal=deal).values("user").annotate(n=Count("id"))
    assert {row["n"] for row in by_user} == {1} and len(by_user) == 28
    by_arrival: dict[int, set[int]] = {}
    for row in rows:
        by_arrival.setdefault(row.arrival, set()).add(row.result_id)
    # Exactly one of the two was the sixth: 24 players scored at it, the 4 of the 7th after.
    assert sorted(by_arrival) == [1, 2, 3, 4, 5, 6, 7]
    assert all(len(results) == 1 for results in by_arrival.values())
    assert sum(1 for row in rows if row.arrival <= 6) == 24
    racing = {a.table.pk for a in last}
    assert {r.result.table_id for r in rows if r.arrival in (6, 7)} == racing


def test_two_tables_with_a_player_in_common_asking_at_once_get_two_deals(make_member, t0):
    """Through the lobby a player sits at one open table at a time (a unique key), so two
    tables with a player in common cannot both ask for a deal: the dealing function
    (`club.give_deal`, which `deal_next_board` calls under the table's lock) is called
    from two threads at once for two groups of four sharing one player, each holding its
    transaction open until both have been given a deal."""
    field = club.field_of(week=club.current_week(now=t0), system=ClubSystem.DUPLICATE)
    for attempt in range(4):
        common = make_member()
        groups = [[common.pk, *(make_member().pk for _ in range(3))] for _ in range(2)]
        both_given = threading.Barrier(2)

        def give(people, field=field, both_given=both_given):
            with transaction.atomic():
                deal = club.give_deal(field=field, people=people, now=t0)
                both_given.wait(timeout=30)  # the other's transaction is open too
                return deal

        answers = at_once(*(lambda people=people: give(people) for people in groups))
        assert all(isinstance(a, ClubDeal) for a in answers), answers
        assert answers[0].pk != answers[1].pk, attempt
        seen = list(ClubDealSeen.objects.filter(user=common).values_list("deal_id", flat=True))
        assert sorted(seen) == sorted(a.pk for a in answers)
    # Nobody was ever given a deal twice (also the unique key's promise).
    assert not (
        ClubDealSeen.objects.values("user", "deal").annotate(n=Count("id")).filter(n__gt=1)
    ).exists()


def test_the_fortieth_giving_and_result_against_tables_asking_at_once(make_member, t0):
    """A deal given 39 times (handicap: a result is scored alone, so the 38 results before
    are counted, not played): the 39th result and two tables starting at once give it to
    at most one of the two (its 40th); that table's result, the 40th, and another table
    starting at once retire it, and the other is given another deal. No deal is ever
    given a 41st time."""
    system = ClubSystem.HANDICAP
    first = seat_four([make_member() for _ in range(4)], system=system, now=t0)
    deal = _deal_of(first)
    ClubDeal.objects.filter(pk=deal.pk).update(given=39, results=38)

    def forming():
        players = [make_member() for _ in range(4)]
        table = club.open_table(user=players[0], system=system, seat="N", now=t0)
        for user, seat in zip(players[1:3], "ES", strict=True):
            club.sit(user=user, club_table_id=table.pk, seat=seat, now=t0)
        return table, lambda: club.sit(user=players[3], club_table_id=table.pk, seat="W", now=t0)

    (b, start_b), (c, start_c) = forming(), forming()
    last = to_last_action(first)
    answers = at_once(last.send, start_b, start_c)
    assert not any(isinstance(a, BaseException) for a in answers), answers
    deal.refresh_from_db()
    # At most one of the two was given it (a table dealing passes over a deal another
    # holds at that moment, here the first table scoring its 39th result: then neither).
    holders = [t for t in (b, c) if _deal_of(t).pk == deal.pk]
    assert len(holders) <= 1 and deal.given == 39 + len(holders)
    assert (deal.results, deal.retired_at) == (39, None)
    assert _deal_of(first).pk != deal.pk  # the first table's players had seen it
    if not holders:  # a table starting alone now is its 40th
        table, start = forming()
        start()
        holders = [table]
        deal.refresh_from_db()
    assert _deal_of(holders[0]).pk == deal.pk and deal.given == 40

    d, start_d = forming()
    answers = at_once(to_last_action(holders[0]).send, start_d)
    assert not any(isinstance(a, BaseException) for a in answers), answers
    deal.refresh_from_db()
    assert (deal.given, deal.results) == (40, 40) and deal.retired_at is not None
    assert _deal_of(d).pk != deal.pk
    assert Board.objects.filter(club_deal=deal).count() == 2  # the two played here
    assert ClubDeal.objects.filter(given__gt=40).count() == 0
