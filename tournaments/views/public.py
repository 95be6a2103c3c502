"""Pages anyone can read: home, a tournament (live), results, a board, a pair."""

from __future__ import annotations

from django.core.paginator import Paginator
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.safestring import mark_safe
from django.utils.translation import gettext
from django.utils.translation import gettext as _

import scoring

from .. import selectors, visibility
from ..deals import hands_of, high_card_points
from ..demo.online import seat_offer
from ..forms import ProposePairForm
from ..live import cached
from ..models import (
    Adjustment,
    Board,
    Direction,
    PairStatus,
    PlayMode,
    RoundStatus,
    ScoringMethod,
    Tournament,
    TournamentStatus,
)
from ..selectors import broadcasts as broadcast_reads
from ..selectors import records
from ..selectors.pair_labels import pair_labels
from ..services import analysis
from ..services.permissions import DIRECT_RESULTS, allowed
from ..services.registration import registration_problem
from ..templatetags import bridge
from . import paper
from .format_pages import pages_of
from .paper import FIELD_TITLES, field_title

# Live standings list everyone in a small field; in a big one the top and the
# player's own neighbourhood, with the full list one click away on the results page.
STANDINGS_SHOW_ALL = 100
STANDINGS_TOP = 30
STANDINGS_AROUND = 5
RESULTS_PER_PAGE = 100


def healthz(request):
    return JsonResponse({"ok": True})


def home(request):
    seats = []
    for table in selectors.current_tables(user=request.user):
        ns = table.side_of(request.user.pk) == Direction.NS
        seats.append(
            {
                "table": table,
                "direction": Direction.NS if ns else Direction.EW,
                "opponents": table.ew_pair if ns else table.ns_pair,
                "pair_id": table.ns_pair_id if ns else table.ew_pair_id,
            }
        )
    made, received = selectors.open_proposals(user=request.user)
    cards = selectors.tournament_cards()
    return render(
        request,
        "tournaments/home.html",
        {
            "cards": cards,
            # How to take a seat in the demo (`make run`); None, and no query, elsewhere.
            "seat_offer": None
            if seats
            else seat_offer(
                tournaments=[c.tournament for c in cards["running"] + cards["upcoming"]]
            ),
            "invitations": received,
            "proposals_made": made,
            "seats": seats,
            "now": timezone.now(),
            # The live broadcasts (RULES 12) of the events still running.
            "broadcasts": broadcast_reads.listed(live_only=True),
        },
    )


def _standings_excerpt(rows, my_pair_id):
    """The rows to show, with None where rows are left out."""
    if len(rows) <= STANDINGS_SHOW_ALL:
        return rows
    keep = set(range(STANDINGS_TOP))
    mine = next((i for i, row in enumerate(rows) if row.pair_id == my_pair_id), None)
    if mine is not None:
        keep |= set(range(max(0, mine - STANDINGS_AROUND), mine + STANDINGS_AROUND + 1))
    shown, previous = [], -1
    for i in sorted(k for k in keep if k < len(rows)):
        if i != previous + 1:
            shown.append(None)
        shown.append(rows[i])
        previous = i
    if previous < len(rows) - 1:
        shown.append(None)
    return shown


def _live_context(request, tournament: Tournament, version: str | None = None) -> dict:
    """Everything the self-updating part of a tournament page shows."""
    now = timezone.now()
    version = version or selectors.live_version(tournament_id=tournament.pk)
    round = tournament.round_set.current()
    pair, table, direction = selectors.seat_of_user(
        tournament=tournament, user=request.user, round=round
    )
    in_play = round is not None and round.status != RoundStatus.CLOSED
    seating, seating_tables = (
        cached.seating_html(tournament, round, version) if in_play else ("", 0)
    )
    # A round has closed once there is a second round or the first is closed.
    scored = round is not None and (round.number > 1 or round.status == RoundStatus.CLOSED)
    rows = cached.standings(tournament, version) if scored else []
    my_pair_id = pair.id if pair is not None and pair.status == PairStatus.CONFIRMED else None
    # One list, or a two-winner event's NS and EW lists (RULES 10), each cut to its top
    # and the player's neighbourhood.
    lists = [
        {
            "field": group.field,
            "title": FIELD_TITLES.get(group.field, group.field),
            "rows": _standings_excerpt(group.rows, my_pair_id),
            "count": len(group.rows),
        }
        for group in selectors.by_field(rows)
    ]
    last_closed = 0
    if scored:
        last_closed = round.number if round.status == RoundStatus.CLOSED else round.number - 1
    return {
        "tournament": tournament,
        "round": round,
        "in_play": in_play,
        "now": now,
        "my_pair": pair,
        "my_pair_id": my_pair_id,
        "my_table": table,
        "my_direction": direction,
        "labels": pair_labels(tournament),
        "seating": mark_safe(seating),  # rendered (and escaped) by the template engine
        "seating_tables": seating_tables,
        "standings": [row for group in lists for row in group["rows"]],
        "standings_lists": lists if rows else [],
        "standings_count": len(rows),
        "last_closed": last_closed,
        "finished": tournament.status == TournamentStatus.FINISHED,
        "live_version": version,
        "poll": tournament.status != TournamentStatus.FINISHED,
    }


