"""Two winners in the pure core (RULES 10): pairs of different fields are ranked apart,
each field exactly as if it were the whole event; positions are counted per field."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scoring import (
    PairTotal,
    ScoringError,
    field_positions,
    master_points,
    rank_pairs,
    standing_key,
)

TOTAL_BOARDS = 10


@st.composite
def two_fields(draw):
    count = draw(st.integers(min_value=0, max_value=30))
    registration = draw(st.permutations(range(1, count + 1)))
    return [
        PairTotal(
            pair_id=100 + i,
            # few distinct totals and board counts: ties on total and on boards are common
            total=draw(st.sampled_from([-3.5, 0.0, 1.25, 1.25, 7.0])),
            boards_completed=draw(st.integers(min_value=0, max_value=TOTAL_BOARDS)),
            registration_no=registration[i],
            field=draw(st.sampled_from(["NS", "EW"])),
        )
        for i in range(count)
    ]


@given(pairs=two_fields(), threshold=st.sampled_from([0.01, 0.6, 0.7, 1.0]))
def test_each_field_is_ranked_as_its_own_event(pairs, threshold):
    ranked = {
        r.pair_id: r for r in rank_pairs(pairs, total_boards=TOTAL_BOARDS, threshold=threshold)
    }
    assert set(ranked) == {p.pair_id for p in pairs}
    for field in ("NS", "EW"):
        alone = [
            PairTotal(p.pair_id, p.total, p.boards_completed, p.registration_no)
            for p in pairs
            if p.field == field
        ]
        expected = rank_pairs(alone, total_boards=TOTAL_BOARDS, threshold=threshold)
        for entry in expected:
            got = ranked[entry.pair_id]
            assert got.field == field
            assert (got.rank, got.master_points, got.completed) == (
                entry.rank,
                entry.master_points,
                entry.completed,
            )
        completers = sum(e.completed for e in expected)
        awards = sorted(
            (ranked[e.pair_id].master_points for e in expected if e.completed), reverse=True
        )
        assert awards == master_points(completers)


def test_the_fields_follow_the_order_they_appear_in():
    pairs = [
        PairTotal(1, 10.0, 10, 1, "NS"),
        PairTotal(2, 20.0, 10, 2, "EW"),
        PairTotal(3, 30.0, 10, 3, "NS"),
        PairTotal(4, 5.0, 1, 4, "EW"),  # below the threshold: listed after EW's ranked
    ]
    ranked = rank_pairs(pairs, total_boards=10, threshold=0.7)
    assert [(r.pair_id, r.field, r.rank, r.master_points) for r in ranked] == [
        (3, "NS", 1, 3),
        (1, "NS", 2, 0),
        (2, "EW", 1, 3),
        (4, "EW", None, 0),
    ]


def test_a_field_must_be_a_name():
    with pytest.raises(ScoringError, match="field"):
        rank_pairs([PairTotal(1, 0.0, 1, 1, None)], total_boards=1, threshold=0.5)  # type: ignore[arg-type]


@given(pairs=two_fields())
def test_positions_are_counted_in_each_field(pairs):
    keys = [(p.field, standing_key(p.total, p.boards_completed, p.registration_no)) for p in pairs]
    positions = field_positions(keys)
    for field in ("NS", "EW"):
        mine = sorted(
            (key, position)
            for (f, key), position in zip(keys, positions, strict=True)
            if f == field
        )
        assert [position for _key, position in mine] == list(range(1, len(mine) + 1))


def test_one_field_is_the_one_list_it_always_was():
    pairs = [PairTotal(i, float(i % 3), 4, 10 - i) for i in range(1, 9)]
    keys = [("", standing_key(p.total, p.boards_completed, p.registration_no)) for p in pairs]
    order = sorted(range(len(pairs)), key=lambda i: keys[i][1])
    assert [field_positions(keys)[i] for i in order] == list(range(1, 9))
    ranked = rank_pairs(pairs, total_boards=4, threshold=0.7)
    assert [r.rank for r in ranked] == list(range(1, 9))
    assert {r.field for r in ranked} == {""}
