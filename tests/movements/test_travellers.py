"""A movement read back from the travellers: real Compscore3 events (USEBIO files in
../shared/usebio/, from abftech/cobalt's public test files) and generated ones."""

from __future__ import annotations

import dataclasses
import xml.etree.ElementTree as ET

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import movements as M
from tests import examples
from tests.support.samples import USEBIO_SAMPLES as USEBIO


def _lines(name: str) -> list[tuple[str, str, str]]:
    path = USEBIO / name
    if not path.exists():
        pytest.skip(f"{path} is not here")
    root = ET.parse(path).getroot()
    return [
        (
            board.findtext("BOARD_NUMBER"),
            line.findtext("NS_PAIR_NUMBER"),
            line.findtext("EW_PAIR_NUMBER"),
        )
        for board in root.iter("BOARD")
        for line in board.iter("TRAVELLER_LINE")
    ]


def _played(m: M.Movement) -> set[tuple[str, str, str]]:
    return {
        (str(b), m.label(e.ns), m.label(e.ew))
        for r in m.rounds
        for e in r
        if m.phantom not in (e.ns, e.ew)
        for b in e.boards
    }


@pytest.mark.parametrize(
    ("name", "kind", "tables", "rounds", "phantom", "winners"),
    [
        ("butler_mitchell.xml", "mitchell", 7, 7, None, 2),
        ("butler_howell.xml", "howell", 4, 7, None, 1),
        ("cross_imp_howell.xml", "howell", 5, 9, 4, 1),
    ],
)
def test_real_events(name, kind, tables, rounds, phantom, winners):
    lines = _lines(name)
    m = M.from_travellers(lines)
    M.verify(m)
    assert (m.kind, m.tables, m.round_count, m.phantom, m.winners) == (
        kind,
        tables,
        rounds,
        phantom,
        winners,
    )
    # Every traveller line is in the movement, and the movement plays nothing else.
    assert _played(m) == {(b, ns, ew) for b, ns, ew in lines}
    assert len(lines) == len(_played(m))


def test_the_real_mitchell_is_the_standard_one():
    m = M.from_travellers(_lines("butler_mitchell.xml"))
    assert m.rounds == M.mitchell(7, 5).rounds  # 1NS-1EW on boards 1-5, EW up, boards down


def test_the_real_howell_with_a_phantom_is_complete():
    m = M.from_travellers(_lines("cross_imp_howell.xml"))
    M.verify(m, complete=True)  # pair 4 did not come: everyone else had one bye
    byes = [next(e for e in r if 4 in (e.ns, e.ew)) for r in m.rounds]
    assert sorted(e.ns + e.ew - 4 for e in byes) == [1, 2, 3, 5, 6, 7, 8, 9, 10]


@pytest.mark.parametrize("even", ["skip", "relay"])
def test_a_thirty_table_mitchell_is_read_back_exactly(even):
    m = M.for_pairs(59, kind="mitchell", boards_per_round=2, even=even)
    assert M.from_travellers(_travellers_of(m)) == dataclasses.replace(
        m, name=M.from_travellers(_travellers_of(m)).name
    )


def _travellers_of(m: M.Movement) -> list[tuple[str, str, str]]:
    return [
        (str(b), m.label(e.ns), m.label(e.ew))
        for r in m.rounds
        for e in r
        if m.phantom not in (e.ns, e.ew)
        for b in e.boards
    ]


@settings(max_examples=examples(25), deadline=None)
@given(
    kind=st.sampled_from(["mitchell", "howell"]),
    pairs=st.integers(4, 12),
    boards=st.integers(1, 3),
    data=st.data(),
)
def test_generated_movements_are_read_back(kind, pairs, boards, data):
    if kind == "mitchell" and pairs < 5:
        pairs = 5
    if kind == "howell":
        pairs = min(pairs, 10)  # 6 tables and more: a slower search (seconds), left to bench
    m = M.for_pairs(pairs, kind=kind, boards_per_round=boards)
    lines = _travellers_of(m)
    lines = data.draw(st.permutations(lines))
    back = M.from_travellers(lines)
    M.verify(back)
    assert back.phantom == m.phantom and back.round_count == m.round_count
    assert _played(back) == _played(m)
    if kind == "mitchell":
        assert back.rounds == m.rounds  # its own rounds, the phantom's sets too


@pytest.mark.parametrize(
    "lines",
    [
        [],
        [("1", "1NS", "1")],
        [("x", "1", "2")],
        [("1", "1", "1")],
        [("1", "1", "2"), ("2", "2", "1")],
        [("1", "1", "2"), ("1", "1", "2")],
        [("1", "1", "2"), ("2", "1", "2"), ("3", "3", "4")],
        [("1", "1", "2"), ("2", "3", "4"), ("3", "5", "6"), ("4", "1", "3")],
        [("1", "1", "2")] * 1 + [("2", "4", "5"), ("3", "7", "8")],
    ],
)
def test_lines_no_movement_explains_are_refused(lines):
    with pytest.raises(M.MovementError):
        M.from_travellers(lines)
