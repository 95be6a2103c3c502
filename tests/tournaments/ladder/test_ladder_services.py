"""The ladder as a running competition (RULES 11), on the real PostgreSQL and under the
clock (`clock.advance` runs the deadlines), with time-machine: challenge, accept, the
result and the position change, forfeits by the accept and by the play deadline, the
history rows, refusals that change nothing, and racing deadline runs closing each
challenge exactly once."""

from __future__ import annotations

import threading
from datetime import timedelta
from decimal import Decimal

import pytest
import time_machine
from django.db import connection

from tests.tournaments.ladder.conftest import by_position, team
from tournaments.errors import NotAllowed, PermissionRequired
from tournaments.models import (
    Ladder,
    LadderChallenge,
    LadderHistory,
    LadderMember,
    LadderTeam,
)
from tournaments.services import ladder as services
from tournaments.services.clock import advance
from tournaments.services.ladder import LadderError

pytestmark = pytest.mark.django_db

DAY = timedelta(days=1)
TOP_FIVE = ["Team 1", "Team 2", "Team 3", "Team 4", "Team 5"]


def snapshot(ladder) -> dict:
    return {
        "teams": list(
            LadderTeam.objects.filter(ladder=ladder)
            .order_by("id")
            .values_list("id", "position", "left_at")
        ),
        "challenges": list(
            LadderChallenge.objects.filter(ladder=ladder)
            .order_by("id")
            .values_list("id", "state", "accepted_at", "play_by", "challenger_vp", "decided_at")
        ),
        "history": LadderHistory.objects.filter(ladder=ladder).count(),
        "members": LadderMember.objects.filter(ladder=ladder, left_at__isnull=True).count(),
    }


def kinds(ladder, since: int = 0) -> list[tuple]:
    return list(
        LadderHistory.objects.filter(ladder=ladder, id__gt=since)
        .order_by("id")
        .values_list("kind", "team__name", "before", "after")
    )


def last_id(ladder) -> int:
    return (
        LadderHistory.objects.filter(ladder=ladder)
        .order_by("-id")
        .values_list("id", flat=True)
        .first()
        or 0
    )


def test_teams_enter_at_the_bottom_with_their_history(make_ladder):
    ladder = make_ladder(5)
    assert by_position(ladder) == TOP_FIVE
    assert kinds(ladder) == [("entered", f"Team {i}", None, i) for i in range(1, 6)]
    assert LadderMember.objects.filter(ladder=ladder).count() == 20


def test_challenge_accept_and_win_moves_the_challenger_up(make_ladder, organiser, t0):
    ladder = make_ladder(5)
    t4, t2 = team(ladder, 4), team(ladder, 2)
    with time_machine.travel(t0 + DAY, tick=False):
        made = services.challenge(challenger=t4, challenged=t2, by=t4.captain)
    assert made.state == "open" and made.accept_by == t0 + 5 * DAY
    with time_machine.travel(t0 + 2 * DAY, tick=False):
        made = services.accept(challenge=made, by=t2.captain)
    assert made.state == "accepted" and made.play_by == t0 + 9 * DAY
    mark = last_id(ladder)
    with time_machine.travel(t0 + 3 * DAY, tick=False):
        done = services.record_result(challenge=made, challenger_vp="13.78", by=organiser)
    assert done.state == "played" and done.challenger_vp == Decimal("13.78")
    assert done.decided_at == t0 + 3 * DAY
    assert by_position(ladder) == ["Team 1", "Team 4", "Team 2", "Team 3", "Team 5"]
    assert kinds(ladder, mark) == [
        ("played", "Team 4", 4, 2),
        ("moved", "Team 4", 4, 2),
        ("moved", "Team 2", 2, 3),
        ("moved", "Team 3", 3, 4),
    ]
    played = LadderHistory.objects.get(ladder=ladder, kind="played")
    assert played.opponent == t2 and played.challenge == done
    assert (played.opponent_before, played.opponent_after) == (2, 3)


def test_a_lost_or_drawn_match_moves_nobody(make_ladder, organiser, t0):
    ladder = make_ladder(5)
    t5, t3 = team(ladder, 5), team(ladder, 3)
    with time_machine.travel(t0 + DAY, tick=False):
        made = services.challenge(challenger=t5, challenged=t3, by=t5.captain)
        services.accept(challenge=made, by=t3.captain)
        services.record_result(challenge=made, challenger_vp=10, by=organiser)
    assert by_position(ladder) == TOP_FIVE
    # the rematch interval: not again within 14 days, fine after
    with time_machine.travel(t0 + 10 * DAY, tick=False), pytest.raises(LadderError, match="14"):
        services.challenge(challenger=t5, challenged=t3, by=t5.captain)
    with time_machine.travel(t0 + 16 * DAY, tick=False):
        services.challenge(challenger=t5, challenged=t3, by=t5.captain)


