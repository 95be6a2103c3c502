"""The bidding and play of a simulated table, in bridge terms.

A simulated table bids something near the deal's double-dummy par for the side with more
high-card points and takes about the double-dummy number of tricks, with the noise of
real play: partscores stopped short of game, the odd overbid, penalty doubles and
sacrifices, a trick more or less, weak deals passed out.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from scoring import RANKS, SEATS, SIDES, STRAINS, SUITS, contract_score, seat_offset, side_of

# {"N": {"C": 7, "D": 8, "H": 6, "S": 9, "NT": 8}, …}: tricks by declarer and strain, as
# `tournaments.double_dummy.tricks` solves them.
Tricks = dict[str, dict[str, int]]

GAME_LEVEL = {"C": 5, "D": 5, "H": 4, "S": 4, "NT": 3}

# Tricks taken against double dummy: mostly exactly, sometimes one off, rarely two.
TRICK_NOISE = ((0, 0.70), (-1, 0.13), (1, 0.12), (-2, 0.025), (2, 0.025))

PASS = "PASS"


@dataclass(frozen=True)
class DealFacts:
    """What a simulated table needs to know about a board to produce a result."""

    tricks: Tricks
    hands: dict[str, dict[str, str]]  # {"N": {"S": "AK65", "H": …}, …}
    hcp: dict[str, int]  # high-card points by seat
    vulnerability: str


@dataclass(frozen=True)
class TableResult:
    """A table's result as players enter it: "PASS", or contract, declarer, tricks and
    the opening lead ("SQ")."""

    contract: str
    declarer: str = ""
    tricks: int | None = None
    lead: str = ""


def _seats_of(side: str) -> tuple[str, str]:
    first, second = (seat for seat in SEATS if side_of(seat) == side)
    return first, second


def _other_side(side: str) -> str:
    return SIDES[1 - SIDES.index(side)]


def _side_score(contract: str, declarer: str, tricks: int, vulnerability: str) -> int:
    """The score of the declaring side (contract_score is NS's)."""
    ns = contract_score(contract, declarer, tricks, vulnerability)
    return ns if side_of(declarer) == SIDES[0] else -ns


def _best_declarer(facts: DealFacts, side: str, strain: str, rng: random.Random) -> str:
    first, second = _seats_of(side)
    a, b = facts.tricks[first][strain], facts.tricks[second][strain]
    if a == b:
        return rng.choice((first, second))
    return first if a > b else second


def _par_for_side(facts: DealFacts, side: str, rng: random.Random) -> tuple[str, str, int]:
    """(strain, declarer, makeable level) of the side's highest-scoring makeable contract.

    Level 0 when nothing makes: the side then plays its best strain at the one level.
    """
    best = None
    for strain in reversed(STRAINS):  # NT and majors first on equal scores
        declarer = _best_declarer(facts, side, strain, rng)
        tricks = facts.tricks[declarer][strain]
        level = min(tricks - 6, 7)
        if level < 1:
            key = (-10_000, tricks)
        else:
            key = (_side_score(f"{level}{strain}", declarer, tricks, facts.vulnerability), tricks)
        if best is None or key > best[0]:
            best = (key, strain, declarer, max(level, 0))
    assert best is not None
    return best[1], best[2], best[3]


def _bid_level(makeable: int, strain: str, rng: random.Random) -> int:
    """The level a real table reaches when double dummy says `makeable` is the limit."""
    game = GAME_LEVEL[strain]
    roll = rng.random()
    if makeable <= 0:
        return 1
    if makeable == 7:
        return 7 if roll < 0.2 else 6 if roll < 0.65 else game
    if makeable == 6:
        return 6 if roll < 0.55 else 7 if roll < 0.6 else game
    if makeable >= game:
        # Game bid, now and then a slam overbid (on eleven tricks) or a partscore underbid.
        if makeable >= 5 and roll < 0.1:
            return 6
        if roll < 0.2:
            return max(1, game - 1)
        return game
    if makeable == game - 1 and roll < 0.3:
        return game  # the optimistic game one trick short
    if roll < 0.15:
        return max(1, makeable - 1)
    if roll < 0.25:
        return makeable + 1
    return makeable


def _cheapest_above(level: int, strain: str, their_strain: str) -> int:
    return level if STRAINS.index(their_strain) > STRAINS.index(strain) else level + 1


def _trick_noise(rng: random.Random) -> int:
    roll = rng.random()
    for delta, weight in TRICK_NOISE:
        if roll < weight:
            return delta
        roll -= weight
    return 0


def _opening_lead(hand: dict[str, str], trump: str, rng: random.Random) -> str:
    """A sensible lead: top of touching honours, fourth best from length, else top."""
    suits = [s for s in SUITS if hand[s] and s != trump] or [s for s in SUITS if hand[s]]
    longest = max(len(hand[s]) for s in suits)
    suit = rng.choice([s for s in suits if len(hand[s]) == longest])
    cards = hand[suit]
    touching = len(cards) >= 2 and RANKS.index(cards[1]) == RANKS.index(cards[0]) + 1
    if touching and cards[0] in "AKQJT":
        return suit + cards[0]
    if len(cards) >= 4:
        return suit + cards[3]
    return suit + cards[0]


def _opens(facts: DealFacts, seat: str) -> bool:
    # The rule of 20: points plus the lengths of the two longest suits.
    lengths = sorted((len(cards) for cards in facts.hands[seat].values()), reverse=True)
    return facts.hcp[seat] >= 12 or facts.hcp[seat] + lengths[0] + lengths[1] >= 20


def plausible_result(facts: DealFacts, rng: random.Random) -> TableResult:
    """One table's result on a deal: contract, declarer, tricks and opening lead."""
    hcp = {side: sum(facts.hcp[seat] for seat in _seats_of(side)) for side in SIDES}
    if not any(_opens(facts, seat) for seat in SEATS) and rng.random() < 0.75:
        return TableResult(contract=PASS)
    ns, ew = SIDES
    side = ns if hcp[ns] > hcp[ew] else ew if hcp[ew] > hcp[ns] else rng.choice(SIDES)
    strain, declarer, makeable = _par_for_side(facts, side, rng)
    level = _bid_level(makeable, strain, rng)
    dd_tricks = facts.tricks[declarer][strain]
    doubling = 0

    # The opponents may sacrifice over a game or slam when going down doubled costs less.
    if level >= GAME_LEVEL[strain] and level + 6 <= dd_tricks and rng.random() < 0.15:
        their_strain, their_declarer, _ = _par_for_side(facts, _other_side(side), rng)
        their_level = _cheapest_above(level, strain, their_strain)
        if their_level <= 7:
            their_tricks = facts.tricks[their_declarer][their_strain]
            cost = _side_score(
                f"{their_level}{their_strain}X",
                their_declarer,
                their_tricks,
                facts.vulnerability,
            )
            ours = _side_score(f"{level}{strain}", declarer, dd_tricks, facts.vulnerability)
            if -cost < ours:
                strain, declarer, level, dd_tricks = (
                    their_strain,
                    their_declarer,
                    their_level,
                    their_tricks,
                )
                doubling = 1
    if doubling == 0:
        short = level + 6 - dd_tricks
        if (short >= 2 and rng.random() < 0.45) or (short == 1 and rng.random() < 0.1):
            doubling = 1  # a penalty double
        elif short <= -1 and level >= 3 and rng.random() < 0.02:
            doubling = 1  # doubled into game and it makes
    if doubling == 1 and level + 6 <= dd_tricks and rng.random() < 0.15:
        doubling = 2

    tricks = max(0, min(13, dd_tricks + _trick_noise(rng)))
    lead = _opening_lead(facts.hands[seat_offset(declarer, 1)], strain, rng)
    contract = f"{level}{strain}{'X' * doubling}"
    return TableResult(contract=contract, declarer=declarer, tricks=tricks, lead=lead)
