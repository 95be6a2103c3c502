"""The robot's choices (`simulation.robot`): on random deals, plans and interruptions,
every call and card it makes is legal, and four robots bid the planned contract and play
the board to its end (or a claim they accept)."""

from __future__ import annotations

import random

from hypothesis import given, settings

import play
from scoring import SEATS
from simulation.model import DealFacts
from simulation.robot import (
    choose_call,
    hcp,
    heuristic_plan,
    next_action,
    plan_of,
    state_from_view,
)
from tests import examples
from tests.support.deals import random_board, random_deal, random_plan, seeds

CALLS = ["P", "X", "XX", *play.BIDS]


def fake_facts(deal: dict[str, list[str]], rng: random.Random, vulnerability: str) -> DealFacts:
    """Facts with made-up trick counts: the plan only has to be some contract."""
    tricks = {s: {st_: rng.randint(3, 11) for st_ in ("C", "D", "H", "S", "NT")} for s in SEATS}
    hands = {s: {suit: "".join(c[1] for c in play.sort_hand(deal[s]) if c[0] == suit)
                 for suit in "SHDC"} for s in SEATS}  # fmt: skip
    return DealFacts(tricks, hands, {s: hcp(deal[s]) for s in SEATS}, vulnerability)


def act(state: play.BoardState, seat: str, action: dict) -> play.BoardState:
    kind = action["type"]
    if kind == "call":
        assert action["call"] in state.legal_calls()
        return state.apply(play.Call(seat, action["call"]))
    if kind == "card":
        assert action["card"] in state.legal_cards()
        return state.apply(play.Card(seat, action["card"]))
    if kind == "claim":
        return state.apply(play.Claim(seat, action["tricks"]))
    return state.apply(play.ClaimResponse(seat, kind == "accept"))


@settings(deadline=None, max_examples=examples(300))
@given(seeds)
def test_robots_only_make_legal_actions_and_finish_the_board(seed):
    rng, deal, dealer, vulnerability = random_board(seed)
    kind = rng.random()
    plan = (
        random_plan(rng)
        if kind < 0.4
        else heuristic_plan(deal)
        if kind < 0.7
        else plan_of(fake_facts(deal, rng, vulnerability), rng)
    )
    claim_after = rng.choice((None, None, 0, 5, 12))
    state = play.BoardState.start(deal, dealer, vulnerability)
    pending: dict | None = None
    for _step in range(200):
        if state.is_over:
            break
        if pending is None and rng.random() < 0.1 and not state.is_auction_over:
            # A person at the table makes some other legal call: the robots carry on.
            state = state.apply(play.Call(state.turn, rng.choice(state.legal_calls())))
            continue
        actors = [
            (seat, action)
            for seat in SEATS
            if (action := next_action(state, seat, plan, claim=pending, claim_after=claim_after))
        ]
        # One seat acts, or both opponents are asked to accept a claim.
        assert len(actors) == 1 or {a["type"] for _s, a in actors} == {"accept"}, actors
        seat, action = actors[0]
        state = act(state, seat, action)
        if action["type"] == "claim":
            pending = {"awaiting": sorted(state.claim_answers_awaited)}
            claim_after = None
        elif pending is not None:
            pending = {"awaiting": sorted(state.claim_answers_awaited)}
            if not state.pending_claim:
                pending = None
    assert state.is_over
    assert state.result() is not None


@settings(deadline=None, max_examples=examples(100))
@given(seeds)
def test_undisturbed_robots_bid_the_planned_contract(seed):
    rng = random.Random(seed)
    deal = random_deal(rng)
    dealer = rng.choice(SEATS)
    plan = heuristic_plan(deal) if rng.random() < 0.5 else random_plan(rng)
    state = play.BoardState.start(deal, dealer, "None")
    while not state.is_auction_over:
        seat = state.turn
        state = state.apply(play.Call(seat, choose_call(state, seat, plan)))
    if plan.bid is None:
        assert state.passed_out
    else:
        assert str(state.contract).replace("NT", "N") == plan.contract.replace("NT", "N")
        assert state.declarer == plan.declarer


def test_the_view_of_a_board_rebuilds_its_state():
    rng = random.Random(7)
    deal = random_deal(rng)
    state = play.BoardState.start(deal, "E", "NS")
    plan = heuristic_plan(deal)
    while not state.is_over and len(state.tricks) < 3:
        seat = state.actor
        state = act(state, seat, next_action(state, seat, plan))
    view = {
        "dealer": "E",
        "vulnerability": "NS",
        "auction": [{"seat": c.seat, "call": c.call} for c in state.calls],
        "play": [
            {"seat": who, "card": card}
            for trick in (*state.tricks, state.current_trick)
            if trick
            for who, card in trick.plays
        ],
    }
    rebuilt = state_from_view(deal, view)
    assert rebuilt.hands == state.hands and rebuilt.tricks == state.tricks
    assert rebuilt.turn == state.turn
