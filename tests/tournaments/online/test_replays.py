"""The replayed board each process keeps per table (`tournaments.selectors.replays`): never
trusted beyond what the database holds."""

from __future__ import annotations

import random

import pytest

import play
from tests.support.online import actor_of, choose, players_by_seat, table_at
from tournaments.models import Board, PlayAction
from tournaments.selectors import replays
from tournaments.services import table_play

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _nothing_kept():
    replays.forget_all()
    yield
    replays.forget_all()


def _play(table, users, actions: int, rng) -> dict:
    view = table_play.board_view(table=table, board_number=1, user=users["N"])
    for _ in range(actions):
        seat = actor_of(view)
        mine = table_play.board_view(table=table, board_number=1, user=users[seat])
        view = table_play.act(
            table=table, board_number=1, user=users[seat], action=choose(mine, rng, 0)
        )
    return view


def _kept(table, users=None):
    """(board 1, what this process keeps of it), after a view has read it when `users`
    are given (a test's actions are not committed, so `act` keeps nothing itself)."""
    if users is not None:
        table_play.board_view(table=table, board_number=1, user=users["N"])
    board = Board.objects.get(round_id=table.round_id, number=1)
    return board, replays._kept[table.pk, board.pk]


def _keep(table, board, kept, **instead) -> None:
    """Keep `kept` (a kept board) for this table and board again, with `instead` (stored,
    deal, state) in place of its own: as if this process had seen only that."""
    fields = {"stored": kept.stored, "deal": kept.deal, "state": kept.state, **instead}
    replays.remember(table_id=table.pk, board_id=board.pk, **fields)


def _views(table, users) -> dict:
    return {
        seat: table_play.board_view(table=table, board_number=1, user=user)
        for seat, user in users.items()
    }


def _fresh_views(table, users) -> dict:
    replays.forget_all()
    return _views(table, users)


def test_a_board_kept_from_earlier_is_brought_up_to_date_with_the_rows_after_it(
    online_running,
):
    tournament, _pairs = online_running
    table = table_at(tournament)
    users = players_by_seat(table)
    rng = random.Random(3)
    _play(table, users, 6, rng)
    board, early = _kept(table, users)
    assert early.stored.actions == 6
    _play(table, users, 5, rng)
    # As if this process had seen only the first six (the others were stored elsewhere).
    _keep(table, board, early)
    views = _views(table, users)
    assert views == _fresh_views(table, users)
    assert views["N"]["next_seq"] == 12


def test_a_kept_board_that_does_not_match_the_stored_rows_is_replayed(online_running):
    tournament, _pairs = online_running
    table = table_at(tournament)
    users = players_by_seat(table)
    _play(table, users, 8, random.Random(5))
    board, kept = _kept(table, users)
    truth = _fresh_views(table, users)
    # The same count but another last row, and a count ahead of the database: neither
    # is the board the database holds.
    for stored in (
        replays.Stored(kept.stored.actions, kept.stored.last_id + 1000),
        replays.Stored(kept.stored.actions + 3, kept.stored.last_id + 3),
    ):
        _keep(table, board, kept, stored=stored)
        assert _views(table, users) == truth
    # Another deal kept under the same ids (a test database reuses ids): not taken.
    other = "N:AKQJ.T98.765.432 T98.765.432.AKQJ 765.432.AKQJ.T98 432.AKQJ.T98.765"
    _keep(table, board, kept, deal=(other, "N", "None"),
          state=play.BoardState.start(other, "N", "None"))  # fmt: skip
    assert table_play.board_view(table=table, board_number=1, user=users["N"]) == truth["N"]


def test_another_process_s_action_is_taken_from_its_event_only_when_it_follows(
    online_running,
):
    tournament, _pairs = online_running
    table = table_at(tournament)
    users = players_by_seat(table)
    rng = random.Random(7)
    _play(table, users, 4, rng)
    board, before = _kept(table, users)
    _play(table, users, 1, rng)
    row = PlayAction.objects.get(table=table, board=board, seq=5)
    event_row = replays.Row(row.pk, row.seq, row.seat, row.kind, row.call, row.alert,
                            row.card, row.tricks)  # fmt: skip
    # One behind: takes it, exactly as a read of the database would.
    _keep(table, board, before)
    replays.follow(table_id=table.pk, board_id=board.pk, row=event_row)
    _board, followed = _kept(table)
    assert followed.stored == replays.Stored(5, row.pk)
    replays.forget_all()
    assert followed.state == replays.board_state(
        table_id=table.pk, board_id=board.pk, stored=followed.stored,
        deal=before.deal[0], dealer=before.deal[1], vulnerability=before.deal[2],
    )  # fmt: skip
    # Not one behind (a gap, or already there): left alone.
    _keep(table, board, before, stored=replays.Stored(3, 0))
    replays.follow(table_id=table.pk, board_id=board.pk, row=event_row)
    assert _kept(table)[1].stored == replays.Stored(3, 0)
