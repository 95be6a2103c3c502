"""SPEC 13's Rate, step by step, each figure worked out by hand in the test.

The table of most examples: North 60, East 50, South 40, West 50, so ΣR = 200, NS's
Rates sum to 100 and the Rates expect NS to take half the board (X = 100 / 200).
"""

import json
import math
from decimal import Decimal

import numpy as np
import pytest

from rating import (
    DEFAULT_PARAMETERS,
    RatingError,
    RatingParameters,
    WeekBoards,
    close_week,
    imps_to_fraction,
    listed,
    new_players,
    percentage_to_fraction,
    pseudo_ratings,
    shown_rate,
)

TABLE = [[0, 1, 2, 3]]
RATES = [60.0, 50.0, 40.0, 50.0]


def test_spec_defaults():
    assert (
        RatingParameters(
            fade=0.9, prior_weight=30, start_rate=50, imp_multiplier=1 / 15, listed_weight=50
        )
        == DEFAULT_PARAMETERS
    )


# --- a board's X ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "imps, x",
    [
        (0, 0.5),  # a flat board: half each
        (3, 0.7),  # 0.5 + 3/15
        (-3, 0.3),
        (1, 0.5 + 1 / 15),  # 20/3 % per IMP
        (7.5, 1.0),  # the whole board
        (9, 1.0),  # clamped
        (-12, 0.0),  # clamped
    ],
)
def test_x_from_imps(imps, x):
    assert imps_to_fraction([imps])[0] == pytest.approx(x, abs=1e-15)


def test_x_from_matchpoints_and_ew_gets_the_rest():
    x = percentage_to_fraction([62.5, 0, 100, 50])
    assert list(x) == [0.625, 0.0, 1.0, 0.5]
    # EW's fraction is 1 − X: their pseudo-ratings use 0.375 on the first board.
    boards = WeekBoards.from_percentages(TABLE, [62.5])
    north, east, south, west = pseudo_ratings(boards, RATES)[0]
    assert east == pytest.approx(0.375 * 200 * 50 / 100)


# --- the four pseudo-ratings ------------------------------------------------------------


def test_four_pseudo_ratings_from_imps():
    # NS +3 IMPs: X = 0.7.  R'_N = 0.7 × 200 × 60/100 = 84, R'_S = 0.7 × 200 × 40/100 = 56,
    # R'_E = R'_W = 0.3 × 200 × 50/100 = 30.
    boards = WeekBoards.from_imps(TABLE, [3])
    assert pseudo_ratings(boards, RATES)[0] == pytest.approx([84, 30, 56, 30])


def test_four_pseudo_ratings_from_matchpoints():
    # 62.5 %: R'_N = 0.625 × 200 × 0.6 = 75, R'_S = 50, R'_E = R'_W = 0.375 × 100 = 37.5.
    boards = WeekBoards.from_percentages(TABLE, [62.5])
    assert pseudo_ratings(boards, RATES)[0] == pytest.approx([75, 37.5, 50, 37.5])


def test_a_result_as_expected_gives_each_player_their_own_rate():
    # X = 100/200 = 0.5 (0 IMPs): R'_N = 0.5 × 200 × 0.6 = 60 = R_N, and so on.
    boards = WeekBoards.from_imps(TABLE, [0])
    assert pseudo_ratings(boards, RATES)[0] == pytest.approx(RATES)


def test_the_rating_points_at_stake_are_shared_out():
    # Without a disconnection the four pseudo-ratings add up to ΣR: 84 + 30 + 56 + 30.
    boards = WeekBoards.from_imps(TABLE, [3])
    assert pseudo_ratings(boards, RATES)[0].sum() == pytest.approx(200)


# --- a disconnection ----------------------------------------------------------------


def test_a_disconnected_player_gets_0_on_the_board_and_the_others_keep_theirs():
    # South disconnects on the +3 board: 0 for South; N 84, E 30, W 30 as before (ΣR still
    # counts South's 40).
    boards = WeekBoards.from_imps(TABLE, [3], disconnected=[[False, False, True, False]])
    assert pseudo_ratings(boards, RATES)[0] == pytest.approx([84, 30, 0, 30])


def test_a_disconnected_board_counts_in_the_week_as_a_0():
    # South: boards of 56 (the +3 board) and 0 (disconnected on a second +3 board): W = 28
    # over n = 2. With C = 100: R = (90 × 40 + 2 × 28) / 92 = 3656 / 92.
    boards = WeekBoards.from_imps(
        TABLE * 2, [3, 3], disconnected=[[False] * 4, [False, False, True, False]]
    )
    week = close_week(boards, RATES, [100.0] * 4)
    assert week.boards[2] == 2
    assert week.week_rates[2] == pytest.approx(28)
    assert week.rates[2] == pytest.approx(3656 / 92)


