"""Extra time for one table (RULES 3) and who is connected at a table: the services.

`table_director.give_extra_time` moves one table's own bell; its players play on past
the round's bell while the other tables stop there; the clock closes the round only when
that table's time is up or it has finished; every refusal changes nothing.
"""

from __future__ import annotations

import math
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from tests.support.online_ws import open_online_round, seated_users
from tournaments.errors import ClockError, PermissionRequired, PlayRefused
from tournaments.models import (
    BoardResult,
    Round,
    RoundStatus,
    Table,
    TableDirection,
    TablePresence,
    Tournament,
)
from tournaments.selectors import console as console_selectors
from tournaments.selectors import replays
from tournaments.services import clock, presence, table_director, table_play

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff_without_powers(make_user):
    user = make_user("helper")
    user.is_staff = True
    user.save(update_fields=["is_staff"])
    return user


@pytest.fixture
def online(make_tournament, register_pairs):
    return open_online_round(make_tournament, register_pairs, boards=2, rounds=2)


def _pass(table: Table, seat: str, seq: int, now=None):
    users = seated_users(table)
    return table_play.act(
        table=table, board_number=1, user=users[seat],
        action={"seq": seq, "type": "call", "call": "P"}, now=now,
    )  # fmt: skip


def _unchanged(table: Table) -> None:
    table.refresh_from_db()
    assert table.ends_at is None
    assert not TableDirection.objects.filter(table=table).exists()


def test_extra_time_moves_one_tables_bell_and_is_recorded(online, director):
    first, (one, two) = online
    given = table_director.give_extra_time(
        table=one, minutes=7, by=director, reason="N's connection dropped"
    )
    assert given.ends_at == first.ends_at + timedelta(minutes=7)
    act = TableDirection.objects.get(table=one)
    assert (act.kind, act.by, act.reason) == ("extra_time", director, "N's connection dropped")
    assert act.after["minutes"] == 7 and act.before["ends_at"] is None
    # Given again: from the table's own bell, and recorded again.
    again = table_director.give_extra_time(table=one, minutes=3, by=director)
    assert again.ends_at == first.ends_at + timedelta(minutes=10)
    assert TableDirection.objects.filter(table=one).count() == 2
    two.refresh_from_db()
    assert two.ends_at is None


@pytest.mark.parametrize("minutes", [0, -5, 61, math.nan, math.inf, True, "5"])
def test_extra_time_refuses_minutes_outside_the_range(online, director, minutes):
    _first, (one, _two) = online
    with pytest.raises(ClockError):
        table_director.give_extra_time(table=one, minutes=minutes, by=director)
    _unchanged(one)


def test_extra_time_needs_the_clock_power_not_staff(online, staff_without_powers):
    _first, (one, _two) = online
    with pytest.raises(PermissionRequired):
        table_director.give_extra_time(table=one, minutes=5, by=staff_without_powers)
    _unchanged(one)


def test_extra_time_refused_for_a_played_elsewhere_event(online, director):
    first, (one, _two) = online
    Tournament.objects.filter(pk=first.tournament_id).update(play="entered")
    with pytest.raises(ClockError, match="played online"):
        table_director.give_extra_time(table=one, minutes=5, by=director)
    _unchanged(one)


def test_extra_time_refused_after_the_tables_bell(online, director):
    first, (one, _two) = online
    with pytest.raises(ClockError, match="bell has rung"):
        table_director.give_extra_time(
            table=one, minutes=5, by=director, now=first.ends_at + timedelta(seconds=1)
        )
    _unchanged(one)


def test_extra_time_refused_in_a_closed_round(online, director):
    first, (one, _two) = online
    clock.close_round_now(tournament=first.tournament, by=director, round_number=1)
    with pytest.raises(ClockError, match="not in play"):
        table_director.give_extra_time(table=one, minutes=5, by=director)
    _unchanged(one)


def test_extra_time_refused_for_a_table_that_finished(online, director):
    _first, (one, _two) = online
    from tournaments.services.results import director_set_result

    for number in (1, 2):
        director_set_result(
            table=one, board_number=number, by=director,
            ns_adjustment="A", ew_adjustment="A", reason="test",
        )  # fmt: skip
    with pytest.raises(ClockError, match="finished every board"):
        table_director.give_extra_time(table=one, minutes=5, by=director)
    _unchanged(one)


