"""Properties of the Rate (SPEC 13): the vectorised close against an independent oracle
written here, and the formula's promises on random weeks.

The oracle is SPEC 13's bullet list written out board by board and player by player in
plain Python (lists and floats, no numpy), sharing no code with `rating.week`: slow and
obvious on purpose.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from rating import RatingParameters, WeekBoards, close_week, imps_to_fraction, pseudo_ratings
from tests import examples

prop = settings(deadline=None, max_examples=examples(150))

# --- the oracle ---------------------------------------------------------------------------


def reference_pseudo(four_rates, x, lost=(False, False, False, False)):
    """The four pseudo-ratings (N, E, S, W) of one board."""
    total = sum(four_rates)
    out = []
    for seat, rate in enumerate(four_rates):
        partner = four_rates[(seat + 2) % 4]
        fraction = x if seat in (0, 2) else 1 - x
        # Partners both at 0: the side's share split equally (the core's documented choice).
        share = rate / (rate + partner) if rate + partner > 0 else 0.5
        out.append(0.0 if lost[seat] else fraction * total * share)
    return out


def reference_close(players, fractions, lost, rates, weights, fade):
    """(new Rates, new weights, week means (NaN: no board), boards), as lists."""
    earned: dict[int, list[float]] = {}
    for seats, x, flags in zip(players, fractions, lost, strict=True):
        pseudo = reference_pseudo([rates[p] for p in seats], x, flags)
        for player, value in zip(seats, pseudo, strict=True):
            earned.setdefault(player, []).append(value)
    new_rates, new_weights, means, counts = [], [], [], []
    for player, (old, carried) in enumerate(zip(rates, weights, strict=True)):
        values = earned.get(player, [])
        n = len(values)
        mean = sum(values) / n if n else math.nan
        denominator = fade * carried + n
        # The fold with n = 0 is (λC·R + 0) / λC = R: written so, as SPEC's formula says.
        new = (fade * carried * old + n * mean) / denominator if n else old
        new_rates.append(new)
        new_weights.append(denominator)
        means.append(mean)
        counts.append(n)
    return new_rates, new_weights, means, counts


# --- strategies ----------------------------------------------------------------------------

rate = st.floats(1.0, 200.0)
rate_or_zero = st.one_of(rate, st.just(0.0))
weight = st.floats(0.0, 500.0)
fraction = st.floats(0.0, 1.0)


@st.composite
def weeks(draw, *, zeros=True, disconnections=True):
    """(players' Rates, weights, boards as lists, parameters): 4 – 30 players, up to 60
    boards, each seating four different players; some players may play no board."""
    count = draw(st.integers(4, 30))
    rates = draw(st.lists(rate_or_zero if zeros else rate, min_size=count, max_size=count))
    weights = draw(st.lists(weight, min_size=count, max_size=count))
    seats = st.permutations(range(count)).map(lambda p: list(p[:4]))
    players = draw(st.lists(seats, max_size=60))
    fractions = draw(st.lists(fraction, min_size=len(players), max_size=len(players)))
    flags = (
        st.lists(st.booleans(), min_size=4, max_size=4) if disconnections else st.just([False] * 4)
    )
    lost = draw(st.lists(flags, min_size=len(players), max_size=len(players)))
    params = RatingParameters(fade=draw(st.floats(0.05, 1.0)), prior_weight=draw(weight))
    return rates, weights, (players, fractions, lost), params


def arrays(players, fractions, lost):
    return WeekBoards(
        np.array(players, dtype=int).reshape(-1, 4), fractions, np.array(lost).reshape(-1, 4)
    )


# --- properties ------------------------------------------------------------------------------


@prop
@given(weeks())
def test_the_vectorised_close_is_the_oracles(week):
    rates, weights, (players, fractions, lost), params = week
    got = close_week(arrays(players, fractions, lost), rates, weights, params)
    want_rates, want_weights, want_means, want_counts = reference_close(
        players, fractions, lost, rates, weights, params.fade
    )
    assert np.allclose(got.rates, want_rates, rtol=1e-12, atol=1e-9)
    assert np.allclose(got.weights, want_weights, rtol=1e-12, atol=1e-9)
    assert np.allclose(got.week_rates, want_means, rtol=1e-12, atol=1e-9, equal_nan=True)
    assert list(got.boards) == want_counts


@prop
@given(weeks(zeros=False, disconnections=False))
def test_results_exactly_as_the_rates_expect_move_no_rate(week):
    # X = (R_N + R_S) / ΣR on every board: each pseudo-rating is the player's own Rate, so
    # W = R and the fold leaves R where it was, whatever λ, C and the partners.
    rates, weights, (players, _fractions, lost), params = week
    expected = [
        (rates[n] + rates[s]) / (rates[n] + rates[e] + rates[s] + rates[w])
        for n, e, s, w in players
    ]
    got = close_week(arrays(players, expected, lost), rates, weights, params)
    assert np.allclose(got.rates, rates, rtol=0, atol=1e-9)
    played = got.boards > 0
    assert np.allclose(got.week_rates[played], np.array(rates)[played], rtol=0, atol=1e-9)


@prop
@given(st.lists(rate_or_zero, min_size=4, max_size=4), fraction, fraction)
def test_a_better_result_never_lowers_ones_pseudo_rating(four, x, y):
    low, high = sorted((x, y))
    boards = WeekBoards([[0, 1, 2, 3]] * 2, [low, high])
    worse, better = pseudo_ratings(boards, four)
    for seat in (0, 2):  # NS gain with X
        assert better[seat] >= worse[seat]
    for seat in (1, 3):  # EW gain with 1 − X
        assert better[seat] <= worse[seat]


@prop
@given(st.lists(rate, min_size=4, max_size=4), weight, st.floats(-30, 30), st.floats(-30, 30))
def test_more_imps_never_lower_the_new_rate(four, carried, a, b):
    low, high = sorted((a, b))
    assert imps_to_fraction([low])[0] <= imps_to_fraction([high])[0]
    worse = close_week(WeekBoards.from_imps([[0, 1, 2, 3]], [low]), four, [carried] * 4)
    better = close_week(WeekBoards.from_imps([[0, 1, 2, 3]], [high]), four, [carried] * 4)
    assert better.rates[0] >= worse.rates[0] - 1e-12
    assert better.rates[1] <= worse.rates[1] + 1e-12


@prop
@given(st.lists(rate_or_zero, min_size=4, max_size=4), fraction, st.integers(0, 3))
def test_a_disconnection_is_0_for_that_seat_only(four, x, seat):
    flags = [[False] * 4, [i == seat for i in range(4)]]
    whole, lost = pseudo_ratings(WeekBoards([[0, 1, 2, 3]] * 2, [x, x], flags), four)
    assert lost[seat] == 0
    for other in range(4):
        if other != seat:
            assert lost[other] == whole[other]


@prop
@given(st.lists(rate_or_zero, min_size=4, max_size=4), fraction)
def test_a_board_shares_out_exactly_the_rates_at_stake(four, x):
    # Without a disconnection the four pseudo-ratings sum to ΣR: X·ΣR to NS, (1 − X)·ΣR to EW.
    pseudo = pseudo_ratings(WeekBoards([[0, 1, 2, 3]], [x]), four)[0]
    assert math.isclose(pseudo.sum(), sum(four), rel_tol=1e-12, abs_tol=1e-9)


@prop
@given(weeks())
def test_the_new_rate_lies_between_the_old_and_the_weeks(week):
    rates, weights, (players, fractions, lost), params = week
    got = close_week(arrays(players, fractions, lost), rates, weights, params)
    for old, new, mean, n in zip(rates, got.rates, got.week_rates, got.boards, strict=True):
        if n == 0:
            assert new == old
        else:
            assert min(old, mean) - 1e-9 <= new <= max(old, mean) + 1e-9
    assert np.allclose(got.weights, params.fade * np.array(weights) + got.boards)
