"""The team ladder (SPEC 11): examples of every refusal and every transition, and random
sequences of operations checked against a naive list-based model written here (not with
the product's code): positions, open challenges, refusals, the rematch rule and the
history all agree after every step."""

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

import teams
from teams import (
    KIND_ACCEPTED,
    KIND_CHALLENGED,
    KIND_DECLINED,
    KIND_ENTERED,
    KIND_FORFEITED,
    KIND_LAPSED,
    KIND_LEFT,
    KIND_MOVED,
    KIND_PLAYED,
    KIND_VOIDED,
    Challenge,
    Ladder,
    LadderEntry,
    LadderSettings,
    Meeting,
    TeamsError,
    accept,
    challenge,
    challengeable,
    deadlines,
    decline,
    enter,
    forfeit,
    leave,
    open_challenge_of,
    position_of,
    result,
)
from tests import examples

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
DAY = timedelta(days=1)


def ladder_of(*team_ids, **settings_):
    ladder = Ladder(settings=LadderSettings(**settings_))
    for t in team_ids:
        ladder, _ = enter(ladder, t, T0)
    return ladder


def played(ladder, challenger, challenged, vp, at=T0):
    """Challenge, accept and play at `at` (all three the same instant)."""
    ladder, _ = challenge(ladder, challenger, challenged, at)
    ladder, _ = accept(ladder, challenged, at)
    return result(ladder, challenger, Decimal(vp), at)


# --- settings and state -----------------------------------------------------------------


def test_default_settings_are_the_specs():
    s = LadderSettings()
    assert (s.range, s.accept_days, s.play_days, s.rematch_days) == (3, 4, 7, 14)
    assert LadderSettings(rematch_days=0).rematch_days == 0


@pytest.mark.parametrize(
    "bad",
    [
        {"range": 0},
        {"range": -1},
        {"range": 2.5},
        {"range": True},
        {"accept_days": 0},
        {"accept_days": 366},
        {"play_days": 0},
        {"play_days": "7"},
        {"rematch_days": -1},
        {"rematch_days": 400},
    ],
)
def test_bad_settings_are_refused_with_a_message(bad):
    with pytest.raises(TeamsError) as refused:
        LadderSettings(**bad)
    assert str(refused.value)  # a sentence, filled in
    assert "%(" not in str(refused.value)


def test_an_inconsistent_state_is_refused():
    with pytest.raises(TeamsError):
        Ladder(teams=(1, 2, 1))
    c = Challenge(2, 1, issued_at=T0, accept_by=T0 + DAY)
    assert Ladder(teams=(1, 2), challenges=(c,)).challenges == (c,)
    with pytest.raises(TeamsError):
        Ladder(teams=(2, 1), challenges=(c,))  # challenged below its challenger
    with pytest.raises(TeamsError):
        Ladder(teams=(1,), challenges=(c,))
    with pytest.raises(TeamsError):
        Ladder(teams=(1, 2, 3), challenges=(c, Challenge(3, 1, issued_at=T0, accept_by=T0)))


def test_the_names_are_exported():
    for name in ("Ladder", "LadderSettings", "LadderEntry", "Challenge", "Meeting"):
        assert name in teams.__all__
    for name in ("enter", "leave", "challenge", "accept", "decline", "forfeit", "result"):
        assert name in teams.__all__
    for name in ("deadlines", "challengeable", "open_challenge_of", "position_of"):
        assert name in teams.__all__
    assert set(teams.LADDER_KINDS) >= {KIND_ENTERED, KIND_MOVED, KIND_LEFT, KIND_PLAYED}


# --- entering and leaving ---------------------------------------------------------------


def test_a_new_team_enters_at_the_bottom():
    ladder = ladder_of(10, 20)
    ladder, entries = enter(ladder, 30, T0 + DAY)
    assert ladder.teams == (10, 20, 30) and position_of(ladder, 30) == 3
    assert entries == (LadderEntry(KIND_ENTERED, T0 + DAY, 30, after=3),)
    with pytest.raises(TeamsError):
        enter(ladder, 20, T0)


