"""The robot's board kept from view to view (`simulation.robot.ViewBoard`): on random
boards, fed one seat's views in order, coalesced, rewound (a reconnection) or mixed with
another board's, it always holds exactly the state `state_from_view` rebuilds from the
whole view, and it rebuilds from the start only when a view does not extend the last."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence

import pytest
from hypothesis import given, settings

import play
from scoring import SEATS
from simulation.robot import Plan, ViewBoard, heuristic_plan, next_action, state_from_view
from tests import examples
from tests.support.deals import random_board, random_deal, random_plan, seeds
from tournaments.selectors.board_views import board_json


def played(rng: random.Random, deal, dealer: str, vulnerability: str, plan: Plan):
    """The states of a board after each action: robots, with a person now and then
    making another call (alerted or not) or card, claiming, or rejecting a claim."""
    state = play.BoardState.start(deal, dealer, vulnerability)
    states = [state]
    claim_after = rng.choice((None, 0, 3, 6, 12))
    while not state.is_over and len(states) < 200:
        if state.pending_claim is not None:
            seat = min(state.claim_answers_awaited)
            action: play.Action = play.ClaimResponse(seat, rng.random() < 0.6)
        elif not state.is_auction_over and rng.random() < 0.15:
            alert = rng.choice((None, "natural", "transfer"))
            action = play.Call(state.turn, rng.choice(state.legal_calls()), alert)
        elif state.is_auction_over and rng.random() < 0.15:
            action = play.Card(state.actor, rng.choice(state.legal_cards()))
        elif state.opening_lead is not None and rng.random() < 0.03:
            # Declarer (who plays dummy's cards too) or a defender: never dummy.
            action = play.Claim(state.actor, rng.randint(0, 13 - len(state.tricks)))
        else:
            seat = state.actor
            found = next_action(state, seat, plan, claim_after=claim_after)
            assert found is not None
            if found["type"] == "claim":
                action = play.Claim(seat, found["tricks"])
                claim_after = None
            elif found["type"] == "call":
                action = play.Call(seat, found["call"])
            else:
                action = play.Card(seat, found["card"])
        state = state.apply(action)
        states.append(state)
    return states


def views_of(states, seat: str) -> list[dict]:
    """What `seat`'s socket receives, as the client parses it."""
    return [json.loads(json.dumps(board_json(s, viewer=seat, seat=seat))) for s in states]


class SeatViews(Sequence):
    """`views_of(states, seat)`, each view built when first asked for (and then the same
    object again): an example feeds only some of a board's views."""

    def __init__(self, states, seat: str) -> None:
        self.states, self.seat = states, seat
        self._built: dict[int, dict] = {}

    def __len__(self) -> int:
        return len(self.states)

    def __getitem__(self, index):
        index = range(len(self.states))[index]
        if index not in self._built:
            self._built[index] = views_of([self.states[index]], self.seat)[0]
        return self._built[index]


class Replayed:
    """`state_from_view(deal, view)`, the reference, computed once per view content: an
    example feeds the same view again and again, and replaying each from the deal each
    time was most of the test's time (a replay per step: quadratic in the board)."""

    def __init__(self, deal) -> None:
        self.deal = deal
        self._known: dict[str, play.BoardState] = {}

    def __call__(self, view: dict) -> play.BoardState:
        content = json.dumps(view, sort_keys=True)
        if content not in self._known:
            self._known[content] = state_from_view(self.deal, view)
        return self._known[content]


@settings(deadline=None, max_examples=examples(300))
@given(seeds)
def test_the_kept_state_is_the_state_the_whole_view_replays(seed):
    rng, deal, dealer, vulnerability = random_board(seed)
    plan = heuristic_plan(deal) if rng.random() < 0.5 else random_plan(rng)
    states = played(rng, deal, dealer, vulnerability, plan)
    # One seat's views, or the four seats' (a table's robots share one ViewBoard).
    seats = SEATS if rng.random() < 0.5 else (rng.choice(SEATS),)
    views = {seat: SeatViews(states, seat) for seat in seats}
    # Another board of the same deal (another dealer): its views never extend ours.
    other_dealer = SEATS[(SEATS.index(dealer) + 1) % 4]
    others = SeatViews(played(rng, deal, other_dealer, vulnerability, plan), seats[0])
    replayed = Replayed(deal)
    kept = ViewBoard(deal)
    tip: int | None = None  # the furthest of our views fed since the last mix-up
    index = 0
    for _step in range(3 * len(states)):
        roll = rng.random()
        if roll < 0.08:
            view = rng.choice(others)  # a mix-up: another board's view
            extends = False
            tip = None
        else:
            if roll < 0.16:
                index = rng.randrange(0, index + 1)  # a seat behind; a reconnection
            else:
                index = min(len(states) - 1, index + rng.choice((0, 1, 1, 1, 2, 5)))
            view = views[rng.choice(seats)][index]
            extends = tip is not None and index >= tip
            tip = index if tip is None else max(tip, index)
        replays = kept.replays
        assert kept.state(view) == replayed(view)
        if extends:
            assert kept.replays == replays, "a view extending the furthest was replayed"
        if index == len(states) - 1 and rng.random() < 0.3:
            break
    final = views[seats[0]][-1]
    assert kept.state(final) == replayed(final)


def test_the_four_seats_of_a_table_share_one_kept_board():
    rng = random.Random(3)
    deal = random_deal(rng)
    states = played(rng, deal, "W", "Both", heuristic_plan(deal))
    views = {seat: views_of(states, seat) for seat in SEATS}
    kept = ViewBoard(deal)
    for index in range(len(states)):
        for seat in rng.sample(SEATS, 4):
            view = views[seat][index]
            assert kept.state(view) == state_from_view(deal, view)
        # A seat a message behind: one of the states answered, no replay.
        behind = views[rng.choice(SEATS)][max(0, index - 1)]
        assert kept.state(behind) == state_from_view(deal, behind)
    assert kept.replays == 1  # the first view only: every action applied once


def test_a_view_that_extends_the_last_applies_only_what_it_adds():
    rng = random.Random(5)
    deal = random_deal(rng)
    states = played(rng, deal, "S", "EW", heuristic_plan(deal))
    views = views_of(states, "E")
    kept = ViewBoard(deal)
    for view in views:
        assert kept.state(view) == state_from_view(deal, view)
    assert kept.replays == 1  # the first view only
    # A rejected or pending claim adds no call or card: the same state, no replay.
    assert kept.state(views[-1]) is kept.state(dict(views[-1], claim=None))
    assert kept.replays == 1
    # A view far behind (a stale snapshot) is replayed aside, the furthest state kept.
    middle = views[len(views) // 2]
    assert kept.state(middle) == state_from_view(deal, middle)
    assert kept.replays == 2
    assert kept.state(middle) == state_from_view(deal, middle)
    assert kept.state(views[-1]) == state_from_view(deal, views[-1])
    assert kept.replays == 2


def test_a_view_the_rules_refuse_is_refused_as_a_replay_refuses_it():
    rng = random.Random(9)
    deal = random_deal(rng)
    states = played(rng, deal, "N", "None", Plan())
    view = views_of(states[:1], "N")[0]
    kept = ViewBoard(deal)
    kept.state(view)
    bad = dict(view, auction=[{"seat": "E", "call": "1C"}])  # N is to call first
    with pytest.raises(play.IllegalAction):
        state_from_view(deal, bad)
    with pytest.raises(play.IllegalAction):
        kept.state(bad)
    assert kept.state(view) == state_from_view(deal, view)
