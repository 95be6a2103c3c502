"""The robots at the club's tables (RULES 13): which seats they play, board by board.

A club table plays library deals one at a time: its next board is dealt in the
transaction that stores the previous one's result (`club_scoring.board_finished`), so a
seat's boards are not known in advance. Each poll of the runner asks for the board each
playing club table is at now, and a robot plays it in a task of its own, keyed by the
table, the seat and the board's number: when the board is over the task ends, and the
next poll starts the next board's.

The seats robots play at a playing club table:

- the robot players' seats (`ClubSeat.robot`, the users `club-robot-n/e/s/w`), whom a
  player asked for in the lobby (`club.add_robots`);
- the seat of a person whose connection was lost past the grace period
  (`club_presence`: an open `ClubPenalty`): the robot stands in (its sockets say so,
  `client.STAND_IN_HEADER`, and do not count as the person's) until the person is back;
  then the penalty's `back_at` is set and the robot leaves the seat at the next poll;
- with `all_seats` (the simulated week, `bench/bench_club.py`), every seat: robots play
  the members themselves, as ordinary connections;
- with `never_logged_in` (`make run`'s demo), the seats of players who have never logged
  in (the demo's seeded members): a person who logs in as one takes the seat over.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth import get_user_model

from simulation.robot import Plan, heuristic_plan, plan_of

from ..deals import hands_of
from ..models import Board, ClubPenalty, ClubSeat, ClubTable, ClubTableStatus
from ..selectors import table_seats
from ..services.simulator import board_facts
from .client import BoardJob, SeatJob


@dataclass(frozen=True)
class ClubSeatJob:
    key: tuple  # (table id, seat, board number): one task a board
    job: SeatJob
    user_id: int


def _plan(board: Board, table_id: int, heuristic: bool, facts: dict) -> Plan:
    if heuristic:
        hands = hands_of(board.deal)
        return heuristic_plan(
            {seat: [suit + rank for suit, ranks in hand.items() for rank in ranks]
             for seat, hand in hands.items()}
        )  # fmt: skip
    return plan_of(facts[board.pk], random.Random(f"{board.pk}-{table_id}"))


def club_seats(
    *,
    tournament_ids: Iterable[int] | None,
    tokens,
    heuristic: bool,
    plan_cache: dict,
    all_seats: bool = False,
    never_logged_in: bool = False,
    now: datetime,
) -> list[ClubSeatJob]:
    """The robot-played seats of the playing club tables, each at the board its table
    plays now (`tokens`: the runner's `RobotTokens`; `plan_cache`: board id -> plan,
    the club's own, kept by the caller between polls). Five queries, whatever the
    number of tables."""
    tables = ClubTable.objects.filter(status=ClubTableStatus.PLAYING, table__isnull=False)
    if tournament_ids is not None:
        tables = tables.filter(field__tournament_id__in=list(tournament_ids))
    by_id = {t.pk: t for t in tables.select_related("table", "table__ns_pair", "table__ew_pair")}
    if not by_id:
        return []
    robots = set(
        ClubSeat.objects.filter(club_table_id__in=by_id, active=True, robot=True).values_list(
            "club_table_id", "seat"
        )
    )
    stand_ins = set(
        ClubPenalty.objects.filter(club_table_id__in=by_id, back_at__isnull=True).values_list(
            "club_table_id", "seat"
        )
    )
    round_of = {t.table.round_id: t for t in by_id.values() if t.table is not None}
    # A club round has one table: its board in play is its first without a result.
    boards: dict[int, Board] = {}
    for board in Board.objects.filter(round_id__in=round_of, results__isnull=True).order_by(
        "number"
    ):
        boards.setdefault(board.round_id, board)
    new = [b for b in boards.values() if b.pk not in plan_cache]
    facts = {} if heuristic or not new else board_facts(new)
    for board in new:
        plan_cache[board.pk] = _plan(board, round_of[board.round_id].table_id, heuristic, facts)
    for board_id in set(plan_cache) - {b.pk for b in boards.values()}:
        del plan_cache[board_id]  # a board over: its plan is not needed again
    absent: set[int] = set()
    if never_logged_in:
        seated_ids = {
            user_id
            for t in by_id.values()
            if t.table is not None
            for user_id in table_seats.table_seats(t.table).values()
        }
        absent = set(
            get_user_model()
            .objects.filter(pk__in=seated_ids, last_login__isnull=True)
            .values_list("pk", flat=True)
        )
    found: list[tuple[ClubTable, str, int, Board, bool]] = []
    for round_id, board in boards.items():
        club_table = round_of[round_id]
        play_table = club_table.table
        assert play_table is not None
        for seat, user_id in table_seats.table_seats(play_table).items():
            stand_in = (club_table.pk, seat) in stand_ins
            if all_seats or stand_in or (club_table.pk, seat) in robots or user_id in absent:
                found.append((club_table, seat, user_id, board, stand_in and not all_seats))
    users = get_user_model().objects.in_bulk({user_id for _t, _s, user_id, _b, _i in found})
    jobs = []
    for club_table, seat, user_id, board, stand_in in found:
        play_table = club_table.table
        assert play_table is not None
        job = SeatJob(
            table_id=play_table.pk,
            seat=seat,
            token=tokens.key_for(users[user_id], now),
            boards=(BoardJob(board.number, board.deal, plan_cache[board.pk]),),
            stand_in=stand_in,
        )
        jobs.append(ClubSeatJob((play_table.pk, seat, board.number), job, user_id))
    return jobs
