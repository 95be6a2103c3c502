"""Team registration and the line-up (RULES 11): every refusal is clear and changes
nothing; the fourth confirmation registers the team with its default line-up; a player
is in one team per tournament; the line-up is seen by the team and the organisers only."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.contrib.auth.models import AnonymousUser
from django.db import close_old_connections, connection

from tournaments import visibility
from tournaments.errors import NotAllowed, RegistrationError, ServiceError
from tournaments.models import (
    Board,
    BoardResult,
    Pair,
    PairMember,
    Round,
    Table,
    Team,
    TeamMember,
    Tournament,
)
from tournaments.services import registration, teams

pytestmark = pytest.mark.django_db


def snapshot():
    return (
        list(Team.objects.order_by("id").values()),
        list(TeamMember.objects.order_by("id").values()),
        list(Pair.objects.order_by("id").values()),
        list(PairMember.objects.order_by("id").values()),
        list(Tournament.objects.order_by("id").values()),
    )


@pytest.fixture
def team_event(make_tournament, t0):
    return make_tournament(
        contestants="teams", seating="swiss", registration_opens_at=t0 - timedelta(days=2)
    )


@pytest.fixture
def before(t0):
    return t0 - timedelta(hours=1)


@pytest.fixture
def players(make_user):
    return [make_user() for _ in range(12)]


def propose(event, captain, others, before, name="Lions"):
    return teams.propose_team(
        tournament=event,
        captain=captain,
        name=name,
        members=[u.username for u in others],
        now=before,
    )


def registered(event, members, before, name="Lions"):
    team = propose(event, members[0], members[1:], before, name=name)
    for user in members[1:4]:
        teams.confirm_membership(team=team, user=user, now=before)
    team.refresh_from_db()
    return team


def test_the_fourth_confirmation_registers_the_team_with_its_default_line_up(
    team_event, players, before
):
    a, b, c, d, e = players[:5]
    team = propose(team_event, a, [b, c, d, e], before)
    assert team.status == "pending" and team.registration_no is None
    members = list(TeamMember.objects.filter(team=team).order_by("id"))
    assert [m.user_id for m in members] == [a.pk, b.pk, c.pk, d.pk, e.pk]
    assert [m.confirmed_at is not None for m in members] == [True, False, False, False, False]
    # Confirmations in any order: the line-up follows the invitation order.
    teams.confirm_membership(team=team, user=d, now=before + timedelta(minutes=1))
    teams.confirm_membership(team=team, user=b, now=before + timedelta(minutes=2))
    team.refresh_from_db()
    assert team.status == "pending" and team.open_pair_id is None
    assert not Pair.objects.filter(team=team).exists()
    teams.confirm_membership(team=team, user=e, now=before + timedelta(minutes=3))
    team.refresh_from_db()
    assert team.status == "confirmed" and team.registration_no == 1
    assert team.confirmed_at == before + timedelta(minutes=3)
    open_pair, closed_pair = team.open_pair, team.closed_pair
    assert (open_pair.player1_id, open_pair.player2_id) == (a.pk, b.pk)
    assert (closed_pair.player1_id, closed_pair.player2_id) == (d.pk, e.pk)
    assert open_pair.team_id == closed_pair.team_id == team.pk
    assert open_pair.status == closed_pair.status == "confirmed"
    assert {open_pair.registration_no, closed_pair.registration_no} == {1, 2}
    assert not PairMember.objects.exists()  # a team's pairs hold nobody
    # The fifth member confirms later: still registered, no new number.
    teams.confirm_membership(team=team, user=c, now=before + timedelta(minutes=4))
    team.refresh_from_db()
    assert team.registration_no == 1 and team.open_pair_id == open_pair.pk


def test_teams_are_numbered_in_registration_order(team_event, players, before):
    first = propose(team_event, players[0], players[1:4], before, name="First")
    second = registered(team_event, players[4:8], before, name="Second")
    for user in players[1:4]:
        teams.confirm_membership(team=first, user=user, now=before)
    first.refresh_from_db()
    assert (second.registration_no, first.registration_no) == (1, 2)
    # Pair numbers run on across the teams.
    numbers = sorted(Pair.objects.values_list("registration_no", flat=True))
    assert numbers == [1, 2, 3, 4]


@pytest.mark.parametrize(
    "case",
    [
        "too_few",
        "too_many",
        "twice",
        "captain_named",
        "unknown",
        "empty_name",
        "hostile_name",
        "long_name",
        "taken_name",
        "member_in_a_team",
        "captain_in_a_team",
        "not_open_yet",
        "started",
        "pairs_event",
    ],
)
def test_refused_proposals_change_nothing(case, team_event, make_tournament, players, before, t0):
    taken = registered(team_event, players[6:10], before, name="Taken")
    captain, others = players[0], players[1:4]
    kwargs = {"tournament": team_event, "captain": captain, "name": "Lions", "now": before}
    names = [u.username for u in others]
    expected = {
        "too_few": (names[:2], "4 to 6 players"),
        "too_many": ([u.username for u in players[1:6]] + [players[10].username], "4 to 6"),
        "twice": ([names[0], names[0].upper(), names[1]], "all different"),
        "captain_named": ([captain.username, *names[:2]], "all different"),
        "unknown": ([*names[:2], "nobody-here"], "no player called"),
        "empty_name": (names, "Give the team a name"),
        "hostile_name": (names, "control characters"),
        "long_name": (names, "at most 60"),
        "taken_name": (names, "already a team called"),
        "member_in_a_team": ([*names[:2], players[7].username], "already in a team"),
        "captain_in_a_team": (names, "already in a team"),
        "not_open_yet": (names, "opens at"),
        "started": (names, "closed"),
        "pairs_event": (names, "pairs event"),
    }[case]
    if case == "empty_name":
        kwargs["name"] = "   "
    elif case == "hostile_name":
        kwargs["name"] = "Lions\nTigers"
    elif case == "long_name":
        kwargs["name"] = "L" * 61
    elif case == "taken_name":
        kwargs["name"] = "taken"
    elif case == "captain_in_a_team":
        kwargs["captain"] = players[6]
    elif case == "not_open_yet":
        kwargs["now"] = team_event.registration_opens_at - timedelta(seconds=1)
    elif case == "started":
        Tournament.objects.filter(pk=team_event.pk).update(status="running")
        team_event.round_set.create(number=1, starts_at=t0, ends_at=t0 + timedelta(minutes=20))
    elif case == "pairs_event":
        kwargs["tournament"] = make_tournament(registration_opens_at=t0 - timedelta(days=2))
    state = snapshot()
    with pytest.raises(RegistrationError, match=expected[1]):
        teams.propose_team(members=expected[0], **kwargs)
    assert snapshot() == state
    assert taken.status == "confirmed"


def test_a_player_is_in_one_team_per_tournament(team_event, players, before):
    a, b, c, d, e, f, g, h = players[:8]
    lions = propose(team_event, a, [b, c, d], before, name="Lions")
    tigers = propose(team_event, e, [b, f, g], before, name="Tigers")
    bears = propose(team_event, h, [b, c, f], before, name="Bears")
    # b confirms for the Lions: b's other invitations are gone.
    teams.confirm_membership(team=lions, user=b, now=before)
    assert set(TeamMember.objects.filter(user=b).values_list("team_id", flat=True)) == {lions.pk}
    # An invitation that is gone cannot be confirmed.
    state = snapshot()
    with pytest.raises(NotAllowed, match="invited player"):
        teams.confirm_membership(team=tigers, user=b, now=before)
    assert snapshot() == state
    # The captain of a proposed team is held too: no second team for h.
    with pytest.raises(RegistrationError, match="already in a team"):
        propose(team_event, h, [c, d, g], before, name="Wolves")
    assert snapshot() == state
    assert bears.members.count() == 3  # h, c, f


def test_confirm_and_decline_refusals_change_nothing(team_event, players, before, t0):
    a, b, c, d, e, outsider = players[:6]
    team = propose(team_event, a, [b, c, d, e], before)
    teams.confirm_membership(team=team, user=b, now=before)
    cases = [
        (lambda: teams.confirm_membership(team=team, user=outsider, now=before), NotAllowed),
        (lambda: teams.confirm_membership(team=team, user=b, now=before), RegistrationError),
        (lambda: teams.confirm_membership(team=team, user=a, now=before), RegistrationError),
        (lambda: teams.decline_membership(team=team, user=outsider), NotAllowed),
        (lambda: teams.decline_membership(team=team, user=b), RegistrationError),
        (
            lambda: teams.confirm_membership(
                team=team, user=c, now=team_event.registration_opens_at - timedelta(hours=1)
            ),
            RegistrationError,
        ),
        (lambda: teams.cancel_team(team=team, by=b), NotAllowed),
        (lambda: teams.withdraw_team(team=team, by=a, now=before), RegistrationError),
        (
            lambda: teams.set_line_up(
                team=team,
                by=a,
                open_pair=[a.username, b.username],
                closed_pair=[c.username, d.username],
                now=before,
            ),
            RegistrationError,
        ),
    ]
    for call, error in cases:
        state = snapshot()
        with pytest.raises(error):
            call()
        assert snapshot() == state


def test_decline_removes_the_invitation(team_event, players, before):
    a, b, c, d, e = players[:5]
    team = propose(team_event, a, [b, c, d, e], before)
    teams.decline_membership(team=team, user=c)
    assert not TeamMember.objects.filter(team=team, user=c).exists()
    for user in (b, d, e):
        teams.confirm_membership(team=team, user=user, now=before)
    team.refresh_from_db()
    assert team.status == "confirmed"
    assert (team.closed_pair.player1_id, team.closed_pair.player2_id) == (d.pk, e.pk)


def test_the_captain_cancels_before_registration_only(team_event, players, before):
    a, b, c, d = players[:4]
    team = propose(team_event, a, [b, c, d], before)
    teams.cancel_team(team=team, by=a)
    assert not Team.objects.exists() and not TeamMember.objects.exists()
    # Gone: a page left open gets a plain refusal.
    with pytest.raises(RegistrationError, match="no longer exists"):
        teams.confirm_membership(team=team, user=b, now=before)
    # a is free again and proposes another team.
    team = registered(team_event, [a, b, c, d], before)
    state = snapshot()
    with pytest.raises(RegistrationError, match="withdraw it instead"):
        teams.cancel_team(team=team, by=a)
    assert snapshot() == state


def test_withdrawal_by_the_captain_or_an_organiser(team_event, players, before, director):
    team = registered(team_event, players[:4], before)
    other = registered(team_event, players[4:8], before, name="Tigers")
    state = snapshot()
    with pytest.raises(NotAllowed):
        teams.withdraw_team(team=team, by=players[1], now=before)
    with pytest.raises(NotAllowed):
        teams.withdraw_team(team=team, by=players[4], now=before)
    assert snapshot() == state
    teams.withdraw_team(team=team, by=players[0], now=before)
    team.refresh_from_db()
    assert team.withdrawn_at == before
    assert set(Pair.objects.filter(team=team).values_list("withdrawn_at", flat=True)) == {before}
    state = snapshot()
    with pytest.raises(RegistrationError, match="already withdrawn"):
        teams.withdraw_team(team=team, by=director, now=before)
    with pytest.raises(RegistrationError, match="withdrawn"):
        teams.set_line_up(
            team=team,
            by=players[0],
            open_pair=[players[0].username, players[1].username],
            closed_pair=[players[2].username, players[3].username],
            now=before,
        )
    assert snapshot() == state
    teams.withdraw_team(team=other, by=director, now=before)
    other.refresh_from_db()
    assert other.withdrawn_at == before


def test_withdrawal_refused_once_finished(team_event, players, before):
    team = registered(team_event, players[:4], before)
    Tournament.objects.filter(pk=team_event.pk).update(status="finished")
    state = snapshot()
    with pytest.raises(RegistrationError, match="over"):
        teams.withdraw_team(team=team, by=players[0], now=before)
    with pytest.raises(RegistrationError, match="over"):
        teams.set_line_up(
            team=team,
            by=players[0],
            open_pair=[players[0].username, players[1].username],
            closed_pair=[players[2].username, players[3].username],
            now=before,
        )
    assert snapshot() == state


def test_line_up_rules(team_event, players, before, director, make_user):
    a, b, c, d, e, f = players[:6]
    team = propose(team_event, a, [b, c, d, e, f], before)
    for user in (b, c, d, e):
        teams.confirm_membership(team=team, user=user, now=before)
    team.refresh_from_db()
    first_open, first_closed = team.open_pair, team.closed_pair
    # e and b in the open room, a and c in the closed room: a new pair for each.
    teams.set_line_up(
        team=team,
        by=a,
        open_pair=[e.username, b.username],
        closed_pair=[a.username.upper(), c.username],
        now=before,
    )
    team.refresh_from_db()
    assert (team.open_pair.player1_id, team.open_pair.player2_id) == (e.pk, b.pk)
    assert {team.closed_pair.player1_id, team.closed_pair.player2_id} == {a.pk, c.pk}
    assert Pair.objects.filter(team=team).count() == 4
    assert sorted(Pair.objects.values_list("registration_no", flat=True)) == [1, 2, 3, 4]
    # Back to the first line-up, by an organiser, the pairs named the other way round:
    # the same pairs again, none made.
    teams.set_line_up(
        team=team,
        by=director,
        open_pair=[b.username, a.username],
        closed_pair=[d.username, c.username],
        now=before,
    )
    team.refresh_from_db()
    assert (team.open_pair_id, team.closed_pair_id) == (first_open.pk, first_closed.pk)
    assert Pair.objects.filter(team=team).count() == 4
    refusals = [
        (a, [a.username, b.username], [c.username], RegistrationError, "two players"),
        (
            a,
            [a.username, b.username],
            [b.username, c.username],
            RegistrationError,
            "four different",
        ),
        (
            a,
            [a.username, b.username],
            [c.username, f.username],
            RegistrationError,
            "not a confirmed",
        ),
        (a, [a.username, b.username], [c.username, "nobody-here"], RegistrationError, "no player"),
        (b, [a.username, b.username], [c.username, d.username], NotAllowed, "captain"),
        (
            make_user(staff=False),
            [a.username, b.username],
            [c.username, d.username],
            NotAllowed,
            "captain",
        ),
    ]
    for by, open_pair, closed_pair, error, message in refusals:
        state = snapshot()
        with pytest.raises(error, match=message):
            teams.set_line_up(
                team=team, by=by, open_pair=open_pair, closed_pair=closed_pair, now=before
            )
        assert snapshot() == state


def test_the_line_up_is_the_teams_and_the_organisers(team_event, players, before, director):
    a, b, c, d, e = players[:5]
    team = propose(team_event, a, [b, c, d, e], before)
    for user in (b, c, d):
        teams.confirm_membership(team=team, user=user, now=before)
    opponents = registered(team_event, players[5:9], before, name="Tigers")
    assert all(visibility.may_see_line_up(u, team) for u in (a, b, c, d, director))
    assert not visibility.may_see_line_up(e, team)  # invited, not confirmed
    assert not visibility.may_see_line_up(players[5], team)  # an opponent
    assert not visibility.may_see_line_up(AnonymousUser(), team)
    assert not visibility.may_see_line_up(None, team)
    assert visibility.may_see_line_up(players[5], opponents)
    # With the members read already, no query.
    assert visibility.may_see_line_up(b, team, member_ids={a.pk, b.pk})
    assert not visibility.may_see_line_up(e, team, member_ids={a.pk, b.pk})


@pytest.mark.parametrize("how", ["propose", "register", "late"])
def test_pairs_refused_in_a_team_event(how, team_event, players, before, director):
    state = snapshot()
    with pytest.raises(RegistrationError, match="team event"):
        if how == "propose":
            registration.propose_pair(
                tournament=team_event,
                proposer=players[0],
                partner_username=players[1].username,
                now=before,
            )
        elif how == "register":
            registration.register_pair(
                tournament=team_event,
                usernames=[players[0].username, players[1].username],
                by=director,
                now=before,
            )
        else:
            registration.add_late_pair(
                tournament=team_event,
                usernames=[players[0].username, players[1].username],
                by=director,
                now=before,
            )
    assert snapshot() == state
    assert "team event" in (
        registration.late_pair_problem(
            tournament=team_event,
            usernames=[players[0].username, players[1].username],
            by=director,
        )
        or ""
    )


def test_a_team_withdrawn_while_seated_forfeits_its_unfinished_boards(
    team_event, players, before, t0
):
    """Its pairs seated in the round in play give their tables' unfinished boards to the
    opponents (A+ / A-), as a withdrawn pair's; a board already played stays."""
    lions = registered(team_event, players[:4], before)
    tigers = registered(team_event, players[4:8], before, name="Tigers")
    Tournament.objects.filter(pk=team_event.pk).update(status="running")
    now = t0 + timedelta(minutes=5)
    round = Round.objects.create(
        tournament=team_event,
        number=1,
        status="open",
        starts_at=t0,
        ends_at=t0 + timedelta(hours=1),
    )
    boards = [
        Board.objects.create(
            tournament=team_event, round=round, number=n, dealer="N", vulnerability="None", deal=""
        )
        for n in (1, 2)
    ]
    open_room = Table.objects.create(
        round=round, number=1, ns_pair=lions.open_pair, ew_pair=tigers.closed_pair
    )
    closed_room = Table.objects.create(
        round=round, number=2, ns_pair=tigers.open_pair, ew_pair=lions.closed_pair
    )
    BoardResult.objects.create(
        table=open_room,
        board=boards[0],
        state="passed_out",
        contract="PASS",
        ns_score=0,
        entered_at=now,
    )
    teams.withdraw_team(team=lions, by=players[0], now=now)
    adjusted = {
        (r.table_id, r.board.number): (r.ns_adjustment, r.ew_adjustment)
        for r in BoardResult.objects.filter(state="adjusted").select_related("board")
    }
    assert adjusted == {
        (open_room.pk, 2): ("A-", "A+"),
        (closed_room.pk, 1): ("A+", "A-"),
        (closed_room.pk, 2): ("A+", "A-"),
    }
    assert not Pair.objects.filter(team=lions, withdrawn_at__isnull=True).exists()
    assert not Pair.objects.filter(team=tigers, withdrawn_at__isnull=False).exists()


