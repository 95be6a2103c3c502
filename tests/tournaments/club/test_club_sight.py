"""Who sees a club table's deals (RULES 13, docs/SECURITY.md): a library deal is still given
to the next tables, and a director may sit down at the club too, so a director sees a club
board only as anyone does — seated at its table, or once the week has closed. The table,
the console, the admin lists and broadcasts all ask `visibility`."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib import admin
from django.test import RequestFactory

from tests.support.club import board_in_play, play_club_board, seat_four
from tournaments import visibility
from tournaments.errors import NotAllowed, ServiceError
from tournaments.models import Board, BoardResult, ClubSystem, Tournament
from tournaments.selectors import console as console_reads
from tournaments.services import broadcasts, club_week, table_play

pytestmark = pytest.mark.django_db


@pytest.fixture
def playing(make_member, t0):
    """A full-field table of four members that has played one board and is on its second."""
    players = [make_member() for _ in range(4)]
    table = seat_four(players, system=ClubSystem.FULL_FIELD_IMPS, now=t0)
    played = board_in_play(table)
    play_club_board(table, seed=3, now=t0 + timedelta(minutes=5))
    table.refresh_from_db()
    return table, played, board_in_play(table)


def test_a_director_is_refused_a_club_tables_hands_and_kibitzes_the_progress_only(
    playing, director
):
    table, _played, current = playing
    assert visibility.watches_live(director)  # at an event's table they would see all
    with pytest.raises(NotAllowed):
        table_play.board_view(table=table.table, board_number=current.number, user=director)
    view = table_play.board_view(
        table=table.table, board_number=current.number, user=director, kibitz=True
    )
    assert view["hands"] == {} and view["auction"] == [] and view["progress"] is not None


def test_the_console_shows_a_director_neither_a_club_boards_deal_nor_its_result(playing, director):
    table, played, _current = playing
    result, sees_result, sees_deal = console_reads.director_result(
        table=table.table, board=played, user=director
    )
    assert (result, sees_result, sees_deal) == (None, False, False)


def _admin_rows(model, user):
    request = RequestFactory().get("/admin/")
    request.user = user
    return admin.site._registry[model].get_queryset(request)


def test_the_admin_lists_a_director_no_library_board_until_the_week_closes(playing, director):
    table, played, _current = playing
    assert not _admin_rows(Board, director).filter(pk=played.pk).exists()
    assert not _admin_rows(BoardResult, director).filter(board=played).exists()
    week = table.field.week
    club_week.close_due_weeks(now=week.ends_at + timedelta(seconds=1))
    assert _admin_rows(Board, director).filter(pk=played.pk).exists()
    assert _admin_rows(BoardResult, director).filter(board=played).exists()


def test_after_the_week_closes_everyone_sees_the_club_boards(playing, director, make_user):
    table, played, _current = playing
    week = table.field.week
    club_week.close_due_weeks(now=week.ends_at + timedelta(seconds=1))
    _result, sees_result, sees_deal = console_reads.director_result(
        table=table.table, board=Board.objects.get(pk=played.pk), user=director
    )
    assert sees_result and sees_deal
    view = table_play.board_view(
        table=table.table, board_number=played.number, user=make_user(), kibitz=True
    )
    assert len(view["hands"]) == 4


def test_a_club_table_cannot_be_broadcast(playing, director, t0):
    table, _played, _current = playing
    tournament = Tournament.objects.get(pk=table.field.tournament_id)
    with pytest.raises(ServiceError, match="not broadcast"):
        broadcasts.start_broadcast(
            by=director, tournament=tournament, table=table.table, now=t0 + timedelta(minutes=6)
        )


def test_a_kibitzer_never_sees_a_club_board_live_even_if_the_event_is_set_to_allow_it(
    playing, make_user
):
    table, _played, current = playing
    # The club's events are made with live kibitzing off; were it switched on (the admin),
    # the library deal must still stay hidden.
    Tournament.objects.filter(pk=table.field.tournament_id).update(kibitz_live=True)
    view = table_play.board_view(
        table=table.table, board_number=current.number, user=make_user(), kibitz=True
    )
    assert view["hands"] == {} and view["auction"] == []
