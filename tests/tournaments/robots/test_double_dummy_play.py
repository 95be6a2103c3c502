"""The solver's cards for the robots (`double_dummy.best_cards`): legal, and a board
played by them from both sides takes exactly the double-dummy number of tricks."""

from __future__ import annotations

import random

import play
from scoring import SEATS
from simulation.robot import Plan, next_action
from tournaments import double_dummy


def test_robots_on_the_solver_s_cards_take_the_double_dummy_tricks():
    rng = random.Random(3)
    deck = sorted(play.DECK)
    for _board in range(2):
        rng.shuffle(deck)
        deal = {seat: deck[13 * i : 13 * i + 13] for i, seat in enumerate(SEATS)}
        pbn = "N:" + " ".join(
            ".".join(
                "".join(c[1] for c in play.sort_hand(deal[seat]) if c[0] == suit) for suit in "SHDC"
            )
            for seat in SEATS
        )
        expected = double_dummy.tricks([pbn])[0]["S"]["NT"]
        plan = Plan(contract="1NT", declarer="S")
        state = play.BoardState.start(deal, "S", "None")
        while not state.is_over:
            seat = state.actor
            best = None
            if state.is_auction_over:
                hands = {s: list(state.hand_of(s)) for s in SEATS}
                trick = state.current_trick
                best = double_dummy.best_cards(hands, "NT", trick.leader, trick.cards)
                assert best and set(best) <= set(state.legal_cards())
            action = next_action(state, seat, plan, best=best)
            if action["type"] == "call":
                state = state.apply(play.Call(seat, action["call"]))
            else:
                state = state.apply(play.Card(seat, action["card"]))
        assert str(state.contract) == "1NT" and state.declarer == "S"
        assert state.result().tricks == expected
