"""What each person may see of a board played online (RULES 9), before and after the
round closes: no hand ever reaches anyone who may not see it."""

from __future__ import annotations

import pytest

import play
from tests.support.online import (
    PARTNER,
    actor_of,
    play_board,
    players_by_seat,
    service_player,
    table_at,
)
from tournaments.errors import NotAllowed, NotFound
from tournaments.models import BoardResult, PlayAction
from tournaments.services import clock, table_play

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]
KEYS = {
    "seat", "dealer", "vulnerability", "hands", "auction", "play", "contract", "declarer",
    "next_seq", "turn", "legal", "over", "result", "claim", "paused", "kibitzer",
}  # fmt: skip


def _deal(tournament, number):
    board = tournament.boards.get(number=number)
    return play.parse_deal(board.deal)


def _cards(view) -> set[str]:
    return {card for hand in view["hands"].values() for card in hand}


def test_each_seat_sees_only_its_own_hand_before_the_lead(online_running):
    tournament, _pairs = online_running
    table = table_at(tournament)
    hands = dict(zip("NESW", _deal(tournament, 1), strict=True))
    for seat, user in players_by_seat(table).items():
        view = table_play.board_view(table=table, board_number=1, user=user)
        assert set(view) == KEYS
        assert view["seat"] == seat
        assert list(view["hands"]) == [seat]
        assert set(view["hands"][seat]) == hands[seat]
        assert view["dealer"] == "N" and view["vulnerability"] == "None"
        assert view["next_seq"] == 1 and view["turn"] == "N" and not view["over"]
        assert view["auction"] == [] and view["play"] == [] and view["result"] is None
        # Only the dealer may call now.
        assert bool(view["legal"]) == (seat == "N")
        if seat == "N":
            assert view["legal"][:3] == ["P", "1C", "1D"]


def test_dummy_is_shown_after_the_opening_lead_and_alerts_only_to_opponents(
    online_running,
):
    tournament, _pairs = online_running
    table = table_at(tournament)
    users = players_by_seat(table)

    def act(seat, **action):
        view = table_play.board_view(table=table, board_number=1, user=users[seat])
        return table_play.act(
            table=table, board_number=1, user=users[seat],
            action={"seq": view["next_seq"], **action},
        )  # fmt: skip

    act("N", type="call", call="1NT", alert="15-17")
    east = table_play.board_view(table=table, board_number=1, user=users["E"])
    south = table_play.board_view(table=table, board_number=1, user=users["S"])
    north = table_play.board_view(table=table, board_number=1, user=users["N"])
    assert east["auction"] == [{"seat": "N", "call": "1NT", "alert": "15-17"}]
    assert north["auction"] == [{"seat": "N", "call": "1NT", "alert": "15-17"}]
    assert south["auction"] == [{"seat": "N", "call": "1NT"}]  # never to partner
    for seat in "ESW":
        act(seat, type="call", call="P")
    lead = table_play.board_view(table=table, board_number=1, user=users["E"])
    assert lead["contract"] == "1NT" and lead["declarer"] == "N" and lead["turn"] == "E"
    assert list(lead["hands"]) == ["E"]
    act("E", type="card", card=lead["legal"][0])
    for seat in "NESW":
        view = table_play.board_view(table=table, board_number=1, user=users[seat])
        assert set(view["hands"]) == {seat, "S"}  # own hand and dummy
    # Dummy's turn: declarer acts, with dummy's cards as legal.
    declarer = table_play.board_view(table=table, board_number=1, user=users["N"])
    assert declarer["turn"] == "S"
    assert set(declarer["legal"]) <= set(declarer["hands"]["S"]) and declarer["legal"]
    dummy = table_play.board_view(table=table, board_number=1, user=users["S"])
    assert dummy["legal"] == []


def test_others_are_refused_until_the_round_closes_then_see_everything(
    online_running, organiser, make_user, django_user_model
):
    from django.contrib.auth.models import AnonymousUser

    tournament, _pairs = online_running
    table = table_at(tournament)
    other_table_player = table_at(tournament, 1, 2).ns_pair.player1
    stranger = make_user()
    for user in (other_table_player, stranger, AnonymousUser()):
        with pytest.raises(NotAllowed):
            table_play.board_view(table=table, board_number=1, user=user)
    watched = table_play.board_view(table=table, board_number=1, user=organiser)
    assert watched["seat"] is None and set(watched["hands"]) == set("NESW")
    assert watched["legal"] == []
    view_of, act = service_player(table, 1)
    play_board(view_of, act, players_by_seat(table), seed=7)
    clock.close_round_now(tournament=tournament, by=organiser, round_number=1)
    for user in (other_table_player, stranger, AnonymousUser()):
        view = table_play.board_view(table=table, board_number=1, user=user)
        assert view["seat"] is None and set(view["hands"]) == set("NESW")
        assert view["over"] and view["result"] is not None
        assert all(len(hand) == 13 for hand in view["hands"].values())


def test_a_finished_board_shows_all_four_hands_to_its_own_table_and_stores_the_result(
    online_running,
):
    tournament, _pairs = online_running
    table = table_at(tournament)
    users = players_by_seat(table)
    view_of, act = service_player(table, 1)
    last = play_board(view_of, act, users, seed=3)
    assert last["over"] and actor_of(last) is None
    for seat, user in users.items():
        view = table_play.board_view(table=table, board_number=1, user=user)
        assert set(view["hands"]) == set("NESW")
        # Board 2 at the same table is still private.
        nxt = table_play.board_view(table=table, board_number=2, user=user)
        assert list(nxt["hands"]) == [seat]
    result = BoardResult.objects.get(table=table, board__number=1)
    assert result.played_online and result.confirmed_at is not None
    assert result.ns_score == last["result"]["ns_score"]
    if last["result"]["contract"] == "PASS":
        assert result.state == "passed_out"
    else:
        assert result.state == "played"
        assert result.contract == last["result"]["contract"]
        assert result.declarer == last["result"]["declarer"]
        assert result.tricks == last["result"]["tricks"]
        assert result.lead == last["play"][0]["card"]
    assert PlayAction.objects.filter(table=table).count() == last["next_seq"] - 1


def test_a_played_elsewhere_tournament_has_no_tables_to_play_at(api_running):
    tournament, _pairs = api_running
    table = table_at(tournament)
    with pytest.raises(NotFound):
        table_play.board_view(table=table, board_number=1, user=table.ns_pair.player1)


def test_partner_never_sees_the_hand_of_the_other_seat(online_running):
    tournament, _pairs = online_running
    table = table_at(tournament)
    users = players_by_seat(table)
    hands = dict(zip("NESW", _deal(tournament, 1), strict=True))
    for seat, user in users.items():
        view = table_play.board_view(table=table, board_number=1, user=user)
        assert not _cards(view) & hands[PARTNER[seat]]
