"""The rules of play at the system's tables (RULES 9), one example per rule and per refusal."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import play
from play import (
    BoardState,
    Call,
    Card,
    Claim,
    ClaimResponse,
    DealError,
    IllegalAction,
    parse_deal,
    trick_winner,
)
from scoring import Contract, contract_score

ROOT = Path(play.__file__).resolve().parent.parent

# N A8.AK4.T86.JT953  E KQ54.QT7.KQ3.KQ4  S T76.J85.AJ972.76  W J932.9632.54.A82
DEAL = "N:A8.AK4.T86.JT953 KQ54.QT7.KQ3.KQ4 T76.J85.AJ972.76 J932.9632.54.A82"
# Each player holds one whole suit: N spades, E hearts, S diamonds, W clubs.
ONE_SUIT_EACH = "N:AKQJT98765432... .AKQJT98765432.. ..AKQJT98765432. ...AKQJT98765432"


def bid(calls: str, *, deal: str = DEAL, dealer: str = "N", vul: str = "None") -> BoardState:
    """The board after ``calls`` (space separated), made in turn from the dealer."""
    state = BoardState.start(deal, dealer, vul)
    for call in calls.split():
        state = state.apply(Call(state.turn, call))
    return state


def refused(state: BoardState, action, message: str, **params) -> None:
    """``action`` is refused with ``message`` (the template and its values), and the
    board is as it was."""
    before = (state.actions, state.hands, state.pending_claim, state.claim_accepted_by)
    with pytest.raises(IllegalAction) as caught:
        state.apply(action)
    assert caught.value.message == message
    assert caught.value.params == params
    assert (state.actions, state.hands, state.pending_claim, state.claim_accepted_by) == before
    assert not state.allows(action)


def play_first_legal(state: BoardState, cards: int) -> BoardState:
    for _ in range(cards):
        state = state.apply(Card(state.actor, state.legal_cards()[0]))
    return state


# --- The auction (RULES 9; Laws 17-21) ------------------------------------------------


def test_the_dealer_calls_first_then_clockwise():
    state = BoardState.start(DEAL, "S", "None")
    assert state.turn == state.actor == "S"
    refused(state, Call("N", "1C"), "not your turn: %(seat)s is to call", seat="S")
    state = state.apply(Call("S", "1C"))
    assert state.turn == "W"
    assert state.legal_calls()[:3] == ("P", "X", "1D")


def test_a_bid_must_be_higher_than_the_last():
    state = bid("1NT")
    insufficient = "insufficient bid: %(call)s is not higher than %(bid)s"
    refused(state, Call("E", "1S"), insufficient, call="1S", bid="1NT")
    refused(state, Call("E", "1NT"), insufficient, call="1NT", bid="1NT")
    assert state.apply(Call("E", "2C")).calls[-1].call == "2C"
    assert "2C" in state.legal_calls() and "1S" not in state.legal_calls()


def test_double_only_the_opponents_last_bid_not_yet_doubled():
    refused(bid(""), Call("N", "X"), "nothing to double: no bid has been made")
    refused(bid("P"), Call("E", "X"), "nothing to double: no bid has been made")
    refused(bid("1C P"), Call("S", "X"), "you may double only the opponents' bid")
    already = "%(bid)s has already been doubled"
    refused(bid("1C X P"), Call("W", "X"), already, bid="1C")
    refused(bid("1C X XX"), Call("W", "X"), already, bid="1C")
    # A new bid can be doubled again.
    assert bid("1C X 1H X").calls[-1].call == "X"


def test_redouble_only_ones_own_sides_bid_doubled_by_the_opponents():
    refused(bid("1C P P"), Call("W", "XX"), "nothing to redouble: the last bid is not doubled")
    refused(bid("1C X P"), Call("W", "XX"), "you may redouble only your own side's bid")
    refused(bid("1C X XX P"), Call("N", "XX"), "%(bid)s has already been redoubled", bid="1C")
    assert bid("1C X XX").legal_calls()[:2] == ("P", "1D")
    state = bid("1C X P P XX P P P")  # doubler's partner may not, but the bidder may
    assert state.contract == Contract(1, "C", 2) and state.declarer == "N"


def test_three_passes_after_a_call_end_the_auction_four_passes_pass_the_board_out():
    assert not bid("P P P").is_auction_over
    assert bid("P P P").legal_calls()[:2] == ("P", "1C")
    assert not bid("1C P P").is_auction_over
    assert bid("P P P 1C P P P").contract == Contract(1, "C")
    assert bid("1C X P P P").contract == Contract(1, "C", 1)

    out = bid("P P P P")
    assert out.passed_out and out.is_over and out.is_auction_over
    assert (out.contract, out.declarer, out.dummy, out.turn, out.actor) == (None,) * 5
    assert out.legal_calls() == () and out.legal_cards() == ()
    assert out.result() == play.Result(None, None, 0, None, 0)
    refused(out, Call("N", "1C"), "the board is over")


def test_declarer_is_the_first_of_the_declaring_side_to_name_the_final_strain():
    # S named spades first for NS; N made the last bid.
    state = bid("1D 1H 1S 2H 2S P P P")
    assert (state.contract, state.declarer, state.dummy) == (Contract(2, "S"), "S", "N")
    assert state.turn == state.actor == "W"  # declarer's left-hand opponent leads
    # E named spades first, but E's side is not declaring.
    state = bid("1S P P 2S P P P", dealer="E")
    assert (state.declarer, state.turn) == ("N", "E")


def test_calls_are_refused_once_the_auction_is_over():
    refused(bid("1NT P P P"), Call("E", "2C"), "the auction is over")


def test_calls_are_read_as_players_write_them():
    assert Call("n", " 1n ").call == "1NT" and Call("N", "7nt").call == "7NT"
    assert Call("E", "pass").call == "P" and Call("E", "xx").call == "XX"
    assert Call("S", "2H", alert="transfer").alert == "transfer"
    for bad in ("8C", "1Z", "0NT", "", "XXX", 3):
        with pytest.raises(IllegalAction) as caught:
            Call("N", bad)
        assert caught.value.message.startswith("unknown call")
    with pytest.raises(IllegalAction, match="unknown seat"):
        Call("Q", "P")
    with pytest.raises(IllegalAction, match="an alert must be text"):
        Call("N", "P", alert=5)


# --- The play (Laws 41-47) -----------------------------------------------------------


def test_no_card_before_the_auction_ends():
    refused(bid("1C"), Card("E", "HQ"), "the auction is not over: no card can be played yet")
    refused(bid("1C"), Claim("E", 3), "no claim during the auction")


def test_the_opening_lead_then_dummy_is_shown_and_declarer_plays_dummys_cards():
    state = bid("1NT P P P")  # N declares; E leads; S is dummy
    assert (state.declarer, state.dummy, state.opening_lead) == ("N", "S", None)
    assert not state.dummy_visible and state.visible_seats("E") == {"E"}
    refused(state, Card("S", "SA"), "not your turn: %(seat)s is to play", seat="E")
    refused(state, Card("E", "SA"), "%(card)s is not in %(seat)s's hand", card="SA", seat="E")

    state = state.apply(Card("E", "SK"))
    assert state.opening_lead == "SK" and state.dummy_visible
    assert state.visible_seats("W") == {"W", "S"} and state.visible_seats("N") == {"N", "S"}
    assert (state.turn, state.actor) == ("S", "N")
    refused(state, Card("S", "S6"), "declarer plays dummy's cards")
    refused(state, Card("W", "S2"), "not your turn: %(seat)s is to play", seat="S")
    # Declarer sends dummy's cards: a card of declarer's own hand is not in dummy's.
    refused(state, Card("N", "SA"), "%(card)s is not in %(seat)s's hand", card="SA", seat="S")
    state = state.apply(Card("N", "S6"))
    assert "S6" not in state.hand_of("S") and state.current_trick.plays == (
        ("E", "SK"),
        ("S", "S6"),
    )


def test_a_player_must_follow_suit_if_able():
    state = bid("1NT P P P").apply(Card("E", "SK")).apply(Card("N", "S6"))
    assert state.legal_cards() == ("SJ", "S9", "S3", "S2")  # W's spades
    refused(state, Card("W", "HQ"), "%(card)s is not in %(seat)s's hand", card="HQ", seat="W")
    refused(state, Card("W", "CA"), "you must follow suit: play a %(suit)s", suit="♠")
    state = state.apply(Card("W", "S2"))
    refused(state, Card("N", "D6"), "you must follow suit: play a %(suit)s", suit="♠")
    state = state.apply(Card("N", "SA"))
    assert state.tricks[0] == play.Trick("E", ("SK", "S6", "S2", "SA"), "N")
    assert state.turn == "N" and state.current_trick == play.Trick("N")  # the winner leads


def test_a_player_void_in_the_suit_led_may_play_any_card_and_trumps_win():
    state = bid("7S P P P", deal=ONE_SUIT_EACH)  # N declares in spades; E leads hearts
    state = state.apply(Card("E", "H2"))
    assert len(state.legal_cards()) == 13  # dummy S holds no heart
    state = state.apply(Card("N", "D2")).apply(Card("W", "CA")).apply(Card("N", "S2"))
    assert state.tricks[-1].winner == "N"  # the two of trumps beats the ace of clubs
    while not state.is_over:
        state = state.apply(Card(state.actor, state.legal_cards()[-1]))
    assert state.tricks_won == {"NS": 13, "EW": 0}
    assert state.result() == play.Result(Contract(7, "S"), "N", 13, "H2", 1510)
    refused(state, Card("E", "HA"), "the board is over")


def test_without_trumps_the_highest_card_of_the_suit_led_wins():
    state = bid("1NT P P P", deal=ONE_SUIT_EACH, vul="Both")
    state = play_first_legal(state, 52)  # E cashes all thirteen hearts
    assert all(trick.winner == "E" for trick in state.tricks)
    assert state.result() == play.Result(Contract(1, "NT"), "N", 0, "HA", -700)
    assert state.visible_seats("E") == set("NESW")


@pytest.mark.parametrize(
    ("cards", "strain", "winner"),
    [
        (("H2", "HA", "H3", "HK"), "NT", "E"),
        (("H2", "SA", "H3", "HK"), "NT", "W"),  # a discard does not win
        (("H2", "S2", "HA", "S3"), "S", "W"),  # the highest trump wins
        (("S4", "S2", "HA", "S3"), "S", "N"),  # trumps led: the highest trump
        (("D9", "C2", "DT", "HA"), "C", "E"),  # the only trump wins
    ],
)
def test_trick_winner(cards, strain, winner):
    assert trick_winner("N", cards, strain) == winner


def test_results_score_through_scoring():
    state = bid("3NT P P P", vul="Both")
    state = play_first_legal(state, 52)
    result = state.result()
    assert result.tricks == state.tricks_won["NS"]
    assert result.ns_score == contract_score("3NT", "N", result.tricks, "Both")
    with pytest.raises(IllegalAction, match="not over"):
        bid("3NT P P P").result()


# --- Claims (Laws 68-69) -------------------------------------------------------------


def test_claims_come_after_the_opening_lead_from_declarer_or_a_defender():
    state = bid("1NT P P P")
    refused(state, Claim("N", 7), "claims are made during the play, after the opening lead")
    state = state.apply(Card("E", "SK"))
    refused(state, Claim("S", 7), "dummy cannot claim: declarer or a defender may")
    refused(
        state,
        Claim("N", 14),
        "only %(remaining)s tricks remain: you cannot claim %(tricks)s",
        remaining=13,
        tricks=14,
    )
    refused(state, ClaimResponse("E", True), "there is no claim to answer")
    with pytest.raises(IllegalAction, match="0 or more"):
        Claim("N", -1)


def test_a_claim_stands_when_both_opponents_accept():
    state = play_first_legal(bid("1NT P P P"), 4)  # one trick played
    first = state.tricks[0].winner
    state = state.apply(Claim("N", 8))
    assert state.pending_claim == Claim("N", 8) and state.claim_answers_awaited == {"E", "W"}
    waiting = "a claim is waiting for an answer: play goes on only if it is rejected"
    refused(state, Card(state.actor, "SA"), waiting)
    assert state.legal_cards() == ()
    refused(state, Claim("E", 2), waiting)
    refused(state, ClaimResponse("S", True), "your side made this claim: the opponents answer it")
    refused(state, ClaimResponse("N", True), "your side made this claim: the opponents answer it")

    state = state.apply(ClaimResponse("W", True))
    assert not state.is_over and state.claim_answers_awaited == {"E"}
    refused(state, ClaimResponse("W", True), "you have already accepted this claim")
    state = state.apply(ClaimResponse("E", True))
    assert state.is_over and state.accepted_claim == Claim("N", 8)
    declarer_won = 8 + (first in "NS")
    assert state.tricks_won == {"NS": declarer_won, "EW": 13 - declarer_won}
    assert state.result().tricks == declarer_won
    refused(state, ClaimResponse("E", True), "the board is over")


def test_play_goes_on_when_either_opponent_rejects():
    state = bid("1NT P P P").apply(Card("E", "SK")).apply(Claim("N", 13))
    state = state.apply(ClaimResponse("E", True)).apply(ClaimResponse("W", False))
    assert state.pending_claim is None and not state.is_over
    assert state.legal_cards() and state.turn == "S"
    assert state.apply(Card("N", "S6")).current_trick.cards == ("SK", "S6")


def test_a_defenders_concession_is_answered_by_declarer_and_dummy():
    state = bid("1NT P P P").apply(Card("E", "SK")).apply(Claim("E", 0))
    assert state.claim_answers_awaited == {"N", "S"}
    state = state.apply(ClaimResponse("S", True)).apply(ClaimResponse("N", True))
    assert state.tricks_won == {"NS": 13, "EW": 0}
    assert state.result().ns_score == contract_score("1NT", "N", 13, "None") == 270


# --- Deals, replays, visibility ------------------------------------------------------


def test_deals_are_read_from_pbn_from_any_seat_or_as_hands():
    hands = parse_deal(DEAL)
    rotated = "E:KQ54.QT7.KQ3.KQ4 T76.J85.AJ972.76 J932.9632.54.A82 A8.AK4.T86.JT953"
    assert parse_deal(rotated) == hands
    assert parse_deal(dict(zip("NESW", hands, strict=True))) == hands
    state = BoardState.start(DEAL, "N", "none")
    assert state.vulnerability == "None"
    assert state.hand_of("N") == ("SA", "S8", "HA", "HK", "H4", "DT", "D8", "D6",
                                  "CJ", "CT", "C9", "C5", "C3")  # fmt: skip


@pytest.mark.parametrize(
    ("deal", "message"),
    [
        ("AKQ", "a deal must be a PBN deal such as N:AKQ.… with four hands"),
        ("N:A8.AK4.T86.JT953", "a deal must be a PBN deal such as N:AKQ.… with four hands"),
        (
            DEAL.replace("A8.AK4", "A8.AK4.", 1),
            "a hand must have four suits separated by dots, got %(hand)r",
        ),
        (DEAL.replace("A8.", "AA.", 1), "%(card)s is dealt twice"),
        (DEAL.replace("A8.", "A.", 1), "each hand holds 13 cards; %(seat)s holds %(count)s"),
        (DEAL.replace("A8.", "A1.", 1), "%(card)r is not a card"),
    ],
)
def test_bad_deals_are_refused(deal, message):
    with pytest.raises(DealError) as caught:
        BoardState.start(deal, "N", "None")
    assert caught.value.message == message


def test_bad_dealer_or_vulnerability_is_refused():
    with pytest.raises(DealError, match="dealer"):
        BoardState.start(DEAL, "X", "None")
    with pytest.raises(DealError, match="vulnerability"):
        BoardState.start(DEAL, "N", "All")


def test_cards_are_read_as_players_write_them():
    assert Card("e", "s10").card == "ST" and Card("E", " hq ").card == "HQ"
    for bad in ("S1", "XA", "", "SAK", None):
        with pytest.raises(IllegalAction, match="unknown card"):
            Card("N", bad)


def test_replay_rebuilds_the_board_and_refuses_an_illegal_action():
    state = play_first_legal(bid("2H P P X XX P P P"), 9).apply(Claim("W", 1))
    assert BoardState.replay(DEAL, "N", "None", state.actions) == state
    with pytest.raises(IllegalAction, match="insufficient"):
        BoardState.replay(DEAL, "N", "None", [Call("N", "2C"), Call("E", "1S")])


def test_the_old_state_is_unchanged_by_apply():
    before = bid("1NT P P")
    after = before.apply(Call("W", "P"))
    assert before.turn == "W" and not before.is_auction_over
    assert after.is_auction_over and len(before.actions) == 3


def test_the_package_imports_neither_django_nor_tournaments():
    probe = (
        "import sys, play; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('django', 'tournaments')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert done.stdout.strip() == "[]"
