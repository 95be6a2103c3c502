"""The club's week closed by the clock exactly once, with every member's Rate (RULES 13)."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.db import close_old_connections, connection

from tests.support.club import board_in_play, play_club_board, seat_four
from tournaments.models import (
    ClubRating,
    ClubScore,
    ClubSystem,
    ClubTableStatus,
    ClubWeek,
    ClubWeekFigure,
    RoundStatus,
)
from tournaments.services import club, club_rate, club_week

pytestmark = pytest.mark.django_db


def _two_tables_one_deal(make_member, t0):
    """Two tables of new members playing the full field's first deal (IMPs)."""
    first = [make_member() for _ in range(4)]
    second = [make_member() for _ in range(4)]
    a = seat_four(first, system=ClubSystem.FULL_FIELD_IMPS, now=t0)
    b = seat_four(second, system=ClubSystem.FULL_FIELD_IMPS, now=t0)
    assert board_in_play(a).club_deal_id == board_in_play(b).club_deal_id
    play_club_board(a, seed=3, now=t0 + timedelta(minutes=8))
    play_club_board(b, seed=4, now=t0 + timedelta(minutes=9))
    return first + second, a, b


def test_the_close_rates_every_member_by_the_formula(make_member, t0):
    players, a, _b = _two_tables_one_deal(make_member, t0)
    week = ClubWeek.objects.get()
    events = club_week.close_due_weeks(now=week.ends_at + timedelta(seconds=1))
    assert len(events) == 1
    week.refresh_from_db()
    assert week.closed_at is not None
    assert week.parameters == {"fade": 0.9, "prior_weight": 30.0, "start_rate": 50.0,
                               "imp_multiplier": 1 / 15, "listed_weight": 50.0}  # fmt: skip
    # Each player: one board, four new players (R = 50, C = 30): X = clamp(0.5 + IMPs/15),
    # R' = X · ΣR · R / (R + R partner) = 100·X (EW: 1 − X); R = (0.9·30·50 + W) / 28.
    for score in ClubScore.objects.filter(user__in=players):
        ns_imps = score.points if score.seat in "NS" else -score.points
        x = min(1.0, max(0.0, 0.5 + ns_imps / 15))
        w = 100 * x if score.seat in "NS" else 100 * (1 - x)
        rating = ClubRating.objects.get(user=score.user)
        assert rating.rate == pytest.approx((0.9 * 30 * 50 + w) / (0.9 * 30 + 1))
        assert rating.carried == pytest.approx(0.9 * 30 + 1)
        assert rating.total_boards == 1
        figure = ClubWeekFigure.objects.get(week=week, user=score.user)
        assert figure.week_rate == pytest.approx(w)
        assert (figure.points, figure.boards) == (score.points, 1)
    # Everything closed: tables, sittings (their deals public now), the week's events.
    assert not a.field.tables.exclude(status=ClubTableStatus.CLOSED).exists()
    assert a.field.tournament.round_set.filter(status=RoundStatus.CLOSED).count() == 2
    # A past week recomputed from what is stored gives the same Rates.
    again = club_rate.recompute_week(week=week)
    for rating in ClubRating.objects.all():
        assert again[rating.user_id] == pytest.approx(rating.rate)
    # The next week's libraries are there; a second close finds nothing to do.
    assert ClubWeek.objects.count() == 2
    assert club_week.close_due_weeks(now=week.ends_at + timedelta(minutes=1)) == []


def test_a_close_that_fails_midway_changes_nothing_and_the_next_tick_closes(
    make_member, t0, monkeypatch
):
    _two_tables_one_deal(make_member, t0)
    week = ClubWeek.objects.get()

    def dies(*, week):
        raise RuntimeError("the clock's process died mid-close")

    real = club_rate.close_rates
    monkeypatch.setattr(club_rate, "close_rates", dies)
    with pytest.raises(RuntimeError):
        club_week.close_due_weeks(now=week.ends_at + timedelta(seconds=1))
    week.refresh_from_db()
    assert week.closed_at is None and not ClubRating.objects.exists()
    assert (
        week.fields.get(system=ClubSystem.FULL_FIELD_IMPS)
        .tables.filter(status=ClubTableStatus.PLAYING)
        .count()
        == 2
    )
    monkeypatch.setattr(club_rate, "close_rates", real)
    assert len(club_week.close_due_weeks(now=week.ends_at + timedelta(seconds=2))) == 1
    assert ClubRating.objects.count() == 8


@pytest.mark.django_db(transaction=True)
def test_two_clocks_at_once_close_the_week_once(make_member, t0):
    _two_tables_one_deal(make_member, t0)
    week = ClubWeek.objects.get()
    barrier = threading.Barrier(2)
    events: list[list[str]] = []

    def clock():
        close_old_connections()
        try:
            barrier.wait()
            events.append(club_week.close_due_weeks(now=week.ends_at + timedelta(seconds=1)))
        finally:
            connection.close()

    threads = [threading.Thread(target=clock) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(len(e) for e in events) == [0, 1]
    assert ClubWeekFigure.objects.filter(week=week).count() == 8
    assert ClubRating.objects.count() == 8


def test_after_the_close_no_card_is_played(make_member, t0):
    players, a, _b = _two_tables_one_deal(make_member, t0)
    week = ClubWeek.objects.get()
    club_week.close_due_weeks(now=week.ends_at)
    with pytest.raises(club.ClubRefused):
        club.open_table(
            user=players[0],
            system=ClubSystem.FULL_FIELD_IMPS,
            now=week.ends_at - timedelta(seconds=1),
        )


def test_a_disconnected_player_rates_0_on_that_board_and_loses_16(make_member, t0):
    from tournaments.models import BoardResult, ClubPenalty

    players, a, _b = _two_tables_one_deal(make_member, t0)
    result = BoardResult.objects.get(table=a.table)
    lost = players[1]  # East at the first table
    ClubPenalty.objects.create(
        field=a.field, club_table=a, board=result.board, user=lost, seat="E", points=-16,
        lost_at=t0, counted_at=t0,
    )  # fmt: skip
    week = ClubWeek.objects.get()
    club_week.close_due_weeks(now=week.ends_at)
    rating = ClubRating.objects.get(user=lost)
    assert rating.rate == pytest.approx(0.9 * 30 * 50 / (0.9 * 30 + 1))  # W = 0
    figure = ClubWeekFigure.objects.get(week=week, user=lost)
    assert figure.week_rate == 0
    assert figure.points == ClubScore.objects.get(result=result, user=lost).points - 16
    # The others at that table are rated on the board as usual.
    partner = ClubScore.objects.get(result=result, user=players[3])
    x = min(1.0, max(0.0, 0.5 + partner.points / 15))  # West: EW's own IMPs
    ew_x = x
    assert ClubRating.objects.get(user=players[3]).rate == pytest.approx(
        (0.9 * 30 * 50 + 100 * ew_x) / (0.9 * 30 + 1)
    )
