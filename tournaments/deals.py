"""Deals for the boards: from the operating system's CSPRNG, so players can't predict them."""

from __future__ import annotations

import secrets

from scoring import RANKS, SEATS, SUITS

_deck = [(suit, rank) for suit in SUITS for rank in RANKS]
_system_random = secrets.SystemRandom()


def generate_deal() -> str:
    """A uniformly random deal as a PBN deal string, 'N:' then the four hands clockwise."""
    cards = list(_deck)
    _system_random.shuffle(cards)
    hands = []
    for seat in range(4):
        hand = cards[seat * 13 : (seat + 1) * 13]
        suits = []
        for suit in SUITS:
            ranks = sorted((r for s, r in hand if s == suit), key=RANKS.index)
            suits.append("".join(ranks))
        hands.append(".".join(suits))
    return "N:" + " ".join(hands)


def hands_of(deal: str) -> dict[str, dict[str, str]]:
    """{'N': {'S': 'AKQ', 'H': …}, …} from a PBN deal string (any first seat)."""
    first, _, rest = deal.partition(":")
    start = SEATS.index(first.strip().upper())
    result: dict[str, dict[str, str]] = {}
    for offset, hand in enumerate(rest.split()):
        seat = SEATS[(start + offset) % 4]
        result[seat] = dict(zip(SUITS, hand.split("."), strict=True))
    return result


def high_card_points(hand: dict[str, str]) -> int:
    values = {"A": 4, "K": 3, "Q": 2, "J": 1}
    return sum(values.get(card, 0) for holding in hand.values() for card in holding)
