"""A table's result sheet: only the four players at the table may read or write it.

Either side enters a board's result; the other side sees it (the page polls for
changes) and confirms or disputes it. Organisers correct results in admin.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

from django.contrib import messages
from django.contrib.auth import SESSION_KEY, get_user_model
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpResponse, HttpResponsePermanentRedirect
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods

from .. import selectors
from ..errors import ServiceError
from ..forms import DisputeForm, ResultForm
from ..models import BoardResult, Direction, Table
from ..services import results as results_service

TABLE_RELATED = (
    "round__tournament",
    "ns_pair__player1__profile",
    "ns_pair__player2__profile",
    "ew_pair__player1__profile",
    "ew_pair__player2__profile",
)
# What the seat check and the board rows need, without the players' names that only
# the whole page shows: answers to saves and polls read less.
ROW_RELATED = ("round__tournament", "ns_pair", "ew_pair")


@dataclass
class Row:
    board: object
    result: BoardResult | None
    form: ResultForm | None
    dispute_form: DisputeForm | None
    editable: bool
    can_confirm: bool
    entered_side: str | None
    version: str
    refusal: str = ""  # why no result can be entered now (the service's words)
    error: str = ""
    saved: str = ""  # what was just done, said back to the player
    open_editor: bool = False


def _seated_table(request, tournament_id: int, related=TABLE_RELATED, **where) -> tuple[Table, str]:
    """The table (`where`: its id, or its round and table number) and the user's side."""
    table = get_object_or_404(
        Table.objects.select_related(*related), round__tournament_id=tournament_id, **where
    )
    side = table.side_of(request.user.pk)
    if side is None:
        raise PermissionDenied(_("Only the players at this table can enter its results."))
    return table, side


def _round_state(table: Table) -> str:
    round = table.round
    return _state_of(round.status, round.ends_at, round.tournament.status)


def _state_of(round_status: str, ends_at, tournament_status: str) -> str:
    return f"{round_status}|{ends_at.isoformat()}|{tournament_status}"


def _row_version(result: BoardResult | None, round_status: str) -> str:
    values = None
    if result is not None:
        values = (result.pk, result.state, result.ns_score, result.entered_at,
                  result.confirmed_at, result.disputed)  # fmt: skip
    return _version_of(values, round_status)


def _version_of(values: tuple | None, round_status: str) -> str:
    """A row's version from (result id, state, NS score, entered at, confirmed at,
    disputed), however they were read."""
    if values is None:
        key = f"none|{round_status}"
    else:
        pk, state, ns_score, entered_at, confirmed_at, disputed = values
        entered = entered_at.timestamp() if entered_at else None
        key = "|".join(
            str(v)
            for v in (pk, state, ns_score, entered, confirmed_at, bool(disputed), round_status)
        )
    return format(zlib.crc32(key.encode()), "08x")


def _row(table: Table, side: str, item, *, user, now, form=None, error="", saved="") -> Row:
    """A board's row as `user` sees it at `now`: what it offers is what the results
    service would accept (`may_enter`, `may_confirm`), decided there and only there."""
    round = table.round
    result = item.result
    refusal = results_service.may_enter(
        table=table, user=user, round=round, now=now,
        result_state=result.state if result is not None else None,
    )  # fmt: skip
    editable = refusal is None
    entered_side = (
        table.side_of(result.entered_by_id)
        if result is not None and result.entered_by_id is not None
        else None
    )
    can_confirm = (
        result is not None
        # A confirmed result is not offered again: nothing is left to check.
        and result.confirmed_at is None
        and results_service.may_confirm(table=table, result=result, user=user, round=round, now=now)
        is None
    )
    prefix = f"b{item.board.number}"
    if editable and form is None:
        form = ResultForm(prefix=prefix, initial=ResultForm.initial_for(result))
    return Row(
        board=item.board,
        result=result,
        form=form if editable else None,
        dispute_form=DisputeForm(prefix=prefix) if can_confirm else None,
        editable=editable,
        can_confirm=can_confirm,
        entered_side=entered_side,
        version=_row_version(result, round.status),
        refusal=str(refusal) if refusal is not None else "",
        error=error,
        saved=saved,
        # A bound form with errors is being corrected: keep it open.
        open_editor=bool(form is not None and form.is_bound and (form.errors or error)),
    )


def _context(request, table: Table, side: str, rows: list[Row]) -> dict:
    return {
        "tournament": table.round.tournament,
        "round": table.round,
        "table": table,
        "side": side,
        "my_pair": table.ns_pair if side == Direction.NS else table.ew_pair,
        "opponents": table.ew_pair if side == Direction.NS else table.ns_pair,
        "rows": rows,
        "round_state": _round_state(table),
        "now": timezone.now(),
    }


def _handle_post(
    request, table: Table, side: str, item
) -> tuple[ResultForm | None, str, str, BoardResult | None]:
    """Run the requested action: (bound form or None, refusal, what was done, and the
    result as entered when it was a new entry)."""
    action = request.POST.get("action", "submit")
    prefix = f"b{item.board.number}"
    try:
        if action == "confirm" and item.result is not None:
            results_service.confirm_result(result=item.result, user=request.user)
            return None, "", _("Confirmed."), None
        if action == "dispute" and item.result is not None:
            dispute = DisputeForm(request.POST, prefix=prefix)
            note = dispute.cleaned_data["note"] if dispute.is_valid() else ""
            results_service.dispute_result(result=item.result, user=request.user, note=note)
            return None, "", _("Disputed: the director will look at it."), None
        form = ResultForm(request.POST, prefix=prefix)
        if not form.is_valid():
            return form, "", "", None
        stored = results_service.submit_result(
            table=table, board_number=item.board.number, entry=form.entry, user=request.user
        )
        return None, "", _("Saved."), stored
    except ServiceError as error:
        bound = form if action == "submit" else None
        return bound, str(error), "", None


