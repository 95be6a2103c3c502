"""The round-state rules every writer asks: has a round's bell rung, and when (RULES 3,
the table of what a pause does). One home, so entry, play, confirmations, seat swaps,
withdrawals and the organiser's extend cannot disagree about a pause.

The bell of an open round rings at its `ends_at`. A pause stops the clock: while the
tournament is paused the bell has rung only if it rang before the pause began
(`ends_at <= paused_at`); resuming moves a bell still ahead by the pause's length
(`services.clock._resume`), and leaves one that had rung where it was. A closed round's
bell has rung, at its `ends_at` or earlier if the director closed it early.
"""

from __future__ import annotations

from datetime import datetime

from .models import RoundStatus


def bell_rung(*, status: str, ends_at: datetime, paused_at: datetime | None, now: datetime) -> bool:
    """Whether the round's bell has rung at `now` (`paused_at`: when the tournament was
    paused, None while it runs). Once it has, nothing of the round is entered, played,
    confirmed, disputed, swapped or forfeited but by the director."""
    if status == RoundStatus.CLOSED:
        return True
    return ends_at <= (paused_at if paused_at is not None else now)


def bell_time(*, status: str, ends_at: datetime, closed_at: datetime | None) -> datetime:
    """When the bell rang (or will): a round the director closed early, at its close."""
    if status == RoundStatus.CLOSED and closed_at is not None:
        return min(closed_at, ends_at)
    return ends_at
