"""Property tests: the fast whole-board methods against the rules' wording (docs/RULES.md), written
naively (O(n²)) here, and the invariants every field score must keep."""

import random
from decimal import ROUND_HALF_UP, Decimal
from itertools import pairwise

from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import (
    HALF_AWAY,
    HALF_EVEN,
    cross_imps,
    datum_imps,
    matchpoint_percentages,
    score_board,
)
from tests import examples

prop = settings(deadline=None, max_examples=examples(200))

# --- Naive references: the RULES 5.2/5.3 wording, result by result. ---

IMP_BANDS = [20, 50, 90, 130, 170, 220, 270, 320, 370, 430, 500, 600, 750, 900,
             1100, 1300, 1500, 1750, 2000, 2250, 2500, 3000, 3500, 4000]  # fmt: skip


def naive_imps(difference):
    won = sum(1 for band in IMP_BANDS if abs(difference) >= band)
    return won if difference >= 0 else -won


def naive_matchpoints(scores):
    """2 for every other result beaten, 1 for every tie."""
    points = []
    for i, mine in enumerate(scores):
        mp = 0
        for j, theirs in enumerate(scores):
            if i != j:
                mp += 2 if mine > theirs else 1 if mine == theirs else 0
        points.append(mp)
    return points


def naive_percentages(scores):
    n = len(scores)
    if n == 1:
        return [50.0]
    return [mp * 100 / (2 * (n - 1)) for mp in naive_matchpoints(scores)]


def naive_cross_imps(scores):
    n = len(scores)
    if n == 1:
        return [0.0]
    return [
        sum(naive_imps(mine - theirs) for j, theirs in enumerate(scores) if j != i) / (n - 1)
        for i, mine in enumerate(scores)
    ]


