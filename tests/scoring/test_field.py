"""IMP scale and field scoring of a board: worked examples, datum, artificial scores."""

import numpy as np
import pytest

from scoring import (
    HALF_AWAY,
    BoardScores,
    ScoringError,
    cross_imps,
    datum_discard_count,
    datum_imps,
    imps,
    matchpoint_percentages,
    score_board,
)

# RULES 5.2, row by row: (lowest difference, highest difference, IMPs).
IMP_TABLE = [
    (0, 10, 0), (20, 40, 1), (50, 80, 2), (90, 120, 3), (130, 160, 4), (170, 210, 5),
    (220, 260, 6), (270, 310, 7), (320, 360, 8), (370, 420, 9), (430, 490, 10),
    (500, 590, 11), (600, 740, 12), (750, 890, 13), (900, 1090, 14), (1100, 1290, 15),
    (1300, 1490, 16), (1500, 1740, 17), (1750, 1990, 18), (2000, 2240, 19),
    (2250, 2490, 20), (2500, 2990, 21), (3000, 3490, 22), (3500, 3990, 23),
    (4000, 7600, 24),
]  # fmt: skip


@pytest.mark.parametrize(("low", "high", "won"), IMP_TABLE)
def test_imp_scale_every_band_edge(low, high, won):
    for difference in range(low, high + 10, 10):
        assert imps(difference) == won
        assert imps(-difference) == -won


def test_imp_scale_off_the_tens():
    # Only whole tens appear in play; anything else falls in the band it has reached.
    assert [imps(d) for d in (5, 15, 19, 21, 45, 49, 3999, 4001, 10**9)] == [
        0, 0, 0, 1, 1, 1, 23, 24, 24,
    ]  # fmt: skip
    assert [imps(d) for d in (-15, -19, -21, -45, -4001)] == [0, 0, -1, -1, -24]
    assert imps(np.int64(430)) == 10


@pytest.mark.parametrize("bad", [1.5, 20.0, "20", None, True])
def test_imp_refuses_non_integers(bad):
    with pytest.raises(ScoringError):
        imps(bad)


# A small board worked by hand: NS scores with a tie.
BOARD = [420, 420, 450, -50, 170]


def test_matchpoints_by_hand():
    # Sorted -50 170 420 420 450; top 8. 420 beats two and ties one: 2·2 + 1 = 5.
    assert matchpoint_percentages(BOARD) == [62.5, 62.5, 100.0, 0.0, 25.0]
    board = score_board("MP", BOARD)
    assert board.ns_points == [62.5, 62.5, 100.0, 0.0, 25.0]
    assert board.ew_points == [37.5, 37.5, 0.0, 100.0, 75.0]
    assert board.datum is None


def test_matchpoints_all_equal_and_single():
    assert matchpoint_percentages([-100, -100, -100]) == [50.0, 50.0, 50.0]
    assert matchpoint_percentages([620]) == [50.0]
    assert matchpoint_percentages([]) == []
    assert matchpoint_percentages([0, 50]) == [0.0, 100.0]


def test_cross_imps_by_hand():
    # 420: 0 (420), -1 (450), +10 (-50: 470), +6 (170: 250)    = 15 / 4
    # 450: +1, +1, +11 (500), +7 (280)                          = 20 / 4
    # -50: -10, -10, -11, -6 (220)                              = -37 / 4
    # 170: -6, -6, -7, +6                                       = -13 / 4
    assert cross_imps(BOARD) == [3.75, 3.75, 5.0, -9.25, -3.25]
    board = score_board("IMP", BOARD)
    assert board.ns_points == [3.75, 3.75, 5.0, -9.25, -3.25]
    assert board.ew_points == [-3.75, -3.75, -5.0, 9.25, 3.25]
    assert cross_imps([100]) == [0.0]
    assert cross_imps([]) == []


def test_datum_imps_by_hand():
    # n = 5, k = 1: drop -50 and 450; mean of 170 420 420 = 336.67 → datum 340.
    # 420 − 340 = 80 → 2 · 450 − 340 = 110 → 3 · −390 → −9 · −170 → −5
    assert datum_imps(BOARD) == (340, [2, 2, 3, -9, -5])
    board = score_board("XIMP", BOARD)
    assert board.datum == 340
    assert board.ns_points == [2.0, 2.0, 3.0, -9.0, -5.0]
    assert board.ew_points == [-2.0, -2.0, -3.0, 9.0, 5.0]