def test_the_table_with_extra_time_plays_on_and_the_round_waits_for_it(online, director):
    first, (one, two) = online
    table_director.give_extra_time(table=one, minutes=10, by=director)
    after_bell = first.ends_at + timedelta(minutes=1)
    # The other table stopped at the round's bell; this one plays on.
    with pytest.raises(PlayRefused, match="closed at"):
        _pass(two, "N", 1, now=after_bell)
    view = _pass(one, "N", 1, now=after_bell)
    assert view["next_seq"] == 2
    # The clock does not close the round around it ...
    clock.advance(now=after_bell)
    first.refresh_from_db()
    assert first.status == RoundStatus.OPEN
    # ... until its own bell has rung: then every unplayed board is cut off.
    own_bell = first.ends_at + timedelta(minutes=10)
    with pytest.raises(PlayRefused, match="closed at"):
        _pass(one, "E", 2, now=own_bell)
    clock.advance(now=own_bell + timedelta(seconds=1))
    first.refresh_from_db()
    assert first.status == RoundStatus.CLOSED
    assert BoardResult.objects.filter(table__round=first).count() == 4
    second = Round.objects.get(tournament=first.tournament, number=2)
    # The next round starts from the last bell (gap 0), not from the round's.
    assert second.starts_at == own_bell


def test_a_table_that_finishes_within_its_extra_time_lets_the_round_close(online, director):
    first, (one, _two) = online
    from tournaments.services.results import director_set_result

    table_director.give_extra_time(table=one, minutes=10, by=director)
    for number in (1, 2):
        director_set_result(
            table=one, board_number=number, by=director,
            ns_adjustment="A", ew_adjustment="A", reason="test",
        )  # fmt: skip
    clock.advance(now=first.ends_at + timedelta(minutes=1))
    first.refresh_from_db()
    assert first.status == RoundStatus.CLOSED


def test_a_pause_moves_the_tables_own_bell_as_the_rounds(online, director):
    first, (one, _two) = online
    table_director.give_extra_time(table=one, minutes=10, by=director)
    own = first.ends_at + timedelta(minutes=10)
    paused_at = timezone.now()
    clock.pause(tournament=first.tournament, by=director, now=paused_at)
    clock.resume(tournament=first.tournament, by=director, now=paused_at + timedelta(minutes=4))
    one.refresh_from_db()
    assert one.ends_at == own + timedelta(minutes=4)


def test_presence_counts_a_seat_until_its_last_socket_closes(online):
    first, (one, two) = online
    presence.connected(channel="a", table_id=one.pk, seat="N", user_id=None)
    presence.connected(channel="b", table_id=one.pk, seat="N", user_id=None)
    presence.connected(channel="c", table_id=one.pk, seat=None, user_id=None)  # a watcher
    presence.connected(channel="d", table_id=two.pk, seat="E", user_id=None)
    now = timezone.now()
    assert set(console_selectors.connections(table_ids=[one.pk], now=now)[one.pk]) == {"N"}
    presence.disconnected(channel="a")
    assert "N" in console_selectors.connections(table_ids=[one.pk], now=now)[one.pk]
    presence.disconnected(channel="b")
    assert one.pk not in console_selectors.connections(table_ids=[one.pk, two.pk], now=now)
    # A row left by a server process that died is not counted for ever.
    TablePresence.objects.filter(channel="d").update(connected_at=now - timedelta(hours=7))
    assert console_selectors.connections(table_ids=[two.pk], now=now) == {}


def test_online_progress_says_board_turn_idle_and_who_is_connected(online, director):
    first, (one, two) = online
    start = first.starts_at
    _pass(one, "N", 1, now=start + timedelta(seconds=5))
    presence.connected(channel="x", table_id=one.pk, seat="E", user_id=None)
    progress = console_selectors.round_progress(tournament=first.tournament)
    now = start + timedelta(seconds=65)
    live = console_selectors.online_progress(
        round=first, tables=[one.pk, two.pk], unplayed={one.pk: [1, 2], two.pk: [1, 2]}, now=now
    )
    assert (live[one.pk].board, live[one.pk].phase, live[one.pk].turn) == (1, "auction", "E")
    assert live[one.pk].idle_seconds == 60
    assert set(live[one.pk].connected) == {"E"}
    assert live[two.pk].turn == "N" and live[two.pk].connected == {}
    assert set(progress.live) == {one.pk, two.pk}


