"""Robots playing a whole online tournament through the real server, for the robot
tournament tests (Swiss pairs, a two-winner Mitchell): every seat a `play_robots` robot on
a WebSocket to a uvicorn subprocess, the director closing each round as soon as every
table has finished, the clock run by the test until the tournament is finished."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time

from django.db import close_old_connections
from django.utils import timezone

import play
from tests.support.uvicorn import free_port, start_server, stop, wait_until_listening
from tournaments.models import (
    Board,
    BoardResult,
    PlayAction,
    Round,
    Table,
    Tournament,
    TournamentStatus,
)
from tournaments.robots.client import Pace
from tournaments.robots.runner import Options, drive
from tournaments.selectors.board_views import action_of
from tournaments.services import clock


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
    """Every table of `round` has a result on every board of it."""
    tables = Table.objects.filter(round=round).count()
    boards = Board.objects.filter(round=round).count()
    return BoardResult.objects.filter(board__round=round).count() == tables * boards


def play_to_the_end(tournament: Tournament, *, director, tmp_path, timeout: float = 1200) -> None:
    """Robots play `tournament` (its round 1 open) to its end through a real server; each
    round is closed by the director once every table has finished it."""
    port, log_path = free_port(), tmp_path / "server.log"
    server = start_server(port=port, log=log_path.open("w"))
    robots = Robots(tournament.pk, port)
    try:
        wait_until_listening(port, server, log_path)
        robots.thread.start()
        deadline = time.monotonic() + timeout
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


def replay_every_board(rounds: list[Round], *, boards_per_round: int) -> dict[tuple[int, int], int]:
    """(table id, board id) -> NS score of every board of `rounds`, replayed from its stored
    actions through `play/`: each board was played to its end, its actions numbered 1, 2, …,
    and the stored result is the replay's score."""
    replayed: dict[tuple[int, int], int] = {}
    for round in rounds:
        boards = list(Board.objects.filter(round=round).order_by("number"))
        assert len(boards) == boards_per_round
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
    return replayed
