"""Robots play a whole online tournament through the real server: 16 pairs, 3 rounds of
4 boards, every seat a `play_robots` robot on a WebSocket to a uvicorn subprocess. The
standings the system keeps equal a recomputation from the stored actions alone: each
table's actions replayed by `play.BoardState.replay`, each board scored across the
field by the scoring engine, each pair's total summed again."""

from __future__ import annotations

import asyncio
import contextlib
import math
import threading
import time
from collections import defaultdict
from datetime import timedelta

import pytest
from django.db import close_old_connections
from django.utils import timezone

import play
import scoring
from tests.support.online_ws import open_online_round
from tests.support.uvicorn import free_port, start_server, stop, wait_until_listening
from tournaments.models import Board, BoardResult, PlayAction, Round, Table, TournamentStatus
from tournaments.robots.client import Pace
from tournaments.robots.runner import Options, drive
from tournaments.selectors.board_views import action_of
from tournaments.selectors.results import standings
from tournaments.services import clock

PAIRS, ROUNDS, BOARDS = 16, 3, 4


class Robots:
    """`runner.drive` on its own event loop in a thread, as `play_robots` runs it."""

    def __init__(self, tournament_id: int | None, port: int):
        self.counts: dict | None = None
        self.error: BaseException | None = None
        self.options = Options(base=f"ws://127.0.0.1:{port}", pace=Pace(), claim_after=1)
        self.tournament_id = tournament_id
        self.loop: asyncio.AbstractEventLoop | None = None
        self.stop_event: asyncio.Event | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        async def main():
            self.loop = asyncio.get_running_loop()
            self.stop_event = asyncio.Event()
            return await drive(
                tournament_ids=None if self.tournament_id is None else [self.tournament_id],
                options=self.options,
                stop=self.stop_event,
                until_finished=self.tournament_id is not None,
            )

        try:
            self.counts = asyncio.run(main())
        except BaseException as error:  # reported by the test
            self.error = error
        finally:
            close_old_connections()

    def stop(self):
        if self.thread.is_alive() and self.loop is not None and self.stop_event is not None:
            with contextlib.suppress(RuntimeError):  # the loop ended meanwhile
                self.loop.call_soon_threadsafe(self.stop_event.set)
        if self.thread.ident is not None:
            self.thread.join(timeout=30)


def all_boards_over(round: Round) -> bool:
    tables = Table.objects.filter(round=round).count()
    return BoardResult.objects.filter(board__round=round).count() == tables * BOARDS


@pytest.mark.django_db(transaction=True)
def test_robots_play_a_tournament_whose_standings_match_the_stored_actions(
    make_tournament, register_pairs, director, tmp_path
):
    first, tables = open_online_round(
        make_tournament, register_pairs, pairs=PAIRS, boards=BOARDS, rounds=ROUNDS,
        round_length=timedelta(hours=1),
    )  # fmt: skip
    tournament = first.tournament
    port, log_path = free_port(), tmp_path / "server.log"
    server = start_server(port=port, log=log_path.open("w"))
    robots = Robots(tournament.pk, port)
    try:
        wait_until_listening(port, server, log_path)
        robots.thread.start()
        deadline = time.monotonic() + 1200
        while True:
            tournament.refresh_from_db()
            if tournament.status == TournamentStatus.FINISHED:
                break
            assert time.monotonic() < deadline, log_path.read_text()[-3000:]
            assert robots.thread.is_alive(), robots.error
            current = Round.objects.filter(tournament=tournament, status="open").first()
            if current is not None and all_boards_over(current):
                # Every table has finished: the director closes the round early.
                clock.close_round_now(tournament=tournament, by=director)
            clock.advance(now=timezone.now())
            time.sleep(0.5)
        robots.thread.join(timeout=30)
    finally:
        try:
            robots.stop()
        finally:
            stop(server)
    assert robots.error is None, robots.error
    assert robots.counts is not None and set(robots.counts) <= {"done", "cancelled"}, robots.counts

    # Every board of every round was played to its end at every table by the robots.
    rounds = list(Round.objects.filter(tournament=tournament).order_by("number"))
    assert len(rounds) == ROUNDS
    replayed: dict[tuple[int, int], int] = {}  # (table id, board id) -> NS score
    for round in rounds:
        boards = list(Board.objects.filter(round=round).order_by("number"))
        assert len(boards) == BOARDS
        for table in Table.objects.filter(round=round):
            for board in boards:
                rows = PlayAction.objects.filter(table=table, board=board).order_by("seq")
                assert [row.seq for row in rows] == list(range(1, len(rows) + 1))
                state = play.BoardState.replay(
                    board.deal, board.dealer, board.vulnerability, [action_of(r) for r in rows]
                )
                assert state.is_over, (round.number, table.number, board.number)
                replayed[table.pk, board.pk] = state.result().ns_score
                stored = BoardResult.objects.get(table=table, board=board)
                assert stored.played_online and stored.ns_score == replayed[table.pk, board.pk]

    # The standings, recomputed from the replayed scores alone.
    method = tournament.scoring_method
    points: dict[int, list[float]] = defaultdict(list)
    for round in rounds:
        tables = list(Table.objects.filter(round=round))
        for board in Board.objects.filter(round=round):
            scores = scoring.score_board(method, [replayed[t.pk, board.pk] for t in tables])
            for table, ns, ew in zip(tables, scores.ns_points, scores.ew_points, strict=True):
                points[table.ns_pair_id].append(ns)
                points[table.ew_pair_id].append(ew)
    rows = standings(tournament=tournament)
    assert len(rows) == PAIRS
    for row in rows:
        assert row.boards_completed == ROUNDS * BOARDS == len(points[row.pair_id])
        expected = scoring.running_total(method, points[row.pair_id])
        assert math.isclose(row.total, expected, abs_tol=1e-6), (row, expected)
