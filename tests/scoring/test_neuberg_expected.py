"""Neuberg's E given by the movement (RULES 10): `score_board(..., neuberg=True,
expected=E)` against the formula worked result by result, in exact fractions, here."""

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import ScoringError, score_board
from tests import examples

prop = settings(deadline=None, max_examples=examples(300))

ARTIFICIAL = {"A+": 60, "A": 50, "A-": 40}


def brute_force(entries, expected: int) -> list[Fraction]:
    """NS percentages, SPEC 10 read word by word: each played result scores 2 for every
    other played result it beats and 1 for every tie (MP); with A played results and E
    expected, MP' = (MP + 1)·E/A − 1, and the percentage is MP' / 2(E − 1) (50 % when
    E is 1). An artificial score is its flat percentage."""
    played = [e for e in entries if isinstance(e, int)]
    actual = len(played)
    out = []
    for entry in entries:
        if isinstance(entry, tuple):
            out.append(Fraction(ARTIFICIAL[entry[0]]))
            continue
        if expected <= 1:
            out.append(Fraction(50))
            continue
        mp = sum(2 if entry > other else 1 if entry == other else 0 for other in played) - 1
        factored = Fraction(mp + 1) * expected / actual - 1
        out.append(factored / (2 * (expected - 1)) * 100)
    return out


realistic = st.integers(-760, 760).map(lambda tens: tens * 10)
tied = st.sampled_from([-100, -50, 110, 140, 420, 450])
code = st.sampled_from(["A+", "A", "A-"])
entry = st.one_of(realistic, tied, tied, st.tuples(code, code))


@st.composite
def board_with_tables(draw):
    """A board's entries and the tables the movement has it played at: the entries, and
    up to a dozen tables more that left none (cut off, not reached)."""
    entries = draw(st.lists(entry, max_size=40))
    return entries, len(entries) + draw(st.integers(0, 12))


@prop
@given(board_with_tables())
def test_matches_the_formula_result_by_result(board):
    entries, expected = board
    scored = score_board("MP", entries, neuberg=True, expected=expected)
    oracle = brute_force(entries, expected)
    for ns, ew, want, item in zip(scored.ns_points, scored.ew_points, oracle, entries, strict=True):
        assert ns == pytest.approx(float(want), abs=1e-9)
        if isinstance(item, tuple):
            assert ew == ARTIFICIAL[item[1]]
        else:
            assert ew == pytest.approx(100 - float(want), abs=1e-9)
            assert 0.0 <= ns <= 100.0


@prop
@given(board_with_tables())
def test_played_results_average_fifty_and_keep_their_order(board):
    entries, expected = board
    points = score_board("MP", entries, neuberg=True, expected=expected).ns_points
    played = [i for i, e in enumerate(entries) if isinstance(e, int)]
    if played:
        assert sum(points[i] for i in played) / len(played) == pytest.approx(50.0, abs=1e-9)
    for i in played:
        for j in played:
            if entries[i] > entries[j]:
                assert points[i] > points[j]


@prop
@given(st.lists(entry, max_size=40))
def test_e_equal_to_the_entries_is_the_old_neuberg_bit_for_bit(entries):
    assert score_board("MP", entries, neuberg=True, expected=len(entries)) == score_board(
        "MP", entries, neuberg=True
    )
    assert score_board("MP", entries, neuberg=True, expected=None) == score_board(
        "MP", entries, neuberg=True
    )


@prop
@given(board_with_tables())
def test_the_imp_methods_have_nothing_to_factor(board):
    entries, expected = board
    for method in ("IMP", "XIMP"):
        assert score_board(method, entries, neuberg=True, expected=expected) == score_board(
            method, entries
        )


def test_by_hand():
    # Played 420 450 −50 (A = 3), one A+/A−, E = 6 tables (two cut off with no entry).
    # MP 2, 4, 0 on top 4; MP' = (MP + 1)·6/3 − 1 = 5, 9, 1 on top 2(6 − 1) = 10.
    board = score_board("MP", [420, ("A+", "A-"), 450, -50], neuberg=True, expected=6)
    assert board.ns_points == [50.0, 60.0, 90.0, 10.0]
    assert board.ew_points == [50.0, 40.0, 10.0, 90.0]
    # A lone played result among E expected sits at 50 %; a board nobody played is empty.
    assert score_board("MP", [420], neuberg=True, expected=7).ns_points == [50.0]
    assert score_board("MP", [], neuberg=True, expected=7).ns_points == []


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"neuberg": True, "expected": 2}, "3 results: it cannot be expected to have 2"),
        ({"neuberg": False, "expected": 5}, "Neuberg's E"),
        ({"expected": 5}, "Neuberg's E"),
        ({"neuberg": True, "expected": 5.0}, "whole number"),
        ({"neuberg": True, "expected": True}, "whole number"),
        ({"neuberg": True, "expected": "5"}, "whole number"),
    ],
)
def test_refusals(kwargs, message):
    with pytest.raises(ScoringError, match=message):
        score_board("MP", [420, ("A", "A"), 450], **kwargs)
