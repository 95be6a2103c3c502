"""The play benchmark's check of every message (`bench.bench_play.Watch`): its cheap
path counts exactly the cards the full rule (`Watch._leaked`) counts, on the views the
server builds and on views made to leak (another hand, dummy's too early, a card of
another hand among the legal ones)."""

from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from bench.bench_play import Watch
from scoring import SEATS
from simulation.robot import heuristic_plan
from tests import examples
from tests.simulation.test_robot import random_deal
from tests.simulation.test_view_board import played
from tournaments.selectors.board_views import WATCHER, board_json

seeds = st.integers(min_value=0, max_value=2**64 - 1)


def leaking(rng: random.Random, view: dict, deal: dict[str, list[str]]) -> dict:
    """`view` with a card or a hand it may not show (or, at times, unchanged)."""
    view = json.loads(json.dumps(view))
    card = rng.choice([c for cards in deal.values() for c in cards])
    roll = rng.random()
    if roll < 0.3:
        view["hands"].setdefault(rng.choice(SEATS), []).append(card)
    elif roll < 0.5:
        view["legal"] = [*view["legal"], card]
    elif roll < 0.7:
        seat = rng.choice(SEATS)
        view["hands"][seat] = list(deal[seat])
    elif roll < 0.8:
        view["hands"]["N"] = ["1S", "XX"]  # not even cards
    return view


@settings(deadline=None, max_examples=examples(100))
@given(seeds)
def test_every_message_is_counted_as_the_full_rule_counts_it(seed):
    rng = random.Random(seed)
    deal = random_deal(rng)
    states = played(rng, deal, rng.choice(SEATS), "None", heuristic_plan(deal))
    watch = Watch({3: {seat: set(cards) for seat, cards in deal.items()}})
    observe = watch.observer(11)
    for seq, state in enumerate(states):
        for seat in SEATS:
            viewer = seat if rng.random() < 0.7 else WATCHER
            view = board_json(state, viewer=viewer, seat=seat)
            mutated = rng.random() < 0.3
            if mutated:
                view = leaking(rng, view, deal)
            kind = "snapshot" if seq == 0 else "view"
            before = watch.leaks
            observe("message", seat, {"type": kind, "board": 3, "seq": seq, "view": view}, 0.0)
            assert watch.leaks - before == watch._leaked(seat, 3, view)
            if viewer == seat and not mutated:
                assert watch.leaks == before  # the server's own views leak nothing
    assert watch.messages == 4 * len(states)
    assert all(seqs == [list(range(len(states)))] for seqs in watch.received.values())


def test_a_seat_shown_another_hand_is_counted():
    rng = random.Random(1)
    deal = random_deal(rng)
    states = played(rng, deal, "N", "None", heuristic_plan(deal))
    watch = Watch({1: {seat: set(cards) for seat, cards in deal.items()}})
    observe = watch.observer(1)
    view = board_json(states[0], viewer="N", seat="N")
    observe("message", "N", {"type": "snapshot", "board": 1, "seq": 0, "view": view}, 0.0)
    assert watch.leaks == 0
    view = board_json(states[0], viewer=WATCHER, seat="N")
    observe("message", "N", {"type": "view", "board": 1, "seq": 1, "view": view}, 0.0)
    assert watch.leaks == 39  # the three other hands
