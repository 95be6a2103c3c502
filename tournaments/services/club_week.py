"""The club's week closed by the clock, exactly once (RULES 13).

At a week's end (Monday 00:00 in the site's time zone) the clock's tick closes it in one
transaction under the week's row lock: its tables close, its sittings' rounds close (so
its deals and their results become everyone's: the library is gone), its events finish,
and the next week's libraries are drawn. The full-field scores are final then: no
result can arrive after the week's end (the sittings' bell is the week's end). A
second clock, or a tick after a restart mid-close, finds `closed_at` set (or the row
locked: it skips it) and does nothing.
"""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.utils import timezone

from ..models import (
    ClubSeat,
    ClubTable,
    ClubTableStatus,
    ClubWaiting,
    ClubWeek,
    Round,
    RoundStatus,
    Tournament,
    TournamentStatus,
)
from . import club, club_rate


def close_due_weeks(*, now: datetime | None = None) -> list[str]:
    """Close every week that has ended and is not closed; the events, one line a week."""
    now = now or timezone.now()
    events: list[str] = []
    for week_id in ClubWeek.objects.filter(ends_at__lte=now, closed_at__isnull=True).values_list(
        "pk", flat=True
    ):
        with transaction.atomic(durable=True):
            week = (
                ClubWeek.objects.select_for_update(skip_locked=True)
                .filter(pk=week_id, closed_at__isnull=True)
                .first()
            )
            if week is None:
                continue  # another clock holds it, or closed it
            _close(week=week, now=now)
        events.append(f"club week {timezone.localtime(week.starts_at):%Y-%m-%d} closed")
    if events:
        club.current_week(now=now)  # the new week's libraries, drawn now
    return events


def _close(*, week: ClubWeek, now: datetime) -> None:
    tables = ClubTable.objects.filter(field__week=week).exclude(status=ClubTableStatus.CLOSED)
    ClubSeat.objects.filter(club_table__in=tables, active=True).update(active=False)
    tables.update(status=ClubTableStatus.CLOSED, closed_at=now)
    ClubWaiting.objects.filter(field__week=week).delete()
    tournaments = Tournament.objects.filter(club_field__week=week)
    Round.objects.filter(tournament__in=tournaments).exclude(status=RoundStatus.CLOSED).update(
        status=RoundStatus.CLOSED, closed_at=now
    )
    tournaments.update(status=TournamentStatus.FINISHED, finished_at=now)
    # Every member's Rate from the week's boards (RULES 13), in the same transaction: a
    # close is all or nothing, so a clock that dies mid-close leaves the week to redo.
    club_rate.close_rates(week=week)
    week.closed_at = now
    week.save(update_fields=["closed_at"])