def test_a_team_leaving_closes_the_gap_and_voids_its_challenge():
    ladder = ladder_of(1, 2, 3, 4, 5)
    ladder, _ = challenge(ladder, 4, 2, T0)
    left, entries = leave(ladder, 2, T0 + DAY)
    assert left.teams == (1, 3, 4, 5) and left.challenges == ()
    assert [(e.kind, e.team, e.before, e.after) for e in entries] == [
        (KIND_VOIDED, 4, 4, 3),
        (KIND_LEFT, 2, 2, None),
        (KIND_MOVED, 3, 3, 2),
        (KIND_MOVED, 4, 4, 3),
        (KIND_MOVED, 5, 5, 4),
    ]
    assert entries[0].opponent == 2 and entries[0].opponent_after is None
    assert leave(left, 5, T0)[0].teams == (1, 3, 4)  # the bottom team: nobody moves
    assert [e.kind for e in leave(left, 5, T0)[1]] == [KIND_LEFT]
    with pytest.raises(TeamsError):
        leave(left, 2, T0)


# --- challenging ------------------------------------------------------------------------


def test_a_challenge_opens_with_its_accept_deadline():
    ladder = ladder_of(1, 2, 3, 4)
    ladder, entries = challenge(ladder, 4, 1, T0)
    (c,) = ladder.challenges
    assert (c.challenger, c.challenged, c.issued_at, c.accept_by) == (4, 1, T0, T0 + 4 * DAY)
    assert not c.accepted and c.deadline == c.accept_by
    assert open_challenge_of(ladder, 1) == open_challenge_of(ladder, 4) == c
    assert open_challenge_of(ladder, 2) is None
    assert entries == (
        LadderEntry(
            KIND_CHALLENGED,
            T0,
            4,
            before=4,
            after=4,
            opponent=1,
            opponent_before=1,
            opponent_after=1,
        ),
    )


@pytest.mark.parametrize(
    ("challenger", "challenged", "words"),
    [
        (3, 3, "itself"),
        (2, 3, "above it"),
        (5, 1, "at most 3 positions above it; this team is 4 above"),
        (6, 9, "not on the ladder"),
        (9, 1, "not on the ladder"),
    ],
)
def test_challenges_the_rules_refuse(challenger, challenged, words):
    ladder = ladder_of(1, 2, 3, 4, 5, 6)
    with pytest.raises(TeamsError, match=words):
        challenge(ladder, challenger, challenged, T0)


def test_a_team_in_an_open_challenge_can_neither_challenge_nor_be_challenged():
    ladder, _ = challenge(ladder_of(1, 2, 3, 4, 5, 6), 4, 2, T0)
    with pytest.raises(TeamsError, match="challenging team is already"):
        challenge(ladder, 4, 3, T0)
    with pytest.raises(TeamsError, match="challenging team is already"):
        challenge(ladder, 2, 1, T0)  # the challenged team cannot challenge either
    with pytest.raises(TeamsError, match="challenged team is already"):
        challenge(ladder, 5, 2, T0)
    with pytest.raises(TeamsError, match="challenged team is already"):
        challenge(ladder, 6, 4, T0)
    ladder, _ = accept(ladder, 2, T0)
    with pytest.raises(TeamsError, match="challenged team is already"):
        challenge(ladder, 5, 4, T0)
    assert challenge(ladder, 6, 3, T0)[0].challenge_of(6).challenged == 3


@pytest.mark.parametrize("how", ["played", "forfeited", "declined", "challenger forfeited"])
def test_the_same_two_teams_may_not_meet_again_within_the_rematch_days(how):
    ladder = ladder_of(1, 2, 3, 4)
    if how == "played":
        ladder, _ = played(ladder, 4, 3, "8")  # the challenger lost: nothing moved
    elif how == "forfeited":
        ladder, _ = challenge(ladder, 4, 3, T0)
        ladder, _ = deadlines(ladder, T0 + 4 * DAY)
        assert ladder.teams == (1, 2, 4, 3)  # now 3 would be the challenger
    elif how == "declined":
        ladder, _ = challenge(ladder, 4, 3, T0)
        ladder, _ = decline(ladder, 3, T0)
    else:
        ladder, _ = challenge(ladder, 4, 3, T0)
        ladder, _ = forfeit(ladder, 4, T0)
    low, high = (3, 4) if position_of(ladder, 3) > position_of(ladder, 4) else (4, 3)
    met = ladder.meetings[0].at
    with pytest.raises(TeamsError, match="met less than 14 days ago"):
        challenge(ladder, low, high, met + 14 * DAY - timedelta(seconds=1))
    assert high not in challengeable(ladder, low, met + 13 * DAY)
    assert challenge(ladder, low, high, met + 14 * DAY)[0].challenge_of(low).challenged == high
    assert high in challengeable(ladder, low, met + 14 * DAY)


