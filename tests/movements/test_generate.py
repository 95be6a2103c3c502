"""The generated movements (SPEC 10): every offered size passes every check."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import movements as M
from movements.generate import arrow_switch_rounds
from tests import examples


def _seats(m: M.Movement, position: int) -> list[tuple[int, int, tuple[int, ...]]]:
    """(round, table, boards) of each round `position` plays."""
    return [
        (r, e.table, e.boards)
        for r, round_ in enumerate(m.rounds, start=1)
        for e in round_
        if position in (e.ns, e.ew)
    ]


@pytest.mark.parametrize("even", ["skip", "relay"])
@pytest.mark.parametrize("arrow_switch", [False, True])
def test_every_mitchell_of_3_to_30_tables_passes(even, arrow_switch):
    for tables in range(3, 31):
        m = M.mitchell(tables, 2, even=even, arrow_switch=arrow_switch)
        M.verify(m)
        full = tables - 1 if tables % 2 == 0 and even == "skip" else tables
        assert m.round_count == full
        assert m.pairs == 2 * tables
        assert all(len(r) == tables for r in m.rounds)
        assert m.winners == (1 if arrow_switch else 2)


def test_every_howell_of_2_to_8_tables_passes_complete_and_partial():
    for tables in range(2, 9):
        m = M.howell(tables, 3)
        assert m.round_count == 2 * tables - 1
        M.verify(m, complete=True)
        for rounds in range(1, 2 * tables - 1):
            partial = M.howell(tables, 3, rounds=rounds)
            M.verify(partial)
            assert partial.rounds == tuple(
                tuple(M.Encounter(e.table, e.ns, e.ew, partial.rounds[r][0].boards) for e in rr)
                for r, rr in enumerate(m.rounds[:rounds])
            )  # the complete Howell's first rounds, the round's tables sharing one set


def test_every_odd_pair_count_gets_a_phantom():
    for pairs in range(5, 61, 2):
        m = M.for_pairs(pairs, kind="mitchell", boards_per_round=2)
        assert (m.tables, m.phantom, m.pairs) == ((pairs + 1) // 2, pairs + 1, pairs + 1)
        M.verify(m)
    for pairs in range(3, 17, 2):
        m = M.for_pairs(pairs, kind="howell", boards_per_round=2)
        assert m.phantom == pairs + 1
        M.verify(m, complete=True)
        # The phantom is the stationary pair: table 1 is the bye table every round.
        assert all(r[0].ns == m.phantom for r in m.rounds)


@settings(max_examples=examples(40), deadline=None)
@given(
    tables=st.integers(3, 30),
    boards=st.integers(1, 4),
    even=st.sampled_from(["skip", "relay"]),
    arrow=st.booleans(),
    data=st.data(),
)
def test_mitchell_property(tables, boards, even, arrow, data):
    full = tables - 1 if tables % 2 == 0 and even == "skip" else tables
    relay = tables % 2 == 0 and even == "relay"
    rounds = full if relay else data.draw(st.integers(1, full))
    m = M.mitchell(tables, boards, rounds=rounds, even=even, arrow_switch=arrow)
    M.verify(m)
    assert m.round_count == rounds
    assert M.problems(m) == []
    for t in range(1, tables + 1):
        for _round, table, _ in _seats(m, t):
            assert table == t  # NS pairs stay put (switched rounds too: they only turn)
    if not arrow:
        for e_pos in range(tables + 1, 2 * tables + 1):
            tables_visited = [table for _, table, _ in _seats(m, e_pos)]
            steps = [
                (b - a) % tables for a, b in zip(tables_visited, tables_visited[1:], strict=False)
            ]
            # EW pairs move up one table a round (two, once, in a skip Mitchell).
            assert steps.count(1) >= len(steps) - 1 and set(steps) <= {1, 2}


@settings(max_examples=examples(40), deadline=None)
@given(pairs=st.integers(3, 60), kind=st.sampled_from(["mitchell", "howell"]), data=st.data())
def test_for_pairs_property(pairs, kind, data):
    tables = (pairs + 1) // 2
    offered = range(3, 31) if kind == "mitchell" else range(2, 9)
    if tables not in offered:
        with pytest.raises(M.MovementError) as refused:
            M.for_pairs(pairs, kind=kind, boards_per_round=2)
        assert refused.value.rule == "size"
        return
    arrow = data.draw(st.booleans()) if kind == "mitchell" else False
    m = M.for_pairs(pairs, kind=kind, boards_per_round=2, arrow_switch=arrow)
    M.verify(m)
    assert (m.phantom is not None) == (pairs % 2 == 1)
    rounds = data.draw(st.integers(1, m.round_count))
    M.verify(M.for_pairs(pairs, kind=kind, boards_per_round=2, rounds=rounds, arrow_switch=arrow))
    with pytest.raises(M.MovementError) as refused:
        M.for_pairs(pairs, kind=kind, boards_per_round=2, rounds=m.round_count + 1)
    assert refused.value.rule == "size"


def test_three_table_mitchell_worked_example():
    m = M.mitchell(3, 2)
    table = [[(e.table, m.label(e.ns), m.label(e.ew), e.boards) for e in r] for r in m.rounds]
    assert table == [
        [(1, "1NS", "1EW", (1, 2)), (2, "2NS", "2EW", (3, 4)), (3, "3NS", "3EW", (5, 6))],
        [(1, "1NS", "3EW", (3, 4)), (2, "2NS", "1EW", (5, 6)), (3, "3NS", "2EW", (1, 2))],
        [(1, "1NS", "2EW", (5, 6)), (2, "2NS", "3EW", (1, 2)), (3, "3NS", "1EW", (3, 4))],
    ]  # EW up one table, the boards down one, each round


def test_four_table_howell_meets_everyone_once():
    m = M.howell(4, 3)
    assert m.round_count == 7 and m.tables == 4 and m.pairs == 8
    met: dict[frozenset[int], int] = {}
    for r in m.rounds:
        assert sorted(p for e in r for p in (e.ns, e.ew)) == list(range(1, 9))
        assert len({e.boards for e in r}) == 4  # each set at one table at a time
        for e in r:
            key = frozenset((e.ns, e.ew))
            met[key] = met.get(key, 0) + 1
    assert len(met) == 28 and set(met.values()) == {1}
    for p in range(1, 9):  # every pair plays every set once
        assert sorted(b for _, _, bs in _seats(m, p) for b in bs) == list(range(1, 22))
    assert M.balance(m).figure == pytest.approx(100.0)


def test_skip_and_relay_for_eight_tables():
    skip = M.mitchell(8, 3)
    assert skip.round_count == 7 and "skip" in skip.name
    # After 4 rounds EW pair 1 jumps from table 4 to table 6.
    assert [t for _, t, _ in _seats(skip, 9)] == [1, 2, 3, 4, 6, 7, 8]
    relay = M.mitchell(8, 3, even="relay")
    assert relay.round_count == 8
    for r in relay.rounds:  # tables 1 and 8 share a set; the relay's set is unplayed
        assert r[0].boards == r[7].boards
        assert len({e.boards for e in r}) == 7
    M.verify(relay)


def test_arrow_switch_about_one_round_in_eight():
    assert arrow_switch_rounds(7) == (7,)
    assert arrow_switch_rounds(3) == (3,)
    assert arrow_switch_rounds(15) == (8, 15)
    assert arrow_switch_rounds(30) == (8, 15, 23, 30)
    plain, switched = M.mitchell(7, 2), M.mitchell(7, 2, arrow_switch=True)
    assert switched.directions is None and switched.arrow_switch_rounds == (7,)
    for r in range(7):
        for a, b in zip(plain.rounds[r], switched.rounds[r], strict=True):
            swapped = (b.ns, b.ew) == (a.ew, a.ns)
            assert swapped == (r + 1 == 7) and a.boards == b.boards


@pytest.mark.parametrize(
    "make",
    [
        lambda: M.mitchell(2, 2),
        lambda: M.mitchell(31, 2),
        lambda: M.howell(1, 2),
        lambda: M.howell(9, 2),
        lambda: M.mitchell(7, 2, rounds=8),
        lambda: M.howell(4, 2, rounds=8),
        lambda: M.mitchell(8, 2, rounds=7, even="relay"),
        lambda: M.for_pairs(4, kind="mitchell", boards_per_round=2),
        lambda: M.for_pairs(17, kind="howell", boards_per_round=2),
    ],
)
def test_no_such_movement_is_refused_by_size(make):
    with pytest.raises(M.MovementError) as refused:
        make()
    assert refused.value.rule == "size"


def test_bad_arguments_are_refused():
    with pytest.raises(M.MovementError) as refused:
        M.mitchell(7, 0)
    assert refused.value.rule == "shape"
    with pytest.raises(M.MovementError) as refused:
        M.for_pairs(10, kind="swiss", boards_per_round=2)
    assert refused.value.rule == "shape"
