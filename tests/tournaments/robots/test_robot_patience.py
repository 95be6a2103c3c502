"""A robot's `timeout` is a silence, not a length of board: a board that goes on, however
long it lasts, keeps the robot at the table (issue 23: at 1,000 tables the benchmark's
robots, patient for 80 s from opening their board, had closed their sockets before the
bell when the connecting alone took longer). Four robots on WebSockets to a uvicorn
subprocess play a board that lasts several times their timeout."""

from __future__ import annotations

import asyncio
import random

import pytest

import play
from simulation.robot import heuristic_plan
from tests.support.online_ws import open_online_round, seated_users, token_of
from tests.support.uvicorn import free_port, start_server, stop, wait_until_listening
from tournaments.models import Board, BoardResult
from tournaments.robots.client import DONE, BoardJob, Pace, SeatJob, play_seat

PATIENCE = 4.0  # seconds of silence a robot waits


@pytest.mark.django_db(transaction=True)
def test_a_robot_stays_at_a_board_that_lasts_longer_than_its_patience(
    make_tournament, register_pairs, tmp_path
):
    _round, tables = open_online_round(make_tournament, register_pairs, boards=1, rounds=1)
    table = tables[0]
    board = Board.objects.get(round_id=table.round_id, number=1)
    state = play.BoardState.start(board.deal, board.dealer, board.vulnerability)
    plan = heuristic_plan({seat: state.hand_of(seat) for seat in "NESW"})
    jobs = [
        SeatJob(
            table_id=table.pk,
            seat=seat,
            token=token_of(user),
            boards=(BoardJob(1, board.deal, plan),),
        )
        for seat, user in seated_users(table).items()
    ]
    port = free_port()
    log_path = tmp_path / "server.log"
    server = start_server(port=port, log=log_path.open("w"))
    try:
        wait_until_listening(port, server, log_path)

        async def play_board():
            rng = random.Random(23)
            return await asyncio.gather(
                *(
                    play_seat(
                        job,
                        base=f"ws://127.0.0.1:{port}",
                        # An action every 0.6–1.2 s at the table: each seat hears one
                        # well within its patience, and the board lasts several times it.
                        pace=Pace(0.6, 1.2),
                        rng=random.Random(rng.random()),
                        claim_after=1,
                        timeout=PATIENCE,
                    )
                    for job in jobs
                )
            )

        loop = asyncio.new_event_loop()
        try:
            began = loop.time()
            outcomes = loop.run_until_complete(asyncio.wait_for(play_board(), 120))
            lasted = loop.time() - began
        finally:
            loop.close()
    finally:
        stop(server)
    assert outcomes == [DONE] * 4, log_path.read_text()[-2000:]
    assert lasted > 2 * PATIENCE
    assert BoardResult.objects.filter(table=table, board=board).exists()
