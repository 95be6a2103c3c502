"""Club boards brought to their last action, for the race tests: the dealer opens, the
others pass, the opening lead, declarer claims and the defenders answer; the second
defender's accept (the board's last action) is left to the test to send."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

from django.db import close_old_connections, connection

from tests.support.online import actor_of
from tournaments.models import ClubTable, Table
from tournaments.selectors import table_seats
from tournaments.services import club, table_play


@dataclass
class LastAction:
    table: Table
    board_number: int
    user: object
    action: dict

    def send(self) -> dict:
        return table_play.act(
            table=self.table, board_number=self.board_number, user=self.user, action=self.action
        )


def to_last_action(club_table: ClubTable, *, tricks: int = 7) -> LastAction:
    """Play the table's board up to its last action (a defender's accept of a claim of
    `tricks`); answers that action, not sent."""
    club_table.refresh_from_db()
    play_table = Table.objects.select_related("ns_pair", "ew_pair").get(pk=club_table.table_id)
    board = club.unfinished_board(play_table)
    assert board is not None
    seats = table_seats.table_seats(play_table)
    users = type(play_table.ns_pair.player1).objects.in_bulk(seats.values())
    by_seat = {seat: users[user_id] for seat, user_id in seats.items()}

    def view_of(seat: str) -> dict:
        return table_play.board_view(
            table=play_table, board_number=board.number, user=by_seat[seat]
        )

    for _ in range(20):
        view = view_of("N")
        seat = actor_of(view)
        assert seat is not None, "the board ended early"
        mine = view_of(seat)
        seq = mine["next_seq"]
        if mine.get("claim"):
            action = {"seq": seq, "type": "accept"}
            if len(mine["claim"]["awaiting"]) == 1:
                return LastAction(play_table, board.number, by_seat[seat], action)
        elif mine["contract"] is None:
            calls = [c for c in mine["legal"] if c not in ("P", "X", "XX")]
            call = calls[0] if not mine["auction"] else "P"
            action = {"seq": seq, "type": "call", "call": call}
        elif not mine["play"]:
            action = {"seq": seq, "type": "card", "card": mine["legal"][0]}
        else:
            action = {"seq": seq, "type": "claim", "tricks": tricks}
        table_play.act(
            table=play_table, board_number=board.number, user=by_seat[seat], action=action
        )
    raise AssertionError("no claim to answer")


def at_once(*calls: Callable[[], object]) -> list:
    """Run `calls` in threads of their own (each its own database connection), released
    together by a barrier; answers what each returned or raised, in order."""
    barrier = threading.Barrier(len(calls))
    answers: list = [None] * len(calls)

    def run(index: int, call: Callable[[], object]) -> None:
        close_old_connections()
        try:
            barrier.wait()
            answers[index] = call()
        except BaseException as error:  # the test looks at it
            answers[index] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return answers
