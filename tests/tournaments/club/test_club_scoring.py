"""A club result scored against its deal's field as it is stored (RULES 13): SPEC 13's
worked handicap example through the service, and duplicate's sixth result."""

from __future__ import annotations

from datetime import timedelta

import pytest

import club as club_core
from club.handicap import side_hcp
from play import parse_deal
from tests.support.club import board_in_play, seat_four
from tournaments.models import BoardResult, ClubScore, ClubSystem, ResultState
from tournaments.services import club_scoring

pytestmark = pytest.mark.django_db

RANKS = "AKQJT98765432"


def _pbn(hands: dict[str, set[str]]) -> str:
    def hand(cards: set[str]) -> str:
        return ".".join("".join(r for r in RANKS if s + r in cards) for s in "SHDC")

    return "N:" + " ".join(hand(hands[seat]) for seat in "NESW")


def _deal_with_ns_hcp_24() -> str:
    cards = [s + r for s in "SHDC" for r in RANKS]
    north = {"SA", "SK", "HA", "HK", "DA", "DK"}  # 21
    south = {"SQ", "HJ"}  # 3: NS 24
    rest = [c for c in cards if c not in north | south]
    small = [c for c in rest if c[1] not in "AKQJ"]
    honours = [c for c in rest if c[1] in "AKQJ"]
    north |= set(small[:7])
    south |= set(small[7:18])
    others = honours + small[18:]
    hands = {"N": north, "S": south, "E": set(others[:13]), "W": set(others[13:])}
    return _pbn(hands)


def _store(club_table, ns_score: int, now) -> BoardResult:
    club_table.refresh_from_db()
    board = board_in_play(club_table)
    return BoardResult.objects.create(
        table=club_table.table, board=board, state=ResultState.PLAYED, contract="3NT",
        declarer="N", tricks=9, ns_score=ns_score, entered_at=now, confirmed_at=now,
        played_online=True,
    )  # fmt: skip


def test_spec_13_handicap_example_24_hcp_not_vulnerable_3nt_made(make_user, t0):
    """SPEC 13: NS 24 HCP, not vulnerable, make 3NT (+400): IMP(400 − 200) = +5 to N and
    S, −5 to E and W — scored the moment the board ends."""
    players = [make_user() for _ in range(4)]
    table = seat_four(players, system=ClubSystem.HANDICAP, now=t0)
    board = board_in_play(table)
    deal = _deal_with_ns_hcp_24()
    assert side_hcp(parse_deal(deal), "NS") == 24 and board.vulnerability == "None"
    board.deal = deal
    board.save(update_fields=["deal"])
    board.club_deal.deal = deal
    board.club_deal.save(update_fields=["deal"])
    result = _store(table, 400, t0)
    club_scoring.board_finished(result=result, play_table=table.table, now=t0)
    points = {s.seat: s.points for s in ClubScore.objects.filter(result=result)}
    assert points == {"N": 5.0, "S": 5.0, "E": -5.0, "W": -5.0}
    assert all(s.scored for s in ClubScore.objects.filter(result=result))


def test_duplicate_scores_nothing_until_the_sixth_then_all_six_then_each_alone(make_member, t0):
    scores = [420, 450, -50, 420, 170, 400, 990]
    tables, results = [], []
    for k, ns_score in enumerate(scores):
        players = [make_member() for _ in range(4)]
        table = seat_four(players, system=ClubSystem.DUPLICATE, now=t0)
        assert board_in_play(table).club_deal.number == 1  # everyone on the library's first
        tables.append(table)
        results.append(_store(table, ns_score, t0 + timedelta(minutes=k)))
    for k, (table, result) in enumerate(zip(tables, results, strict=True)):
        club_scoring.board_finished(result=result, play_table=table.table, now=t0)
        stored = ClubScore.objects.filter(deal__number=1, deal__field__system=ClubSystem.DUPLICATE)
        if k < 5:
            assert not stored.filter(scored=True).exists()
            assert set(stored.values_list("points", flat=True)) == {0.0}
    # The core's own answer, from scratch, for the same arrivals.
    expected = club_core.duplicate_scores(
        [
            club_core.TableResult(s, 4 * k, 4 * k + 1, 4 * k + 2, 4 * k + 3)
            for k, s in enumerate(scores)
        ]
    )
    for k, result in enumerate(results):
        north = ClubScore.objects.get(result=result, seat="N")
        assert north.scored and north.points == expected[k].ns_imps
        assert north.arrival == k + 1
    assert ClubScore.objects.filter(scored=True).count() == 28
    # Each table was dealt its next board when its result was scored.
    for table in tables:
        assert board_in_play(table).club_deal.number == 2