@pytest.mark.parametrize(
    ("scores", "datum"),
    [
        ([420, 430], 420),  # 425: exact half, to the even ten
        ([430, 440], 440),  # 435
        ([-420, -430], -420),  # -425
        ([-430, -440], -440),  # -435
        ([0, 10], 0),  # 5
        ([10, 20], 20),  # 15
        ([-10, 0], 0),  # -5
        ([419, 430], 420),  # 424.5: below the half
        ([420, 431], 430),  # 425.5: above the half
        ([-420, -431], -430),  # -425.5
        ([100, 1275, 1275, 1276, 1275, 9000], 1280),  # 1275.25 after dropping 100 and 9000
        ([3, 3, 4], 0),  # k = 1 keeps 3
        ([620], 620),
    ],
)
def test_datum_rounding(scores, datum):
    assert datum_imps(scores)[0] == datum


@pytest.mark.parametrize(
    ("scores", "datum"),
    [
        # Compscore3's own boards (../shared/usebio/butler_howell.xml, 4 tables).
        ([50, -460, -490, -430], -450),  # -445
        ([50, -90, -120, -150], -110),  # -105
        ([130, 120, 150, -140], 130),  # 125
        ([-170, -130, -200, -200], -190),  # -185
        ([419, 430], 420),  # 424.5: below the half either way
    ],
)
def test_a_datum_rounded_half_away_from_zero(scores, datum):
    assert datum_imps(scores, datum_rounding=HALF_AWAY)[0] == datum


def test_an_unknown_datum_rounding_is_refused():
    with pytest.raises(ScoringError):
        datum_imps([10, 20], datum_rounding="up")
    with pytest.raises(ScoringError):
        score_board("MP", [10, 20], datum_rounding="nearest")


def test_datum_on_a_bigger_board_trims_then_rounds_half_to_even():
    # n = 21, k = 2: the 17 kept scores average exactly 425 → 420.
    kept = [400] * 8 + [450] * 8 + [425]
    assert sum(kept) == 17 * 425
    assert datum_imps([-7600, -7600, *kept, 7600, 7600])[0] == 420


@pytest.mark.parametrize(
    ("n", "k"),
    [(0, 0), (1, 0), (2, 0), (3, 1), (9, 1), (10, 1), (19, 1), (20, 2), (29, 2), (30, 3),
     (35, 3), (40, 4), (5000, 500)],
)  # fmt: skip
def test_datum_discard_count(n, k):
    assert datum_discard_count(n) == k


@pytest.mark.parametrize("n", [2, 3, 10, 19, 20, 35])
def test_datum_discards_k_from_each_end(n):
    # k outliers at each end of a field of 100s: the datum is 100 only if exactly k
    # are discarded from each end.
    k = datum_discard_count(n)
    scores = [-7600] * k + [100] * (n - 2 * k) + [7600] * k
    assert datum_imps(scores)[0] == 100
    if n > 2:
        one_less = [-7600] * (k + 1) + [100] * (n - 2 * k - 2) + [7600] * (k - 1) + [7590]
        assert datum_imps(one_less)[0] != 100


def test_datum_of_empty_board_is_refused():
    with pytest.raises(ScoringError, match="no datum"):
        datum_imps([])


# --- Artificial adjusted scores (RULES 5.4) ---


def test_artificial_scores_mp_do_not_move_the_others():
    board = score_board("MP", [420, ("A+", "A-"), 450, -50, ("A", "A")])
    assert board.ns_points == [50.0, 60.0, 100.0, 0.0, 50.0]
    assert board.ew_points == [50.0, 40.0, 0.0, 100.0, 50.0]
    assert score_board("MP", [("A-", "A-")]).ns_points == [40.0]
    assert score_board("MP", [("A-", "A-")]).ew_points == [40.0]


def test_artificial_scores_imp_methods():
    board = score_board("IMP", [420, ("A-", "A+"), 450, -50])
    # Played among themselves: 420: −1 + 10 = 9/2; 450: 1 + 11 = 12/2; −50: −21/2.
    assert board.ns_points == [4.5, -3.0, 6.0, -10.5]
    assert board.ew_points == [-4.5, 3.0, -6.0, 10.5]
    board = score_board("XIMP", [420, ("A", "A-"), 450, -50])
    assert board.datum == 420  # n = 3 played, k = 1: the median
    assert board.ns_points == [0.0, 0.0, 1.0, -10.0]
    assert board.ew_points == [0.0, -3.0, -1.0, 10.0]


