"""A movement's paper (RULES 10): the movement page (every round: who sits where and
plays which boards; the balance), the table guide cards a club puts on each table, and
a pair's travel card. The boards are what the event plays (`selectors.movements.as_played`):
the round's at every table (duplicated boards), or, when board sets travel face to face,
the movement's set at each table.

Public like a round's seating: a movement says where pairs sit, never a hand or a
result, so `visibility` has nothing to hold back; the players' names are shown once the
pairs hold their positions (round 1's start), as the seating is.

A 30-table Mitchell prints 870 tables and 1,800 balance cells: each position's cell is
rendered once here (format_html) and reused in every round it appears in, as the results
grid's cells are (`views.public._cells`); a template include per cell took seconds."""

from __future__ import annotations

from dataclasses import dataclass

from django.http import Http404
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext

import movements

from .. import round_rules
from ..models import Seating, Tournament
from ..selectors.movements import (
    BalanceGrid,
    BalanceView,
    MovementSeat,
    MovementSheet,
    MovementTable,
    balance_view,
    movement_of,
    movement_sheet,
)
from ..services.formats import format_of
from ..services.formats.movement_pairs import movement_problem


def _tournament(tournament_id: int) -> Tournament:
    tournament = get_object_or_404(Tournament, pk=tournament_id)
    if not format_of(tournament).has_movement_page:
        raise Http404("this tournament is not seated by a movement")
    return tournament


# The console's panel of the seating (`views.format_pages`: each format's `movement_panel`).


@dataclass(frozen=True)
class MovementPanel:
    """The movement as it stands before round 1 (RULES 10), or why there is none."""

    seating: str  # its label
    movement: movements.Movement | None  # None: Swiss, or no movement for the pairs
    problem: str | None
    started: bool
    given: bool = False  # the organiser's own movement (seating "movement")

    @property
    def phantom(self) -> str:
        """The phantom's position as club scorers print it ("5EW", "8"), or ""."""
        if self.movement is None or self.movement.phantom is None:
            return ""
        return self.movement.label(self.movement.phantom)

    @property
    def title(self) -> str:
        """The movement as the start confirmation names it: a movement given as data by
        its own name, a generated one by its seating ("Mitchell movement")."""
        if self.movement is not None and self.given:
            return self.movement.name
        return str(self.seating)

    @property
    def round_one_bye(self) -> str:
        """The position that meets the phantom in round 1, as club scorers print it
        ("4NS"): its bye; "" without a phantom."""
        movement = self.movement
        if movement is None or movement.phantom is None or not movement.rounds:
            return ""
        for encounter in movement.round(1):
            if movement.phantom in (encounter.ns, encounter.ew):
                other = encounter.ew if encounter.ns == movement.phantom else encounter.ns
                return movement.label(other)
        return ""


def no_movement_panel(tournament: Tournament) -> MovementPanel:
    """The seating panel of a format seated without a movement (Swiss pairs, teams)."""
    return MovementPanel(
        seating=Seating(tournament.seating).label,
        movement=None,
        problem=None,
        started=round_rules.started(tournament),
    )


def movement_panel(tournament: Tournament) -> MovementPanel:
    """The seating panel of an event seated by a movement: the movement as it stands, and
    before round 1 why there is none."""
    started = round_rules.started(tournament)
    return MovementPanel(
        seating=Seating(tournament.seating).label,
        movement=movement_of(tournament),
        problem=None if started else movement_problem(tournament),
        started=started,
        given=tournament.seating == Seating.MOVEMENT,
    )


def _sheet(tournament: Tournament) -> MovementSheet:
    sheet = movement_sheet(tournament)
    if sheet is None:
        raise Http404("no movement yet")
    return sheet


