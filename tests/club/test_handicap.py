"""Handicap scoring (贴点, SPEC 13): the HCP table cell by cell, E for NS with the H < 20
rule, high-card points against a brute count, SPEC's worked example."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from club import (
    HANDICAP_TABLE,
    ClubError,
    TableResult,
    expectation,
    expected_ns_score,
    hand_hcp,
    handicap_imps,
    score_handicap,
    side_hcp,
)
from play import DealError
from tests import examples

from .reference import ref_imps, score

prop = settings(deadline=None, max_examples=examples(150))

# SPEC 13's table typed again, row by row as printed: H 20 … 36, 37+.
SPEC_H = list(range(20, 38))
SPEC_NOT_VUL = [0, 50, 70, 110, 200, 300, 350, 400, 430, 460, 490, 600, 700, 900, 1000, 1100,
                1200, 1300]  # fmt: skip
SPEC_VUL = [0, 50, 70, 110, 290, 440, 520, 600, 630, 660, 690, 900, 1050, 1350, 1500, 1650,
            1800, 1950]  # fmt: skip


def spec_e(h, vulnerable):
    """E(H, vulnerability) read off the typed table (37+ for anything above)."""
    return (SPEC_VUL if vulnerable else SPEC_NOT_VUL)[SPEC_H.index(min(h, 37))]


def spec_e_ns(h_ns, ns_vul, ew_vul):
    """The side with H ≥ 20 expects E; the other side's expectation is its negative."""
    if h_ns >= 20:
        return spec_e(h_ns, ns_vul)
    return -spec_e(40 - h_ns, ew_vul)


def test_the_table_is_spec_s_cell_by_cell():
    assert sorted(HANDICAP_TABLE) == SPEC_H
    for h, not_vul, vul in zip(SPEC_H, SPEC_NOT_VUL, SPEC_VUL, strict=True):
        assert HANDICAP_TABLE[h] == (not_vul, vul), h
        assert expectation(h, False) == not_vul and expectation(h, True) == vul


def test_e_for_ns_at_every_h_and_vulnerability():
    for h in range(41):
        for ns_vul in (False, True):
            for ew_vul in (False, True):
                expected = spec_e_ns(h, ns_vul, ew_vul)
                got = expected_ns_score(h, ns_vulnerable=ns_vul, ew_vulnerable=ew_vul)
                assert got == expected, (h, ns_vul, ew_vul)


def test_twenty_all_expects_nothing_and_above_37_is_37():
    for ns_vul in (False, True):
        for ew_vul in (False, True):
            assert expected_ns_score(20, ns_vulnerable=ns_vul, ew_vulnerable=ew_vul) == 0
    assert expectation(40, True) == 1950 and expectation(38, False) == 1300


# N 13 + S 11 = 24 HCP, E 8 + W 8 = 16
DEAL = "N:AKQ2.KJ3.432.432 J543.Q54.Q65.QJ5 T876.A76.AK7.876 9.T982.JT98.AKT9"


def test_spec_worked_example():
    # NS 24 HCP, not vulnerable, make 3NT (+400): IMP(400 - 200) = +5 to N and S
    assert handicap_imps(400, 24, ns_vulnerable=False, ew_vulnerable=False) == 5
    # and a deal with those points, scored at once
    assert side_hcp(DEAL) == 24 and side_hcp(DEAL, "EW") == 16
    board = score_handicap(DEAL, "None", TableResult(400, "n", "e", "s", "w"))
    assert (board.hcp_ns, board.expected_ns, board.ns_imps) == (24, 200, 5)
    assert dict(board.points) == {"n": 5, "e": -5, "s": 5, "w": -5}


def test_the_weaker_side_expects_minus_e_of_the_other():
    # NS 16, EW 24 vulnerable: E_NS = -290; NS -620 (EW made 4♠ vul): -330 -> -8
    assert expected_ns_score(16, ns_vulnerable=False, ew_vulnerable=True) == -290
    assert handicap_imps(-620, 16, ns_vulnerable=False, ew_vulnerable=True) == -8
    # the same deal turned a quarter: E-W now hold the 24
    turned = "E:" + DEAL[2:]
    board = score_handicap(turned, "EW", TableResult(-620, "n", "e", "s", "w"))
    assert (board.hcp_ns, board.expected_ns, board.ns_imps) == (16, -290, -8)
    assert board.points["e"] == 8


def test_refusals():
    with pytest.raises(ClubError, match="from 0 to 40, got 41"):
        expected_ns_score(41, ns_vulnerable=False, ew_vulnerable=False)
    with pytest.raises(ClubError, match="the table starts at 20 points"):
        expectation(19, False)
    with pytest.raises(ClubError, match='a side is "NS" or "EW"'):
        side_hcp("N:... ... ... ...", "N")
    with pytest.raises(DealError):
        side_hcp("N:AKQ.x.y.z")
    with pytest.raises(ClubError, match="a deal has four hands, got 3"):
        side_hcp(((), (), ()))
    with pytest.raises(ClubError, match="is not a bridge score"):
        handicap_imps(405, 24, ns_vulnerable=False, ew_vulnerable=False)


DECK = [suit + rank for suit in "SHDC" for rank in "AKQJT98765432"]
BRUTE = {"A": 4, "K": 3, "Q": 2, "J": 1}


def brute_count(cards):
    total = 0
    for card in cards:
        for rank, value in BRUTE.items():
            if card.endswith(rank):
                total += value
    return total


def pbn(hands):
    """N:… from four hands (N, E, S, W) of cards, suits S.H.D.C."""
    return "N:" + " ".join(
        ".".join("".join(c[1] for c in hand if c[0] == suit) for suit in "SHDC") for hand in hands
    )


@prop
@given(st.permutations(DECK))
def test_hcp_against_a_brute_count(shuffled):
    hands = [shuffled[13 * i : 13 * (i + 1)] for i in range(4)]
    ns = brute_count(hands[0]) + brute_count(hands[2])
    ew = brute_count(hands[1]) + brute_count(hands[3])
    assert ns + ew == 40
    assert [hand_hcp(hand) for hand in hands] == [brute_count(hand) for hand in hands]
    assert side_hcp(pbn(hands)) == ns and side_hcp(pbn(hands), "EW") == ew
    assert side_hcp(dict(zip("NESW", hands, strict=True))) == ns
    assert side_hcp(tuple(hands), "EW") == ew


@prop
@given(st.permutations(DECK), st.sampled_from(["None", "NS", "EW", "Both"]), score)
def test_a_board_scores_imp_of_the_score_minus_the_table(shuffled, vulnerability, ns_score):
    hands = [shuffled[13 * i : 13 * (i + 1)] for i in range(4)]
    h_ns = brute_count(hands[0]) + brute_count(hands[2])
    expected = spec_e_ns(h_ns, vulnerability in ("NS", "Both"), vulnerability in ("EW", "Both"))
    board = score_handicap(pbn(hands), vulnerability, TableResult(ns_score, 1, 2, 3, 4))
    assert board.expected_ns == expected
    assert board.ns_imps == ref_imps(ns_score - expected)
    assert dict(board.points) == {1: board.ns_imps, 3: board.ns_imps, 2: -board.ns_imps,
                                  4: -board.ns_imps}  # fmt: skip
    assert sum(board.points.values()) == 0