def test_online_progress_reads_the_boards_in_play_in_one_query_whatever_the_tables(
    online, director, django_assert_num_queries
):
    """A process that keeps none of the boards (a web process polled by the console) reads
    every table's actions at once, not one query per table."""
    first, (one, two) = online
    start = first.starts_at
    _pass(one, "N", 1, now=start + timedelta(seconds=5))
    _pass(two, "N", 1, now=start + timedelta(seconds=6))
    _pass(two, "E", 2, now=start + timedelta(seconds=7))
    unplayed = {one.pk: [1, 2], two.pk: [1, 2]}
    replays.forget_all()
    with django_assert_num_queries(6):
        live = console_selectors.online_progress(
            round=first, tables=[one.pk, two.pk], unplayed=unplayed, now=start
        )
    assert (live[one.pk].turn, live[two.pk].turn) == ("E", "S")
    with django_assert_num_queries(5):  # all kept now: nothing more to read
        console_selectors.online_progress(
            round=first, tables=[one.pk, two.pk], unplayed=unplayed, now=start
        )


def test_a_reason_with_a_control_or_reordering_character_is_refused_and_changes_nothing(
    online, director
):
    _first, (one, _two) = online
    for reason in ("late\x07", "4\u2660 \u202enatural"):
        with pytest.raises(ClockError, match="may not contain"):
            table_director.give_extra_time(table=one, minutes=3, by=director, reason=reason)
        with pytest.raises(ClockError, match="may not contain"):
            table_director.seat_robot(table=one, seat="S", by=director, reason=reason)
    one.refresh_from_db()
    assert one.ends_at is None
    assert not TableDirection.objects.filter(table=one).exists()


def test_a_robot_takes_an_absent_players_seat_and_is_recorded(online, director):
    first, (one, _two) = online
    act = table_director.seat_robot(table=one, seat="S", by=director, reason="S has gone")
    assert (act.kind, act.seat, act.by, act.reason) == ("robot", "S", director, "S has gone")
    assert act.before == {"player": seated_users(one)["S"].pk}


def _no_robot(table: Table) -> None:
    assert not TableDirection.objects.filter(table=table, kind="robot").exists()


@pytest.mark.parametrize("seat", ["", "X", "NS", None])
def test_a_robot_refused_for_a_seat_that_is_not_one(online, director, seat):
    _first, (one, _two) = online
    with pytest.raises(ClockError, match="N, E, S or W"):
        table_director.seat_robot(table=one, seat=seat, by=director)
    _no_robot(one)


def test_a_robot_refused_for_a_connected_player_and_a_seat_it_holds(online, director):
    _first, (one, _two) = online
    presence.connected(channel="n1", table_id=one.pk, seat="N", user_id=None)
    with pytest.raises(ClockError, match="is connected"):
        table_director.seat_robot(table=one, seat="N", by=director)
    _no_robot(one)
    table_director.seat_robot(table=one, seat="W", by=director)
    with pytest.raises(ClockError, match="already holds"):
        table_director.seat_robot(table=one, seat="W", by=director)
    assert TableDirection.objects.filter(table=one, kind="robot").count() == 1


def test_a_robot_needs_the_clock_power_and_a_table_in_play(online, director, staff_without_powers):
    first, (one, _two) = online
    with pytest.raises(PermissionRequired):
        table_director.seat_robot(table=one, seat="N", by=staff_without_powers)
    with pytest.raises(ClockError, match="bell has rung"):
        table_director.seat_robot(
            table=one, seat="N", by=director, now=first.ends_at + timedelta(seconds=1)
        )
    Tournament.objects.filter(pk=first.tournament_id).update(play="entered")
    with pytest.raises(ClockError, match="only at tables played online"):
        table_director.seat_robot(table=one, seat="N", by=director)
    _no_robot(one)


@pytest.mark.django_db(transaction=True)  # open_seats closes an old connection
def test_the_robots_runner_plays_a_directed_seat_whoever_logged_in(online, director):
    from tournaments.robots.runner import RobotTokens, open_seats

    first, (one, _two) = online
    users = seated_users(one)
    # Every player logged in just now: robots take no seat of theirs ...
    get_user_model().objects.filter(pk__in=[u.pk for u in users.values()]).update(
        last_login=timezone.now()
    )
    since = timezone.now() - timedelta(minutes=1)

    def seats(names=()):
        found = open_seats(tournament_ids=None, since=since, tokens=RobotTokens(),
                           heuristic=True, plan_cache={}, names=names)  # fmt: skip
        return {(s.job.table_id, s.job.seat) for s in found if s.job.table_id == one.pk}

    assert seats() == set()
    # ... but the seat the director gave a robot, even for the demo's runner (by name).
    table_director.seat_robot(table=one, seat="E", by=director)
    assert seats() == {(one.pk, "E")}
    assert seats(names=("Some other event",)) == {(one.pk, "E")}
