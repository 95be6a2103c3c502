"""Reads the table server needs besides the board view: the table a socket names, and
where a player sits once their round has closed."""

from __future__ import annotations

from django.db.models import Q

from ..models import Round, Table


def table_for_socket(
    *,
    table_id: int | None = None,
    tournament_id: int | None = None,
    round_number: int | None = None,
    table_number: int | None = None,
) -> Table | None:
    """The table a socket names, by id or as the HTTP API does (tournament, round
    number, table number), with what the board view and the seat checks read (its
    round and tournament, both pairs); None if there is none."""
    tables = Table.objects.select_related("round__tournament", "ns_pair", "ew_pair")
    if table_id is not None:
        return tables.filter(pk=table_id).first()
    return tables.filter(
        round__tournament_id=tournament_id, round__number=round_number, number=table_number
    ).first()


def next_seat(*, user, closed_round_id: int) -> dict | None:
    """Where `user` sits in the round after `closed_round_id`: {"round", "table",
    "table_number", "direction"}, or None (not playing, a bye, or no next round)."""
    if not getattr(user, "is_authenticated", False):
        return None
    closed = Round.objects.filter(pk=closed_round_id).values("tournament_id", "number").first()
    if closed is None:
        return None
    table = (
        Table.objects.select_related("round", "ns_pair", "ew_pair")
        .filter(round__tournament_id=closed["tournament_id"], round__number=closed["number"] + 1)
        .filter(
            Q(ns_pair__player1=user)
            | Q(ns_pair__player2=user)
            | Q(ew_pair__player1=user)
            | Q(ew_pair__player2=user)
        )
        .first()
    )
    if table is None:
        return None
    return {
        "round": table.round.number,
        "table": table.pk,
        "table_number": table.number,
        "direction": str(table.side_of(user.pk)),
    }
