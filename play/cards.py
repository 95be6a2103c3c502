"""Cards and deals: a card is its suit letter and rank ("SA", "HT", "D2")."""

from collections.abc import Iterable, Mapping
from functools import lru_cache

from scoring import RANKS, SEATS, SUITS, seat_offset

from .errors import DealError
from .errors import gettext_noop as _

DECK = frozenset(suit + rank for suit in SUITS for rank in RANKS)

Hands = tuple[frozenset[str], frozenset[str], frozenset[str], frozenset[str]]
"""The four hands in the order of ``SEATS`` (N, E, S, W)."""


def _shown_order(card: str) -> tuple[int, int]:
    return SUITS.index(card[0]), RANKS.index(card[1])


# Looked up rather than computed: hands are sorted and tricks judged at every action.
_SHOWN_PLACE = {card: place for place, card in enumerate(sorted(DECK, key=_shown_order))}
_RANK_ORDER = {card: 12 - RANKS.index(card[1]) for card in DECK}


def rank_order(card: str) -> int:
    """Strength of a card within its suit: the ace is 12, the two 0."""
    order = _RANK_ORDER.get(card)
    return 12 - RANKS.index(card[1]) if order is None else order


def sort_hand(cards: Iterable[str]) -> tuple[str, ...]:
    """Cards as a hand is shown: spades, hearts, diamonds, clubs, each from the top."""
    held = list(cards)
    try:
        return tuple(sorted(held, key=_SHOWN_PLACE.__getitem__))
    except (KeyError, TypeError):  # not all cards of the deck: ordered by their text
        return tuple(sorted(held, key=_shown_order))


def parse_deal(deal: "str | Mapping[str, Iterable[str]]") -> Hands:
    """The four hands of a PBN deal string ("N:AKQ.T98.… …", any first seat, hands
    clockwise, suits S.H.D.C) or of a mapping seat -> cards ("SA", "HT", …)."""
    if isinstance(deal, str):
        return _kept_hands(deal)
    if isinstance(deal, Mapping) and sorted(deal) == sorted(SEATS):
        held = tuple(tuple(deal[seat]) for seat in SEATS)
        if all(type(card) is str for hand in held for card in hand):
            return _kept_hands(held)
        deal = dict(zip(SEATS, held, strict=True))  # each hand read once, as by _checked
    return _checked(deal)


# A board is replayed from its deal again and again (each reconnection, each record, a
# robot's every view); the hands are immutable, so the parse is kept. A deal refused
# raises again: lru_cache keeps no exception.
@lru_cache(maxsize=4096)
def _kept_hands(deal: "str | tuple[tuple[str, ...], ...]") -> Hands:
    if isinstance(deal, str):
        return _checked(deal)
    return _checked(dict(zip(SEATS, deal, strict=True)))


def _checked(deal: "str | Mapping[str, Iterable[str]]") -> Hands:
    if isinstance(deal, str):
        hands = _parse_pbn(deal)
    elif isinstance(deal, Mapping) and sorted(deal) == sorted(SEATS):
        hands = {seat: [str(card).upper() for card in deal[seat]] for seat in SEATS}
    else:
        raise DealError(_("a deal must be a PBN deal such as N:AKQ.… with four hands"))
    seen: set[str] = set()
    for seat in SEATS:
        for card in hands[seat]:
            if card not in DECK:
                raise DealError(_("%(card)r is not a card"), card=card)
            if card in seen:
                raise DealError(_("%(card)s is dealt twice"), card=card)
            seen.add(card)
        if len(hands[seat]) != 13:
            raise DealError(
                _("each hand holds 13 cards; %(seat)s holds %(count)s"),
                seat=seat,
                count=len(hands[seat]),
            )
    return tuple(frozenset(hands[seat]) for seat in SEATS)  # type: ignore[return-value]


def _parse_pbn(deal: str) -> dict[str, list[str]]:
    first, colon, rest = deal.strip().partition(":")
    parts = rest.split()
    if not colon or first.upper() not in SEATS or len(parts) != 4:
        raise DealError(_("a deal must be a PBN deal such as N:AKQ.… with four hands"))
    hands: dict[str, list[str]] = {}
    for offset, hand in enumerate(parts):
        holdings = hand.upper().split(".")
        if len(holdings) != 4:
            raise DealError(
                _("a hand must have four suits separated by dots, got %(hand)r"), hand=hand
            )
        seat = seat_offset(first.upper(), offset)
        hands[seat] = [
            suit + rank for suit, ranks in zip(SUITS, holdings, strict=True) for rank in ranks
        ]
    return hands