# --- the weekly fold with λ and the prior --------------------------------------------------


def test_the_weekly_fold():
    # Player 0 (Rate 60, C = 100) plays four boards with player 1 (40) against 2 and 3
    # (50 each): ΣR = 200, player 0's share 60/100, so R' = X × 120.
    #   +3 IMPs → X = 0.7 → 84;   0 → 0.5 → 60;   −2.5 → 1/3 → 40;   +0.75 → 0.55 → 66
    # W = (84 + 60 + 40 + 66) / 4 = 62.5; n = 4; λC = 90;
    # R = (90 × 60 + 4 × 62.5) / (90 + 4) = 5650 / 94 = 60.106…; C = 94.
    boards = WeekBoards.from_imps(TABLE * 4, [3, 0, -2.5, 0.75])
    week = close_week(boards, [60, 50, 40, 50], [100, 100, 100, 100])
    assert week.week_rates[0] == pytest.approx(62.5)
    assert week.boards[0] == 4
    assert week.rates[0] == pytest.approx(5650 / 94)
    assert week.weights[0] == pytest.approx(94)
    assert shown_rate(week.rates[0]) == Decimal("60.1")


def test_a_new_players_prior_holds_a_first_week():
    # Four new players (R = 50, C = 30), 20 boards, NS +2.25 IMPs each: X = 0.65, so
    # R' = 0.65 × 200 × 1/2 = 65 for N and S, 35 for E and W.
    # N: R = (0.9 × 30 × 50 + 20 × 65) / (27 + 20) = 2650 / 47 = 56.38 (not 65); C = 47.
    # E: R = (1350 + 20 × 35) / 47 = 2050 / 47 = 43.62.
    rates, weights = new_players(4)
    assert list(rates) == [50.0] * 4 and list(weights) == [30.0] * 4
    week = close_week(WeekBoards.from_imps(TABLE * 20, [2.25] * 20), rates, weights)
    assert week.rates == pytest.approx([2650 / 47, 2050 / 47, 2650 / 47, 2050 / 47])
    assert week.weights == pytest.approx([47] * 4)
    assert [str(shown_rate(r)) for r in week.rates] == ["56.4", "43.6", "56.4", "43.6"]


def test_a_player_without_a_board_keeps_the_rate_and_the_weight_fades():
    # Player 4 (Rate 70, C = 100) does not play: R stays 70, C = 0.9 × 100 = 90, no W.
    boards = WeekBoards.from_imps(TABLE, [3])
    week = close_week(boards, [*RATES, 70], [100] * 5)
    assert week.rates[4] == 70 and week.weights[4] == pytest.approx(90)
    assert week.boards[4] == 0 and math.isnan(week.week_rates[4])


def test_two_weeks_fade_the_first():
    # Four new players; week 1: 10 boards at NS +3 (X = 0.7, R' = 0.7 × 200 / 2 = 70 for
    # N and S, 30 for E and W): R_N = (27 × 50 + 10 × 70) / 37 = 2050/37, C = 37;
    # R_E = (1350 + 300) / 37 = 1650/37.
    # Week 2: 10 flat boards (X = 0.5). ΣR = 2 × (2050 + 1650)/37 = 200 and NS's Rates are
    # equal, so R'_N = 0.5 × 200 / 2 = 50, below the 2050/37 NS's Rates now expect:
    # R_N = (0.9 × 37 × 2050/37 + 10 × 50) / (0.9 × 37 + 10) = 2345 / 43.3; C = 43.3.
    rates, weights = new_players(4)
    week1 = close_week(WeekBoards.from_imps(TABLE * 10, [3] * 10), rates, weights)
    assert week1.rates == pytest.approx([2050 / 37, 1650 / 37, 2050 / 37, 1650 / 37])
    week2 = close_week(WeekBoards.from_imps(TABLE * 10, [0] * 10), week1.rates, week1.weights)
    assert week2.week_rates[0] == pytest.approx(50)
    assert week2.rates[0] == pytest.approx(2345 / 43.3)
    assert week2.weights[0] == pytest.approx(43.3)


# --- the edges SPEC leaves open ------------------------------------------------------


def test_partners_whose_rates_sum_to_0_share_their_sides_fraction_equally():
    # N = S = 0, E = W = 50: ΣR = 100; X = 0.6 → N and S 0.6 × 100 / 2 = 30 each;
    # E and W 0.4 × 100 × 50/100 = 20 each.
    boards = WeekBoards(TABLE, [0.6])
    assert pseudo_ratings(boards, [0, 50, 0, 50])[0] == pytest.approx([30, 20, 30, 20])
    # All four at 0: nothing at stake, everyone earns 0.
    assert list(pseudo_ratings(boards, [0, 0, 0, 0])[0]) == [0, 0, 0, 0]