@login_required
@require_http_methods(["GET", "POST"])
def table(request, tournament_id: int, round_number: int, table_number: int):
    # A save from the page (htmx) answers with its board's row only: no players' names.
    answers_a_row = request.method == "POST" and request.htmx
    related = ROW_RELATED if answers_a_row else TABLE_RELATED
    table, side = _seated_table(
        request, tournament_id, related, round__number=round_number, number=table_number
    )
    here = reverse("table", args=[tournament_id, round_number, table_number])
    sheet = selectors.table_sheet(table=table)
    if request.method == "POST":
        number = request.POST.get("board", "")
        item = next((i for i in sheet if str(i.board.number) == number), None)
        if item is None:
            messages.error(request, _("That board is not played at this table in this round."))
            return redirect(here)
        form, error, saved, stored = _handle_post(request, table, side, item)
        now = timezone.now()
        if stored is not None:
            # A new entry is shown as stored (score and all); it awaits confirmation.
            item = selectors.TableBoard(board=item.board, result=stored)
        elif saved:
            # Read back who confirmed or disputed, and when, to show it at once.
            table.round.refresh_from_db()
            sheet = selectors.table_sheet(table=table)
            item = next(i for i in sheet if i.board.number == item.board.number)
        row = _row(
            table, side, item, user=request.user, now=now, form=form, error=error, saved=saved
        )
        if request.htmx:
            return render(
                request,
                "tournaments/_table_row.html",
                {**_context(request, table, side, [row]), "row": row},
            )
        if saved:
            return redirect(here + f"#board-{item.board.number}")
        rows = [
            row if i.board.id == item.board.id else _row(table, side, i, user=request.user, now=now)
            for i in sheet
        ]
        return render(request, "tournaments/table.html", _context(request, table, side, rows))
    now = timezone.now()
    rows = [_row(table, side, item, user=request.user, now=now) for item in sheet]
    return render(request, "tournaments/table.html", _context(request, table, side, rows))


def _session_user_id(request):
    """The logged-in player's id as the session holds it, without loading the user."""
    raw = request.session.get(SESSION_KEY)
    if raw is None:
        return None
    try:
        return get_user_model()._meta.pk.to_python(raw)
    except ValidationError:
        return None


def _unchanged_for_player(request, tournament_id: int, table_id: int) -> bool:
    """Whether a seated player's page already shows everything: the session and one
    statement. Any doubt (a change, someone not seated, no such table, no session)
    takes the full path, which answers it with full authentication. The user row is
    not read here, so a session a password change has ended still gets "nothing
    changed" (and nothing else) until the full path logs it out."""
    user_id = _session_user_id(request)
    if user_id is None:
        return False
    snapshot = selectors.table_snapshot(tournament_id=tournament_id, table_id=table_id)
    if snapshot is None or user_id not in snapshot.player_ids:
        return False
    state = _state_of(snapshot.round_status, snapshot.round_ends_at, snapshot.tournament_status)
    if request.GET.get("rs") != state:
        return False
    return all(
        request.GET.get(f"rv_{number}") == _version_of(values, snapshot.round_status)
        for number, values in snapshot.results
    )


@require_GET
def table_updates(request, tournament_id: int, table_id: int):
    """Polled by the table page every 3 s: the rows (and clock) that changed since it
    last looked.

    The page sends each row's version and the round's state; the answer holds only
    the rows whose version moved, as out-of-band swaps, or is an empty 204.
    """
    if _unchanged_for_player(request, tournament_id, table_id):
        return HttpResponse(status=204)
    return _changed_rows(request, tournament_id, table_id)


@login_required
def _changed_rows(request, tournament_id: int, table_id: int):
    table, side = _seated_table(request, tournament_id, ROW_RELATED, pk=table_id)
    sheet = selectors.table_sheet(table=table)
    now = timezone.now()
    rows = [_row(table, side, item, user=request.user, now=now) for item in sheet]
    state = _round_state(table)
    round_changed = request.GET.get("rs") != state
    # A pause, resume or close changes what every row offers (entry refused or open
    # again): all rows are sent then, so each card says so without a reload (a new end
    # time alone moves only the clock). The page keeps a row whose form is in use
    # (site.js) and takes only its notice.
    seen = (request.GET.get("rs") or "").split("|")
    statuses_changed = seen[:1] + seen[-1:] != state.split("|")[:1] + state.split("|")[-1:]
    changed = [
        r for r in rows if statuses_changed or request.GET.get(f"rv_{r.board.number}") != r.version
    ]
    if not changed and not round_changed:
        return HttpResponse(status=204)
    context = _context(request, table, side, changed)
    context["round_changed"] = round_changed
    return render(request, "tournaments/_table_updates.html", context)


@require_GET
def table_by_id(request, tournament_id: int, table_id: int, play: bool):
    """An old address of a table, by its internal id: moved for good (301) to the one
    by round and table number."""
    found = (
        Table.objects.filter(pk=table_id, round__tournament_id=tournament_id)
        .values_list("round__number", "number")
        .first()
    )
    if found is None:
        raise Http404(_("No such table."))
    name = "play_table" if play else "table"
    url = reverse(name, args=[tournament_id, *found])
    query = request.META.get("QUERY_STRING", "")
    return HttpResponsePermanentRedirect(f"{url}?{query}" if query else url)
