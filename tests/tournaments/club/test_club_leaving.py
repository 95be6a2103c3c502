"""Leaving a club table (RULES 13): between boards the table closes; mid-board the leaver is
counted disconnected, free at once, and a robot finishes the board for them so the other
three keep what they played; then the table closes instead of dealing the next board."""

from __future__ import annotations

from datetime import timedelta

import pytest

from tests.support.club import board_in_play, play_club_board, seat_four
from tests.support.online import actor_of
from tournaments.models import (
    BoardResult,
    ClubPenalty,
    ClubScore,
    ClubSeat,
    ClubSystem,
    ClubTable,
    ClubTableStatus,
)
from tournaments.robots.club import club_seats
from tournaments.robots.runner import RobotTokens
from tournaments.selectors import table_seats
from tournaments.services import club, table_play

pytestmark = pytest.mark.django_db


def _first_call(table: ClubTable, now) -> None:
    """The dealer's first call on the board in play: the board is now in play."""
    board = board_in_play(table)
    play_table = table.table
    users = {s.seat: s.user for s in table.seats.filter(active=True).select_related("user")}
    view = table_play.board_view(table=play_table, board_number=board.number, user=users["N"])
    dealer = actor_of(view)
    table_play.act(
        table=play_table,
        board_number=board.number,
        user=users[dealer],
        action={"seq": view["next_seq"], "type": "call", "call": "P"},
        now=now,
    )


def test_leaving_between_boards_closes_the_table_and_costs_nothing(make_member, t0):
    players = [make_member() for _ in range(4)]
    table = seat_four(players, system=ClubSystem.FULL_FIELD_IMPS, now=t0)
    play_club_board(table, seed=2, now=t0 + timedelta(minutes=5))
    club.leave(user=players[0], club_table_id=table.pk, now=t0 + timedelta(minutes=6))
    table.refresh_from_db()
    assert table.status == ClubTableStatus.CLOSED and not table.closes_after_board
    assert not ClubPenalty.objects.exists()


def test_leaving_mid_board_a_robot_finishes_it_and_then_the_table_closes(make_member, t0):
    players = [make_member() for _ in range(4)]
    leaver = players[1]  # East
    table = seat_four(players, system=ClubSystem.FULL_FIELD_IMPS, now=t0)
    board = board_in_play(table)
    _first_call(table, t0 + timedelta(minutes=1))

    club.leave(user=leaver, club_table_id=table.pk, now=t0 + timedelta(minutes=2))
    table.refresh_from_db()
    assert table.status == ClubTableStatus.PLAYING and table.closes_after_board
    assert not ClubSeat.objects.filter(club_table=table, user=leaver, active=True).exists()
    penalty = ClubPenalty.objects.get(club_table=table, user=leaver)
    assert (penalty.board_id, penalty.seat, penalty.back_at) == (board.pk, "E", None)
    # Free at once: the leaver opens another table while the robot plays on for them.
    elsewhere = club.open_table(
        user=leaver, system=ClubSystem.HANDICAP, now=t0 + timedelta(minutes=3)
    )
    assert elsewhere.status == ClubTableStatus.FORMING
    # The robots' runner stands in at the leaver's seat on this board, as a stand-in.
    jobs = club_seats(
        tournament_ids=None,
        tokens=RobotTokens(),
        heuristic=True,
        plan_cache={},
        now=t0 + timedelta(minutes=3),
    )
    stand_ins = [j for j in jobs if j.job.table_id == table.table_id]
    assert [(j.job.seat, j.job.stand_in, j.user_id) for j in stand_ins] == [("E", True, leaver.pk)]
    assert table_seats.table_seats(table.table)["E"] == leaver.pk

    # The board is played out (the stand-in acts with the leaver's seat) and scored...
    play_club_board(table, seed=4, now=t0 + timedelta(minutes=9))
    result = BoardResult.objects.get(board=board, table=table.table)
    assert ClubScore.objects.filter(result=result).count() == 4
    # ... and the table closes instead of dealing a next board.
    table.refresh_from_db()
    assert table.status == ClubTableStatus.CLOSED and table.closed_at is not None
    assert club.unfinished_board(table.table) is None
    assert not ClubSeat.objects.filter(club_table=table, active=True).exists()
    assert table.table.round.boards.count() == 1


def test_leaving_mid_board_with_only_robots_left_closes_at_once(make_member, t0):
    me = make_member()
    table = club.open_table(user=me, system=ClubSystem.FULL_FIELD_IMPS, seat="S", now=t0)
    table = club.add_robots(user=me, club_table_id=table.pk, now=t0)
    assert table.status == ClubTableStatus.PLAYING
    _first_call(table, t0 + timedelta(minutes=1))
    club.leave(user=me, club_table_id=table.pk, now=t0 + timedelta(minutes=2))
    table.refresh_from_db()
    assert table.status == ClubTableStatus.CLOSED
    assert ClubPenalty.objects.filter(user=me).count() == 1  # counted all the same