def tournament(request, tournament_id: int):
    tournament = get_object_or_404(Tournament, pk=tournament_id)
    context = _live_context(request, tournament)
    scheduled = tournament.status == TournamentStatus.SCHEDULED and context["round"] is None
    if scheduled:
        context["registration_problem"] = registration_problem(tournament, context["now"])
        context["registered_pairs"] = list(selectors.confirmed_pairs(tournament))
        context["propose_form"] = ProposePairForm()
        made, received = selectors.proposals_in(tournament=tournament, user=request.user)
        context["proposals_made"], context["proposals_received"] = made, received
    context["scheduled"] = scheduled
    # The format's own part: how its contestants register (RULES 1, RULES 11), and who.
    pages = pages_of(tournament)
    context.update(pages.tournament_context(request, tournament, now=context["now"]))
    context["format_pages"] = pages
    context["my_entry"] = context.get(pages.entry)
    # Its broadcasts (RULES 12): only an event played at the system's tables has any.
    context["broadcasts"] = (
        broadcast_reads.listed(tournament_id=tournament.pk)
        if tournament.play == PlayMode.ONLINE
        else []
    )
    return render(request, "tournaments/tournament.html", context)


def standings_fragment(request, tournament_id: int):
    """The live part of the tournament page, polled by htmx.

    The poll sends the fingerprint it last saw; while it is unchanged the answer is an
    empty 204 (one cheap query, and htmx leaves the page alone).
    """
    version = selectors.live_version(tournament_id=tournament_id)
    if version is None:
        raise Http404
    if request.GET.get("v") == version:
        return HttpResponse(status=204)
    tournament = get_object_or_404(Tournament, pk=tournament_id)
    context = _live_context(request, tournament, version)
    return render(request, "tournaments/_live.html", context)


def _cells_html(scores: dict, boards: list[int], board_url: str, method: str) -> str:
    """A pair's board cells on the results grid, rendered here rather than in the
    template: at 100 rows × 20+ boards per page the template loop was most of the time."""
    return mark_safe("".join(_cells(scores, boards, board_url, method)))  # format_html'd


def _cells(scores: dict, boards: list[int], board_url: str, method: str) -> list[str]:
    """`_cells_html`, one cell a board (the printed grid takes them in column groups)."""
    not_played = gettext("not played")
    titles = {code: bridge.direction(code) for code in Direction.values}
    # An adjusted score is marked as on the traveller (_traveller.html): "A", its words
    # in the cell's title (RULES 5.4).
    awarded = gettext("an adjusted score, awarded by the director")
    kinds = {code: str(label) for code, label in Adjustment.choices}  # Average plus…
    cells = []
    for n in boards:
        value = scores.get(n)
        if value is None:
            cells.append(format_html('<td class="num cell empty" data-board="{}"></td>', n))
            continue
        points, completed, direction = value[:3]
        adjusted = value[3] if len(value) > 3 else ""  # a grid cached before the mark
        if not completed:
            cells.append(format_html(
                '<td class="num cell np" data-board="{}"><a href="{}{}/" title="{}">·</a></td>',
                n, board_url, n, not_played,
            ))  # fmt: skip
        elif adjusted:
            kind = kinds.get(adjusted)  # none for a result the director set
            parts = (titles.get(direction, direction), kind, awarded)
            title = " · ".join(str(part) for part in parts if part)
            cells.append(format_html(
                '<td class="num cell {} adjusted" data-board="{}" data-adjusted="{}">'
                '<a href="{}{}/" title="{}">{}<sup class="adj">A</sup></a></td>',
                direction, n, adjusted, board_url, n, title, bridge.points(points, method),
            ))  # fmt: skip
        else:
            cells.append(format_html(
                '<td class="num cell {}" data-board="{}"><a href="{}{}/" title="{}">{}</a></td>',
                direction, n, board_url, n, titles.get(direction, direction),
                bridge.points(points, method),
            ))  # fmt: skip
    return cells  # every piece above went through format_html