def test_a_lapsed_or_void_challenge_is_no_meeting():
    ladder, _ = challenge(ladder_of(1, 2, 3), 3, 2, T0)
    ladder, _ = accept(ladder, 2, T0)
    ladder, entries = deadlines(ladder, T0 + 7 * DAY)
    assert [e.kind for e in entries] == [KIND_LAPSED] and ladder.meetings == ()
    ladder, _ = challenge(ladder, 3, 2, T0 + 7 * DAY)  # straight away
    ladder, entries = leave(ladder, 2, T0 + 7 * DAY)
    assert [e.kind for e in entries] == [KIND_VOIDED, KIND_LEFT, KIND_MOVED]
    assert ladder.meetings == () and ladder.challenges == ()


def test_rematch_days_zero_allows_an_immediate_rematch():
    ladder, _ = played(ladder_of(1, 2, rematch_days=0), 2, 1, "5")
    assert challenge(ladder, 2, 1, T0)[0].challenges


def test_challengeable_lists_who_a_team_may_challenge_now():
    ladder = ladder_of(1, 2, 3, 4, 5, 6, 7)
    assert challengeable(ladder, 7, T0) == (4, 5, 6)
    assert challengeable(ladder, 2, T0) == (1,)
    assert challengeable(ladder, 1, T0) == ()
    ladder, _ = challenge(ladder, 6, 5, T0)
    assert challengeable(ladder, 7, T0) == (4,)
    assert challengeable(ladder, 6, T0) == challengeable(ladder, 5, T0) == ()
    assert challengeable(ladder_of(1, 2, 3, 4, 5, range=1), 5, T0) == (4,)
    with pytest.raises(TeamsError):
        challengeable(ladder, 99, T0)


# --- accepting, declining, forfeiting ---------------------------------------------------


def test_the_challenged_team_accepts_before_the_accept_deadline():
    ladder, _ = challenge(ladder_of(1, 2, 3), 3, 1, T0)
    late = T0 + 4 * DAY
    with pytest.raises(TeamsError, match="time to accept"):
        accept(ladder, 1, late)
    with pytest.raises(TeamsError, match="no open challenge to answer"):
        accept(ladder, 3, T0)  # the challenger cannot accept
    with pytest.raises(TeamsError, match="no open challenge to answer"):
        accept(ladder, 2, T0)
    when = late - timedelta(seconds=1)
    ladder, entries = accept(ladder, 1, when)
    (c,) = ladder.challenges
    assert c.accepted and c.accepted_at == when and c.play_by == when + 7 * DAY
    assert c.deadline == c.play_by
    assert [(e.kind, e.team, e.opponent, e.at) for e in entries] == [(KIND_ACCEPTED, 3, 1, when)]
    with pytest.raises(TeamsError, match="already accepted"):
        accept(ladder, 1, when)
    with pytest.raises(TeamsError, match="already accepted"):
        decline(ladder, 1, when)


def test_declining_is_a_forfeit_so_the_challenger_takes_the_place():
    ladder, _ = challenge(ladder_of(1, 2, 3, 4), 4, 2, T0)
    ladder, entries = decline(ladder, 2, T0 + DAY)
    assert ladder.teams == (1, 4, 2, 3) and ladder.challenges == ()
    assert ladder.meetings == (Meeting(4, 2, T0 + DAY),)
    assert [(e.kind, e.team, e.before, e.after) for e in entries] == [
        (KIND_DECLINED, 4, 4, 2),
        (KIND_MOVED, 4, 4, 2),
        (KIND_MOVED, 2, 2, 3),
        (KIND_MOVED, 3, 3, 4),
    ]
    assert entries[0].forfeited_by == 2
    assert (entries[0].opponent_before, entries[0].opponent_after) == (2, 3)
    with pytest.raises(TeamsError):
        decline(ladder, 2, T0 + DAY)


