"""Round robins (Berger tables) and Swiss teams (the pairs events' engine on VP totals).

The Swiss checks recompute what the answer must be by brute force over every seating of a
small field (every perfect matching, every eligible bye), not with the engine's code."""

import random
from collections import Counter
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from teams import Played, TeamsError, TeamState, first_round, round_robin, score_match, swiss_round
from tests import examples


@pytest.mark.parametrize("n", range(2, 21))
def test_round_robin_every_team_meets_every_other_once(n):
    ids = [100 + 7 * i for i in range(n)]
    rounds = round_robin(ids)
    assert len(rounds) == (n - 1 if n % 2 == 0 else n)
    met = Counter()
    home, away = Counter(), Counter()
    for r in rounds:
        seated = [t for f in r.fixtures for t in (f.home, f.away)]
        assert len(seated) == len(set(seated))  # nobody plays twice in a round
        assert sorted(seated + ([r.bye] if r.bye is not None else [])) == sorted(ids)
        assert [f.table for f in r.fixtures] == list(range(1, len(r.fixtures) + 1))
        for f in r.fixtures:
            met[frozenset((f.home, f.away))] += 1
            home[f.home] += 1
            away[f.away] += 1
    assert len(met) == n * (n - 1) // 2 and set(met.values()) == {1}
    assert all(abs(home[t] - away[t]) <= 1 for t in ids)
    if n % 2:
        assert sorted(r.bye for r in rounds) == sorted(ids)  # one bye each
        assert all(home[t] == away[t] for t in ids)


def test_round_robin_refusals():
    with pytest.raises(TeamsError):
        round_robin([1])
    with pytest.raises(TeamsError):
        round_robin([1, 2, 2])


def test_swiss_round_one_is_registration_order():
    teams = [TeamState(team_id=10 + r, registration_no=r) for r in (3, 1, 2, 5, 4)]
    first = first_round(teams)
    assert [(f.table, f.home, f.away) for f in first.fixtures] == [(1, 11, 12), (2, 13, 14)]
    assert first.bye == 15


# --- Swiss teams against brute force ----------------------------------------------------


def matchings(people):
    if not people:
        yield []
        return
    first, rest = people[0], people[1:]
    for i, other in enumerate(rest):
        for tail in matchings(rest[:i] + rest[i + 1 :]):
            yield [(first, other), *tail]


def rematch_free_exists(teams):
    active = [t for t in teams if not t.withdrawn]
    fewest = min(t.byes for t in active)
    byes = [t for t in active if t.byes == fewest] if len(active) % 2 else [None]
    met = {t.team_id: t.opponents for t in active}
    for bye in byes:
        field = [t.team_id for t in active if t is not bye]
        for m in matchings(field):
            if not any(b in met[a] or a in met[b] for a, b in m):
                return True
    return False


def play(teams, rnd, rng):
    """Play a Swiss round with random 8-board results scored by `score_match`."""
    by_id = {t.team_id: t for t in teams}
    new = dict(by_id)
    for f in rnd.fixtures:
        boards = [Played(10 * rng.randint(-50, 50), 10 * rng.randint(-50, 50)) for _ in range(8)]
        match = score_match([boards])
        for me, other, side, at_home in (
            (f.home, f.away, match.home, 1),
            (f.away, f.home, match.away, 0),
        ):
            t = by_id[me]
            new[me] = TeamState(
                me,
                t.registration_no,
                t.vp + side.vp,
                t.boards_played + 8,
                t.opponents | {other},
                t.byes,
                t.home + at_home,
                t.away + 1 - at_home,
            )
    if rnd.bye is not None:
        t = by_id[rnd.bye]
        new[rnd.bye] = TeamState(
            t.team_id,
            t.registration_no,
            t.vp + Decimal(12),
            t.boards_played + 8,
            t.opponents,
            t.byes + 1,
            t.home,
            t.away,
        )
    return [new[t.team_id] for t in teams]


@settings(max_examples=examples(60), deadline=None)
@given(n=st.integers(3, 8), rounds=st.integers(1, 6), seed=st.integers(0, 10**6))
def test_swiss_teams_no_rematch_while_one_can_be_avoided(n, rounds, seed):
    rng = random.Random(seed)
    teams = [TeamState(team_id=i, registration_no=i) for i in range(1, n + 1)]
    teams = play(teams, first_round(teams), rng)
    for _ in range(rounds):
        avoidable = rematch_free_exists(teams)
        rnd = swiss_round(teams)
        by_id = {t.team_id: t for t in teams}
        rematches = sum(f.away in by_id[f.home].opponents for f in rnd.fixtures)
        assert rematches == rnd.rematches
        if avoidable:
            assert rematches == 0
        if n % 2:
            fewest = min(t.byes for t in teams)
            assert by_id[rnd.bye].byes == fewest  # nobody's second bye while one has none
        for f in rnd.fixtures:  # the team that has been away more plays at home
            h, a = by_id[f.home], by_id[f.away]
            assert h.home - h.away <= a.home - a.away
        teams = play(teams, rnd, rng)


def test_twelve_teams_five_rounds_never_meet_twice():
    rng = random.Random(26)
    teams = [TeamState(team_id=i, registration_no=i) for i in range(1, 13)]
    seen = set()
    rnd = first_round(teams)
    for r in range(5):
        for f in rnd.fixtures:
            pair = frozenset((f.home, f.away))
            assert pair not in seen
            seen.add(pair)
        teams = play(teams, rnd, rng)
        if r < 4:
            rnd = swiss_round(teams)
    # the seating order is the VP order
    assert len(seen) == 30


def test_the_bye_goes_to_the_lowest_team_without_one():
    teams = [
        TeamState(1, 1, Decimal("30.00")),
        TeamState(2, 2, Decimal("25.00")),
        TeamState(3, 3, Decimal("20.00")),
        TeamState(4, 4, Decimal("15.00")),
        TeamState(5, 5, Decimal("5.00"), byes=1),
    ]
    rnd = swiss_round(teams)
    assert rnd.bye == 4
    assert [(f.home, f.away) for f in rnd.fixtures] == [(1, 2), (3, 5)]


def test_swiss_refuses_a_team_twice():
    with pytest.raises(TeamsError):
        swiss_round([TeamState(1, 1), TeamState(1, 2)])
