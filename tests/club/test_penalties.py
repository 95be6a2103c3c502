"""Disconnection penalties (断线扣分, SPEC 13): the figures as data, and "once per
disconnection" against a brute count on a half-second grid."""

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from club import (
    DEFAULT_GRACE,
    DISCONNECTION_PENALTIES,
    DUPLICATE,
    FULL_FIELD,
    HANDICAP,
    TOTAL,
    WEEK,
    ClubError,
    Outage,
    Penalty,
    count_disconnections,
    disconnection_penalties,
    disconnection_penalty,
)
from tests import examples

prop = settings(deadline=None, max_examples=examples(150))

T0 = datetime(2024, 3, 4, 20, 0, tzinfo=UTC)


def at(seconds):
    return T0 + timedelta(seconds=seconds)


def test_the_penalties_are_spec_s():
    assert dict(DISCONNECTION_PENALTIES) == {
        HANDICAP: Penalty(-20, TOTAL),
        DUPLICATE: Penalty(-16, WEEK),
        FULL_FIELD: Penalty(-16, WEEK),
    }
    assert DEFAULT_GRACE.total_seconds() == 60
    assert disconnection_penalty(HANDICAP, 2) == -40
    assert disconnection_penalty(DUPLICATE, 1) == -16
    assert disconnection_penalty(FULL_FIELD, 0) == 0


def test_once_per_disconnection():
    outages = [
        Outage("ann", at(0), at(60)),  # exactly the grace period: not a disconnection
        Outage("bob", at(0), at(61)),  # one
        Outage("bob", at(0), at(61)),  # the same outage reported twice: still one
        Outage("bob", at(50), at(200)),  # overlapping it: the same outage
        Outage("bob", at(200), at(230)),  # touching it: the same outage
        Outage("bob", at(500), at(700)),  # a second one
        Outage("cat", at(0), at(30)),  # two short ones apart: none
        Outage("cat", at(40), at(90)),
        Outage("dan", at(100)),  # still away: until now
        Outage("eve", at(0), at(40)),  # two short ones touching: one of 90 s
        Outage("eve", at(40), at(90)),
    ]
    assert dict(count_disconnections(outages, now=at(170))) == {"bob": 2, "dan": 1, "eve": 1}
    assert dict(count_disconnections(outages, now=at(160))) == {"bob": 2, "eve": 1}
    assert dict(disconnection_penalties(DUPLICATE, outages, now=at(170))) == {
        "bob": -32,
        "dan": -16,
        "eve": -16,
    }
    assert dict(disconnection_penalties(HANDICAP, outages, now=at(170))) == {
        "bob": -40,
        "dan": -20,
        "eve": -20,
    }
    # a shorter grace period
    grace = timedelta(seconds=45)
    assert count_disconnections(outages, now=at(170), grace=grace)["cat"] == 1


def test_refusals():
    with pytest.raises(ClubError, match="came back at .* before being lost"):
        Outage("ann", at(10), at(5))
    with pytest.raises(ClubError, match="a club scoring system is one of handicap, duplicate"):
        disconnection_penalty("rubber", 1)
    with pytest.raises(ClubError, match="a whole number from 0, got -1"):
        disconnection_penalty(HANDICAP, -1)
    with pytest.raises(ClubError, match="the grace period cannot be negative"):
        count_disconnections([], now=T0, grace=timedelta(seconds=-1))


def brute_disconnections(spans, now, grace):
    """Mark every half second each player was away (ends included) and count the runs of
    marks that last longer than the grace period."""
    counts = {}
    for player in {p for p, _, _ in spans}:
        marks = set()
        for p, start, end in spans:
            if p == player:
                end = now if end is None else end
                marks.update(range(2 * start, 2 * end + 1))
        runs = 0
        for mark in marks:
            if mark - 1 not in marks:  # a run starts here
                last = mark
                while last + 1 in marks:
                    last += 1
                runs += (last - mark) / 2 > grace
        if runs:
            counts[player] = runs
    return counts


# Whole seconds, often on a ten so that outages touch and overlap; now and then still open.
second = st.one_of(st.integers(0, 40).map(lambda tens: tens * 10), st.integers(0, 400))
length = st.one_of(st.integers(0, 15).map(lambda tens: tens * 10), st.integers(0, 150))
span = st.tuples(second, length, st.integers(0, 9)).map(
    lambda t: (t[0], None if t[2] == 0 else t[0] + t[1])
)
spans = st.lists(st.tuples(st.sampled_from("abc"), span), max_size=12).map(
    lambda items: [(p, start, end) for p, (start, end) in items]
)


@prop
@given(
    spans,
    st.sampled_from([0, 30, 60, 90, 120]) | st.integers(0, 120),
    st.sampled_from([HANDICAP, DUPLICATE, FULL_FIELD]),
)
def test_counts_equal_a_brute_count(items, grace, system):
    now = 600
    outages = [Outage(p, at(s), None if e is None else at(e)) for p, s, e in items]
    expected = brute_disconnections(items, now, grace)
    counts = count_disconnections(outages, now=at(now), grace=timedelta(seconds=grace))
    assert dict(counts) == expected
    penalties = disconnection_penalties(
        system, outages, now=at(now), grace=timedelta(seconds=grace)
    )
    points = DISCONNECTION_PENALTIES[system].points
    assert dict(penalties) == {p: n * points for p, n in expected.items()}
