"""A club table from the lobby to scored boards (RULES 13), through the services and the
play server."""

from __future__ import annotations

from datetime import timedelta

import pytest

from tests.support.club import board_in_play, play_club_board, seat_four
from tournaments.errors import NotAllowed
from tournaments.models import (
    BoardResult,
    ClubDealSeen,
    ClubScore,
    ClubSystem,
    ClubTableStatus,
)
from tournaments.services import club

pytestmark = pytest.mark.django_db


def test_a_table_of_four_plays_library_deals_one_after_another(make_member, t0):
    players = [make_member() for _ in range(4)]
    table = seat_four(players, system=ClubSystem.FULL_FIELD_IMPS, now=t0)
    assert table.status == ClubTableStatus.PLAYING
    first = board_in_play(table)
    assert first.club_deal.number == 1
    assert set(
        ClubDealSeen.objects.filter(deal=first.club_deal).values_list("user", flat=True)
    ) == {p.pk for p in players}
    view = play_club_board(table, seed=1, now=t0 + timedelta(minutes=5))
    assert view["over"]
    result = BoardResult.objects.get(board=first)
    scores = ClubScore.objects.filter(result=result)
    assert scores.count() == 4
    # Alone on the deal: the datum is its own score, every player 0.
    assert {s.points for s in scores} == {0.0}
    second = board_in_play(table)
    assert second.club_deal.number == 2 and second.pk != first.pk


def test_handicap_tables_are_everyones_the_others_the_members(make_user, t0):
    guest = make_user()
    with pytest.raises(NotAllowed):
        club.open_table(user=guest, system=ClubSystem.DUPLICATE, now=t0)
    table = club.open_table(user=guest, system=ClubSystem.HANDICAP, now=t0)
    assert table.field.system == ClubSystem.HANDICAP