def test_a_rate_of_0_stays_0_while_the_partners_is_not():
    boards = WeekBoards(TABLE * 3, [1.0, 1.0, 1.0])  # NS win everything
    week = close_week(boards, [0, 50, 40, 50], [10] * 4)
    assert week.rates[0] == 0


def test_a_positive_rate_never_reaches_0():
    # Losing every board and disconnecting on all of them: W = 0, yet the fold keeps
    # λC/(λC + n) of the Rate: (27 × 50) / (27 + 100).
    boards = WeekBoards(TABLE * 100, [0.0] * 100, disconnected=[[True, False, False, False]] * 100)
    week = close_week(boards, *new_players(4))
    assert week.rates[0] == pytest.approx(1350 / 127) and week.rates[0] > 0


def test_who_is_listed():
    # At least 50 boards carried (C, the prior's faded share included): a newcomer with
    # 23 boards is on (27 + 23), with 22 not (49).
    assert list(listed([49.0, 50.0, 0.9 * 30 + 23, 0.9 * 30 + 22, 200.0])) == [
        False,
        True,
        True,
        False,
        True,
    ]
    assert list(listed([10.0], RatingParameters(listed_weight=0))) == [True]


@pytest.mark.parametrize(
    "rate, shown", [(57.25, "57.3"), (60.10638, "60.1"), (49.95, "50.0"), (0.04, "0.0")]
)
def test_shown_to_one_decimal(rate, shown):
    assert str(shown_rate(rate)) == shown


def test_the_parameters_round_trip_through_json():
    params = RatingParameters(fade=0.85, prior_weight=25, imp_multiplier=1 / 12)
    again = RatingParameters.from_dict(json.loads(json.dumps(params.as_dict())))
    assert again == params
    assert RatingParameters.from_dict({}) == DEFAULT_PARAMETERS


def test_other_parameters_are_used():
    # λ = 0.5, C0 = 10: a new player's 10 boards at R' = 70 give (5 × 50 + 700) / 15.
    params = RatingParameters(fade=0.5, prior_weight=10, imp_multiplier=1 / 10)
    boards = WeekBoards.from_imps(TABLE * 10, [2] * 10, params=params)  # X = 0.7
    week = close_week(boards, *new_players(4, params), params=params)
    assert week.rates[0] == pytest.approx(950 / 15)
    assert week.parameters is params


# --- refusals -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "make, words",
    [
        (lambda: RatingParameters(fade=0), "fade"),
        (lambda: RatingParameters(fade=1.1), "fade"),
        (lambda: RatingParameters(prior_weight=-1), "prior weight"),
        (lambda: RatingParameters(start_rate=0), "starting Rate"),
        (lambda: RatingParameters(imp_multiplier=float("nan")), "finite"),
        (lambda: RatingParameters(fade="0.9"), "must be a number"),  # type: ignore[arg-type]
        (lambda: RatingParameters.from_dict({"lambda": 0.9}), "unknown rating settings: lambda"),
        (lambda: WeekBoards([[0, 1, 0, 3]], [0.5]), "seats player 0 twice"),
        (lambda: WeekBoards([[0, 1, 2]], [0.5]), "four players"),
        (lambda: WeekBoards([[0.0, 1, 2, 3]], [0.5]), "whole-number"),
        (lambda: WeekBoards(TABLE, [1.5]), "from 0 to 1"),
        (lambda: WeekBoards(TABLE, [0.5, 0.5]), "1 boards but 2 fractions"),
        (lambda: WeekBoards(TABLE, [0.5], [[True, False]]), "one flag per seat"),
        (lambda: WeekBoards.from_imps(TABLE, [float("nan")]), "finite"),
        (lambda: WeekBoards.from_percentages(TABLE, [101]), "from 0 to 100"),
        (lambda: close_week(WeekBoards([[0, 1, 2, 9]], [0.5]), RATES, [30] * 4), "outside"),
        (lambda: close_week(WeekBoards([[0, 1, 2, -1]], [0.5]), RATES, [30] * 4), "outside"),
        (lambda: close_week(WeekBoards(TABLE, [0.5]), [50, -1, 50, 50], [30] * 4), "negative"),
        (lambda: close_week(WeekBoards(TABLE, [0.5]), RATES, [30] * 3), "4 Rates but 3"),
        (lambda: close_week(WeekBoards(TABLE, [0.5]), RATES, [30, 30, 30, -1]), "weight"),
        (lambda: new_players(-1), "new players"),
    ],
)
def test_refusals_say_why(make, words):
    with pytest.raises(RatingError, match=words):
        make()


def test_an_empty_week_folds_everyone_by_lambda():
    week = close_week(WeekBoards(np.zeros((0, 4), dtype=int), []), [50, 60], [30, 100])
    assert list(week.rates) == [50, 60] and week.weights == pytest.approx([27, 90])
