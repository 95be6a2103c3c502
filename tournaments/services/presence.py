"""Who is connected at a table played online, as every server process sees it.

The socket consumer calls `connected` when a seated player's socket has its snapshot and
`disconnected` when it closes: one row per open socket (`TablePresence`, keyed by the
socket's channel name), so a player with two devices, or a socket per board, stays
connected until the last one closes, whichever process holds it. The director's console
reads the rows (`selectors.console.online_progress`).

A server process that dies cannot delete its rows: the console does not count a row
older than `selectors.console.PRESENCE_STALE_AFTER`.

A robot standing in for a player whose connection was lost (the club, RULES 13) plays
with the player's credential but says what it is (`STAND_IN_HEADER`): its sockets are
rows with no user, the seat taken but not by its player, so the player's own return is
seen (`club_presence`).
"""

from __future__ import annotations

from datetime import datetime

from django.db import IntegrityError, transaction
from django.utils import timezone

from ..models import TablePresence

SEATS = ("N", "E", "S", "W")
# The request header of a stand-in robot's socket (`robots.client.STAND_IN_HEADER`).
STAND_IN_HEADER = b"x-bridge-robot"


def is_stand_in(headers) -> bool:
    """Whether a socket's handshake headers (ASGI's (name, value) byte pairs) are a
    stand-in robot's."""
    return any(name.lower() == STAND_IN_HEADER for name, _value in headers or ())


def connected(
    *,
    channel: str,
    table_id: int,
    seat: str | None,
    user_id: int | None,
    now: datetime | None = None,
) -> None:
    """A socket of the player in `seat` at `table_id` is open. Watchers (no seat) are
    not counted: the console shows the players."""
    if seat not in SEATS or not channel:
        return
    now = now or timezone.now()
    try:
        with transaction.atomic():
            TablePresence.objects.update_or_create(
                channel=channel[:200],
                defaults={"table_id": table_id, "seat": seat, "user_id": user_id,
                          "connected_at": now},
            )  # fmt: skip
    except IntegrityError:
        # The table went (a test's database reset, a deleted tournament): nothing to show.
        pass


def disconnected(*, channel: str) -> None:
    """The socket `channel` closed (or was refused): it no longer counts."""
    if channel:
        TablePresence.objects.filter(channel=channel[:200]).delete()
