"""What ``play`` keeps to go fast gives the answers it would compute afresh.

A new state takes what the auction settled from the state before it, and its other
answers are kept once asked; a deal's hands are kept by its content. Each check here
compares with a copy built afresh (``dataclasses.replace`` runs ``__init__``, so the copy
starts with nothing kept) or with a deal read anew.
"""

from __future__ import annotations

import dataclasses
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from play import BoardState, Call, Card, Claim, ClaimResponse, DealError, IllegalAction, parse_deal
from tests import examples

SEATS = "NESW"
DECK = [suit + rank for suit in "SHDC" for rank in "AKQJT98765432"]
seeds = st.integers(min_value=0, max_value=2**64 - 1)


def answers(state: BoardState) -> dict:
    """Everything a state answers, asked in a fixed order."""
    found = {
        name: getattr(state, name)
        for name in (
            "turn",
            "actor",
            "is_auction_over",
            "passed_out",
            "contract",
            "declarer",
            "dummy",
            "opening_lead",
            "dummy_visible",
            "is_over",
            "claim_answers_awaited",
            "tricks_won",
        )
    }
    found["legal_calls"] = state.legal_calls()
    found["legal_cards"] = state.legal_cards()
    for seat in SEATS:
        found[f"hand_of {seat}"] = state.hand_of(seat)
        found[f"visible_seats {seat}"] = state.visible_seats(seat)
    found["result"] = state.result() if state.is_over else None
    return found


def some_action(rng: random.Random, state: BoardState):
    """Mostly a legal call or card, now and then a claim, an answer or anything at all."""
    roll = rng.random()
    if state.pending_claim is not None and roll < 0.8:
        return ClaimResponse(min(state.claim_answers_awaited), rng.random() < 0.7)
    if state.opening_lead is not None and roll < 0.05:
        return Claim(state.actor, rng.randint(0, 13 - len(state.tricks)))
    if roll < 0.1 or state.pending_claim is not None:
        return Card(rng.choice(SEATS), rng.choice(DECK))
    if not state.is_auction_over:
        legal = state.legal_calls()
        call = "P" if rng.random() < 0.6 else rng.choice(legal)
        return Call(state.turn, call)
    return Card(state.actor, rng.choice(state.legal_cards()))


@given(seeds)
@settings(deadline=None, max_examples=examples(200))
def test_a_state_answers_as_a_copy_built_afresh_does(seed):
    rng = random.Random(seed)
    deck = list(DECK)
    rng.shuffle(deck)
    deal = {seat: deck[13 * i : 13 * i + 13] for i, seat in enumerate(SEATS)}
    state = BoardState.start(deal, rng.choice(SEATS), rng.choice(("None", "NS", "EW", "Both")))
    for _ in range(200):
        # Asked before and after the next action: what one state keeps never leaks into
        # the next one's answers.
        if rng.random() < 0.5:
            answers(state)
        fresh = dataclasses.replace(state)
        assert fresh == state
        assert answers(state) == answers(fresh)
        if state.is_over:
            break
        try:
            state = state.apply(some_action(rng, state))
        except IllegalAction:
            continue
    assert BoardState.replay(deal, state.dealer, state.vulnerability, state.actions) == state


def test_a_deal_is_read_by_its_content_not_by_the_object_that_held_it():
    # Each seat holds a whole suit: N spades, E hearts, S diamonds, W clubs.
    deal = {seat: [card for card in DECK if card[0] == "SHDC"[i]] for i, seat in enumerate(SEATS)}
    before = parse_deal(deal)
    deal["N"][0], deal["E"][0] = deal["E"][0], deal["N"][0]  # the same dict, other hands
    after = parse_deal(deal)
    assert after != before
    assert "HA" in after[0] and "SA" in after[1]
    assert parse_deal({seat: iter(cards) for seat, cards in deal.items()}) == after
    assert parse_deal({seat: [card.lower() for card in deal[seat]] for seat in SEATS}) == after


def test_a_refused_deal_is_refused_every_time():
    short = "N:AKQJT9876543... .AKQJT98765432.. ..AKQJT98765432. ...AKQJT98765432"
    for _ in range(2):
        with pytest.raises(DealError, match="13 cards"):
            parse_deal(short)
        with pytest.raises(DealError, match="13 cards"):
            BoardState.start(short, "N", "None")