def test_either_side_may_concede():
    ladder, _ = challenge(ladder_of(1, 2, 3), 3, 1, T0)
    ladder, _ = accept(ladder, 1, T0)
    lost, entries = forfeit(ladder, 3, T0 + DAY)  # the challenger concedes: a loss
    assert lost.teams == (1, 2, 3) and [e.kind for e in entries] == [KIND_FORFEITED]
    assert entries[0].forfeited_by == 3
    won, entries = forfeit(ladder, 1, T0 + DAY)  # the challenged concedes: a win
    assert won.teams == (3, 1, 2)
    assert [e.kind for e in entries] == [KIND_FORFEITED, KIND_MOVED, KIND_MOVED, KIND_MOVED]
    with pytest.raises(TeamsError, match="no open challenge"):
        forfeit(won, 1, T0)


# --- results ----------------------------------------------------------------------------


def test_a_challenger_winning_from_three_places_below_moves_the_two_between_down_one():
    """SPEC 11: it takes the challenged team's position and every team between moves down
    one (the challenged team with them)."""
    ladder = ladder_of("A", "B", "C", "D", "E", "F", "G")
    ladder, entries = played(ladder, "F", "C", "12.50")
    assert ladder.teams == ("A", "B", "F", "C", "D", "E", "G")
    assert [(e.kind, e.team, e.before, e.after) for e in entries] == [
        (KIND_PLAYED, "F", 6, 3),
        (KIND_MOVED, "F", 6, 3),
        (KIND_MOVED, "C", 3, 4),
        (KIND_MOVED, "D", 4, 5),
        (KIND_MOVED, "E", 5, 6),
    ]
    assert entries[0].challenger_vp == Decimal("12.50") and entries[0].forfeited_by is None
    assert ladder.meetings == (Meeting("F", "C", T0),) and ladder.challenges == ()


@pytest.mark.parametrize("vp", ["0", "9.99", "10", "10.00"])
def test_otherwise_nothing_moves(vp):
    ladder, entries = played(ladder_of(1, 2, 3, 4), 4, 2, vp)
    assert ladder.teams == (1, 2, 3, 4)
    assert [(e.kind, e.before, e.after) for e in entries] == [(KIND_PLAYED, 4, 4)]


@pytest.mark.parametrize("vp", ["10.01", "20"])
def test_above_ten_the_challenger_wins(vp):
    assert played(ladder_of(1, 2), 2, 1, vp)[0].teams == (2, 1)


def test_results_the_rules_refuse():
    ladder, _ = challenge(ladder_of(1, 2, 3), 3, 2, T0)
    with pytest.raises(TeamsError, match="not accepted yet"):
        result(ladder, 3, Decimal(15), T0)
    ladder, _ = accept(ladder, 2, T0)
    with pytest.raises(TeamsError, match="has not challenged"):
        result(ladder, 2, Decimal(15), T0)  # the challenged team's VPs are not asked
    with pytest.raises(TeamsError, match="has not challenged"):
        result(ladder, 1, Decimal(15), T0)
    with pytest.raises(TeamsError, match="time to play"):
        result(ladder, 3, Decimal(15), T0 + 7 * DAY)
    for bad in (Decimal(-1), Decimal("20.01"), Decimal("NaN"), Decimal("Infinity"), 12.5, True):
        with pytest.raises(TeamsError, match="from 0 to 20"):
            result(ladder, 3, bad, T0)
    assert result(ladder, 3, 15, T0 + 7 * DAY - timedelta(seconds=1))[0].teams == (1, 3, 2)


# --- the clock --------------------------------------------------------------------------


