"""Running totals, completion, final ranking, master points and rank titles."""

from decimal import Decimal

import pytest

from scoring import (
    DEFAULT_TITLE_THRESHOLDS,
    RANK_TITLES,
    PairTotal,
    RankedPair,
    ScoringError,
    completion,
    master_points,
    rank_pairs,
    rank_title,
    running_total,
)

# --- Master points (RULES 7) ---

TEN_AWARDS = [3, 2, 2, 2, 1, 1, 1, 1, 1, 1]


@pytest.mark.parametrize(
    ("completed_pairs", "awards"),
    [
        (0, []),
        (1, [3]),
        (2, [3, 0]),
        (3, [3, 0, 0]),
        (4, [3, 2, 0, 0]),
        (5, [3, 2, 0, 0, 0]),
        (8, [3, 2, 2, 2, 0, 0, 0, 0]),
        (9, [3, 2, 2, 2, 0, 0, 0, 0, 0]),
        (10, [3, 2, 2, 2, 1, 0, 0, 0, 0, 0]),
        (19, [3, 2, 2, 2, 1, 1, 1, 1, 1] + [0] * 10),
        (20, TEN_AWARDS + [0] * 10),
        (21, TEN_AWARDS + [0] * 11),
        (40, TEN_AWARDS + [0] * 30),
    ],
)
def test_master_points(completed_pairs, awards):
    assert master_points(completed_pairs) == awards


@pytest.mark.parametrize("bad", [-1, 2.0, None])
def test_master_points_refusals(bad):
    with pytest.raises(ScoringError):
        master_points(bad)


# --- Running totals and completion ---


def test_running_total_imps_is_the_sum():
    assert running_total("IMP", [3.25, -1.5, 0.0]) == 1.75
    assert running_total("XIMP", [3, -10, 2]) == -5.0
    assert running_total("IMP", []) == 0.0


def test_running_total_mp_is_the_mean_of_completed_boards():
    assert running_total("MP", [60.0, 40.0, 62.5]) == pytest.approx(54.166666666666664)
    assert running_total("MP", [50.0]) == 50.0
    assert running_total("MP", []) == 0.0


def test_running_total_takes_the_decimals_a_decimal_field_holds():
    assert running_total("MP", [Decimal("62.50"), Decimal("37.5")]) == 50.0
    assert running_total("IMP", [Decimal("3.25"), Decimal("-1.00")]) == 2.25


def test_running_total_does_not_depend_on_board_order():
    points = [0.1] * 10 + [1e16, -1e16]
    assert running_total("IMP", points) == running_total("IMP", list(reversed(points))) == 1.0


def test_running_total_refuses_unknown_method():
    with pytest.raises(ScoringError, match="method"):
        running_total("BAM", [1.0])


def test_completion():
    assert completion(7, 10) == 0.7
    assert completion(0, 24) == 0.0
    assert completion(24, 24) == 1.0
    for bad in [(11, 10), (-1, 10), (5, 0), (2.0, 4), (True, 4)]:
        with pytest.raises(ScoringError):
            completion(*bad)


# --- Ranking (RULES 6) ---


def pair(pair_id, total, boards, registration):
    return PairTotal(pair_id=pair_id, total=total, boards_completed=boards,
                     registration_no=registration)  # fmt: skip


def order(standings):
    return [(s.pair_id, s.rank, s.master_points) for s in standings]


def test_ranking_tie_breaks():
    pairs = [
        pair(1, 10.0, 20, 5),
        pair(2, 12.0, 18, 6),  # highest total
        pair(3, 10.0, 22, 7),  # tied on total, more boards
        pair(4, 10.0, 20, 2),  # tied on total and boards, registered earlier than pair 1
        pair(5, -3.0, 24, 1),
    ]
    standings = rank_pairs(pairs, total_boards=24, threshold=0.7)
    assert [s.pair_id for s in standings] == [2, 3, 4, 1, 5]
    assert [s.rank for s in standings] == [1, 2, 3, 4, 5]
    assert [s.master_points for s in standings] == [3, 2, 0, 0, 0]  # F = 5


def test_non_completers_are_listed_unranked_after_the_completers():
    pairs = [
        pair(1, 30.0, 6, 1),  # best total, but 6/10 < 70 %: withdrew early
        pair(2, 5.0, 7, 2),  # exactly 70 %
        pair(3, 8.0, 10, 3),
        pair(4, 2.0, 0, 4),
        pair(5, 2.0, 3, 5),
    ]
    standings = rank_pairs(pairs, total_boards=10, threshold=0.7)
    assert order(standings) == [(3, 1, 3), (2, 2, 0), (1, None, 0), (5, None, 0), (4, None, 0)]
    assert [s.completed for s in standings] == [True, True, False, False, False]
    assert standings[0] == RankedPair(
        pair_id=3, total=8.0, boards_completed=10, completion=1.0, completed=True, rank=1,
        master_points=3,
    )  # fmt: skip
    assert standings[2].completion == 0.6


