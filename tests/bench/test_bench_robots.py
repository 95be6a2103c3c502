"""The robots' microbenchmark (`bench/bench_robots.py`) as a test of the client's
receive path: four robots of a table, fed the messages a server sends them, make
exactly the moves the robots made on the board, find every view clean, and share one
kept board that replays each board from the start once."""

from __future__ import annotations

import random

from bench import bench_robots
from tournaments.robots import client


def test_the_robots_of_a_table_play_the_board_from_its_views_replaying_it_once():
    rng = random.Random(4)
    boards = []
    for number in range(1, 7):
        job, hands, states, actions = bench_robots.played_board(rng, number)
        boards.append((job, hands, states, actions, bench_robots.streams(number, states)))
    figures = bench_robots.feed(boards)  # asserts each decision is the board's action
    assert figures["messages"] == sum(4 * len(states) for _j, _h, states, _a, _s in boards)
    # Every action is decided by its seat (both opponents decide to accept a claim).
    assert figures["decisions"] >= sum(len(actions) - 1 for _j, _h, _s, actions, _m in boards)
    assert figures["replays"] == len(boards)


def test_the_seats_of_a_table_share_a_board_and_other_tables_do_not():
    rng = random.Random(8)
    job, *_rest = bench_robots.played_board(rng, 2)
    north = client._new_board(client.SeatJob(5, "N", "", (job,)), job)
    south = client._new_board(client.SeatJob(5, "S", "", (job,)), job)
    other_table = client._new_board(client.SeatJob(6, "N", "", (job,)), job)
    assert north.view_board is south.view_board
    assert other_table.view_board is not north.view_board
