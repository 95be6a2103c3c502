"""The bell at the system's tables (RULES 9), on the real PostgreSQL with one connection
per thread: an action racing the close is either stored and counted or refused, never
both and never lost; boards not over at the bell are cut off by the policy."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.db import connection

from tests.support.clock import Held, wait_for_lock_wait
from tournaments.errors import PlayRefused
from tournaments.models import BoardResult, PairBoardScore, PlayAction, Table
from tournaments.selectors import table_seats
from tournaments.services import table_play
from tournaments.services.clock import advance

pytestmark = pytest.mark.django_db(transaction=True)

MINUTE = timedelta(minutes=1)
# 1♣ by North, East leads, East concedes the rest, North accepts: South's acceptance is
# the action that ends the board (1♣ making 13 tricks).
OPENING = [
    ("N", {"type": "call", "call": "1C"}),
    ("E", {"type": "call", "call": "P"}),
    ("S", {"type": "call", "call": "P"}),
    ("W", {"type": "call", "call": "P"}),
]
LAST = ("S", {"type": "accept"})


@pytest.fixture
def round_one(make_tournament, register_pairs, t0):
    """8 pairs (4 tables) of an online event cutting unfinished boards off with average
    minus; round 1 open at t0 with its bell at t0 + 20 minutes."""
    tournament = make_tournament(
        rounds=2, boards_per_round=2, play="online", unplayed_policy="avg_minus"
    )
    register_pairs(tournament, 8)
    advance(now=t0)
    tables = list(
        Table.objects.select_related("ns_pair", "ew_pair")
        .filter(round__tournament=tournament, round__number=1)
        .order_by("number")
    )
    return tournament, tables


def users_of(table) -> dict:
    from django.contrib.auth import get_user_model

    ids = table_seats.table_seats(table)
    found = get_user_model().objects.in_bulk(ids.values())
    return {seat: found[user_id] for seat, user_id in ids.items()}


def one_action_from_the_end(table, now) -> dict:
    """Board 1 at `table` played up to its last action; the players by seat."""
    users = users_of(table)

    def act(seat, action):
        view = table_play.board_view(table=table, board_number=1, user=users[seat])
        return table_play.act(
            table=table, board_number=1, user=users[seat],
            action={"seq": view["next_seq"], **action}, now=now,
        )  # fmt: skip

    for seat, action in OPENING:
        act(seat, action)
    east = table_play.board_view(table=table, board_number=1, user=users["E"])
    act("E", {"type": "card", "card": east["legal"][0]})
    act("E", {"type": "claim", "tricks": 0})
    act("N", {"type": "accept"})
    return users


def last_action(table, users, now):
    return table_play.act(
        table=table, board_number=1, user=users["S"], action={"seq": 8, **LAST[1]}, now=now
    )


def test_an_action_holding_the_round_is_stored_and_counted_by_the_close(round_one, t0):
    tournament, tables = round_one
    table = tables[0]
    bell = t0 + 20 * MINUTE
    users = one_action_from_the_end(table, t0 + MINUTE)
    # South's acceptance, a second before the bell, holds its transaction open.
    accepting = Held(lambda: last_action(table, users, bell - timedelta(seconds=1)), "south")
    accepting.start()
    outcome: dict = {}

    def close():
        try:
            outcome["close"] = advance(now=bell)
        finally:
            connection.close()

    closer = threading.Thread(target=close)
    closer.start()
    wait_for_lock_wait()  # the close waits for the action's round lock
    accepting.release()
    closer.join(timeout=60)
    assert not isinstance(accepting.outcome, BaseException), accepting.outcome
    assert accepting.outcome["over"]
    assert "round 1 closed" in outcome["close"].events[0]
    result = BoardResult.objects.get(table=table, board__number=1)
    assert (result.state, result.contract, result.tricks, result.played_online) == (
        "played", "1C", 13, True,
    )  # fmt: skip
    scores = PairBoardScore.objects.filter(result=result)
    assert scores.count() == 2 and all(s.points is not None for s in scores)
    # Board 2 was never played at this table: cut off by the policy.
    cut = BoardResult.objects.get(table=table, board__number=2)
    assert (cut.state, cut.ns_adjustment, cut.ew_adjustment) == ("adjusted", "A-", "A-")
    # And nothing is accepted after the close.
    with pytest.raises(PlayRefused, match="closed"):
        table_play.act(
            table=table, board_number=2, user=users["N"],
            action={"seq": 1, "type": "call", "call": "P"}, now=bell - timedelta(seconds=1),
        )  # fmt: skip
    assert not PlayAction.objects.filter(table=table, board__number=2).exists()


def test_actions_racing_the_close_are_stored_and_counted_or_refused_never_both(round_one, t0):
    tournament, tables = round_one
    bell = t0 + 20 * MINUTE
    players = {table.pk: one_action_from_the_end(table, t0 + MINUTE) for table in tables}
    start = threading.Barrier(len(tables) + 1)
    outcome: dict = {}

    def finish(table):
        try:
            start.wait(timeout=30)
            outcome[table.pk] = last_action(table, players[table.pk], bell - MINUTE / 60)
        except BaseException as error:
            outcome[table.pk] = error
        finally:
            connection.close()

    def close():
        try:
            start.wait(timeout=30)
            outcome["close"] = advance(now=bell)
        except BaseException as error:
            outcome["close"] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=finish, args=(t,)) for t in tables]
    threads.append(threading.Thread(target=close))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not isinstance(outcome["close"], BaseException), outcome["close"]
    for table in tables:
        answer = outcome[table.pk]
        stored = PlayAction.objects.filter(table=table, board__number=1, seq=8).exists()
        result = BoardResult.objects.get(table=table, board__number=1)
        if isinstance(answer, PlayRefused):
            assert "closed" in str(answer)
            assert not stored  # refused: nothing stored
            assert (result.state, result.ns_adjustment) == ("adjusted", "A-")  # cut off
        else:
            assert not isinstance(answer, BaseException), answer
            assert answer["over"] and stored  # stored …
            assert (result.state, result.played_online) == ("played", True)  # … and counted
            assert PairBoardScore.objects.filter(result=result, points__isnull=False).count() == 2
        # The first seven actions stay as the record, whatever happened to the eighth.
        assert PlayAction.objects.filter(table=table, board__number=1, seq__lte=7).count() == 7