def test_the_clock_forfeits_an_unaccepted_challenge_at_the_accept_deadline(make_ladder, t0):
    ladder = make_ladder(5)
    t5, t3 = team(ladder, 5), team(ladder, 3)
    with time_machine.travel(t0 + DAY, tick=False):
        made = services.challenge(challenger=t5, challenged=t3, by=t5.captain)
    deadline = made.accept_by
    with time_machine.travel(deadline - timedelta(seconds=1), tick=False):
        advance(now=deadline - timedelta(seconds=1))
    assert LadderChallenge.objects.get(pk=made.pk).state == "open"
    mark = last_id(ladder)
    with time_machine.travel(deadline, tick=False):
        advance(now=deadline)
        advance(now=deadline)  # a second tick changes nothing
    made.refresh_from_db()
    assert made.state == "forfeited" and made.forfeited_by == t3 and made.decided_at == deadline
    assert by_position(ladder) == ["Team 1", "Team 2", "Team 5", "Team 3", "Team 4"]
    assert kinds(ladder, mark) == [
        ("forfeited", "Team 5", 5, 3),
        ("moved", "Team 5", 5, 3),
        ("moved", "Team 3", 3, 4),
        ("moved", "Team 4", 4, 5),
    ]
    # too late to accept now
    with time_machine.travel(deadline + DAY, tick=False), pytest.raises(LadderError):
        services.accept(challenge=made, by=t3.captain)


def test_the_clock_forfeits_the_side_that_did_not_show_at_the_play_deadline(
    make_ladder, organiser, t0
):
    ladder = make_ladder(5)
    t4, t3, t2, t1 = (team(ladder, n) for n in (4, 3, 2, 1))
    with time_machine.travel(t0 + DAY, tick=False):
        a = services.challenge(challenger=t4, challenged=t3, by=t4.captain)
        b = services.challenge(challenger=t2, challenged=t1, by=t2.captain)
        services.accept(challenge=a, by=t3.captain)
        services.accept(challenge=b, by=t1.captain)
        # only the challenged team 3 showed: the challenger forfeits (nothing moves);
        # in the other both showed and no result came: it lapses
        services.record_showed(challenge=a, team=t3, by=organiser)
        services.record_showed(challenge=b, team=t1, by=organiser)
        services.record_showed(challenge=b, team=t2, by=organiser)
    a.refresh_from_db()
    with time_machine.travel(a.play_by, tick=False):
        advance(now=a.play_by)
    a.refresh_from_db()
    b.refresh_from_db()
    assert a.state == "forfeited" and a.forfeited_by == t4
    assert b.state == "lapsed" and b.forfeited_by is None
    assert by_position(ladder) == TOP_FIVE
    # a lapsed challenge is no meeting; a forfeit is one
    with time_machine.travel(a.play_by + DAY, tick=False):
        services.challenge(challenger=t2, challenged=t1, by=t2.captain)
        with pytest.raises(LadderError):
            services.challenge(challenger=t4, challenged=t3, by=t4.captain)


def test_decline_forfeit_and_leave(make_ladder, organiser, t0):
    ladder = make_ladder(5)
    t5, t4, t3, t2 = (team(ladder, n) for n in (5, 4, 3, 2))
    with time_machine.travel(t0 + DAY, tick=False):
        a = services.challenge(challenger=t5, challenged=t4, by=t5.captain)
        a = services.decline(challenge=a, by=t4.captain)
        assert a.state == "declined" and a.forfeited_by == t4
        assert by_position(ladder) == ["Team 1", "Team 2", "Team 3", "Team 5", "Team 4"]
        b = services.challenge(challenger=t3, challenged=t2, by=t3.captain)
        b = services.forfeit(challenge=b, team=t3, by=t3.captain)  # the challenger concedes
        assert b.state == "forfeited" and by_position(ladder)[1:3] == ["Team 2", "Team 3"]
        c = services.challenge(challenger=t4, challenged=t3, by=t4.captain)
        services.leave(team=t3, by=t3.captain)
    c.refresh_from_db()
    assert c.state == "voided"
    assert by_position(ladder) == ["Team 1", "Team 2", "Team 5", "Team 4"]
    t3.refresh_from_db()
    assert t3.position is None and t3.left_at == t0 + DAY
    # its players are free to enter another team
    assert not LadderMember.objects.filter(team=t3, left_at__isnull=True).exists()


