"""Full-field scoring (全场记分, SPEC 13): every result against the datum of all so far,
re-scored at each arrival; MP percentages among the deal's results."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from club import RETIRED_AT, ClubError, full_field_arrival, full_field_scores
from tests import examples

from .reference import player, ref_datum, ref_imps, ref_percentages, results_of, score

prop = settings(deadline=None, max_examples=examples(150))


def test_a_lone_result_is_its_own_datum():
    scores = full_field_scores(results_of([620]))
    assert scores.datum == 620 and scores.ns_imps == (0,) and scores.ns_percentages == (50.0,)
    assert dict(scores.imps) == {"N0": 0, "E0": 0, "S0": 0, "W0": 0}
    assert dict(scores.percentages) == {"N0": 50.0, "E0": 50.0, "S0": 50.0, "W0": 50.0}


def test_two_results_share_their_mean():
    # n = 2 drops nothing (SPEC 5.3's k = 0): (400 - 100) / 2 = 150; ±250 -> ±6
    scores = full_field_scores(results_of([400, -100]))
    assert scores.datum == 150 and scores.ns_imps == (6, -6)
    assert scores.ns_percentages == (100.0, 0.0)
    assert scores.imps["E1"] == 6 and scores.percentages["E1"] == 100.0


def test_ties_count_half():
    # 400 beats 100 and ties 400: (2 + 1) / 4 = 75 %; 100 beats nothing
    scores = full_field_scores(results_of([400, 400, 100]))
    assert scores.ns_percentages == (75.0, 75.0, 0.0)
    assert scores.percentages["W2"] == 100.0


def test_an_arrival_moves_the_earlier_scores():
    # six: datum 340 (see the duplicate tests); a seventh 400 moves it to 350
    six = [400, 420, 430, -50, 100, 630]
    results = results_of([*six, 400])
    before = full_field_scores(results[:6])
    arrival = full_field_arrival(results[:6], results[6])
    assert before.datum == 340 and arrival.scores.datum == 350
    assert before.ns_imps == (2, 2, 3, -9, -6, 7)
    assert arrival.scores.ns_imps == (2, 2, 2, -9, -6, 7, 2)
    # 430 - 340 = 90 (3), 430 - 350 = 80 (2): only the third table and the new one move
    moved = {who: change for who, change in arrival.imp_changes.items() if change}
    assert moved == {"N2": -1, "E2": 1, "S2": -1, "W2": 1, "N6": 2, "E6": -2, "S6": 2, "W6": -2}
    assert len(arrival.imp_changes) == 28 and not arrival.retired


def test_no_results_no_datum_and_the_limit_of_40():
    assert full_field_scores([]).datum is None
    results = results_of([110] * 41)
    assert full_field_arrival(results[:39], results[39]).retired
    with pytest.raises(ClubError, match="this deal is retired"):
        full_field_arrival(results[:40], results[40])


deal = st.lists(score, min_size=1, max_size=RETIRED_AT)


@prop
@given(deal)
def test_scores_equal_the_rule_applied_to_all_results(ns_scores):
    scores = full_field_scores(results_of(ns_scores))
    datum = ref_datum(ns_scores)
    assert scores.datum == datum
    assert list(scores.ns_imps) == [ref_imps(s - datum) for s in ns_scores]
    assert list(scores.ns_percentages) == pytest.approx(ref_percentages(ns_scores), abs=1e-9)
    for i, (imps, percent) in enumerate(zip(scores.ns_imps, scores.ns_percentages, strict=True)):
        assert scores.imps[player(i, "N")] == scores.imps[player(i, "S")] == imps
        assert scores.imps[player(i, "E")] == scores.imps[player(i, "W")] == -imps
        assert scores.percentages[player(i, "W")] == pytest.approx(100 - percent)
    # NS and EW: IMPs cancel, percentages make 100 per result
    assert sum(scores.imps.values()) == 0
    assert sum(scores.percentages.values()) == pytest.approx(200.0 * len(ns_scores))


@prop
@given(deal)
def test_the_changes_at_each_arrival_add_up_to_the_scores_of_all(ns_scores):
    results = results_of(ns_scores)
    week = {}
    for k in range(len(results)):
        arrival = full_field_arrival(results[:k], results[k])
        for who, change in arrival.imp_changes.items():
            week[who] = week.get(who, 0) + change
        assert dict(arrival.scores.imps) == week  # re-scored against all k + 1
        assert arrival.scores == full_field_scores(results[: k + 1])
    assert week == dict(full_field_scores(results).imps)


@prop
@given(deal, st.randoms(use_true_random=False))
def test_the_order_of_arrival_does_not_matter(ns_scores, rng):
    order = list(range(len(ns_scores)))
    rng.shuffle(order)
    first = full_field_scores(results_of(ns_scores))
    shuffled = full_field_scores(results_of([ns_scores[i] for i in order]))
    assert shuffled.datum == first.datum
    assert list(shuffled.ns_imps) == [first.ns_imps[i] for i in order]
    assert list(shuffled.ns_percentages) == [first.ns_percentages[i] for i in order]
