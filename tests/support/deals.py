"""Random boards for the property tests of the robots (tests/simulation, tests/bench):
a seed strategy, a shuffled deal, a plan, and a whole board drawn from one seed. No
Django: the pure tests import it too."""

from __future__ import annotations

import random

from hypothesis import strategies as st

import play
from scoring import SEATS
from simulation.robot import Plan

seeds = st.integers(min_value=0, max_value=2**64 - 1)
VULNERABILITIES = ("None", "NS", "EW", "Both")


def random_deal(rng: random.Random) -> dict[str, list[str]]:
    deck = sorted(play.DECK)
    rng.shuffle(deck)
    return {seat: deck[13 * i : 13 * i + 13] for i, seat in enumerate(SEATS)}


def random_plan(rng: random.Random) -> Plan:
    if rng.random() < 0.1:
        return Plan()
    bid = rng.choice(play.BIDS)
    return Plan(contract=bid + "X" * rng.choice((0, 0, 1, 2)), declarer=rng.choice(SEATS))


def random_board(seed: int) -> tuple[random.Random, dict[str, list[str]], str, str]:
    """A generator seeded with `seed` and the board it draws first: the deal, then the
    dealer and the vulnerability. The generator goes on from there."""
    rng = random.Random(seed)
    deal = random_deal(rng)
    dealer, vulnerability = rng.choice(SEATS), rng.choice(VULNERABILITIES)
    return rng, deal, dealer, vulnerability
