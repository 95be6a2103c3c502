"""Changing who sits where at a table played online (RULES 9); the reads are
`selectors.table_seats`.

The two players of a pair take their direction's two seats: player 1 North (or East),
player 2 South (or West), unless the pair swapped (`PairSeats.swapped`). They may swap
until either of them is first sent a hand of the round at their table (`PairSeats.fixed_at`,
written by `fix_seats` before that hand is sent), and never after the first call there: a swap must
never show a player the partner's cards. A player's seat depends only on the table and
the pair, so every device of theirs gets the same seat.
"""

from __future__ import annotations

from datetime import datetime

from django.db import connection, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from .. import round_rules, sql
from ..errors import NotAllowed, NotFound, PlayRefused
from ..models import (
    Pair,
    PairSeats,
    PlayAction,
    PlayMode,
    Round,
    Table,
    Tournament,
)
from ..selectors import table_seats


def _lock_round_and_table(table: Table) -> tuple | None:
    """The round's share lock (as result entry: the close waits for us), then the table, so
    that actions and swaps at one table are taken one at a time."""
    row = sql.fetch_one(
        "SELECT r.number, r.status, r.ends_at, t.status, t.play, t.paused_at"
        f" FROM {Round._meta.db_table} r"
        f" JOIN {Tournament._meta.db_table} t ON t.id = r.tournament_id"
        f" WHERE r.id = %s{sql.round_share_lock('r')}",
        [table.round_id],
    )
    _lock_table(table)
    return row


def _lock_table(table: Table) -> None:
    if connection.vendor == "postgresql":
        sql.fetch_one(
            f"SELECT id FROM {Table._meta.db_table} WHERE id = %s FOR NO KEY UPDATE", [table.pk]
        )


def fix_seats(*, table: Table, pair_id: int, now: datetime) -> None:
    """Fix the seats of `pair_id` at `table` for the round (idempotent). Called in the
    transaction that then reads the seats and sends the pair its first hand: the table's
    lock orders it with `swap_seats`, so either the swap commits first and the hand is
    the new seat's, or the swap sees the seats fixed and is refused."""
    _lock_table(table)
    # One statement on the first view's path: a pair that swapped keeps its row and its
    # swap, and seats fixed earlier keep their moment.
    seats, fixed_at = sql.table(PairSeats), sql.column(PairSeats, "fixed_at")
    columns = ", ".join(sql.column(PairSeats, n) for n in ("table", "pair", "swapped"))
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {seats} ({columns}, {fixed_at}) VALUES (%s, %s, %s, %s)"
            f" ON CONFLICT ({sql.column(PairSeats, 'table')}, {sql.column(PairSeats, 'pair')})"
            f" DO UPDATE SET {fixed_at} = COALESCE({seats}.{fixed_at}, excluded.{fixed_at})",
            [table.pk, pair_id, False, connection.ops.adapt_datetimefield_value(now)],
        )


def swap_seats(*, table: Table, user, now: datetime | None = None) -> dict[str, int]:
    """The pair of `user` swaps its two seats at `table`; refused once either player of
    the pair has been sent a hand of the round there, or the first call has been made at
    the table (the seats are then fixed for the round)."""
    now = now or timezone.now()
    table = table_seats.with_pairs(table)
    side = table.side_of(getattr(user, "pk", None))
    if side is None:
        raise NotAllowed(
            _("Only the players at table %(t)s can swap their seats.") % {"t": table.number}
        )
    pair: Pair = table.ns_pair if side == "NS" else table.ew_pair
    with transaction.atomic():
        row = _lock_round_and_table(table)
        if row is not None and row[4] != PlayMode.ONLINE:
            raise NotFound(
                _("This tournament is played elsewhere: its boards are not played at our tables.")
            )
        if row is None or round_rules.bell_rung(
            status=row[1],
            ends_at=sql.timestamp(row[2]),
            tournament_status=row[3],
            paused_at=sql.timestamp(row[5]),
            now=now,
        ):
            raise PlayRefused(_("The round is over: seats can no longer be swapped."))
        if PlayAction.objects.filter(table=table).exists():
            raise PlayRefused(
                _("The first call has been made at your table: seats stay as they are.")
            )
        seats, _created = PairSeats.objects.get_or_create(table=table, pair=pair)
        if seats.fixed_at is not None:
            raise PlayRefused(
                _(
                    "Your seats were fixed when you or your partner first saw a hand of "
                    "this round: they stay as they are."
                )
            )
        seats.swapped = not seats.swapped
        seats.save(update_fields=["swapped"])
        return table_seats.table_seats(table)
