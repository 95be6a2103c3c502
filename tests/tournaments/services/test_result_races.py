"""Nothing of a result is lost to a race (issue 12, point 3), on the real PostgreSQL.

Two connections, one per thread. The interleaving is made deterministic: the first
transaction does its work and then holds its locks (it waits on an event before it
commits) while the second is started and blocks behind them; only then is the first
allowed to commit.
"""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.db import connection

from tests.support.clock import Held, submit, wait_for_lock_wait
from tournaments.errors import NotAllowed
from tournaments.models import BoardResult, ResultState, Table
from tournaments.services import results
from tournaments.services.clock import advance

pytestmark = pytest.mark.django_db(transaction=True)

MINUTE = timedelta(minutes=1)


@pytest.fixture
def open_round(make_tournament, register_pairs, organiser, t0):
    """Round 1 is open; North of table 1 entered board 1 (3NT=, NS +400)."""
    tournament = make_tournament(rounds=2, boards_per_round=1)
    register_pairs(tournament, 4)
    advance(now=t0)
    table = Table.objects.select_related("ns_pair", "ew_pair").get(
        round__tournament=tournament, number=1
    )
    submit(table, 1, "3NT", "N", 9, now=t0 + MINUTE)
    return table


def in_thread(work, outcome: dict, key: str) -> threading.Thread:
    def run():
        try:
            outcome[key] = work()
        except BaseException as error:
            outcome[key] = error
        finally:
            connection.close()

    thread = threading.Thread(target=run, name=key)
    thread.start()
    return thread


def test_an_entry_waiting_behind_an_adjustment_does_not_wipe_it(open_round, organiser, t0):
    """The director adjusts board 1 and holds the round; South sends a correction, which
    reads the board (not adjusted yet) and waits for the round. When the adjustment
    commits, the correction must be refused: it may not replace what it never saw."""
    table = open_round

    def adjust():
        return results.director_set_result(
            table=table, board_number=1, by=organiser, ns_adjustment="A+", ew_adjustment="A-",
            reason="slow play warning ignored", now=t0 + 2 * MINUTE,
        )  # fmt: skip

    director = Held(adjust, "director").start()
    outcome: dict = {}
    south = table.ns_pair.player2
    entry = results.ContractEntry(contract="4S", declarer="S", tricks=10)
    player = in_thread(
        lambda: results.submit_result(
            table=table, board_number=1, entry=entry, user=south, now=t0 + 3 * MINUTE
        ),
        outcome,
        "entry",
    )
    wait_for_lock_wait()  # the entry is blocked behind the director's round lock
    director.release()
    player.join(timeout=60)
    assert not isinstance(director.outcome, BaseException), director.outcome

    refused = outcome["entry"]
    assert isinstance(refused, NotAllowed), refused
    assert str(refused) == "The director has adjusted this board; ask the director."
    stored = BoardResult.objects.get(table=table, board__number=1)
    assert (stored.state, stored.ns_adjustment, stored.ew_adjustment) == ("adjusted", "A+", "A-")
    assert (stored.adjusted_by, stored.adjustment_reason) == (
        organiser,
        "slow play warning ignored",
    )


def test_an_entry_waiting_behind_a_first_adjustment_of_an_empty_board_is_refused(
    open_round, organiser, t0
):
    """The same race on a board with no result yet: the entry's insert meets the
    director's new row and must not turn into an overwrite."""
    table = open_round
    BoardResult.objects.filter(table=table).delete()

    director = Held(
        lambda: results.director_set_result(
            table=table,
            board_number=1,
            by=organiser,
            ns_adjustment="A",
            ew_adjustment="A",
            reason="board fouled",
            now=t0 + 2 * MINUTE,
        ),
        "director",
    ).start()
    outcome: dict = {}
    player = in_thread(lambda: submit(table, 1, "1NT", "N", 7, now=t0 + 3 * MINUTE), outcome, "e")
    wait_for_lock_wait()
    director.release()
    player.join(timeout=60)
    assert isinstance(outcome["e"], NotAllowed), outcome["e"]
    stored = BoardResult.objects.get(table=table, board__number=1)
    assert (stored.state, stored.adjustment_reason) == ("adjusted", "board fouled")


@pytest.mark.parametrize("action", ["confirm", "dispute"])
def test_a_director_ruling_waits_for_a_confirm_or_dispute_in_flight(
    action, open_round, organiser, t0
):
    """East confirms (or disputes) board 1 and has not committed yet; the director
    meanwhile corrects the result. The ruling must see what East did: a confirmation or
    the dispute's note and time are not overwritten by a stale copy of the row."""
    table = open_round
    east = table.ew_pair.player1
    result = BoardResult.objects.get(table=table, board__number=1)
    when = t0 + 2 * MINUTE

    def opponent():
        if action == "confirm":
            return results.confirm_result(result=result, user=east, now=when)
        return results.dispute_result(result=result, user=east, note="it went one off", now=when)

    held = Held(opponent, "opponent").start()
    outcome: dict = {}
    director = in_thread(
        lambda: results.director_set_result(
            table=table,
            board_number=1,
            by=organiser,
            entry=results.ContractEntry(contract="3NT", declarer="N", tricks=8),
            reason="one off, agreed by both sides",
            now=t0 + 3 * MINUTE,
        ),
        outcome,
        "director",
    )
    wait_for_lock_wait()  # the ruling is blocked behind the opponent's transaction
    held.release()
    director.join(timeout=60)
    assert not isinstance(held.outcome, BaseException), held.outcome
    assert isinstance(outcome["director"], BoardResult), outcome["director"]

    stored = BoardResult.objects.get(pk=result.pk)
    assert (stored.state, stored.ns_score) == (ResultState.PLAYED, -50)
    assert (stored.adjusted_by, stored.adjustment_reason) == (
        organiser,
        "one off, agreed by both sides",
    )
    if action == "confirm":
        assert (stored.confirmed_by, stored.confirmed_at) == (east, when)
    else:
        # The ruling settles the dispute; what was disputed, and when, stays on record.
        assert not stored.disputed
        assert (stored.dispute_note, stored.disputed_at) == ("it went one off", when)
