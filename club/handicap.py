"""Handicap scoring (贴点, SPEC 13): a board against what the hands' high cards predict.

Each side's high-card points (A 4, K 3, Q 2, J 1; the two sides hold 40 between them)
set an expected NS score: the side with H ≥ 20 expects E(H, its vulnerability) from
`HANDICAP_TABLE`, a side with H < 20 expects −E of the other side. At 20–20 both sides
expect 0. NS score IMP(NS score − E_NS) (`scoring.imps`), EW the negative. A handicap
board needs no other result, so it is scored the moment it ends.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from numbers import Integral
from types import MappingProxyType
from typing import Generic

from play import parse_deal
from scoring import SEATS, imps, side_is_vulnerable, side_of

from .deal import P, TableResult, frozen, side_points, validate_ns_score
from .errors import ClubError, gettext_noop

#: Milton Work's count
HCP_VALUES: Mapping[str, int] = MappingProxyType({"A": 4, "K": 3, "Q": 2, "J": 1})
#: the high-card points of the whole deal
DECK_HCP = 40
#: SPEC 13's table, as printed: H -> (E not vulnerable, E vulnerable), for H ≥ 20; the
#: 37 column is "37+"
HANDICAP_TABLE: Mapping[int, tuple[int, int]] = MappingProxyType(
    {
        20: (0, 0),
        21: (50, 50),
        22: (70, 70),
        23: (110, 110),
        24: (200, 290),
        25: (300, 440),
        26: (350, 520),
        27: (400, 600),
        28: (430, 630),
        29: (460, 660),
        30: (490, 690),
        31: (600, 900),
        32: (700, 1050),
        33: (900, 1350),
        34: (1000, 1500),
        35: (1100, 1650),
        36: (1200, 1800),
        37: (1300, 1950),
    }
)
TABLE_LOW = min(HANDICAP_TABLE)
TABLE_TOP = max(HANDICAP_TABLE)

Deal = str | Mapping[str, Iterable[str]] | tuple[Iterable[str], ...]
"""A deal as `play.parse_deal` reads it (a PBN deal string, or seat -> cards such as
"SA", "HT"), or its answer: the four hands in the order N, E, S, W."""


def hand_hcp(cards: Iterable[str]) -> int:
    """High-card points of a hand given as cards ("SA", "HK", …)."""
    return sum(HCP_VALUES.get(str(card)[1:].upper(), 0) for card in cards)


def side_hcp(deal: Deal, side: str = "NS") -> int:
    """High-card points of ``side`` ("NS" or "EW") in ``deal``; the deal is checked to be
    four hands of 13 different cards (refused by `play.parse_deal` with a `DealError`)."""
    if side not in ("NS", "EW"):
        raise ClubError(gettext_noop('a side is "NS" or "EW", got %(side)s'), side=repr(side))
    if isinstance(deal, tuple):
        if len(deal) != len(SEATS):
            raise ClubError(gettext_noop("a deal has four hands, got %(count)s"), count=len(deal))
        deal = dict(zip(SEATS, deal, strict=True))
    hands = parse_deal(deal)
    seats = zip(SEATS, hands, strict=True)
    return sum(hand_hcp(hand) for seat, hand in seats if side_of(seat) == side)


def _hcp(value: object) -> int:
    if (
        isinstance(value, bool)
        or not isinstance(value, Integral)
        or not 0 <= int(value) <= DECK_HCP
    ):
        raise ClubError(
            gettext_noop("a side's high-card points are a whole number from 0 to 40, got %(hcp)s"),
            hcp=repr(value),
        )
    return int(value)


def expectation(hcp: int, vulnerable: bool) -> int:
    """E(H, vulnerability) for a side with ``hcp`` ≥ 20 (37 and more: the 37+ column)."""
    hcp = _hcp(hcp)
    if hcp < TABLE_LOW:
        raise ClubError(
            gettext_noop(
                "the table starts at 20 points; a side with %(hcp)s expects −E of the other side"
            ),
            hcp=hcp,
        )
    return HANDICAP_TABLE[min(hcp, TABLE_TOP)][1 if vulnerable else 0]


def expected_ns_score(hcp_ns: int, *, ns_vulnerable: bool, ew_vulnerable: bool) -> int:
    """E_NS: what NS's ``hcp_ns`` points predict for the NS score (H < 20: −E of EW)."""
    hcp_ns = _hcp(hcp_ns)
    if hcp_ns >= TABLE_LOW:
        return expectation(hcp_ns, bool(ns_vulnerable))
    return 0 - expectation(DECK_HCP - hcp_ns, bool(ew_vulnerable))


def handicap_imps(ns_score: int, hcp_ns: int, *, ns_vulnerable: bool, ew_vulnerable: bool) -> int:
    """NS's IMPs on a handicap board: IMP(NS score − E_NS); EW score the negative."""
    expected = expected_ns_score(hcp_ns, ns_vulnerable=ns_vulnerable, ew_vulnerable=ew_vulnerable)
    return imps(validate_ns_score(ns_score) - expected)


@dataclass(frozen=True)
class HandicapScore(Generic[P]):
    """A handicap board scored: NS's points, the NS expectation, NS's IMPs and each
    player's points (NS players the IMPs, EW players the negative)."""

    hcp_ns: int
    expected_ns: int
    ns_imps: int
    points: Mapping[P, int]


def score_handicap(deal: Deal, vulnerability: str, result: TableResult[P]) -> HandicapScore[P]:
    """Score one handicap board: ``deal`` as `side_hcp` reads it, ``vulnerability`` "None",
    "NS", "EW" or "Both" (`scoring.validate_vulnerability`), the table's result."""
    ns_vulnerable = side_is_vulnerable(vulnerability, "N")
    ew_vulnerable = side_is_vulnerable(vulnerability, "E")
    hcp_ns = side_hcp(deal, "NS")
    expected = expected_ns_score(hcp_ns, ns_vulnerable=ns_vulnerable, ew_vulnerable=ew_vulnerable)
    ns_imps = imps(result.ns_score - expected)
    return HandicapScore(hcp_ns, expected, ns_imps, frozen(side_points(result, ns_imps)))
