"""Duplicate scoring (复式记分, SPEC 13): n < 6 stored at 0, the 6th scores all six, later
results against the datum of all so far with earlier scores unchanged, retired at 40."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from club import (
    RETIRED_AT,
    SCORED_AT,
    ClubError,
    ResultScore,
    TableResult,
    duplicate_arrival,
    duplicate_points,
    duplicate_scores,
)
from tests import examples

from .reference import player, ref_datum, ref_duplicate_replay, ref_imps, results_of, score

prop = settings(deadline=None, max_examples=examples(150))

SIX = [400, 420, 430, -50, 100, 630]


def arrivals(results):
    return [duplicate_arrival(results[:k], results[k]) for k in range(len(results))]


def test_the_first_five_are_stored_at_zero():
    results = results_of(SIX)
    for k, arrival in enumerate(arrivals(results)[:5]):
        assert arrival.count == k + 1
        assert arrival.scored == ()
        assert arrival.datum is None
        assert dict(arrival.points) == dict.fromkeys(results[k].players, 0)
        assert not arrival.retired


def test_the_sixth_scores_all_six_and_their_24_players_at_once():
    # sorted: -50 | 100 400 420 430 | 630; (100 + 400 + 420 + 430) / 4 = 337.5 -> 340
    sixth = arrivals(results_of(SIX))[5]
    assert sixth.count == 6 and sixth.datum == 340
    assert sixth.scored == tuple(
        ResultScore(i, 340, imps) for i, imps in enumerate([2, 2, 3, -9, -6, 7])
    )
    assert len(sixth.points) == 24
    assert sixth.points[player(3, "N")] == -9 and sixth.points[player(3, "E")] == 9
    assert sixth.points[player(5, "S")] == 7 and sixth.points[player(5, "W")] == -7
    assert sum(sixth.points.values()) == 0


def test_a_later_result_is_scored_alone_against_all_n():
    # seven: -50 | 100 400 400 420 430 | 630 -> 1750 / 5 = 350; 400 - 350 = 50 -> 2
    results = results_of([*SIX, 400])
    seventh = duplicate_arrival(results[:6], results[6])
    assert seventh.scored == (ResultScore(6, 350, 2),)
    assert dict(seventh.points) == dict(zip(results[6].players, [2, -2, 2, -2], strict=True))
    # the first six keep the datum of the six (340), though the datum is now 350
    assert [s.datum for s in duplicate_scores(results)] == [340] * 6 + [350]


def test_the_datum_of_six_rounds_a_five_to_the_even_ten():
    # kept 400 450 400 450: 425 -> 420; kept 420 450 420 450: 435 -> 440
    assert arrivals(results_of([-1000, 400, 450, 400, 450, 2000]))[5].datum == 420
    assert arrivals(results_of([-1000, 420, 450, 420, 450, 2000]))[5].datum == 440


def test_the_40th_retires_the_deal_and_a_41st_is_refused():
    results = results_of([400] * 41)
    fortieth = duplicate_arrival(results[:39], results[39])
    assert fortieth.retired and fortieth.count == RETIRED_AT
    assert not duplicate_arrival(results[:38], results[38]).retired
    with pytest.raises(ClubError, match="this deal is retired: it has 40 results and takes no"):
        duplicate_arrival(results[:40], results[40])
    with pytest.raises(ClubError, match="a deal takes at most 40 results, got 41"):
        duplicate_scores(results)


def test_refusals():
    results = results_of(SIX)
    again = TableResult(420, "N0", "x", "y", "z")
    with pytest.raises(ClubError, match="N0 has two results on this deal"):
        duplicate_arrival(results[:3], again)
    with pytest.raises(ClubError, match="a table needs four different players"):
        TableResult(420, "a", "b", "a", "c")
    with pytest.raises(ClubError, match="425 is not a bridge score"):
        TableResult(425, "a", "b", "c", "d")
    with pytest.raises(ClubError, match="7700 is not a bridge score"):
        TableResult(7700, "a", "b", "c", "d")
    with pytest.raises(ClubError, match="an NS score must be a whole number, got True"):
        TableResult(True, "a", "b", "c", "d")
    with pytest.raises(ClubError, match="a deal's result must be a TableResult"):
        duplicate_scores([400])
    # a refusal keeps the template and its values apart, for translation
    with pytest.raises(ClubError) as refused:
        duplicate_arrival(results[:3], again)
    assert refused.value.message == (
        "%(player)s has two results on this deal: a player never plays a deal twice"
    )
    assert refused.value.params == {"player": "N0"}


def test_fewer_than_six_results_wait():
    assert duplicate_scores(results_of([400, 420])) == (None, None)
    assert dict(duplicate_points(results_of([400]))) == {"N0": 0, "E0": 0, "S0": 0, "W0": 0}
    assert duplicate_scores([]) == ()


deal = st.lists(score, min_size=1, max_size=RETIRED_AT)
# the 6th and the 40th are where the rule turns: weigh those lengths
edge_deal = st.one_of(
    deal,
    st.integers(5, 7).flatmap(lambda n: st.lists(score, min_size=n, max_size=n)),
    st.integers(39, 40).flatmap(lambda n: st.lists(score, min_size=n, max_size=n)),
)


@prop
@given(edge_deal)
def test_every_arrival_equals_the_replayed_rule(ns_scores):
    results = results_of(ns_scores)
    fixed, ledger = ref_duplicate_replay(ns_scores)
    for k, (arrival, expected) in enumerate(zip(arrivals(results), ledger, strict=True)):
        assert dict(arrival.points) == {
            player(i, seat): change for (i, seat), change in expected.items()
        }
        assert arrival.retired == (k + 1 == RETIRED_AT)
        assert sum(arrival.points.values()) == 0  # NS and EW points cancel
    assert [None if s is None else (s.datum, s.ns_imps) for s in duplicate_scores(results)] == [
        *fixed
    ]


@prop
@given(edge_deal)
def test_points_from_scratch_equal_the_arrivals_added_up(ns_scores):
    results = results_of(ns_scores)
    added = {}
    for arrival in arrivals(results):
        for who, change in arrival.points.items():
            added[who] = added.get(who, 0) + change
    assert dict(duplicate_points(results)) == added
    assert sum(added.values()) == 0
    ns_sum = sum(v for who, v in added.items() if who[0] in "NS")
    ew_sum = sum(v for who, v in added.items() if who[0] in "EW")
    assert ns_sum == -ew_sum
    if len(ns_scores) >= SCORED_AT:
        assert len(added) == 4 * len(ns_scores)


@prop
@given(st.lists(score, min_size=6, max_size=6), st.randoms(use_true_random=False))
def test_the_first_six_do_not_depend_on_their_order(six, rng):
    order = list(range(6))
    rng.shuffle(order)
    first = duplicate_scores(results_of(six))
    shuffled = duplicate_scores(results_of([six[i] for i in order]))
    assert [first[i].ns_imps for i in order] == [s.ns_imps for s in shuffled]
    datum = ref_datum(six)
    assert all(s.datum == datum for s in shuffled)
    assert [s.ns_imps for s in first] == [ref_imps(x - datum) for x in six]