def test_board_with_only_artificial_scores():
    board = score_board("XIMP", [("A+", "A+"), ("A-", "A")])
    assert board == BoardScores([3.0, -3.0], [3.0, 0.0], None)
    assert score_board("IMP", []) == BoardScores([], [], None)
    assert score_board("MP", [], neuberg=True) == BoardScores([], [], None)


def test_neuberg_by_hand():
    # Played 420 450 -50 (A = 3) among E = 5 entries; MP 2, 4, 0 on top 4.
    # MP' = (MP + 1)·5/3 − 1 → 4, 22/3, 2/3 on top 2(5 − 1) = 8.
    board = score_board("MP", [420, ("A+", "A-"), 450, -50, ("A", "A")], neuberg=True)
    high, low = 22 / 3 / 8 * 100, 2 / 3 / 8 * 100  # 91.67 %, 8.33 %
    assert board.ns_points == pytest.approx([50.0, 60.0, high, low, 50.0])
    assert board.ew_points == pytest.approx([50.0, 40.0, 100 - high, 100 - low, 50.0])
    # Without Neuberg the same board gives the played results 50, 100 and 0 %.
    assert score_board("MP", [420, ("A+", "A-"), 450, -50]).ns_points[2:] == [100.0, 0.0]


def test_neuberg_by_hand_with_ties():
    # Played 100 100 200 300 (A = 4), E = 6. MP 1, 1, 4, 6 → (MP + 1)·6/4 − 1 = 2, 2,
    # 6.5, 9.5 on top 10.
    board = score_board("MP", [100, 100, ("A", "A"), 200, 300, ("A-", "A-")], neuberg=True)
    assert board.ns_points == [20.0, 20.0, 50.0, 65.0, 95.0, 40.0]
    assert board.ew_points == [80.0, 80.0, 50.0, 35.0, 5.0, 40.0]
    # The played results still average 50 %.
    assert sum(board.ns_points[i] for i in (0, 1, 3, 4)) == 200.0


def test_neuberg_changes_nothing_without_artificial_scores():
    assert score_board("MP", BOARD, neuberg=True) == score_board("MP", BOARD)
    one = score_board("MP", [420, ("A", "A")], neuberg=True)
    assert one.ns_points == [50.0, 50.0]


def test_neuberg_has_no_effect_on_imp_methods():
    entries = [420, ("A+", "A-"), 450, -50]
    for method in ("IMP", "XIMP"):
        assert score_board(method, entries, neuberg=True) == score_board(method, entries)


def test_convenience_functions_are_score_board():
    assert score_board("MP", BOARD).ns_points == matchpoint_percentages(BOARD)
    assert score_board("IMP", BOARD).ns_points == cross_imps(BOARD)
    datum, points = datum_imps(BOARD)
    assert score_board("XIMP", BOARD).ns_points == [float(p) for p in points]


def test_results_are_python_numbers():
    board = score_board("XIMP", np.array(BOARD))
    assert all(type(p) is float for p in board.ns_points + board.ew_points)
    assert type(board.datum) is int
    assert all(type(p) is float for p in matchpoint_percentages(BOARD) + cross_imps(BOARD))
    datum, points = datum_imps(BOARD)
    assert type(datum) is int and all(type(p) is int for p in points)


def test_no_negative_zero():
    board = score_board("IMP", [100, 100])
    assert [str(p) for p in board.ns_points + board.ew_points] == ["0.0"] * 4


@pytest.mark.parametrize(
    ("method", "entries", "message"),
    [
        ("VP", [420], "method must be MP, IMP or XIMP"),
        (None, [420], "method must be MP, IMP or XIMP"),
        ("MP", [420, ("A+",)], "pair"),
        ("MP", [420, ("A++", "A")], "must be A\\+, A or A-"),
        ("MP", [420, ("60%", "40%")], "must be A\\+, A or A-"),
        ("MP", [420, 420.5], "whole numbers"),
        ("MP", [420, "420"], "whole numbers"),
        ("IMP", [420, None], "whole numbers"),
        ("XIMP", [10**10], "not a bridge score"),
        ("XIMP", [10**30], "whole numbers"),
    ],
)
def test_score_board_refusals(method, entries, message):
    with pytest.raises(ScoringError, match=message):
        score_board(method, entries)


def test_method_and_codes_are_case_insensitive():
    assert score_board("ximp", [420]).datum == 420
    assert score_board("MP", [("a+", "a−")]).ns_points == [60.0]
    assert score_board("MP", [("a+", "a−")]).ew_points == [40.0]
