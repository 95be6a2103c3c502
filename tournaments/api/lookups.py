"""Finding the objects a URL names, with a 404 message that says which one is missing."""

from __future__ import annotations

from django.utils.translation import gettext as _

from .. import selectors
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


def get_table(tournament_id: int, round_number: int, table_number: int) -> Table:
    """One query: the hot path of result entry starts here."""
    found = (
        Table.objects.filter(
            round__tournament_id=tournament_id, round__number=round_number, number=table_number
        )
        .select_related("round", "ns_pair", "ew_pair")
        .first()
    )
    if found is None:
        raise NotFound(
            _("There is no table %(t)s in round %(r)s of tournament %(id)s.")
            % {"t": table_number, "r": round_number, "id": tournament_id}
        )
    return found


def get_pair(t: Tournament, pair_id: int) -> Pair:
    found = Pair.objects.filter(tournament=t, pk=pair_id).select_related(*selectors.PAIR_PLAYERS)
    found = found.first()
    if found is None:
        raise NotFound(_("%(t)s has no pair %(id)s.") % {"t": t.name, "id": pair_id})
    return found