def results(request, tournament_id: int):
    tournament = get_object_or_404(Tournament, pk=tournament_id)
    own = pages_of(tournament).results  # a format's own results page (a team event's)
    if own is not None:
        return own(request, tournament)
    version = selectors.live_version(tournament_id=tournament.pk)
    rows = cached.standings(tournament, version)
    query = (request.GET.get("q") or "").strip()
    labels = pair_labels(tournament)
    # A pair's number as the pages print it ("3NS", "7"), else a name.
    numbered = [
        r for r in rows if labels.finds(query, label=r.label, registration_no=r.registration_no)
    ]
    if numbered or query.isdigit():
        rows = numbered
    elif query:
        needle = query.casefold()
        rows = [r for r in rows if needle in r.search]
    page = Paginator(rows, RESULTS_PER_PAGE).get_page(request.GET.get("page"))
    boards, grid = cached.score_grid(tournament, version)
    # Board links are built by hand: reverse() per cell is too slow for a big field.
    board_url = reverse("board", args=[tournament.pk, 1])[: -len("1/")]
    page_rows = []
    for row in page.object_list:
        cells = _cells(grid.get(row.pair_id, {}), boards, board_url, tournament.scoring_method)
        page_rows.append(
            {
                "line": row,
                "cells": mark_safe("".join(cells)),  # format_html'd cell by cell
                "cell_list": cells,
                "mine": request.user.pk in row.user_ids,
            }
        )
    # One list, or the NS list then the EW list of a two-winner event (RULES 10): a page
    # of 100 rows may end one field and begin the other.
    lists: list[dict] = []
    for line in page_rows:
        field = line["line"].field
        if not lists or lists[-1]["field"] != field:
            lists.append({"field": field, "title": FIELD_TITLES.get(field, field), "rows": []})
        lists[-1]["rows"].append(line)
    for group in lists:
        group["print_grids"] = paper.print_grids(boards, group["rows"])
    if not lists:
        lists = [{"field": "", "title": "", "rows": [], "print_grids": []}]
    return render(
        request,
        "tournaments/results.html",
        {
            "tournament": tournament,
            "page": page,
            "rows": page_rows,
            "lists": lists,
            "two_winners": tournament.winners == 2,
            "boards": boards,
            "board_url": board_url,
            "query": query,
            "finished": tournament.status == TournamentStatus.FINISHED,
            "pair_count": len(rows),
            # Before a round has closed nobody has a score: no ranks, not all first at 0.
            "scored": bool(boards),
            "print_grids": any(group["print_grids"] for group in lists),
        },
    )


def board(request, tournament_id: int, number: int):
    tournament = get_object_or_404(Tournament, pk=tournament_id)
    board = get_object_or_404(
        Board.objects.select_related("round"), tournament=tournament, number=number
    )
    visible = visibility.deal_public(board.round)
    # Stored after the round closed (by the clock, off the request path); a page never
    # solves. None while it is being prepared: the page says so and polls for it.
    dd = analysis.double_dummy(board=board) if visible else None
    closed = selectors.closed_board_numbers(tournament) if visible else []
    traveller = my_table = None
    if visible:
        traveller = cached.traveller_html(
            tournament, board, selectors.live_version(tournament_id=tournament.pk)
        )
        _pair, my_table, _direction = selectors.seat_of_user(
            tournament=tournament, user=request.user, round=board.round
        )
    # Who changed what is for organisers only (RULES 3); the public sees the results.
    organiser = visible and allowed(request.user, DIRECT_RESULTS)
    return render(
        request,
        "tournaments/board.html",
        {
            "tournament": tournament,
            "board": board,
            "traveller": mark_safe(traveller or ""),  # rendered by the template engine
            "my_table": my_table,
            "visible": visible,
            "dd": dd,
            "dd_pending": visible and dd is None,
            "dd_rows": [(seat, [dd.makeable(seat, s) for s in analysis.STRAINS]) for seat in "NSEW"]
            if dd
            else [],
            "strains": analysis.STRAINS,
            "hcp": {seat: high_card_points(h) for seat, h in hands_of(board.deal).items()}
            if visible
            else {},
            "previous": number - 1 if number - 1 in closed else None,
            "next": number + 1 if number + 1 in closed else None,
            "is_ximp": tournament.scoring_method == ScoringMethod.XIMP,
            "records": records.board_records(board=board, tournament=tournament) if visible else [],
            "result_history": selectors.result_history(board=board) if organiser else None,
        },
    )


def pair(request, tournament_id: int, pair_id: int):
    pair = get_object_or_404(
        selectors.confirmed_pairs(tournament_id).select_related("tournament"), pk=pair_id
    )
    tournament = pair.tournament
    history = selectors.pair_history(pair=pair)
    # The charts span the whole event, so the rounds still to come show as room to go.
    by_round = {h.round.number: h for h in history}
    numbers = range(1, tournament.rounds + 1)
    labels = [_("R%(n)s") % {"n": n} for n in numbers]
    positions = [getattr(by_round.get(n), "position", None) for n in numbers]
    totals = [getattr(by_round.get(n), "total", None) for n in numbers]
    method = tournament.scoring_method
    return render(
        request,
        "tournaments/pair.html",
        {
            "tournament": tournament,
            "pair": pair,
            "history": history,
            "completion": scoring.completion(pair.boards_completed, tournament.total_boards),
            "finished": tournament.status == TournamentStatus.FINISHED,
            "chart_labels": labels,
            "chart_positions": positions,
            "chart_totals": totals,
            "has_chart": any(p is not None for p in positions),
            "total_baseline": 50.0 if method == ScoringMethod.MP else 0.0,
            "field_title": field_title(tournament, pair),
            "labels": pair_labels(tournament),
            "position_tips": [
                _("Round %(n)s: position %(p)s") % {"n": n, "p": p} if p else ""
                for n, p in zip(numbers, positions, strict=True)
            ],
        },
    )
