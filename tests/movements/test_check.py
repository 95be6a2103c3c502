"""`verify` / `problems`: a broken movement is refused with the rule it breaks, and where."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import movements as M
from tests import examples

SIZES = st.one_of(
    st.tuples(st.just("mitchell"), st.integers(3, 12)),
    st.tuples(st.just("howell"), st.integers(2, 8)),
)


def _make(kind: str, tables: int) -> M.Movement:
    return M.mitchell(tables, 2) if kind == "mitchell" else M.howell(tables, 2)


def _replace(m: M.Movement, r: int, t: int, **change) -> M.Movement:
    rounds = [list(x) for x in m.rounds]
    rounds[r][t] = dataclasses.replace(rounds[r][t], **change)
    return dataclasses.replace(m, rounds=tuple(tuple(x) for x in rounds))


def _rules(m: M.Movement) -> set[str]:
    return {p.rule for p in M.problems(m)}


@settings(max_examples=examples(60), deadline=None)
@given(size=SIZES, data=st.data())
def test_a_pair_seated_twice_is_refused(size, data):
    m = _make(*size)
    r = data.draw(st.integers(0, m.round_count - 1))
    t, u = data.draw(st.lists(st.integers(0, m.tables - 1), min_size=2, max_size=2, unique=True))
    twice = m.rounds[r][u].ns
    broken = _replace(m, r, t, ew=twice) if m.rounds[r][t].ns != twice else m
    with pytest.raises(M.MovementError) as refused:
        M.verify(broken)
    assert refused.value.rule == "pair_twice_in_round"
    assert refused.value.details["round"] == r + 1
    assert refused.value.details["position"] == twice


@settings(max_examples=examples(60), deadline=None)
@given(size=SIZES, data=st.data())
def test_a_replayed_board_is_refused(size, data):
    m = _make(*size)
    r, s = sorted(
        data.draw(st.lists(st.integers(0, m.round_count - 1), min_size=2, max_size=2, unique=True))
    )
    t = data.draw(st.integers(0, m.tables - 1))
    pos = m.rounds[s][t].ns
    earlier = next(e for e in m.rounds[r] if pos in (e.ns, e.ew))
    broken = _replace(m, s, t, boards=earlier.boards)
    problems = M.problems(broken)
    replayed = [p for p in problems if p.rule == "board_replayed"]
    assert replayed and replayed[0].details["position"] in (pos, m.rounds[s][t].ew)
    assert replayed[0].details["board"] in earlier.boards
    assert replayed[0].details["round"] == s + 1


@settings(max_examples=examples(60), deadline=None)
@given(size=SIZES, data=st.data())
def test_a_repeat_meeting_is_refused(size, data):
    m = _make(*size)
    if m.round_count < 2:
        return
    s = data.draw(st.integers(1, m.round_count - 1))
    first = m.rounds[0][0]
    # In round s, make table 1's and the first pair's opponents swap so round 1's
    # meeting at table 1 happens again.
    at = {p: (t, e) for t, e in enumerate(m.rounds[s]) for p in (e.ns, e.ew)}
    (ti, ei), (tj, ej) = at[first.ns], at[first.ew]
    if ti == tj:
        broken = m
    else:
        other_i = ei.ew if ei.ns == first.ns else ei.ns
        broken = _replace(m, s, ti, ns=first.ns, ew=first.ew)
        broken = _replace(
            broken, s, tj, **({"ns": other_i} if ej.ns == first.ew else {"ew": other_i})
        )
        other_j = ej.ew if ej.ns == first.ew else ej.ns
        broken = _replace(
            broken, s, tj, **({"ew": other_j} if ej.ns == first.ew else {"ns": other_j})
        )
    found = [p for p in M.problems(broken) if p.rule == "repeat_meeting"]
    assert found and found[0].details["first_round"] == 1
    assert {found[0].details["position"], found[0].details["opponent"]} == {first.ns, first.ew}


def test_a_pair_at_both_seats_of_a_table_is_seated_twice():
    m = dataclasses.replace(M.howell(3, 1), kind="given")
    broken = _replace(m, 2, 1, ew=m.rounds[2][1].ns)
    with pytest.raises(M.MovementError) as refused:
        M.verify(broken)
    assert refused.value.rule == "pair_twice_in_round"
    assert refused.value.details == {"round": 3, "table": 2, "position": m.rounds[2][1].ns}


def test_unequal_plays_direction_and_incomplete_howell():
    m = M.mitchell(5, 1)
    # Table 1 plays, in round 1, a board nobody else plays: it is played once, the others 5.
    unequal = [p for p in M.problems(_replace(m, 0, 0, boards=(99,))) if p.rule == "unequal_plays"]
    assert [p.details for p in unequal] == [
        {"board": 1, "plays": 4, "usual": 5},
        {"board": 99, "plays": 1, "usual": 5},
    ]
    flipped = _replace(m, 0, 0, ns=m.rounds[0][0].ew, ew=m.rounds[0][0].ns)
    with pytest.raises(M.MovementError) as refused:
        M.verify(flipped)
    assert refused.value.rule == "mitchell_direction"
    assert refused.value.details == {"round": 1, "table": 1, "position": 6}
    M.verify(dataclasses.replace(flipped, directions=None))  # one winner: allowed
    partial = M.howell(4, 2, rounds=5)
    with pytest.raises(M.MovementError) as refused:
        M.verify(partial, complete=True)
    assert refused.value.rule == "howell_incomplete"
    M.verify(partial)  # a partial Howell is not complete by default


@pytest.mark.parametrize(
    "change",
    [
        {"tables": 0},
        {"pairs": 1},
        {"boards_per_round": 3},  # the tables play 2
        {"rounds": ()},
        {"rounds": ((),)},
        {"phantom": 99},
        {"directions": ("NS",)},
        {"arrow_switch_rounds": (9,)},
        {"kind": "swiss"},
    ],
)
def test_malformed_movements_are_refused_by_shape(change):
    broken = dataclasses.replace(M.mitchell(5, 2), **{"kind": "given", **change})
    with pytest.raises(M.MovementError) as refused:
        M.verify(broken)
    assert refused.value.rule == "shape"


def test_out_of_range_table_position_and_board():
    m = M.howell(3, 2)
    for change in ({"table": 4}, {"ns": 7}, {"ew": 0}, {"boards": (0, 1)}, {"boards": (2, 1)}):
        with pytest.raises(M.MovementError) as refused:
            M.verify(_replace(m, 1, 1, **change))
        assert refused.value.rule == "shape" and refused.value.details["round"] == 2


def test_size_is_checked_for_the_products_kinds_only():
    big = dataclasses.replace(M.howell(8, 1), tables=9)
    assert M.problems(big)[0].rule == "size"
    M.verify(dataclasses.replace(big, kind="given"))


def test_problems_lists_every_rule_broken_in_rule_order():
    m = M.mitchell(5, 1)
    broken = _replace(m, 1, 0, ew=m.rounds[1][1].ew, boards=m.rounds[0][0].boards)
    rules = [p.rule for p in M.problems(broken)]
    assert rules == sorted(rules, key=M.RULES.index)
    assert {"pair_twice_in_round", "board_replayed", "repeat_meeting"} <= set(rules)
    with pytest.raises(M.MovementError) as refused:
        M.verify(broken)
    assert refused.value.rule == rules[0]
    assert refused.value.as_dict()["rule"] == rules[0]
