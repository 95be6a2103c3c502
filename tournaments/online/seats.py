"""Who sits where at a table played online (RULES 9).

The two players of a pair take their direction's two seats: player 1 North (or East),
player 2 South (or West), unless the pair swapped (`SwappedSeats`). They may swap until
either of them is first sent a hand of the round at their table (`SeatsFixed`, written by
`fix_seats` before that hand is sent), and never after the first call there: a swap must
never show a player the partner's cards. A player's seat depends only on the table and
the pair, so every device of theirs gets the same seat.
"""

from __future__ import annotations

from datetime import datetime

from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from .. import round_rules, sql
from ..errors import NotAllowed, NotFound, PlayRefused
from ..models import (
    Pair,
    PlayAction,
    PlayMode,
    Round,
    SeatsFixed,
    SwappedSeats,
    Table,
    Tournament,
    TournamentStatus,
)

SEATS_OF_SIDE = {"NS": ("N", "S"), "EW": ("E", "W")}


def _with_pairs(table: Table) -> Table:
    if Table.ns_pair.is_cached(table) and Table.ew_pair.is_cached(table):
        return table
    return Table.objects.select_related("ns_pair", "ew_pair").get(pk=table.pk)


def swapped_pairs(table: Table) -> set[int]:
    return set(SwappedSeats.objects.filter(table=table).values_list("pair_id", flat=True))


def table_seats(table: Table, swapped: set[int] | None = None) -> dict[str, int]:
    """seat ("N", "E", "S", "W") -> the user id sitting there."""
    table = _with_pairs(table)
    swapped = swapped_pairs(table) if swapped is None else swapped
    seats: dict[str, int] = {}
    for side, pair in (("NS", table.ns_pair), ("EW", table.ew_pair)):
        first, second = SEATS_OF_SIDE[side]
        players = (pair.player1_id, pair.player2_id)
        if pair.pk in swapped:
            players = players[::-1]
        seats[first], seats[second] = players
    return seats


def seat_of(table: Table, user, swapped: set[int] | None = None) -> str | None:
    """The seat `user` takes at `table`, or None when they do not play there."""
    user_id = getattr(user, "pk", None)
    if user_id is None:
        return None
    table = _with_pairs(table)
    if table.side_of(user_id) is None:
        return None
    for seat, player in table_seats(table, swapped).items():
        if player == user_id:
            return seat
    return None


def _lock_round_and_table(table: Table) -> tuple:
    """The round FOR SHARE (as result entry: the close waits for us), then the table, so
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
    SeatsFixed.objects.bulk_create(
        [SeatsFixed(table_id=table.pk, pair_id=pair_id, fixed_at=now)], ignore_conflicts=True
    )


def swap_seats(*, table: Table, user, now: datetime | None = None) -> dict[str, int]:
    """The pair of `user` swaps its two seats at `table`; refused once either player of
    the pair has been sent a hand of the round there, or the first call has been made at
    the table (the seats are then fixed for the round)."""
    now = now or timezone.now()
    table = _with_pairs(table)
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
        paused = row is not None and row[3] == TournamentStatus.PAUSED
        paused_at = sql.timestamp(row[5]) if paused else None
        if row is None or round_rules.bell_rung(
            status=row[1], ends_at=sql.timestamp(row[2]), paused_at=paused_at, now=now
        ):
            raise PlayRefused(_("The round is over: seats can no longer be swapped."))
        if PlayAction.objects.filter(table=table).exists():
            raise PlayRefused(
                _("The first call has been made at your table: seats stay as they are.")
            )
        if SeatsFixed.objects.filter(table=table, pair=pair).exists():
            raise PlayRefused(
                _(
                    "Your seats were fixed when you or your partner first saw a hand of "
                    "this round: they stay as they are."
                )
            )
        deleted, _rows = SwappedSeats.objects.filter(table=table, pair=pair).delete()
        if not deleted:
            SwappedSeats.objects.create(table=table, pair=pair)
        return table_seats(table)


def usernames(taken: dict[str, int]) -> dict[int, str]:

    users = get_user_model().objects.filter(pk__in=taken.values())
    return {user.pk: user.get_username() for user in users}
