"""Robots play a whole online tournament through the real server: 16 pairs, 3 rounds of
4 boards, every seat a `play_robots` robot on a WebSocket to a uvicorn subprocess. The
standings the system keeps equal a recomputation from the stored actions alone: each
table's actions replayed by `play.BoardState.replay`, each board scored across the
field by the scoring engine, each pair's total summed again."""

from __future__ import annotations

import math
from collections import defaultdict
from datetime import timedelta

import pytest

import scoring
from tests.support.online_ws import open_online_round
from tests.support.robots import play_to_the_end, replay_every_board
from tournaments.models import Board, Round, Table
from tournaments.selectors.results import standings

PAIRS, ROUNDS, BOARDS = 16, 3, 4


@pytest.mark.django_db(transaction=True)
def test_robots_play_a_tournament_whose_standings_match_the_stored_actions(
    make_tournament, register_pairs, director, tmp_path
):
    first, tables = open_online_round(
        make_tournament, register_pairs, pairs=PAIRS, boards=BOARDS, rounds=ROUNDS,
        round_length=timedelta(hours=1),
    )  # fmt: skip
    tournament = first.tournament
    play_to_the_end(tournament, director=director, tmp_path=tmp_path)

    # Every board of every round was played to its end at every table by the robots.
    rounds = list(Round.objects.filter(tournament=tournament).order_by("number"))
    assert len(rounds) == ROUNDS
    replayed = replay_every_board(rounds, boards_per_round=BOARDS)

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
