"""Team standings (SPEC 11): VPs, then head-to-head VPs, then IMP quotient, then
registration; master points to players of at least a third of the boards."""

from decimal import Decimal as D
from fractions import Fraction

import pytest

from teams import (
    TIE_HEAD_TO_HEAD,
    TIE_QUOTIENT,
    TIE_REGISTRATION,
    MatchRecord,
    Played,
    TeamEntry,
    TeamsError,
    earns_master_points,
    imp_quotient,
    players_with_master_points,
    rank_teams,
    round_robin,
    score_match,
)


def entries(n):
    return [TeamEntry(team_id=i, registration_no=i) for i in range(1, n + 1)]


def record(home, away, home_vp, away_vp, home_won=0, home_lost=0):
    return MatchRecord(home, away, D(home_vp), D(away_vp), home_won, home_lost, home_lost, home_won)


def test_by_vps_then_head_to_head():
    matches = [
        record(1, 2, "8.00", "12.00", 10, 15),  # 2 beat 1
        record(1, 3, "16.00", "4.00", 30, 5),
        record(2, 3, "12.00", "8.00", 12, 8),
        record(4, 1, "4.00", "16.00", 5, 30),
    ]
    # totals: 1 = 40, 2 = 24, 3 = 12, 4 = 4 -> plain VP order
    standings = rank_teams(entries(4), matches)
    assert [s.team_id for s in standings] == [1, 2, 3, 4]
    assert [s.rank for s in standings] == [1, 2, 3, 4]
    assert [str(s.vp) for s in standings] == ["40.00", "24.00", "12.00", "4.00"]
    assert all(s.tie_break is None for s in standings)


def test_head_to_head_decides_a_tie_of_two():
    matches = [
        record(1, 2, "8.00", "12.00", 10, 15),  # 2 beat 1
        MatchRecord(1, None, D("12.00")),  # a bye
        record(2, 3, "8.00", "12.00", 20, 25),
        record(3, 1, "12.00", "8.00", 4, 3),
    ]
    standings = rank_teams(entries(3), matches)
    # 1: 8 + 12 + 8 = 28; 2: 12 + 8 = 20; 3: 12 + 12 = 24
    assert [s.team_id for s in standings] == [1, 3, 2]
    tied = rank_teams(
        entries(4),
        [
            record(1, 2, "8.00", "12.00", 3, 9),
            record(3, 4, "20.00", "0.00", 60, 0),
            record(2, 4, "8.00", "12.00", 1, 7),
            record(1, 3, "12.00", "8.00", 7, 1),
        ],
    )
    # 1: 20, 2: 20, 3: 28, 4: 12; 1 and 2 tied, quotients both 10 / 10, and 2 beat 1:
    # head to head puts 2 above 1 although 1 registered first
    assert [s.team_id for s in tied] == [3, 2, 1, 4]
    assert tied[1].quotient == tied[2].quotient == 1
    assert tied[2].tie_break == TIE_HEAD_TO_HEAD and tied[1].head_to_head_vp == D("12.00")


def test_quotient_then_registration():
    matches = [
        MatchRecord(1, None, D("12.00")),
        MatchRecord(2, None, D("12.00")),
        MatchRecord(3, None, D("12.00")),
        record(1, 4, "10.00", "10.00", 20, 20),  # 1: 1.0
        record(2, 5, "10.00", "10.00", 30, 20),  # 2: 1.5
        record(3, 6, "10.00", "10.00", 20, 20),  # 3: 1.0, registered after 1
    ]
    standings = rank_teams(entries(6), matches)
    assert [s.team_id for s in standings[:3]] == [2, 1, 3]
    assert standings[0].quotient == Fraction(3, 2)
    assert [s.tie_break for s in standings[:3]] == [None, TIE_QUOTIENT, TIE_REGISTRATION]


def test_imp_quotient():
    assert imp_quotient(30, 20) == Fraction(3, 2)
    assert imp_quotient(5, 0) is None  # infinite: above every finite quotient
    assert imp_quotient(0, 0) == 1
    with pytest.raises(TeamsError):
        imp_quotient(-1, 3)
    standings = rank_teams(
        entries(2),
        [
            record(1, 2, "10.00", "10.00", 0, 0),
            MatchRecord(1, None, D("5.00")),
            MatchRecord(2, None, D("5.00")),
        ],
    )
    assert [s.team_id for s in standings] == [1, 2]


def test_a_round_robin_scored_and_ranked():
    ids = [1, 2, 3, 4, 5, 6]
    strength = {t: 10 * (7 - t) for t in ids}  # team 1 is the strongest
    records = []
    for rnd in round_robin(ids):
        for f in rnd.fixtures:
            edge = strength[f.home] - strength[f.away]
            boards = [Played(10 * edge, 0)] + [Played(0, 0)] * 7
            m = score_match([boards])
            records.append(
                MatchRecord(
                    f.home,
                    f.away,
                    m.home.vp,
                    m.away.vp,
                    m.home.won,
                    m.home.lost,
                    m.away.won,
                    m.away.lost,
                )
            )
    standings = rank_teams(entries(6), records)
    assert [s.team_id for s in standings] == ids
    assert sum(s.vp for s in standings) == 20 * 15
    assert [s.master_points for s in standings] == [3, 2, 2, 0, 0, 0]


def test_refusals():
    with pytest.raises(TeamsError):
        rank_teams([TeamEntry(1, 1), TeamEntry(1, 2)], [])
    with pytest.raises(TeamsError):
        rank_teams(entries(2), [record(1, 9, "10.00", "10.00")])


def test_master_points_to_players_of_a_third_of_the_boards():
    assert earns_master_points(16, 48) and not earns_master_points(15, 48)
    assert players_with_master_points({7: 48, 8: 16, 9: 15, 10: 0}, 48) == {7, 8}
    with pytest.raises(TeamsError):
        earns_master_points(49, 48)
