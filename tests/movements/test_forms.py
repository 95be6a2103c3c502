"""The JSON form and the `.ASC` movement file: both round-trip; malformed input is refused."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import movements as M
from tests import examples


@st.composite
def movements(draw) -> M.Movement:
    kind = draw(st.sampled_from(["mitchell", "howell"]))
    boards = draw(st.integers(1, 4))
    if kind == "mitchell":
        pairs = draw(st.integers(5, 24))
        return M.for_pairs(
            pairs, kind="mitchell", boards_per_round=boards, arrow_switch=draw(st.booleans())
        )
    tables = draw(st.integers(2, 8))
    rounds = draw(st.integers(1, 2 * tables - 1))
    pairs = draw(st.sampled_from([2 * tables - 1, 2 * tables]))
    return M.for_pairs(pairs, kind="howell", boards_per_round=boards, rounds=rounds)


@settings(max_examples=examples(60), deadline=None)
@given(m=movements())
def test_json_round_trips(m):
    data = json.loads(json.dumps(M.to_json(m)))  # as the database and the API store it
    assert M.from_json(data) == m
    assert set(data) == {
        "kind",
        "name",
        "tables",
        "pairs",
        "boards_per_round",
        "directions",
        "phantom",
        "arrow_switch_rounds",
        "rounds",
    }


@settings(max_examples=examples(60), deadline=None)
@given(m=movements())
def test_asc_round_trips(m):
    text = M.to_asc(m)
    assert M.from_asc(text) == m
    header = text.splitlines()[0].split()
    assert header == [
        str(m.pairs),
        str(m.tables),
        str(m.round_count),
        str(len({e.boards for r in m.rounds for e in r})),
        "0",
    ]


def test_thirty_table_mitchell_round_trips():
    m = M.mitchell(30, 2)
    assert M.from_asc(M.to_asc(m)) == m  # 30 groups: numbers, not letters
    assert M.from_json(M.to_json(m)) == m


def test_a_foreign_asc_file_is_read():
    # As another program writes it: no `#:` lines, dashes and tabs, a comment, an unused
    # table (0 0 0), numbered groups. A 3-table Mitchell with a fourth, unused table.
    text = (
        "6 4 3 3 0\n"
        "# a 3-table Mitchell, written by hand\n"
        "1-4 1\t2-5 2  3-6 3   0-0 0\n"
        "\n"
        "1-6 2  2-4 3  3-5 1   0 0 0  # round 2\n"
        "1-5 3  2-6 1  3-4 2   0 0 0\n"
    )
    m = M.from_asc(text, boards_per_round=2)
    M.verify(m)
    assert m.kind == "given" and m.tables == 4 and m.pairs == 6
    assert m.directions == ("NS",) * 3 + ("EW",) * 3  # everyone keeps a direction
    assert [(e.table, e.ns, e.ew, e.boards) for e in m.rounds[1]] == [
        (1, 1, 6, (3, 4)),
        (2, 2, 4, (5, 6)),
        (3, 3, 5, (1, 2)),
    ]
    assert [[(e.ns, e.ew) for e in r] for r in m.rounds] == [
        [(e.ns, e.ew) for e in r] for r in M.mitchell(3, 2).rounds
    ]


def test_an_odd_asc_file_gets_a_phantom():
    text = "5 3 3 3 0\n1-4 A 2-5 B 3-0 C\n1-0 B 2-4 C 3-5 A\n1-5 C 2-0 A 3-4 B\n"
    m = M.from_asc(text)
    assert m.pairs == 6 and m.phantom == 6
    M.verify(m)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "# comment first\n6 3 3 3 0\n1-4 A 2-5 B 3-6 C\n",
        "6 3 3 3\n1-4 A 2-5 B 3-6 C\n",
        "6 3 3 3 1\n1-4 A 2-5 B 3-6 C\n",
        "6 3 1 3 0 H\n1-4 A 2-5 B 3-6 C\n",
        "6 3 1 3 0\n1-4 A 2-5 B\n",
        "6 3 1 3 0\n1-4 A 2-5 B 3-6 C 1-2 A\n",
        "6 3 1 3 0\n1-4 A 2-5 2 3-6 C\n",
        "6 3 1 3 0\n1-4 A 2-5 B 3-6 D\n",
        "6 3 1 3 0\n1-4 A 2-5 B 3-9 C\n",
        "6 3 1 3 0\n1-4 A 2-5 B 3-0 C\n",
        "6 3 1 3 0\n1-4 a 2-5 B 3-6 C\n",
    ],
)
def test_malformed_asc_is_refused(text):
    with pytest.raises(M.MovementError) as refused:
        M.from_asc(text)
    assert refused.value.rule == "shape"


def _good() -> dict:
    return M.to_json(M.mitchell(3, 1))


@pytest.mark.parametrize(
    "spoil",
    [
        lambda d: d.pop("rounds"),
        lambda d: d.update(extra=1),
        lambda d: d.update(kind="swiss"),
        lambda d: d.update(tables="3"),
        lambda d: d.update(tables=True),
        lambda d: d.update(name=3),
        lambda d: d.update(directions=["NS", "XX"]),
        lambda d: d.update(phantom=0),
        lambda d: d.update(rounds={}),
        lambda d: d.update(rounds=[[]]),
        lambda d: d["rounds"][0].append({"table": 1}),
        lambda d: d["rounds"][0][0].update(boards=[1.5]),
        lambda d: d["rounds"][0][0].update(boards=7),
        lambda d: d["rounds"][0][0].update(table=4),
        lambda d: d["rounds"][0][0].update(ns=None),
        lambda d: d.update(arrow_switch_rounds=[4]),
    ],
)
def test_malformed_json_is_refused(spoil):
    data = _good()
    spoil(data)
    with pytest.raises(M.MovementError) as refused:
        M.from_json(data)
    assert refused.value.rule == "shape"
    for bad in (None, [], "movement"):
        with pytest.raises(M.MovementError):
            M.from_json(bad)


def test_from_json_checks_shape_not_the_seating_rules():
    data = _good()
    data["rounds"][1][0]["boards"] = data["rounds"][0][0]["boards"]  # a replay: shape is fine
    m = M.from_json(data)
    with pytest.raises(M.MovementError) as refused:
        M.verify(m)
    assert refused.value.rule == "board_replayed"
