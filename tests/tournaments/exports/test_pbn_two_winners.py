"""The PBN export of a two-winner event (RULES 10): the pairs numbered as the USEBIO export
numbers them ("3NS", "3EW" from the stored movement, else registration number and field)
on the travellers and the ranking, and the ranking's TotalScoreTable holding the NS list
then the EW list, each ranked in its direction; read back through endplay's parser. One
winner is written as before."""

from __future__ import annotations

import re

import pytest
from endplay.parsers import pbn as pbn_parser

from tests.support.two_winners import build_mitchell
from tournaments.exports import pbn_export
from tournaments.models import BoardResult, Pair, Tournament

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]


def _ranking(text: str) -> tuple[list[str], list[dict[str, str]]]:
    boards = pbn_parser.loads(text)
    table = boards[0].info["TotalScoreTable"]
    headers = [h["name"] for h in table["headers"]]
    assert all("TotalScoreTable" not in b.info for b in boards[1:])
    # Names, last, is one quoted token that endplay splits at its spaces: the cells
    # before it are read by position.
    return headers, [dict(zip(headers, row, strict=False)) for row in table["rows"]]


def _travellers(text: str) -> set[tuple[str, str]]:
    meetings = set()
    for board in pbn_parser.loads(text):
        table = board.info["ScoreTable"]
        headers = [h["name"] for h in table["headers"]]
        for row in table["rows"]:
            cell = dict(zip(headers, row, strict=True))
            meetings.add((cell["PairId_NS"], cell["PairId_EW"]))
    return meetings


def _check(text: str, tournament, label, *, finished: bool) -> None:
    headers, rows = _ranking(text)
    assert headers[:3] == ["Rank", "PairId", "Direction"] and headers[-1] == "Names"
    pairs = {label(p): p for p in Pair.objects.filter(tournament=tournament)}
    assert sorted(r["PairId"] for r in rows) == sorted(pairs)
    # Two lists, one after the other: every NS pair, then every EW pair.
    directions = [r["Direction"] for r in rows]
    assert directions == ["NS"] * directions.count("NS") + ["EW"] * directions.count("EW")
    assert directions.count("NS") == directions.count("EW") == len(pairs) // 2
    for row in rows:
        pair = pairs[row["PairId"]]
        assert row["Direction"] == pair.field and row["PairId"].endswith(pair.field)
        if finished:
            assert row["Rank"] == (str(pair.rank) if pair.rank else "-")
            assert float(row["MasterPoints"]) == float(pair.master_points)
    for direction in ("NS", "EW"):
        ranks = [int(r["Rank"]) for r in rows if r["Direction"] == direction and r["Rank"] != "-"]
        # Each direction is its own ranking: 1… within it, in the order listed.
        assert ranks == sorted(ranks) and ranks[0] == 1
        if not finished:
            assert ranks == list(range(1, len(pairs) // 2 + 1))
    # The travellers name the pairs the same way, NS pairs NS and EW pairs EW.
    played = {
        (label(r.table.ns_pair), label(r.table.ew_pair))
        for r in BoardResult.objects.filter(
            board__tournament=tournament, board__round__status="closed"
        ).select_related("table__ns_pair", "table__ew_pair")
    }
    assert _travellers(text) == played
    assert all(ns.endswith("NS") and ew.endswith("EW") for ns, ew in played)


def test_two_rankings_numbered_by_movement_position(make_tournament, register_pairs):
    event = build_mitchell(make_tournament, register_pairs, tables=5, rounds=3)
    tournament = event.tournament
    assert tournament.movement is not None and tournament.winners == 2
    text = pbn_export(tournament=tournament)
    _check(text, tournament, lambda pair: event.movement.label(pair.position), finished=True)
    _headers, rows = _ranking(text)
    # Every field has a winner, and two pairs are ranked first: one in each direction.
    winners = {(r["PairId"][-2:], r["Direction"]) for r in rows if r["Rank"] == "1"}
    assert winners == {("NS", "NS"), ("EW", "EW")}
    # The export format's lines, as the one-winner file writes them (PBN 5.2).
    header = re.search(r'\[TotalScoreTable "([^"]*)"\]', text).group(1)
    assert header.startswith("Rank\\4R;PairId\\3R;Direction\\2L;TotalPercentage\\7R;")
    for line in text.splitlines():
        assert len(line) <= 255


def test_without_a_stored_movement_the_registration_number_takes_the_field(
    make_tournament, register_pairs
):
    event = build_mitchell(make_tournament, register_pairs, tables=5, rounds=3)
    Tournament.objects.filter(pk=event.tournament.pk).update(movement=None)
    tournament = Tournament.objects.get(pk=event.tournament.pk)
    text = pbn_export(tournament=tournament)
    _check(text, tournament, lambda pair: f"{pair.registration_no}{pair.field}", finished=True)
    assert "10EW" in {r["PairId"] for r in _ranking(text)[1]}
    # The widest number sets the PairId columns' width.
    assert "PairId\\4R" in text and "PairId_NS\\4R;PairId_EW\\4R" in text


def test_a_running_two_winner_event_lists_positions_per_direction(make_tournament, register_pairs):
    event = build_mitchell(make_tournament, register_pairs, tables=5, rounds=3, finish=False)
    tournament = event.tournament
    text = pbn_export(tournament=tournament)
    _check(text, tournament, lambda pair: event.movement.label(pair.position), finished=False)
    assert {r["MasterPoints"] for r in _ranking(text)[1]} == {"-"}


def test_one_winner_has_one_ranking_by_registration_number(export_finished):
    tournament, pairs = export_finished
    text = pbn_export(tournament=tournament)
    headers, rows = _ranking(text)
    assert "Direction" not in headers
    total = "TotalPercentage" if tournament.scoring_method == "MP" else "TotalIMP"
    assert headers[:3] == ["Rank", "PairId", total]
    assert sorted(int(r["PairId"]) for r in rows) == sorted(p.registration_no for p in pairs)
    assert "PairId\\3R" in text and "PairId_NS\\3R;PairId_EW\\3R" in text