@pytest.mark.django_db(transaction=True)
def test_racing_confirmations_hold_a_player_once_and_number_teams_apart(
    make_tournament, make_user, t0
):
    """The same player confirms in four teams at once: one wins, the others are refused.
    Two teams' fourth players confirm at once: both registered, numbers 1 and 2, the four
    line-up pairs numbered apart."""
    event = make_tournament(
        contestants="teams", seating="swiss", registration_opens_at=t0 - timedelta(days=2)
    )
    before = t0 - timedelta(hours=1)
    star = make_user("star")
    proposed = []
    for i in range(4):
        captain, x, y = make_user(), make_user(), make_user()
        team = teams.propose_team(
            tournament=event,
            captain=captain,
            name=f"Team {i}",
            members=[x.username, y.username, star.username],
            now=before,
        )
        for user in (x, y):
            teams.confirm_membership(team=team, user=user, now=before)
        proposed.append(team)
    barrier = threading.Barrier(len(proposed))
    outcomes = []

    def attempt(team):
        close_old_connections()
        try:
            barrier.wait()
            teams.confirm_membership(team=team, user=star, now=before)
            outcomes.append("ok")
        except ServiceError as error:
            outcomes.append(str(error))
        finally:
            connection.close()

    threads = [threading.Thread(target=attempt, args=(t,)) for t in proposed]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert outcomes.count("ok") == 1, outcomes
    assert TeamMember.objects.filter(user=star).count() == 1
    assert Team.objects.filter(status="confirmed").count() == 1
    assert list(
        Team.objects.exclude(registration_no=None).values_list("registration_no", flat=True)
    ) == [1]

    # Two more teams, each waiting for its fourth player, confirmed at once.
    waiting = []
    for i in range(2):
        members = [make_user() for _ in range(4)]
        team = teams.propose_team(
            tournament=event,
            captain=members[0],
            name=f"Late {i}",
            members=[u.username for u in members[1:]],
            now=before,
        )
        for user in members[1:3]:
            teams.confirm_membership(team=team, user=user, now=before)
        waiting.append((team, members[3]))
    barrier = threading.Barrier(2)
    outcomes.clear()

    def fourth(team, user):
        close_old_connections()
        try:
            barrier.wait()
            teams.confirm_membership(team=team, user=user, now=before)
            outcomes.append("ok")
        finally:
            connection.close()

    threads = [threading.Thread(target=fourth, args=args) for args in waiting]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert outcomes == ["ok", "ok"]
    numbers = sorted(
        Team.objects.exclude(registration_no=None).values_list("registration_no", flat=True)
    )
    assert numbers == [1, 2, 3]
    pair_numbers = sorted(Pair.objects.values_list("registration_no", flat=True))
    assert pair_numbers == [1, 2, 3, 4, 5, 6]
