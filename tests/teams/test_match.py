"""A team match's score (SPEC 11): both rooms' NS scores to IMPs, the policies, adjusted
scores, carry-over, several stanzas converted once, IMPs only."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import imps
from teams import (
    Adjusted,
    CutOff,
    Played,
    TeamsError,
    board_imps,
    score_board,
    score_match,
    victory_points,
)
from tests import examples

BOTH, HOME_LATE, AWAY_LATE = frozenset({"home", "away"}), frozenset({"home"}), frozenset({"away"})


def test_board_imps_from_both_rooms():
    # open room: home NS make 4♠ V (620); closed room: home EW beat 4♠ by one (NS -100)
    assert board_imps(620, -100) == 12
    # the same two results the other way round: the away team gains
    assert board_imps(-100, 620) == -12
    assert board_imps(400, 400) == 0
    assert board_imps(420, 400) == 1  # 20 -> 1 IMP
    with pytest.raises(TeamsError, match="multiple of 10"):
        board_imps(425, 0)
    with pytest.raises(TeamsError, match="whole number"):
        board_imps(420.0, 0)


def test_adjusted_scores_are_plus_or_minus_three():
    assert score_board(Adjusted("A+", "A-")) == score_board(Adjusted("a+", "A−"))
    assert (score_board(Adjusted("A+", "A-")).home, score_board(Adjusted("A+", "A-")).away) == (
        3,
        -3,
    )
    assert (score_board(Adjusted("A", "A")).home, score_board(Adjusted("A", "A")).away) == (0, 0)
    both_at_fault = score_board(Adjusted("A-", "A-"))
    assert (both_at_fault.home, both_at_fault.away) == (-3, -3)
    with pytest.raises(TeamsError):
        score_board(Adjusted("A++", "A"))


@pytest.mark.parametrize(
    "policy, late, expected",
    [
        ("not_played", HOME_LATE, (0, 0, False)),
        ("avg", HOME_LATE, (0, 0, True)),
        ("avg_minus", HOME_LATE, (-3, 0, True)),
        ("avg_minus", AWAY_LATE, (0, -3, True)),
        ("avg_minus", BOTH, (-3, -3, True)),
    ],
)
def test_a_board_cut_off_at_the_bell_scores_by_the_policy(policy, late, expected):
    board = score_board(CutOff(late), policy=policy)
    assert (board.home, board.away, board.scored) == expected


def test_bad_policies_and_cut_offs_are_refused():
    with pytest.raises(TeamsError):
        score_board(CutOff(HOME_LATE), policy="average")
    with pytest.raises(TeamsError):
        score_board(CutOff(frozenset()), policy="avg")
    with pytest.raises(TeamsError):
        score_board(CutOff(frozenset({"north"})), policy="avg")


def eight_boards():
    return [
        Played(620, -100),  # +12
        Played(-50, 110),  # -4 (160)
        Played(400, 430),  # -1
        Played(1430, 680),  # +13 (750)
        Played(0, 0),  # 0
        Played(-200, -500),  # +7 (300)
        Played(110, 140),  # -1
        Played(-620, -620),  # 0
    ]


def test_an_eight_board_match():
    match = score_match([eight_boards()])
    assert [b.home for b in match.boards] == [12, -4, -1, 13, 0, 7, -1, 0]
    assert match.running == (12, 8, 7, 20, 20, 27, 26, 26)
    assert (match.home.net, match.home.won, match.home.lost) == (26, 32, 6)
    assert (match.away.net, match.away.won, match.away.lost) == (-26, 6, 32)
    assert match.scale_boards == 8
    assert match.home.vp == victory_points(26, 8) and match.away.vp == victory_points(-26, 8)
    assert str(match.home.vp) == "17.69" and str(match.away.vp) == "2.31"


def test_several_stanzas_are_converted_once_on_all_their_boards():
    # two 8-board stanzas each won by 10: 20 over 16 boards is 15.00 (SPEC 11), not
    # 13.78 + 13.78 over two matches
    stanza = [Played(420, -50), *[Played(0, 0)] * 7]  # 470 -> 10 IMPs, then 7 flat boards
    match = score_match([stanza, stanza])
    assert match.stanza_margins == (10, 10)
    assert match.scale_boards == 16
    assert str(match.home.vp) == "15.00" and str(match.away.vp) == "5.00"


def test_carry_over_counts_in_the_total():
    stanza = [Played(170, 0), *[Played(0, 0)] * 7]  # 5 IMPs
    match = score_match([stanza], carry_over=5)
    assert match.home.net == 10 and match.running[0] == 10
    assert str(match.home.vp) == "13.78"
    # carried IMPs were won at other tables: not in this match's won / lost
    assert (match.home.won, match.home.lost) == (5, 0)
    against = score_match([stanza], carry_over=-5)
    assert (against.home.net, str(against.home.vp)) == (0, "10.00")


def test_imp_only_has_no_victory_points():
    match = score_match([eight_boards()], imp_only=True)
    assert match.home.vp is None and match.away.vp is None and match.scale_boards is None
    assert match.home.net == 26


def test_an_unplayed_board_still_belongs_to_the_match():
    boards = [*eight_boards()[:7], CutOff(HOME_LATE)]
    match = score_match([boards], policy="not_played")
    assert match.scale_boards == 8 and not match.boards[-1].scored
    assert match.home.net == 26
    minus = score_match([boards], policy="avg_minus")
    assert (minus.home.net, minus.away.net) == (23, -26)  # -3 to the home team only
    assert minus.home.vp == victory_points(23, 8) and minus.away.vp == victory_points(-26, 8)


def test_both_teams_at_fault_are_scored_each_on_its_own_total():
    match = score_match([[Adjusted("A-", "A-"), *[Played(0, 0)] * 7]])
    assert (match.home.net, match.away.net) == (-3, -3)
    assert match.home.vp == match.away.vp == victory_points(-3, 8)
    assert match.home.vp + match.away.vp < 20


def test_bad_matches_are_refused():
    with pytest.raises(TeamsError):
        score_match([])
    with pytest.raises(TeamsError):
        score_match([[]])
    with pytest.raises(TeamsError):
        score_match([eight_boards()], boards=65)
    with pytest.raises(TeamsError):
        score_match([eight_boards()], carry_over=1.5)


scores = st.integers(-400, 400).map(lambda s: 10 * s)


@settings(max_examples=examples(100), deadline=None)
@given(
    stanzas=st.lists(
        st.lists(st.tuples(scores, scores), min_size=1, max_size=12), min_size=1, max_size=2
    ),
    carry=st.integers(-30, 30),
)
def test_a_played_match_is_zero_sum_and_shares_twenty(stanzas, carry):
    match = score_match([[Played(o, c) for o, c in s] for s in stanzas], carry_over=carry)
    boards = [imps(o - c) for s in stanzas for o, c in s]
    assert match.home.net == carry + sum(boards) == -match.away.net
    assert match.home.won == match.away.lost == sum(b for b in boards if b > 0)
    assert match.home.vp + match.away.vp == 20
    assert match.home.vp == victory_points(match.home.net, len(boards))
