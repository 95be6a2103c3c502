"""Robots play a two-winner Mitchell of 7 tables online to the end through the real server
(issue 25): 14 pairs, the full movement of 7 rounds, every seat a `play_robots` robot on a
WebSocket to a uvicorn subprocess (`tests.support.robots`, as the Swiss robot tournament).

Every round is seated as the movement fixed at round 1 says, no two pairs meet twice, and
each field's totals and ranks equal a recomputation from the stored actions alone: each
table's actions replayed by `play.BoardState.replay`, each board scored across the
tables by the scoring engine (NS pairs compared with NS pairs, EW with EW), each pair's
total summed again and each field ordered by `scoring.standing_key`. The results page
shows those figures as two lists, North-South and East-West."""

from __future__ import annotations

import math
from collections import defaultdict
from datetime import timedelta

import lxml.html
import pytest
from django.urls import reverse

import movements
import scoring
from tests.support.online_ws import open_online_round
from tests.support.robots import play_to_the_end, replay_every_board
from tournaments.models import Board, Pair, Round, Table
from tournaments.selectors.results import standings

TABLES, BOARDS = 7, 1
PAIRS, ROUNDS = 2 * TABLES, TABLES  # the full Mitchell: every NS pair meets every EW pair
HEADINGS = {"NS": "North-South", "EW": "East-West"}


@pytest.mark.django_db(transaction=True)
def test_robots_play_a_two_winner_mitchell_whose_two_lists_match_the_stored_actions(
    make_tournament, register_pairs, director, tmp_path, client
):
    first, _tables = open_online_round(
        make_tournament, register_pairs, pairs=PAIRS, boards=BOARDS, rounds=ROUNDS,
        round_length=timedelta(hours=1), seating="mitchell", winners=2, scoring_method="MP",
        neuberg=True,
    )  # fmt: skip
    tournament = first.tournament
    tournament.refresh_from_db()
    movement = movements.from_json(tournament.movement)  # fixed at round 1's start
    assert (movement.kind, movement.tables, movement.round_count) == ("mitchell", TABLES, ROUNDS)
    assert movement.directions == ("NS",) * TABLES + ("EW",) * TABLES
    play_to_the_end(tournament, director=director, tmp_path=tmp_path)

    pairs = {p.pk: p for p in Pair.objects.filter(tournament=tournament)}
    assert sorted(p.position for p in pairs.values()) == list(range(1, PAIRS + 1))
    for pair in pairs.values():
        assert pair.field == movement.directions[pair.position - 1]

    # Every round seated as the stored movement's round, through the pairs' positions.
    rounds = list(Round.objects.filter(tournament=tournament).order_by("number"))
    assert [r.number for r in rounds] == list(range(1, ROUNDS + 1))
    met: list[frozenset[int]] = []
    for round in rounds:
        tables = Table.objects.filter(round=round)
        seated = {(t.number, pairs[t.ns_pair_id].position, pairs[t.ew_pair_id].position)
                  for t in tables}  # fmt: skip
        assert seated == {(e.table, e.ns, e.ew) for e in movement.round(round.number)}
        assert round.bye_pair_id is None
        met += [frozenset((t.ns_pair_id, t.ew_pair_id)) for t in tables]
    assert len(met) == len(set(met)) == TABLES * ROUNDS  # no two pairs met twice

    # Every board played to its end at every table by the robots, the stored result its
    # replay's score.
    replayed = replay_every_board(rounds, boards_per_round=BOARDS)

    # Each field recomputed from the replayed scores alone: on a board the NS pairs are
    # compared with one another (NS points), the EW pairs likewise.
    method = tournament.scoring_method
    points: dict[int, list[float]] = defaultdict(list)
    for round in rounds:
        tables = list(Table.objects.filter(round=round))
        for board in Board.objects.filter(round=round):
            scores = scoring.score_board(
                method, [replayed[t.pk, board.pk] for t in tables],
                neuberg=True, expected=len(tables),
            )  # fmt: skip
            for table, ns, ew in zip(tables, scores.ns_points, scores.ew_points, strict=True):
                points[table.ns_pair_id].append(ns)
                points[table.ew_pair_id].append(ew)
    totals = {pk: scoring.running_total(method, points[pk]) for pk in pairs}
    expected: dict[str, list[int]] = {}  # field -> its pairs, first to last
    for field in ("NS", "EW"):
        members = [p for p in pairs.values() if p.field == field]
        assert len(members) == TABLES
        members.sort(key=lambda p: scoring.standing_key(totals[p.pk], ROUNDS * BOARDS,
                                                        p.registration_no))  # fmt: skip
        expected[field] = [p.pk for p in members]

    rows = standings(tournament=tournament)
    assert len(rows) == PAIRS
    for row in rows:
        assert row.boards_completed == ROUNDS * BOARDS == len(points[row.pair_id])
        assert math.isclose(row.total, totals[row.pair_id], abs_tol=1e-6), row
        place = expected[row.field].index(row.pair_id) + 1
        assert (row.position, row.rank, row.completed) == (place, place, True), row
    for field in ("NS", "EW"):
        assert [row.pair_id for row in rows if row.field == field] == expected[field]

    # The results page: two lists under their headings, each with those ranks and totals.
    response = client.get(reverse("results", args=[tournament.pk]), HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 200
    doc = lxml.html.fromstring(response.content.decode())
    headings = [h.text_content().strip() for h in doc.xpath('//h2[@class="field-title"]')]
    assert headings == [HEADINGS["NS"], HEADINGS["EW"]]
    grids = doc.xpath('//table[contains(@class, "results-grid") and @data-field]')
    assert [grid.get("data-field") for grid in grids] == ["NS", "EW"]
    for grid in grids:
        field = grid.get("data-field")
        shown = [
            (
                int(tr.get("data-pair")),
                tr.xpath("./td[contains(@class, 'rank')]")[0].text_content().strip().rstrip("="),
                tr.xpath("./td[contains(@class, 'total')]")[0].text_content().strip(),
            )
            for tr in grid.xpath("./tbody/tr[@data-pair]")
        ]
        assert shown == [
            (pk, str(place), f"{totals[pk]:.2f}%")  # MP: a percentage
            for place, pk in enumerate(expected[field], start=1)
        ], field
