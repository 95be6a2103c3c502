"""The round-state rules every writer asks: has a round's bell rung, and when (RULES 3,
the table of what a pause does); has the tournament started. One home, so entry, play,
confirmations, seat swaps, withdrawals, late entries, the locked settings and the
organiser's extend cannot disagree about a pause or a start.

The bell of an open round rings at its `ends_at`. A pause stops the clock: while the
tournament is paused the bell has rung only if it rang before the pause began
(`ends_at <= paused_at`); resuming moves a bell still ahead by the pause's length
(`services.clock._resume`), and leaves one that had rung where it was. A closed round's
bell has rung, at its `ends_at` or earlier if the director closed it early.
"""

from __future__ import annotations

from datetime import datetime

from .models import RoundStatus, TournamentStatus


def bell_rung(
    *,
    status: str,
    ends_at: datetime,
    tournament_status: str,
    paused_at: datetime | None,
    now: datetime,
) -> bool:
    """Whether the round's bell has rung at `now`, for a round of `status` ending at
    `ends_at` in a tournament of `tournament_status` paused since `paused_at` (its stored
    field: counted only while the tournament is paused). Once it has, nothing of the
    round is entered, played, confirmed, disputed, swapped or forfeited but by the
    director."""
    if status == RoundStatus.CLOSED:
        return True
    if tournament_status == TournamentStatus.PAUSED and paused_at is not None:
        return ends_at <= paused_at
    return ends_at <= now


def started(tournament) -> bool:
    """Whether `tournament` has started: its round 1 is seated. From then on a pair joins
    only as a late entry and the settings that decide scores are locked. A tournament
    paused before it starts has not started."""
    if tournament.status in (TournamentStatus.RUNNING, TournamentStatus.FINISHED):
        return True
    return tournament.round_set.exists()


def bell_time(*, status: str, ends_at: datetime, closed_at: datetime | None) -> datetime:
    """When the bell rang (or will): a round the director closed early, at its close."""
    if status == RoundStatus.CLOSED and closed_at is not None:
        return min(closed_at, ends_at)
    return ends_at


def table_bell(*, round_ends_at: datetime, table_ends_at: datetime | None) -> datetime:
    """A table's own bell: the round's, or later when the director gave the table extra
    time (`Table.ends_at`, `services.table_director`). Every writer at a table asks
    `bell_rung` with this one."""
    if table_ends_at is not None and table_ends_at > round_ends_at:
        return table_ends_at
    return round_ends_at


def clock_state(
    *,
    round_number: int,
    round_status: str,
    starts_at: datetime,
    ends_at: datetime,
    paused: bool,
    now: datetime,
) -> dict:
    """The round's clock as the server has it (docs/PLAY_PROTOCOL.md, `clock`), for the
    socket's snapshot and the table page's first drawing alike: the page shows this, never
    a guess of its own. `ends_at` is the table's own bell (`table_bell`) where it has one."""
    if round_status == RoundStatus.CLOSED:
        status = "closed"
    elif round_status == RoundStatus.OPEN and now >= starts_at:
        status = "running"
    else:
        status = "scheduled"
    return {
        "round": round_number,
        "status": status,
        "starts_at": starts_at.isoformat(),
        "ends_at": ends_at.isoformat(),
        "paused": paused,
        "now": now.isoformat(),
    }