def test_refusals_change_nothing(make_ladder, organiser, make_user, t0):
    ladder = make_ladder(6, challenge_range=2)
    t6, t5, t3, t1 = (team(ladder, n) for n in (6, 5, 3, 1))
    stranger = make_user("stranger")
    before = snapshot(ladder)
    with time_machine.travel(t0 + DAY, tick=False):
        with pytest.raises(LadderError, match="at most 2"):
            services.challenge(challenger=t6, challenged=t3, by=t6.captain)
        with pytest.raises(LadderError):
            services.challenge(challenger=t3, challenged=t5, by=t3.captain)  # below
        with pytest.raises(NotAllowed):
            services.challenge(challenger=t6, challenged=t5, by=stranger)
        with pytest.raises(LadderError, match="already plays"):
            services.enter_team(
                ladder=ladder,
                captain=stranger,
                name="Pirates",
                members=[t1.captain, make_user(), make_user()],
            )
        with pytest.raises(LadderError, match="3 to 5"):
            services.enter_team(ladder=ladder, captain=stranger, name="Few", members=[])
        with pytest.raises(PermissionRequired):
            services.create_ladder(name="Another", by=stranger)
        with pytest.raises(NotAllowed):
            services.leave(team=t1, by=stranger)
    assert snapshot(ladder) == before
    with time_machine.travel(t0 + DAY, tick=False):
        made = services.challenge(challenger=t6, challenged=t5, by=t6.captain)
    before = snapshot(ladder)
    with time_machine.travel(t0 + 2 * DAY, tick=False):
        with pytest.raises(NotAllowed):
            services.accept(challenge=made, by=t6.captain)  # the challenger's captain
        with pytest.raises(LadderError, match="not accepted"):
            services.record_result(challenge=made, challenger_vp=15, by=organiser)
        with pytest.raises(PermissionRequired):
            services.record_result(challenge=made, challenger_vp=15, by=t6.captain)
        with pytest.raises(LadderError, match="already in an open challenge"):
            services.challenge(challenger=t6, challenged=team(ladder, 4), by=t6.captain)
        services.accept(challenge=made, by=t5.captain)
        before = snapshot(ladder)
        with pytest.raises(LadderError, match="0 to 20"):
            services.record_result(challenge=made, challenger_vp=21, by=organiser)
        with pytest.raises(LadderError):
            services.record_result(challenge=made, challenger_vp="abc", by=organiser)
        with pytest.raises(LadderError):
            services.decline(challenge=made, by=t5.captain)  # accepted: played or forfeited
    assert snapshot(ladder) == before
    with (
        time_machine.travel(made.accept_by + 10 * DAY, tick=False),
        pytest.raises(LadderError, match="time to play"),
    ):
        services.record_result(challenge=made, challenger_vp=15, by=organiser)
    assert snapshot(ladder) == before


def test_settings_are_checked_by_the_core(organiser):
    with pytest.raises(LadderError, match="at least 1"):
        services.create_ladder(name="Bad", by=organiser, challenge_range=0)
    with pytest.raises(LadderError, match="64"):
        services.create_ladder(name="Bad", by=organiser, boards_per_match=65)
    assert not Ladder.objects.filter(name="Bad").exists()


@pytest.mark.django_db(transaction=True)
def test_racing_deadline_runs_close_each_challenge_once(make_ladder, t0):
    ladder = make_ladder(8)
    with time_machine.travel(t0 + DAY, tick=False):
        for low, high in ((8, 6), (5, 4), (3, 1)):
            challenger = team(ladder, low)
            services.challenge(
                challenger=challenger, challenged=team(ladder, high), by=challenger.captain
            )
    deadline = t0 + 5 * DAY
    workers = 4
    barrier = threading.Barrier(workers)
    outcomes: list = [None] * workers

    def run(i: int) -> None:
        try:
            barrier.wait(timeout=30)
            outcomes[i] = services.run_deadlines(now=deadline)
        except BaseException as error:
            outcomes[i] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
        assert not thread.is_alive()
    assert not any(isinstance(o, BaseException) for o in outcomes), outcomes
    assert sum(len(o) for o in outcomes) == 1  # one worker did the work
    forfeits = LadderHistory.objects.filter(ladder=ladder, kind="forfeited")
    assert forfeits.count() == 3
    assert LadderChallenge.objects.filter(ladder=ladder, state="forfeited").count() == 3
    assert by_position(ladder) == [f"Team {n}" for n in (3, 1, 2, 5, 4, 8, 6, 7)]
    positions = list(
        LadderTeam.objects.filter(ladder=ladder)
        .order_by("position")
        .values_list("position", flat=True)
    )
    assert positions == list(range(1, 9))
