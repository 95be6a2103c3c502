"""The records of boards played online (RULES 3, 9): after the round closes, every
table's auction and play on the board page, trick by trick, and in the PBN export as
[Auction] and [Play] sections that endplay reads back."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse
from endplay.parsers import pbn as pbn_parser
from endplay.types import ContractBid, PenaltyBid

import play
from tests.support.online import play_board, players_by_seat, service_player, table_at
from tournaments.exports import pbn_export
from tournaments.models import BoardResult, PlayAction
from tournaments.selectors import records
from tournaments.services import clock, table_play

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]

STRAINS = ("S", "H", "D", "C", "NT")  # endplay's Denom values


def _call(bid) -> str:
    """An endplay call in our spelling ("1NT", "P", "X", "XX")."""
    if isinstance(bid, ContractBid):
        return f"{bid.level}{STRAINS[bid.denom.value]}"
    assert isinstance(bid, PenaltyBid)
    return {"": "P", "x": "X", "xx": "XX"}[bid.penalty.abbr.lower()]


@pytest.fixture
def round_played(online_running, organiser):
    """Round 1 of the online event: table 1 plays both boards to the last card (board 1
    opened 1NT with an alert), table 2 claims on board 1 and leaves board 2 unfinished
    at the bell; then the director closes the round."""
    tournament, _pairs = online_running
    one, two = table_at(tournament, 1, 1), table_at(tournament, 1, 2)
    for table, board, opening, claim_rate in ((one, 1, "1NT", 0), (two, 1, "2C", 0.3)):
        users = players_by_seat(table)
        table_play.act(
            table=table, board_number=board, user=users["N"],
            action={"seq": 1, "type": "call", "call": opening, "alert": "strong"},
        )  # fmt: skip
        view_of, act = service_player(table, board)
        play_board(view_of, act, users, seed=board + table.number, claim_rate=claim_rate)
    view_of, act = service_player(one, 2)
    play_board(view_of, act, players_by_seat(one), seed=11, claim_rate=0)
    users = players_by_seat(two)
    table_play.act(
        table=two, board_number=2, user=users["E"], action={"seq": 1, "type": "call", "call": "P"}
    )
    clock.close_round_now(tournament=tournament, by=organiser, round_number=1)
    return tournament, one, two


def _played(table, board_number):
    return [
        a
        for a in PlayAction.objects.filter(table=table, board__number=board_number).order_by("seq")
    ]


def test_pbn_export_carries_auction_and_play_read_back_by_endplay(round_played):
    tournament, one, two = round_played
    text = pbn_export(tournament=tournament)
    games = pbn_parser.loads(text)
    online = [g for g in games if "Table" in g.info]
    # Board 1 at both tables and board 2 at table 1; table 2's board 2 was cut off.
    assert sorted((g.board_num, int(g.info["Table"])) for g in online) == [(1, 1), (1, 2), (2, 1)]
    for game in online:
        table = one if int(game.info["Table"]) == 1 else two
        result = BoardResult.objects.get(table=table, board__number=game.board_num)
        actions = _played(table, game.board_num)
        calls = [a for a in actions if a.kind == "call"]
        cards = [a.card for a in actions if a.kind == "card"]
        read_calls = [_call(bid) for bid in game.auction]
        assert read_calls == [c.call for c in calls]
        alerts = [bid.announcement if bid.alertable else None for bid in game.auction]
        assert alerts == [c.alert or None for c in calls]
        assert ["SHDC"[card.suit.value] + card.rank.abbr for card in game.play] == cards
        assert game.contract.declarer.abbr == result.declarer
        strain = STRAINS[game.contract.denom.value]
        assert result.contract.startswith(f"{game.contract.level}{strain}")
        claimed = any(a.kind == "claim" for a in actions) and result.tricks is not None
        assert bool(game.claimed) == (claimed and len(cards) < 52)
        if not game.claimed:
            assert len(cards) == 52
        # The deal reads back as the board's.
        assert play.parse_deal(game.deal.to_pbn()) == play.parse_deal(result.board.deal)


def test_the_board_page_replays_every_table_trick_by_trick(round_played, client: Client):
    tournament, one, two = round_played
    page = client.get(reverse("board", args=[tournament.pk, 1]))
    assert page.status_code == 200
    html = page.content.decode()
    assert "Auction and play at each table" in html
    assert 'id="record-table-1"' in html and 'id="record-table-2"' in html
    board = tournament.boards.get(number=1)
    found = records.board_records(board=board)
    assert [r.table_number for r in found] == [1, 2]
    full = found[0]
    assert len(full.tricks) == 13 and html.count('data-trick="13"') >= 1
    assert full.tricks[-1].ns_tricks + full.tricks[-1].ew_tricks == 13
    result = BoardResult.objects.get(table=one, board__number=1)
    declarer_side = "NS" if result.declarer in "NS" else "EW"
    last = full.tricks[-1]
    assert (last.ns_tricks if declarer_side == "NS" else last.ew_tricks) == result.tricks
    assert found[1].claim is not None and "claimed" in html
    # Board 2: table 2 never finished it, and the page says so.
    second = client.get(reverse("board", args=[tournament.pk, 2])).content.decode()
    assert "cut off at the bell" in second


def test_records_stay_private_while_the_round_is_open(online_running, client: Client):
    tournament, _pairs = online_running
    table = table_at(tournament)
    view_of, act = service_player(table, 1)
    play_board(view_of, act, players_by_seat(table), seed=5)
    board = tournament.boards.get(number=1)
    assert records.board_records(board=board) == []
    html = client.get(reverse("board", args=[tournament.pk, 1])).content.decode()
    assert "Auction and play" not in html
