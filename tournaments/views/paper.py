"""What a pair takes home and a club puts on the wall: the personal score card and a
round's printable seating list."""

from __future__ import annotations

from django.shortcuts import get_object_or_404, render
from django.utils.safestring import mark_safe
from django.utils.translation import gettext_lazy

import scoring

from .. import selectors
from ..models import Direction, Pair, Round, ScoringMethod, Tournament, TournamentStatus
from ..selectors.pair_labels import pair_labels

# Board columns of one printed column group: with the rank, pair and total columns
# repeated, 16 board columns fill an A4 landscape page at the print stylesheet's size.
PRINT_BOARDS = 16
# The two lists of a two-winner event (RULES 10), headed as club scorers head them.
FIELD_TITLES = {
    Direction.NS.value: gettext_lazy("North-South"),
    Direction.EW.value: gettext_lazy("East-West"),
}


def field_title(tournament: Tournament, pair: Pair) -> str:
    """The field a pair of a two-winner event is ranked in ("North-South"), for the
    pages that show its rank or positions; "" when the event has one winner."""
    if tournament.winners != 2:
        return ""
    return str(FIELD_TITLES.get(pair.field, pair.field))


def print_grids(boards: list[int], rows: list[dict]) -> list[dict]:
    """The results grid as printed: a grid wider than one A4 landscape page is split
    into column groups of `PRINT_BOARDS` boards, each repeating the rank and pair
    columns, so every board is on paper next to its pair (RULES 8). Empty when one group
    holds every board (the screen grid prints as it is)."""
    if len(boards) <= PRINT_BOARDS:
        return []
    return [
        {
            "boards": boards[start : start + PRINT_BOARDS],
            "rows": [
                # the cells were format_html'd one by one (views.public._cells)
                (row, mark_safe("".join(row["cell_list"][start : start + PRINT_BOARDS])))
                for row in rows
            ],
        }
        for start in range(0, len(boards), PRINT_BOARDS)
    ]


def score_card(request, tournament_id: int, pair_id: int):
    pair = get_object_or_404(
        selectors.confirmed_pairs(tournament_id).select_related("tournament"), pk=pair_id
    )
    tournament = pair.tournament
    card = selectors.score_card(pair=pair)
    return render(
        request,
        "tournaments/score_card.html",
        {
            "tournament": tournament,
            "pair": pair,
            "card": card,
            "mine": pair.has_player(request.user.pk),
            "completion": scoring.completion(pair.boards_completed, tournament.total_boards),
            "finished": tournament.status == TournamentStatus.FINISHED,
            # A closed round whose boards are scored (a travelling set's wait for their
            # last round).
            "scored": any(r.shown and r.has_total for r in card),
            "is_mp": tournament.scoring_method == ScoringMethod.MP,
            # Two winners: the rank and the positions are within the pair's field.
            "field_title": field_title(tournament, pair),
            "labels": pair_labels(tournament),
        },
    )


def seating_sheet(request, tournament_id: int, number: int):
    """A round's seating on paper, for a club that plays face to face: big table
    numbers, both pairs, the boards, the bye."""
    tournament = get_object_or_404(Tournament, pk=tournament_id)
    round = get_object_or_404(
        Round.objects.select_related(*(f"bye_pair__{p}" for p in selectors.PAIR_PLAYERS)),
        tournament=tournament,
        number=number,
    )
    return render(
        request,
        "tournaments/seating_sheet.html",
        {
            "tournament": tournament,
            "round": round,
            "seating": selectors.round_seating(round=round),
            "rounds": range(1, tournament.round_set.count() + 1),
        },
    )