def test_an_unaccepted_challenge_is_forfeited_by_the_challenged_team_at_its_deadline():
    ladder, _ = challenge(ladder_of(1, 2, 3, 4), 4, 1, T0)
    assert deadlines(ladder, T0 + 4 * DAY - timedelta(seconds=1)) == (ladder, ())
    after, entries = deadlines(ladder, T0 + 4 * DAY)
    assert after.teams == (4, 1, 2, 3)
    assert entries[0].kind == KIND_FORFEITED and entries[0].forfeited_by == 1
    assert deadlines(after, T0 + 4 * DAY) == (after, ())


@pytest.mark.parametrize(
    ("shown", "teams_after", "kind", "forfeited_by"),
    [
        ({4}, (1, 4, 2, 3), KIND_FORFEITED, 2),  # the challenged team did not show
        ({2}, (1, 2, 3, 4), KIND_FORFEITED, 4),  # the challenger did not show
        (set(), (1, 2, 3, 4), KIND_LAPSED, None),
        ({2, 4}, (1, 2, 3, 4), KIND_LAPSED, None),
        ({2, 4, 1}, (1, 2, 3, 4), KIND_LAPSED, None),
    ],
)
def test_an_accepted_challenge_with_no_result_is_forfeited_by_whoever_did_not_show(
    shown, teams_after, kind, forfeited_by
):
    ladder, _ = challenge(ladder_of(1, 2, 3, 4), 4, 2, T0)
    ladder, _ = accept(ladder, 2, T0 + DAY)
    assert deadlines(ladder, T0 + 8 * DAY - timedelta(seconds=1), shown) == (ladder, ())
    after, entries = deadlines(ladder, T0 + 8 * DAY, shown)
    assert after.teams == teams_after and after.challenges == ()
    assert (entries[0].kind, entries[0].forfeited_by) == (kind, forfeited_by)
    assert len(after.meetings) == (kind == KIND_FORFEITED)
    assert deadlines(after, T0 + 8 * DAY, {1, 2, 3, 4}) == (after, ())


def test_the_clock_closes_the_earliest_deadline_first():
    ladder = ladder_of(1, 2, 3, 4, 5, 6)
    ladder, _ = challenge(ladder, 4, 2, T0)  # due at T0 + 4 days
    ladder, _ = challenge(ladder, 3, 1, T0 - DAY)  # due a day earlier
    ladder, _ = challenge(ladder, 6, 5, T0 + 9 * DAY)  # not due
    after, entries = deadlines(ladder, T0 + 5 * DAY)
    # 3 takes 1's place first (1, 2 down), then 4 takes 2's place (now 3rd)
    assert after.teams == (3, 1, 4, 2, 5, 6)
    assert [e.team for e in entries if e.kind == KIND_FORFEITED] == [3, 4]
    assert [(c.challenger, c.challenged) for c in after.challenges] == [(6, 5)]


# --- random sequences against a naive model ---------------------------------------------


class Model:
    """The ladder as a list of names and a dict of open challenges, kept the plain way."""

    def __init__(self, rng, accept_days, play_days, rematch_days):
        self.rng, self.accept_days = rng, accept_days
        self.play_days, self.rematch_days = play_days, rematch_days
        self.order = []
        self.open = {}  # challenger -> [challenged, accept_by, play_by or None]
        self.met = []  # (team, team, when)

    def opponent(self, team):
        if team in self.open:
            return self.open[team][0]
        for a, (b, *_) in self.open.items():
            if b == team:
                return a
        return None

    def may_challenge(self, a, b, now):
        if a not in self.order or b not in self.order or a == b:
            return False
        i, j = self.order.index(a), self.order.index(b)
        if not (0 < i - j <= self.rng):
            return False
        if self.opponent(a) is not None or self.opponent(b) is not None:
            return False
        recent = [w for x, y, w in self.met if {x, y} == {a, b}]
        return all(now - w >= timedelta(days=self.rematch_days) for w in recent)

    def close(self, a, now, *, winner_is_challenger, meeting=True):
        b = self.open.pop(a)[0]
        if meeting:
            self.met.append((a, b, now))
        if winner_is_challenger:
            self.order.remove(a)
            self.order.insert(self.order.index(b), a)


