"""A whole tournament run through the API alone: players, tournament, pairs, start,
every round's results, closing each round, and the final standings — checked against
matchpoints, ranks and master points computed here from the submitted scores."""

from __future__ import annotations

from collections import defaultdict
from datetime import timedelta
from fractions import Fraction
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone

from tests.support.api import Api, token_for

pytestmark = pytest.mark.django_db

PAIRS = 8
ROUNDS = 3
BOARDS = 2


def player_token(username: str) -> str:
    out = StringIO()
    call_command("api_token", username, stdout=out)
    return out.getvalue().strip()


def tricks_for(ns_no: int, ew_no: int, board: int) -> int:
    # Varied but reproducible: 7 to 11 tricks in 3NT by North.
    return 7 + (ns_no * 7 + ew_no * 3 + board) % 5


def expected_master_points(rank: int, field: int) -> int:
    """RULES 7, written out independently of the scoring package."""
    if rank == 1:
        return 3
    if field >= 20:
        return 2 if rank <= 4 else 1 if rank <= 10 else 0
    if rank > field / 2:
        return 0
    return 2 if rank <= 4 else 1


def test_a_whole_tournament_through_the_api(organiser):
    organiser_api = Api(token_for(organiser))

    # Players and tournament.
    usernames = [f"p{i:02d}" for i in range(1, 2 * PAIRS + 1)]
    for name in usernames:
        response = organiser_api.post("/players", {"username": name, "display_name": name.upper()})
        assert response.status_code == 201, response.content
    response = organiser_api.post(
        "/tournaments",
        {
            "name": "API Swiss",
            "start_at": (timezone.now() + timedelta(hours=2)).isoformat(),
            "rounds": ROUNDS,
            "boards_per_round": BOARDS,
            "round_minutes": 20,
            "gap_minutes": 0,
            "scoring": "MP",
            "completion_threshold": 70,
        },
    )
    assert response.status_code == 201, response.content
    tid = response.json()["id"]

    # Pairs, in registration order.
    reg_no: dict[int, int] = {}
    for i in range(PAIRS):
        pair = organiser_api.post(
            f"/tournaments/{tid}/pairs", {"players": usernames[2 * i : 2 * i + 2]}
        ).json()
        reg_no[pair["id"]] = pair["registration_no"]
    assert sorted(reg_no.values()) == list(range(1, PAIRS + 1))

    started = organiser_api.post(f"/tournaments/{tid}/start")
    assert started.status_code == 200, started.content
    tokens = {name: player_token(name) for name in usernames}

    ns_scores: dict[int, list[tuple[int, int, int]]] = defaultdict(list)  # board → (ns, ew, score)
    met: set[frozenset] = set()
    for number in range(1, ROUNDS + 1):
        round_ = Api().get(f"/tournaments/{tid}/rounds/{number}").json()
        assert round_["status"] == "open" and round_["bye"] is None
        assert len(round_["tables"]) == PAIRS // 2
        for table in round_["tables"]:
            ns, ew = reg_no[table["ns"]], reg_no[table["ew"]]
            assert frozenset((ns, ew)) not in met, "a rematch"
            met.add(frozenset((ns, ew)))
            # Results are entered by a player of the table with their own token.
            player = Api(tokens[table["ew_players"][0]["username"]])
            for board in round_["boards"]:
                path = (
                    f"/tournaments/{tid}/rounds/{number}/tables/{table['table']}"
                    f"/boards/{board['number']}"
                )
                body = {
                    "contract": "3NT",
                    "declarer": "N",
                    "tricks": tricks_for(ns, ew, board["number"]),
                }
                response = player.put(path, body)
                assert response.status_code == 200, response.content
                ns_scores[board["number"]].append((ns, ew, response.json()["ns_score"]))
        closed = organiser_api.post(f"/tournaments/{tid}/rounds/{number}/close")
        assert closed.status_code == 200, closed.content

    detail = Api().get(f"/tournaments/{tid}").json()
    assert detail["status"] == "finished" and detail["finished_at"]

    # Matchpoints by hand: 2 per score beaten, 1 per tie, as a percentage of the top.
    percentages: dict[int, list[Fraction]] = defaultdict(list)
    for lines in ns_scores.values():
        top = 2 * (len(lines) - 1)
        for ns, ew, score in lines:
            mp = sum(2 if score > other else 1 if score == other else 0 for *_, other in lines)
            mp -= 1  # the comparison with itself counted as a tie
            percentages[ns].append(Fraction(100 * mp, top))
            percentages[ew].append(100 - Fraction(100 * mp, top))
    totals = {no: sum(p) / len(p) for no, p in percentages.items()}
    order = sorted(totals, key=lambda no: (-round(float(totals[no]), 6), -len(percentages[no]), no))
    expected_rank = {no: i for i, no in enumerate(order, start=1)}

    rows = Api().get(f"/tournaments/{tid}/standings").json()
    assert len(rows) == PAIRS
    for row in rows:
        no = row["registration_no"]
        assert row["total"] == pytest.approx(float(totals[no]), abs=1e-6), no
        assert row["boards_completed"] == ROUNDS * BOARDS
        assert row["completion"] == 100.0 and row["completed"] is True
        assert row["rank"] == expected_rank[no], (no, row, totals)
        assert row["master_points"] == expected_master_points(row["rank"], PAIRS)
    assert [r["rank"] for r in rows] == list(range(1, PAIRS + 1))
    assert [r["master_points"] for r in rows] == [3, 2, 2, 2, 0, 0, 0, 0]

    # Hand records are public now, and the exports describe the finished event.
    board = Api().get(f"/tournaments/{tid}/boards/1").json()
    assert board["deal"] and len(board["results"]) == PAIRS // 2
    assert Api().get(f"/tournaments/{tid}/export.pbn").status_code == 200
    assert Api().get(f"/tournaments/{tid}/export.xml").status_code == 200
