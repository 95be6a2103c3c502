"""Who sits where at a table played online (RULES 9): the reads.

The two players of a pair take their direction's two seats: player 1 North (or East),
player 2 South (or West), unless the pair swapped (`PairSeats.swapped`; the swap itself is
`services.seats.swap_seats`). A player's seat depends only on the table and the pair, so
every device of theirs gets the same seat.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.utils.translation import gettext as _

from ..errors import NotAllowed
from ..models import PairSeats, Table

SEATS_OF_SIDE = {"NS": ("N", "S"), "EW": ("E", "W")}


def with_pairs(table: Table) -> Table:
    """`table` with both pairs loaded (as it is if they already are)."""
    if Table.ns_pair.is_cached(table) and Table.ew_pair.is_cached(table):
        return table
    return Table.objects.select_related("ns_pair", "ew_pair").get(pk=table.pk)


def swapped_pairs(table: Table) -> set[int]:
    return set(
        PairSeats.objects.filter(table=table, swapped=True).values_list("pair_id", flat=True)
    )


def table_seats(table: Table, swapped: set[int] | None = None) -> dict[str, int]:
    """seat ("N", "E", "S", "W") -> the user id sitting there."""
    table = with_pairs(table)
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
    table = with_pairs(table)
    if table.side_of(user_id) is None:
        return None
    for seat, player in table_seats(table, swapped).items():
        if player == user_id:
            return seat
    return None


def usernames(taken: dict[str, int]) -> dict[int, str]:
    """user id -> username, of the players `taken` (`table_seats`) names."""
    users = get_user_model().objects.filter(pk__in=taken.values())
    return {user.pk: user.get_username() for user in users}


def watch_refused(table: Table, round_number: int) -> NotAllowed:
    """The refusal of whoever may not watch `table` while its round runs."""
    return NotAllowed(
        _(
            "Only the players at table %(t)s and the organisers can watch this board "
            "before round %(n)s closes."
        )
        % {"t": table.number, "n": round_number}
    )