step_args = st.tuples(
    st.integers(0, 50),  # a team, as an index into a list of teams
    st.sampled_from([1, 1, 1, 2, 2, 3, 3, 4, 5, 0, -1]),  # how far above it the other is
    st.sampled_from([0, 0, 0, 1, 6, 12, 24, 96]),  # hours that pass before it
    st.sampled_from(["0", "7.5", "10", "10.01", "14", "20"]),
    st.integers(0, 2**12),  # who showed, as bits over positions
)


def next_op(model):
    """Any operation, weighted towards those that take the open challenges on."""
    choices = ["enter", "leave", "decline", "forfeit", "accept", "result", "deadlines"]
    choices += 4 * ["challenge"]
    if any(p is None for _, _, p in model.open.values()):
        choices += 4 * ["accept"]
    if any(p is not None for _, _, p in model.open.values()):
        choices += 4 * ["result"] + ["deadlines"]
    return st.sampled_from(choices)


@settings(max_examples=examples(200), deadline=None)
@given(
    start=st.integers(0, 10),
    rng=st.integers(1, 4),
    accept_days=st.integers(1, 5),
    play_days=st.integers(1, 8),
    rematch_days=st.integers(0, 15),
    data=st.data(),
)
def test_random_operations_agree_with_a_naive_model(
    start, rng, accept_days, play_days, rematch_days, data
):
    conf = LadderSettings(
        range=rng, accept_days=accept_days, play_days=play_days, rematch_days=rematch_days
    )
    ladder = Ladder(settings=conf)
    model = Model(rng, accept_days, play_days, rematch_days)
    now = T0
    replay = {}  # the positions the history gives
    new_id = iter(range(1, 10_000))
    for _ in range(start):
        team = next(new_id)
        ladder, entries = enter(ladder, team, now)
        model.order.append(team)
        replay[team] = len(model.order)
    for _ in range(data.draw(st.integers(5, 40), label="steps")):
        op = data.draw(next_op(model))
        index, up, hours, vp, bits = data.draw(step_args)
        now += timedelta(hours=hours)
        before = ladder
        order = list(model.order)
        # mostly a team the operation is meant for, sometimes any team (to be refused)
        meant = {
            "accept": [b for b, *_ in model.open.values()],
            "decline": [b for b, *_ in model.open.values()],
            "forfeit": [t for a, (b, *_) in model.open.items() for t in (a, b)],
            "result": [a for a, (_, _, play_by) in model.open.items() if play_by],
        }.get(op)
        pool = meant if meant and index % 5 else order
        team = pool[index % len(pool)] if pool else None
        allowed, mover = True, None  # mover: the challenger whose challenge is decided
        if op == "enter" or team is None:
            op, team = "enter", next(new_id)
            ladder, entries = enter(ladder, team, now)
            model.order.append(team)
        elif op == "leave":
            ladder, entries = leave(ladder, team, now)
            other = model.opponent(team)
            if other is not None:
                model.open.pop(team if team in model.open else other)
            model.order.remove(team)
        elif op == "challenge":
            i = order.index(team) - up
            other = order[i] if 0 <= i < len(order) else team
            allowed = model.may_challenge(team, other, now)
            assert (other in challengeable(ladder, team, now)) == allowed
            if allowed:
                ladder, entries = challenge(ladder, team, other, now)
                model.open[team] = [other, now + timedelta(days=accept_days), None]
        elif op in ("accept", "decline"):
            a = model.opponent(team)
            allowed = a is not None and a in model.open and model.open[a][2] is None
            if op == "accept":
                allowed = allowed and now < model.open[a][1]
            if allowed:
                if op == "accept":
                    ladder, entries = accept(ladder, team, now)
                    model.open[a][2] = now + timedelta(days=play_days)
                else:
                    ladder, entries = decline(ladder, team, now)
                    model.close(a, now, winner_is_challenger=True)
                    mover = a
        elif op == "forfeit":
            other = model.opponent(team)
            allowed = other is not None
            if allowed:
                ladder, entries = forfeit(ladder, team, now)
                a = team if team in model.open else other
                model.close(a, now, winner_is_challenger=team != a)
                mover = a
        elif op == "result":
            allowed = team in model.open and model.open[team][2] is not None
            allowed = allowed and now < model.open[team][2]
            if allowed:
                ladder, entries = result(ladder, team, Decimal(vp), now)
                model.close(team, now, winner_is_challenger=Decimal(vp) > 10)
                mover = team
        else:
            if model.open and bits % 3:  # the clock wakes up at the next deadline
                now = max(now, min(p or a for _, a, p in model.open.values()))
            shown = {t for k, t in enumerate(order) if bits >> k & 1}
            ladder, entries = deadlines(ladder, now, shown)
            due = [
                (play_by or accept_by, order.index(b), a)
                for a, (b, accept_by, play_by) in model.open.items()
                if (play_by or accept_by) <= now
            ]
            for _, _, a in sorted(due):
                b, _, play_by = model.open[a]
                if play_by is None:
                    model.close(a, now, winner_is_challenger=True)
                elif (a in shown) != (b in shown):
                    model.close(a, now, winner_is_challenger=a in shown)
                else:
                    model.close(a, now, winner_is_challenger=False, meeting=False)
            # idempotent: the same time again (whoever shows) changes nothing
            assert deadlines(ladder, now, set(order)) == (ladder, ())
            assert deadlines(ladder, now) == (ladder, ())
        event(f"{op} {'done' if allowed else 'refused'}")
        if op == "deadlines":
            for e in entries:
                if e.kind != KIND_MOVED:
                    event(f"deadlines {e.kind}")
        if mover is not None:
            event(f"{op} moved teams" if ladder.teams != before.teams else f"{op} moved nobody")
        if not allowed:
            with pytest.raises(TeamsError):
                if op == "challenge":
                    challenge(ladder, team, other, now)
                elif op == "result":
                    result(ladder, team, Decimal(vp), now)
                else:
                    {"accept": accept, "decline": decline, "forfeit": forfeit}[op](
                        ladder, team, now
                    )
            continue

        # the ladder is the model's: positions 1 … T, a permutation
        assert list(ladder.teams) == model.order
        assert sorted(position_of(ladder, t) for t in ladder.teams) == list(
            range(1, len(model.order) + 1)
        )
        # open challenges are the model's, at most one per team, the challenged above
        got = {c.challenger: [c.challenged, c.accept_by, c.play_by] for c in ladder.challenges}
        assert got == model.open
        busy = [t for c in ladder.challenges for t in (c.challenger, c.challenged)]
        assert len(busy) == len(set(busy))
        for t in ladder.teams:
            c = open_challenge_of(ladder, t)
            assert (c is not None) == (t in busy)
        for c in ladder.challenges:
            assert position_of(ladder, c.challenged) < position_of(ladder, c.challenger)
        # the rematch rule: no two meetings of the same pair closer than rematch_days
        # (a meeting is recorded when a challenge is decided, and it was made after the
        # previous one ended, so it is at least as late)
        assert [(m.challenger, m.challenged, m.at) for m in ladder.meetings] == model.met
        for m in ladder.meetings[len(before.meetings) :]:
            for earlier in before.meetings:
                if earlier.between(m.challenger, m.challenged):
                    assert m.at - earlier.at >= timedelta(days=rematch_days)
        # a decided challenge moves only the challenger up and the teams it passed down
        if mover is not None and op in ("decline", "forfeit", "result"):
            old = {t: i for i, t in enumerate(before.teams)}
            new = {t: i for i, t in enumerate(ladder.teams)}
            assert new[mover] <= old[mover]
            for t in ladder.teams:
                if t != mover and new[t] != old[t]:
                    assert new[t] == old[t] + 1 and new[mover] <= old[t] < old[mover]
        # the history replays to the positions
        for e in entries:
            if e.kind in (KIND_ENTERED, KIND_MOVED):
                assert replay.get(e.team) == e.before
                replay[e.team] = e.after
            elif e.kind == KIND_LEFT:
                assert replay.pop(e.team) == e.before
        assert replay == {t: i + 1 for i, t in enumerate(ladder.teams)}
