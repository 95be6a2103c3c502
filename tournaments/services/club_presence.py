"""Disconnection at the club (RULES 13): a seated player whose connection stays lost
longer than the grace period while a board is in play has disconnected once.

`check_connections` runs at every tick of the clock (`clock.advance`). For each person
seated at a playing club table it reads whether they have a socket open on the table
(`TablePresence`, the rows with their user: a stand-in robot's rows have none,
`presence.is_stand_in`):

- connected: their seat's `lost_at` is cleared; a robot standing in for them gives the
  seat back (the open `ClubPenalty`'s `back_at` is set: the robots' runner,
  `robots.club`, stops playing the seat at its next poll, and the person plays on from
  the same seat);
- not connected: the first tick that sees it writes `lost_at`. Once the table's board is
  in play (an action stored on it) and the connection has been lost for longer than the
  grace period (`CLUB_DISCONNECT_GRACE_SECONDS`, default 60) counted from the later of
  the two, the outage is counted: `club_scoring.penalise` (once: the penalty's unique
  key) and a robot takes the seat until they are back, finishing the board; its
  result stands for the other three.

A board that has not started (its first call not made) is not in play: a player may
take a break between boards (leaving costs nothing then, `count_leaving`).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Min
from django.utils import timezone

from ..models import (
    ClubPenalty,
    ClubSeat,
    ClubTable,
    ClubTableStatus,
    PlayAction,
    TablePresence,
)
from ..selectors import table_seats
from . import club, club_scoring

DEFAULT_GRACE_SECONDS = 60.0
# A presence row this old is a dead server process's (`selectors.console`).
PRESENCE_STALE_AFTER = timedelta(hours=6)


def grace_period() -> timedelta:
    return timedelta(seconds=float(getattr(settings, "CLUB_DISCONNECT_GRACE_SECONDS",
                                           DEFAULT_GRACE_SECONDS)))  # fmt: skip


def check_connections(*, now: datetime | None = None) -> list[str]:
    """One look at every person seated at a playing club table (see the module's
    docstring); the events, one line per outage counted and per player back."""
    now = now or timezone.now()
    seats = list(
        ClubSeat.objects.filter(
            active=True, robot=False, club_table__status=ClubTableStatus.PLAYING
        )
        .exclude(club_table__table__isnull=True)
        .select_related("club_table", "user")
    )
    if not seats:
        return []
    play_tables = {s.club_table.table_id for s in seats if s.club_table.table_id is not None}
    connected = set(
        TablePresence.objects.filter(
            table_id__in=play_tables,
            user_id__isnull=False,
            connected_at__gt=now - PRESENCE_STALE_AFTER,
        ).values_list("table_id", "user_id")
    )
    open_penalties = {
        (p.club_table_id, p.user_id): p
        for p in ClubPenalty.objects.filter(
            club_table_id__in={s.club_table_id for s in seats}, back_at__isnull=True
        )
    }
    grace = grace_period()
    events: list[str] = []
    for seat in seats:
        key = (seat.club_table_id, seat.user_id)
        if (seat.club_table.table_id, seat.user_id) in connected:
            if seat.lost_at is not None:
                ClubSeat.objects.filter(pk=seat.pk).update(lost_at=None)
            penalty = open_penalties.get(key)
            # Set once (the filter): two clocks at once give the seat back once.
            if penalty is not None and ClubPenalty.objects.filter(
                pk=penalty.pk, back_at__isnull=True
            ).update(back_at=now):
                events.append(f"club table {seat.club_table_id}: {seat.seat} is back")
            continue
        if key in open_penalties:
            continue  # counted already: a robot holds the seat until they are back
        if seat.lost_at is None:
            ClubSeat.objects.filter(pk=seat.pk, lost_at__isnull=True).update(lost_at=now)
            continue
        penalty = _count(seat=seat, grace=grace, now=now)
        if penalty is not None:
            events.append(
                f"club table {seat.club_table_id}: {penalty.seat} disconnected on board "
                f"{penalty.board_id}, a robot takes the seat"
            )
    return events


def _count(*, seat: ClubSeat, grace: timedelta, now: datetime):
    """The penalty of `seat`'s outage if it is past the grace period with the board in
    play, counted under the club table's lock (the table still playing, the person still
    seated there); else None."""
    assert seat.lost_at is not None
    if now - seat.lost_at <= grace:
        return None
    with transaction.atomic():
        club_table: ClubTable = club.lock_table(seat.club_table_id)
        if club_table.status != ClubTableStatus.PLAYING or club_table.table is None:
            return None
        if not ClubSeat.objects.filter(pk=seat.pk, active=True).exists():
            return None
        board = club.unfinished_board(club_table.table)
        if board is None:
            return None
        started = PlayAction.objects.filter(table=club_table.table, board=board).aggregate(
            at=Min("stored_at")
        )["at"]
        if started is None or now - max(seat.lost_at, started) <= grace:
            return None  # the board not begun, or begun within the grace period
        where = {user: s for s, user in table_seats.table_seats(club_table.table).items()}
        return club_scoring.penalise(
            club_table=club_table,
            board=board,
            seat=where.get(seat.user_id, seat.seat),
            user=seat.user,
            lost_at=seat.lost_at,
            now=now,
        )


__all__ = ["check_connections", "grace_period"]