def naive_datum(scores):
    n = len(scores)
    k = 0 if n <= 2 else max(1, n // 10)
    kept = sorted(scores)[k : n - k]
    tens, rest = divmod(sum(kept), 10 * len(kept))  # mean = 10 · (tens + rest / (10·m))
    twice, whole = 2 * rest, 10 * len(kept)
    if twice > whole or (twice == whole and tens % 2 == 1):
        tens += 1
    return 10 * tens


# --- Strategies: realistic bridge scores, arbitrary ints, and heavily tied boards. ---

realistic = st.integers(-760, 760).map(lambda tens: tens * 10)
common = st.sampled_from([-200, -100, -50, 0, 110, 140, 170, 400, 420, 430, 450, 620, 650])
arbitrary = st.integers(-1_000_000, 1_000_000)
board = st.one_of(
    st.lists(realistic, min_size=1, max_size=60),
    st.lists(common, min_size=1, max_size=60),
    st.lists(arbitrary, min_size=1, max_size=40),
)
code = st.sampled_from(["A+", "A", "A-"])
entry = st.one_of(realistic, common, st.tuples(code, code))


def shuffled(items, seed):
    order = list(range(len(items)))
    random.Random(seed).shuffle(order)
    return [items[i] for i in order], order


# --- The fast methods equal the naive ones. ---


@prop
@given(board)
def test_matchpoints_equal_naive(scores):
    assert matchpoint_percentages(scores) == naive_percentages(scores)


@prop
@given(board)
def test_cross_imps_equal_naive(scores):
    assert cross_imps(scores) == naive_cross_imps(scores)


@prop
@given(board)
def test_datum_imps_equal_naive(scores):
    datum = naive_datum(scores)
    assert datum_imps(scores) == (datum, [naive_imps(s - datum) for s in scores])


def naive_datum_half_away(scores):
    """The datum as Compscore3 rounds it: the trimmed mean to the nearest ten, an exact
    half away from zero (Decimal's ROUND_HALF_UP is "away from zero" on a tie)."""
    n = len(scores)
    k = 0 if n <= 2 else max(1, n // 10)
    kept = sorted(scores)[k : n - k]
    mean = Decimal(sum(kept)) / Decimal(len(kept))
    return int(mean.quantize(Decimal("1E1"), rounding=ROUND_HALF_UP))


@prop
@given(board)
def test_a_datum_rounded_half_away_from_zero_equals_naive(scores):
    datum = naive_datum_half_away(scores)
    assert datum_imps(scores, datum_rounding=HALF_AWAY) == (
        datum,
        [naive_imps(s - datum) for s in scores],
    )
    assert score_board("XIMP", scores, datum_rounding=HALF_AWAY).datum == datum
    # The two roundings part only on an exact half, and then by one ten.
    other = datum_imps(scores, datum_rounding=HALF_EVEN)[0]
    assert other == datum or abs(other - datum) == 10


def test_large_board_equals_naive():
    rng = random.Random(20240)
    scores = [rng.randrange(-300, 300) * 10 for _ in range(400)]
    assert matchpoint_percentages(scores) == naive_percentages(scores)
    assert cross_imps(scores) == naive_cross_imps(scores)
    assert datum_imps(scores)[0] == naive_datum(scores)


# --- Invariants. ---


@prop
@given(board)
def test_matchpoints_average_fifty_and_sum_to_n_n_minus_1(scores):
    n = len(scores)
    percentages = matchpoint_percentages(scores)
    assert abs(sum(percentages) / n - 50.0) < 1e-9
    if n > 1:
        assert round(sum(p * (n - 1) / 50 for p in percentages)) == n * (n - 1)
    ew = score_board("MP", scores).ew_points
    assert all(abs(ns + e - 100.0) < 1e-9 for ns, e in zip(percentages, ew, strict=True))


@prop
@given(board)
def test_cross_imps_sum_to_zero(scores):
    assert abs(sum(cross_imps(scores))) < 1e-9


@prop
@given(board, st.integers())
def test_independent_of_input_order(scores, seed):
    permuted, order = shuffled(scores, seed)
    for method in ("MP", "IMP", "XIMP"):
        original = score_board(method, scores)
        again = score_board(method, permuted)
        assert again.datum == original.datum
        assert again.ns_points == [original.ns_points[i] for i in order]
        assert again.ew_points == [original.ew_points[i] for i in order]


@prop
@given(st.lists(entry, min_size=1, max_size=40), st.integers(), st.booleans())
def test_independent_of_input_order_with_artificial_scores(entries, seed, neuberg):
    permuted, order = shuffled(entries, seed)
    for method in ("MP", "IMP", "XIMP"):
        original = score_board(method, entries, neuberg=neuberg)
        again = score_board(method, permuted, neuberg=neuberg)
        assert again.ns_points == [original.ns_points[i] for i in order]
        assert again.ew_points == [original.ew_points[i] for i in order]


@prop
@given(board)
def test_equal_scores_get_equal_points_and_better_scores_no_fewer(scores):
    for method in ("MP", "IMP", "XIMP"):
        points = score_board(method, scores).ns_points
        by_score = sorted(zip(scores, points, strict=True))
        for (low, low_points), (high, high_points) in pairwise(by_score):
            if low == high:
                assert low_points == high_points
            else:
                assert low_points <= high_points
                if method == "MP":
                    assert low_points < high_points


@prop
@given(board, arbitrary)
def test_a_new_higher_score_raises_nobody_below_it(scores, new):
    before = matchpoint_percentages(scores)
    after = matchpoint_percentages([*scores, new])[:-1]
    for score, old, now in zip(scores, before, after, strict=True):
        if score < new:
            assert now <= old
    # Above everyone: each other result's matchpoints stay, its share of a larger top drops.
    top = max(scores) + 10
    n = len(scores)
    after = matchpoint_percentages([*scores, top])[:-1]
    for old, now in zip(before, after, strict=True):
        if n > 1:
            assert abs(now * n - old * (n - 1)) < 1e-9


@prop
@given(st.lists(entry, max_size=40), st.booleans())
def test_rescoring_is_idempotent_and_leaves_input_alone(entries, neuberg):
    snapshot = list(entries)
    for method in ("MP", "IMP", "XIMP"):
        first = score_board(method, entries, neuberg=neuberg)
        assert score_board(method, entries, neuberg=neuberg) == first
    assert entries == snapshot


@prop
@given(st.lists(entry, max_size=40), st.booleans())
def test_artificial_scores_do_not_change_the_played_results(entries, neuberg):
    played = [e for e in entries if isinstance(e, int)]
    artificial = {"MP": {"A+": 60.0, "A": 50.0, "A-": 40.0},
                  "IMP": {"A+": 3.0, "A": 0.0, "A-": -3.0}}  # fmt: skip
    for method in ("IMP", "XIMP", "MP"):
        scored = score_board(method, entries)
        alone = score_board(method, played)
        got = [p for e, p in zip(entries, scored.ns_points, strict=True) if isinstance(e, int)]
        assert got == alone.ns_points
        assert scored.datum == alone.datum
        table = artificial["MP" if method == "MP" else "IMP"]
        for e, ns, ew in zip(entries, scored.ns_points, scored.ew_points, strict=True):
            if isinstance(e, tuple):
                assert (ns, ew) == (table[e[0]], table[e[1]])
            elif method != "MP":
                assert ew == -ns


@prop
@given(st.lists(entry, max_size=40))
def test_neuberg_keeps_the_played_average_at_fifty_and_the_order(entries):
    played = [i for i, e in enumerate(entries) if isinstance(e, int)]
    neuberg = score_board("MP", entries, neuberg=True).ns_points
    plain = score_board("MP", entries).ns_points
    if played:
        assert abs(sum(neuberg[i] for i in played) / len(played) - 50.0) < 1e-9
    for i in played:
        for j in played:
            if entries[i] > entries[j]:
                assert neuberg[i] > neuberg[j]
            assert 0.0 <= neuberg[i] <= 100.0
            # Scaled towards 50 % when some tables are missing, never past it.
            assert abs(neuberg[i] - 50.0) <= abs(plain[i] - 50.0) + 1e-9
