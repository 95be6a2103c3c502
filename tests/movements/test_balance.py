"""The balance: how often each two positions are compared, and Schiereck's Qf."""

from __future__ import annotations

import pytest

import movements as M
from movements.model import Encounter, Movement


def test_two_table_howell_by_hand():
    m = M.howell(2, 1)
    # Round 1: 4-1 and 2-3 on board 1; round 2: 4-2 and 3-1 on board 2; round 3: 4-3 and
    # 1-2 on board 3. Each two pairs sit the same way once, the other way once, meet once.
    assert [[(e.ns, e.ew, e.boards) for e in r] for r in m.rounds] == [
        [(4, 1, (1,)), (2, 3, (1,))],
        [(4, 2, (2,)), (3, 1, (2,))],
        [(4, 3, (3,)), (1, 2, (3,))],
    ]
    b = M.balance(m)
    every = {(p, q): 1 for p in range(1, 5) for q in range(p + 1, 5)}
    assert b.same == every and b.opposite == every and b.met == every
    assert (b.minimum, b.maximum) == (1, 1)
    # Weights h·met + same − opposite = 1·1 + 1 − 1 = 1 for all six: perfectly even.
    assert b.figure == pytest.approx(100.0)


def test_a_lopsided_movement_by_hand():
    m = Movement(
        kind="given",
        name="two rounds",
        tables=2,
        pairs=4,
        boards_per_round=1,
        rounds=(
            (Encounter(1, 1, 2, (1,)), Encounter(2, 3, 4, (1,))),
            (Encounter(1, 1, 3, (2,)), Encounter(2, 2, 4, (2,))),
        ),
    )
    M.verify(m)
    b = M.balance(m)
    assert b.same == {(1, 3): 1, (2, 4): 1, (1, 2): 1, (3, 4): 1}
    assert b.opposite == {(1, 4): 2, (2, 3): 2}
    # Weights (h = 1): 1-2, 3-4, 1-3, 2-4: met + same = 2; 1-4, 2-3: −2. Total 4 over six
    # pairs: the least sum of squares is 4 (four 1s), the actual 4·4 + 2·4 = 24.
    assert b.figure == pytest.approx(100 * 4 / 24)
    assert b.compared(3, 1) == 1 and b.compared(1, 4) == 0


def test_mitchell_fields_and_phantom():
    b = M.balance(M.mitchell(5, 2))
    assert b.fields == ((1, 2, 3, 4, 5), (6, 7, 8, 9, 10))
    # Every NS pair plays every board NS: each two NS pairs are compared on all 10 boards.
    assert all(b.compared(p, q) == 10 for p in range(1, 6) for q in range(p + 1, 6))
    assert b.figure == pytest.approx(100.0)
    odd = M.balance(M.for_pairs(9, kind="mitchell", boards_per_round=2))
    assert 10 not in odd.positions and odd.fields[1] == (6, 7, 8, 9)
    # NS pairs each sit out one set (the bye), a different one: two NS pairs are compared
    # on the other 3 sets (6 boards); the EW pairs, who never meet the phantom, on all 10.
    assert odd.minimum == 6 and odd.maximum == 10


def test_generated_howells_are_well_balanced():
    figures = {t: round(M.balance(M.howell(t, 2)).figure) for t in range(2, 9)}
    assert figures == {2: 100, 3: 60, 4: 100, 5: 83, 6: 100, 7: 91, 8: 100}