def test_threshold_compares_without_float_noise():
    assert 0.1 * 7 > 7 / 10  # 0.7000000000000001
    pairs = [pair(1, 1.0, 7, 1), pair(2, 0.0, 6, 2)]
    for threshold in (0.7, 0.1 * 7, Decimal("0.70"), "0.7"):
        standings = rank_pairs(pairs, total_boards=10, threshold=threshold)
        assert [s.completed for s in standings] == [True, False]
    standings = rank_pairs([pair(1, 0.0, 21, 1)], total_boards=30, threshold=0.1 * 7)
    assert standings[0].completed
    # Two thirds: the organiser's 2/3 and the pair's 20/30 are the same fraction.
    standings = rank_pairs([pair(1, 0.0, 20, 1)], total_boards=30, threshold=2 / 3)
    assert standings[0].completed


def test_mp_totals_equal_up_to_float_noise_are_a_tie():
    a = running_total("MP", [1 / 3 * 100, 2 / 3 * 100])
    assert a != 50.0  # 49.99999999999999
    pairs = [pair(1, 50.0, 10, 2), pair(2, a, 12, 3)]
    standings = rank_pairs(pairs, total_boards=12, threshold=0.5)
    assert [s.pair_id for s in standings] == [2, 1]  # tie on total: more boards first


def test_ranking_large_field_master_points():
    pairs = [pair(i, float(100 - i), 10, i) for i in range(1, 41)]
    standings = rank_pairs(pairs, total_boards=10, threshold=0.6)
    assert [s.master_points for s in standings] == TEN_AWARDS + [0] * 30
    assert [s.rank for s in standings] == list(range(1, 41))


def test_ranking_with_nobody_completing():
    standings = rank_pairs([pair(1, 5.0, 1, 1)], total_boards=10, threshold=0.7)
    assert order(standings) == [(1, None, 0)]
    assert rank_pairs([], total_boards=10, threshold=0.7) == []


@pytest.mark.parametrize("threshold", [70, -0.1, 0, 0.0, 1.5, "seventy", None, True])
def test_ranking_refuses_a_threshold_that_is_not_a_fraction(threshold):
    with pytest.raises(ScoringError, match="threshold"):
        rank_pairs([pair(1, 0.0, 5, 1)], total_boards=10, threshold=threshold)


def test_ranking_refuses_a_pair_twice():
    with pytest.raises(ScoringError, match="twice"):
        rank_pairs([pair(1, 0.0, 5, 1), pair(1, 2.0, 5, 2)], total_boards=10, threshold=0.5)


# --- Rank titles ---


def test_rank_titles():
    assert [zh for _code, zh, _en in RANK_TITLES] == [
        "无等级", "有级牌手", "中级牌手", "高级牌手", "巅峰好手", "巅峰高手",
        "巅峰大师", "巅峰明星", "桥界嘉宾", "桥协大师", "荣誉大师", "专业牌手",
    ]  # fmt: skip
    assert RANK_TITLES[0][2] == "Unranked" and RANK_TITLES[-1][2] == "Professional"
    assert len({code for code, _zh, _en in RANK_TITLES}) == 12
    assert len(DEFAULT_TITLE_THRESHOLDS) == 12 and DEFAULT_TITLE_THRESHOLDS[0] == 0
    assert list(DEFAULT_TITLE_THRESHOLDS) == sorted(set(DEFAULT_TITLE_THRESHOLDS))


@pytest.mark.parametrize(
    ("total", "title"),
    [(-1, 0), (0, 0), (0.5, 0), (1, 1), (4.9, 1), (5, 2), (999, 10), (1000, 11), (10**6, 11)],
)
def test_rank_title_with_defaults(total, title):
    assert rank_title(total, DEFAULT_TITLE_THRESHOLDS) == title
    assert rank_title(total) == title


def test_rank_title_with_organiser_thresholds():
    thresholds = list(range(0, 120, 10))
    assert rank_title(0, thresholds) == 0
    assert rank_title(25, thresholds) == 2
    assert rank_title(110, thresholds) == 11


@pytest.mark.parametrize(
    "thresholds",
    [list(range(11)), list(range(13)), [1, *range(2, 13)], [0, 1, 1, *range(3, 12)], ["0"] * 12],
)
def test_rank_title_refuses_bad_thresholds(thresholds):
    with pytest.raises(ScoringError, match="threshold"):
        rank_title(5, thresholds)


def test_a_pair_with_no_completed_board_never_completes():
    standings = rank_pairs(
        [pair(1, 0.0, 0, 1), pair(2, 55.0, 1, 2)], total_boards=100, threshold=0.01
    )
    assert [(s.pair_id, s.completed, s.rank) for s in standings] == [
        (2, True, 1),
        (1, False, None),
    ]
