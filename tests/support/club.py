"""The club's fixtures (RULES 13): members, a table of four, a board played through the
play server's services."""

from __future__ import annotations

import random
from datetime import datetime

import pytest

from tournaments.models import Board, ClubTable, Table
from tournaments.selectors import table_seats
from tournaments.services import club, table_play

from .online import actor_of, choose


@pytest.fixture
def club_director(director):
    """The directors' group grants club membership (migration 0031)."""
    return director


@pytest.fixture
def make_member(make_user, club_director):
    def make(username: str | None = None, *, name: str = ""):
        user = make_user(username, name=name)
        club.grant_membership(by=club_director, user=user)
        return type(user).objects.get(pk=user.pk)  # its permissions afresh

    return make


def seat_four(players: list, *, system: str, now: datetime) -> ClubTable:
    """A table of `system` with `players` in N, E, S, W (started: its first board dealt)."""
    north, east, south, west = players
    table = club.open_table(user=north, system=system, seat="N", now=now)
    for user, seat in ((east, "E"), (south, "S"), (west, "W")):
        club.sit(user=user, club_table_id=table.pk, seat=seat, now=now)
    table.refresh_from_db()
    return table


def board_in_play(club_table: ClubTable) -> Board:
    club_table.refresh_from_db()
    board = club.unfinished_board(club_table.table)
    assert board is not None
    return board


def play_club_board(club_table: ClubTable, *, seed: int, now: datetime | None = None) -> dict:
    """Play the table's board in play to its end through `table_play` (random legal
    actions); answers the last view."""
    club_table.refresh_from_db()
    play_table: Table = Table.objects.select_related("ns_pair", "ew_pair").get(
        pk=club_table.table_id
    )
    board = club.unfinished_board(play_table)
    assert board is not None
    seats = table_seats.table_seats(play_table)
    users = type(play_table.ns_pair.player1).objects.in_bulk(seats.values())
    by_seat = {seat: users[user_id] for seat, user_id in seats.items()}
    rng = random.Random(seed)
    view = table_play.board_view(table=play_table, board_number=board.number, user=by_seat["N"])
    for _ in range(300):
        seat = actor_of(view)
        if seat is None:
            return view
        user = by_seat[seat]
        mine = table_play.board_view(table=play_table, board_number=board.number, user=user)
        view = table_play.act(
            table=play_table,
            board_number=board.number,
            user=user,
            action=choose(mine, rng, 0.1),
            **({"now": now} if now else {}),
        )
    raise AssertionError("the board did not end")