class _Cells:
    """Each position's cell, rendered once: its number (a link to its travel card) and,
    once held, its pair's names; and the cell the phantom's side of a table shows."""

    def __init__(self, tournament: Tournament, sheet: MovementSheet) -> None:
        withdrawn = gettext("withdrawn")
        self.card = {
            n: reverse("movement_table", args=[tournament.id, n]) for n in sheet.table_numbers
        }
        self.seat: dict[int, SafeString] = {}
        self.sits_out: dict[int, SafeString] = {}
        for seat in sheet.seats:
            label = format_html(
                '<a class="regno mv-label" href="{}">{}</a>',
                reverse("movement_pair", args=[tournament.id, seat.position]),
                seat.label,
            )
            if seat.pair is not None:
                first, second = seat.pair.players
                label = format_html(
                    '{} <span class="mv-names"><span class="pname">{}</span> – '
                    '<span class="pname">{}</span></span>{}',
                    label, first.name, second.name,
                    format_html(' <span class="badge">{}</span>', withdrawn)
                    if seat.withdrawn else "",
                )  # fmt: skip
            self.seat[seat.position] = label
            self.sits_out[seat.position] = format_html(
                '<span class="mv-phantom">{}</span> <span class="mv-sits">{}</span>',
                gettext("Bye"),
                gettext("%(label)s sits out") % {"label": seat.label},
            )

    def side(self, seat: MovementSeat, other: MovementSeat) -> SafeString:
        """A table's side: its pair, or for the phantom the bye of the pair it meets."""
        return self.sits_out[other.position] if seat.phantom else self.seat[seat.position]

    def table(self, t: MovementTable) -> tuple[MovementTable, SafeString, SafeString, str]:
        """A table in a round: its two sides and its guide card's address."""
        return t, self.side(t.ns, t.ew), self.side(t.ew, t.ns), self.card[t.number]


def _balance_cell(count: int | None, low: int | None) -> SafeString:
    if count is None:
        return mark_safe('<td class="self"></td>')  # the pair itself
    if count == 0:
        return mark_safe('<td class="none">0</td>')
    if count == low:
        return format_html('<td class="low">{}</td>', count)
    return format_html("<td>{}</td>", count)


def _balance_rows(balance: BalanceView) -> list[tuple[BalanceGrid, SafeString]]:
    """Each field's grid with its rows rendered: blank on the diagonal, and the fewest
    comparisons of the field marked when they are not all the same."""
    grids = []
    for grid in balance.grids:
        low = grid.least if grid.least != grid.most else None
        rows = format_html_join(
            "\n",
            '<tr><th scope="row">{}</th>{}</tr>',
            (
                (label, mark_safe("".join(_balance_cell(c, low) for c in counts)))
                for label, counts in grid.rows
            ),
        )
        grids.append((grid, rows))
    return grids


def movement(request, tournament_id: int):
    tournament = _tournament(tournament_id)
    sheet = movement_sheet(tournament)  # None: too few pairs so far, or none given yet
    context: dict[str, object] = {"tournament": tournament, "sheet": sheet}
    if sheet is not None:
        cells = _Cells(tournament, sheet)
        balance = balance_view(sheet.movement, tournament)
        context["rounds"] = [(r, [cells.table(t) for t in r.tables]) for r in sheet.rounds]
        context["balance"] = balance
        context["balance_grids"] = _balance_rows(balance)
    return render(request, "tournaments/movement.html", context)


def table_cards(request, tournament_id: int, number: int | None = None):
    """The table guide cards, one A4 page a table; `number`: that table's only."""
    tournament = _tournament(tournament_id)
    sheet = _sheet(tournament)
    if number is not None and number not in sheet.table_numbers:
        raise Http404("no such table")
    cells = _Cells(tournament, sheet)
    numbers = [number] if number is not None else list(sheet.table_numbers)
    cards = [
        (n, [(r, cells.table(t) if t else None) for r, t in sheet.table_card(n)]) for n in numbers
    ]
    return render(
        request,
        "tournaments/movement_tables.html",
        {"tournament": tournament, "sheet": sheet, "cards": cards, "one": number is not None},
    )


def travel_cards(request, tournament_id: int, position: int | None = None):
    """The pairs' travel cards; `position`: that pair's only."""
    tournament = _tournament(tournament_id)
    sheet = _sheet(tournament)
    travellers = sheet.travellers
    if position is not None:
        travellers = [seat for seat in travellers if seat.position == position]
        if not travellers:
            raise Http404("no such pair in the movement")
    cells = _Cells(tournament, sheet)
    cards = [
        (
            seat,
            [
                (s, cells.seat[s.opponents.position] if s.opponents else "")
                for s in sheet.travel(seat.position)
            ],
        )
        for seat in travellers
    ]
    return render(
        request,
        "tournaments/movement_travel.html",
        {"tournament": tournament, "sheet": sheet, "cards": cards, "one": position is not None},
    )
