"""Finding the objects a URL names, with a 404 message that says which one is missing."""

from __future__ import annotations

from django.utils.translation import gettext as _

from .. import selectors, sql
from ..errors import NotFound
from ..models import Pair, Round, Table, Tournament


def get_tournament(tournament_id: int) -> Tournament:
    found = Tournament.objects.filter(pk=tournament_id).first()
    if found is None:
        raise NotFound(_("There is no tournament %(id)s.") % {"id": tournament_id})
    return found


def get_round_with_boards(t: Tournament, number: int) -> Round:
    try:
        return selectors.round_with_boards(tournament=t, number=number)
    except Round.DoesNotExist:
        raise NotFound(_("%(t)s has no round %(n)s (yet).") % {"t": t.name, "n": number}) from None


def get_round(t: Tournament, number: int) -> Round:
    found = Round.objects.filter(tournament=t, number=number).first()
    if found is None:
        raise NotFound(_("%(t)s has no round %(n)s (yet).") % {"t": t.name, "n": number})
    return found


TABLE_FIELDS = frozenset({"id", "round_id", "number", "ns_pair_id", "ew_pair_id"})
SEAT_FIELDS = frozenset({"id", "player1_id", "player2_id"})


def get_table(tournament_id: int, round_number: int, table_number: int) -> Table:
    """The table with its two pairs' players (what result entry checks seats with), in
    one fixed statement: the hot path of result entry starts here."""
    table_columns, table_names = sql.select_list(Table, "tb", TABLE_FIELDS)
    ns_columns, pair_names = sql.select_list(Pair, "ns", SEAT_FIELDS)
    ew_columns, _same = sql.select_list(Pair, "ew", SEAT_FIELDS)
    row = sql.fetch_one(
        f"SELECT {table_columns}, {ns_columns}, {ew_columns}"
        f" FROM {sql.quote(Table._meta.db_table)} tb"
        f" JOIN {sql.quote(Round._meta.db_table)} r ON r.id = tb.round_id"
        f" JOIN {sql.quote(Pair._meta.db_table)} ns ON ns.id = tb.ns_pair_id"
        f" JOIN {sql.quote(Pair._meta.db_table)} ew ON ew.id = tb.ew_pair_id"
        " WHERE r.tournament_id = %s AND r.number = %s AND tb.number = %s",
        [tournament_id, round_number, table_number],
    )
    if row is None:
        raise NotFound(
            _("There is no table %(t)s in round %(r)s of tournament %(id)s.")
            % {"t": table_number, "r": round_number, "id": tournament_id}
        )
    width, seat_width = len(table_names), len(pair_names)
    found = sql.instance(Table, table_names, row[:width])
    found.ns_pair = sql.instance(Pair, pair_names, row[width : width + seat_width])
    found.ew_pair = sql.instance(Pair, pair_names, row[width + seat_width :])
    return found


def get_pair(t: Tournament, pair_id: int) -> Pair:
    found = Pair.objects.filter(tournament=t, pk=pair_id).select_related(*selectors.PAIR_PLAYERS)
    found = found.first()
    if found is None:
        raise NotFound(_("%(t)s has no pair %(id)s.") % {"t": t.name, "id": pair_id})
    return found
