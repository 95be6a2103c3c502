"""Reads the table server needs besides the board view: the table a socket names, and
where a player sits once their round has closed."""

from __future__ import annotations

from functools import cache

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser
from django.db.models import Q

from .. import sql
from ..models import Pair, Round, Table


@cache
def _table_sql(by_id: bool) -> str:
    """Table, its round's number and both pairs' players: one prepared statement (every
    seat opens one socket per board)."""
    t, r, p = (sql.table(m) for m in (Table, Round, Pair))

    def col(model, name: str) -> str:
        return sql.column(model, name)

    pair = [col(Pair, "id"), col(Pair, "player1"), col(Pair, "player2")]
    where = (
        f"tb.{col(Table, 'id')} = %s"
        if by_id
        else f"r.{col(Round, 'tournament')} = %s AND r.{col(Round, 'number')} = %s"
        f" AND tb.{col(Table, 'number')} = %s"
    )
    return (
        f"SELECT tb.{col(Table, 'id')}, tb.{col(Table, 'number')}, r.{col(Round, 'id')},"
        f" r.{col(Round, 'number')}, r.{col(Round, 'tournament')},"
        f" {', '.join(f'ns.{c}' for c in pair)}, {', '.join(f'ew.{c}' for c in pair)}"
        f" FROM {t} tb JOIN {r} r ON r.{col(Round, 'id')} = tb.{col(Table, 'round')}"
        f" JOIN {p} ns ON ns.{col(Pair, 'id')} = tb.{col(Table, 'ns_pair')}"
        f" JOIN {p} ew ON ew.{col(Pair, 'id')} = tb.{col(Table, 'ew_pair')}"
        f" WHERE {where}"
    )


def table_for_socket(
    *,
    table_id: int | None = None,
    tournament_id: int | None = None,
    round_number: int | None = None,
    table_number: int | None = None,
) -> Table | None:
    """The table a socket names, by id or as the HTTP API does (tournament, round
    number, table number), with what the board view and the seat checks read (its
    round's number, both pairs' players); None if there is none."""
    if table_id is not None:
        row = sql.fetch_one_prepared(_table_sql(True), [table_id])
    else:
        row = sql.fetch_one_prepared(_table_sql(False), [tournament_id, round_number, table_number])
    if row is None:
        return None
    pk, number, round_id, round_number, tournament, *players = row
    pairs = [
        sql.instance(Pair, ("id", "player1_id", "player2_id"), players[i : i + 3]) for i in (0, 3)
    ]
    table = sql.instance(
        Table,
        ("id", "round_id", "number", "ns_pair_id", "ew_pair_id"),
        (pk, round_id, number, pairs[0].pk, pairs[1].pk),
    )
    Table.round.field.set_cached_value(
        table,
        sql.instance(
            Round, ("id", "tournament_id", "number"), (round_id, tournament, round_number)
        ),
    )
    Table.ns_pair.field.set_cached_value(table, pairs[0])
    Table.ew_pair.field.set_cached_value(table, pairs[1])
    return table


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


def user_afresh(user):
    """`user` as stored now, so that their permissions are read again (a socket keeps
    the user it was opened by, whose permissions Django caches): an account closed or
    removed since is anonymous, and an anonymous user stays one."""
    if not getattr(user, "is_authenticated", False):
        return user
    stored = get_user_model().objects.filter(pk=user.pk, is_active=True).first()
    return stored if stored is not None else AnonymousUser()
