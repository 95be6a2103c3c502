"""The broadcast page (RULES 12, Vugraph) and the director's broadcast actions.

Thin: the page asks `selectors.broadcasts` for the snapshot every spectator shares and
`visibility.may_watch_broadcast` whether this viewer may have it (a player of the event
may not while it runs: a 403 saying why); the script (static/js/broadcast.js) draws it
and then follows the spectators' socket. Commentary and the console's start / delay / end
are the services' (`services.broadcasts`), which check each power.

The template (templates/broadcasts/broadcast.html) takes `snapshot` (the selector's
dict), `socket_path` (None: a finished record, no socket), `comment_url` (None: no
commentary form) and `title`, so that a match read from a LIN file is drawn by it too.
"""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods, require_POST

from .. import visibility
from ..errors import ServiceError
from ..models import Match, Table, Tournament
from ..permissions import COMMENT_BROADCASTS
from ..selectors import broadcasts as reads
from ..services import broadcasts as service
from ..services import table_play
from .organiser import console_page, console_powers


def _title(item) -> str:
    round = reads.broadcast_round(item)
    if item.match is not None:
        match = item.match
        return _("%(event)s · round %(r)s · match %(m)s: %(home)s – %(away)s") % {
            "event": item.tournament.name,
            "r": round.number,
            "m": match.number,
            "home": match.home.name,
            "away": match.away.name if match.away is not None else "",
        }
    return _("%(event)s · round %(r)s · table %(t)s") % {
        "event": item.tournament.name,
        "r": round.number,
        "t": item.table.number,
    }


def _watchable(request: HttpRequest, broadcast_id: int):
    """The broadcast if this viewer may watch it; 404 if there is none, 403 (saying
    why) for a player of the event while it runs."""
    item = reads.broadcast(broadcast_id)
    if item is None:
        raise Http404(_("No such broadcast."))
    plays = table_play.plays_in_tournament(tournament_id=item.tournament_id, user=request.user)
    if not visibility.may_watch_broadcast(plays_in_event=plays, event_over=reads.event_over(item)):
        raise PermissionDenied(
            _("You play in this event: its broadcast is not shown to its players while it runs.")
        )
    return item


def broadcast(request: HttpRequest, broadcast_id: int) -> HttpResponse:
    item = _watchable(request, broadcast_id)
    allowed = request.user.is_authenticated and request.user.has_perm(COMMENT_BROADCASTS)
    return render(
        request,
        "broadcasts/broadcast.html",
        {
            "snapshot": reads.snapshot(item=item, now=timezone.now()),
            "socket_path": f"/ws/broadcasts/{item.pk}/",
            "comment_url": reverse("broadcast_comment", args=[item.pk]) if allowed else None,
            "title": _title(item),
            "tournament": item.tournament,
        },
    )


@require_POST
def comment(request: HttpRequest, broadcast_id: int) -> JsonResponse:
    """A line of commentary (`services.broadcasts.add_comment` checks the power and the
    text): `{"comment": {…}}`, or `{"error": message}` with the refusal's status."""
    item = reads.broadcast(broadcast_id)
    if item is None:
        return JsonResponse({"error": _("No such broadcast.")}, status=404)
    try:
        said = service.add_comment(
            by=request.user, broadcast=item, text=request.POST.get("text", "")
        )
    except ServiceError as refusal:
        return JsonResponse({"error": str(refusal)}, status=refusal.status_code)
    return JsonResponse({"comment": reads.comment_json(said)})


# --- the director's console -----------------------------------------------------------


class DelayForm(forms.Form):
    """The delay in whole minutes (the service checks its range)."""

    delay_minutes = forms.IntegerField(
        label=gettext_lazy("Delay (minutes)"),
        initial=0,
        widget=forms.NumberInput(attrs={"min": 0, "max": service.MAX_DELAY_MINUTES}),
    )


def _back(tournament_id: int) -> HttpResponse:
    return redirect(reverse("console", args=[tournament_id]) + "#broadcasts")


@require_http_methods(["GET", "POST"])
@console_page
def start(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """GET: what broadcasting the match (`?match=`) or table (`?table=`) does, with its
    delay. POST: `broadcasts.start_broadcast`, back to the console."""
    tournament = get_object_or_404(Tournament, pk=tournament_id)
    source = request.POST if request.method == "POST" else request.GET
    match = table = None
    if source.get("match", "").isdigit():
        match = get_object_or_404(
            Match.objects.select_related("home", "away", "round"),
            pk=int(source["match"]),
            round__tournament=tournament,
        )
    elif source.get("table", "").isdigit():
        table = get_object_or_404(
            Table.objects.select_related("round"),
            pk=int(source["table"]),
            round__tournament=tournament,
        )
    else:
        raise Http404(_("Say which match or table to broadcast."))
    form = DelayForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            item = service.start_broadcast(
                by=request.user,
                tournament=tournament,
                match=match,
                table=table,
                delay_minutes=form.cleaned_data["delay_minutes"],
            )
        except ServiceError as refusal:
            messages.error(request, str(refusal))
        else:
            messages.success(
                request,
                _("The broadcast has started: %(url)s")
                % {"url": request.build_absolute_uri(reverse("broadcast", args=[item.pk]))},
            )
        return _back(tournament.pk)
    return render(
        request,
        "console/broadcast_start.html",
        {
            "tournament": tournament,
            "match": match,
            "table": table,
            "round": match.round if match is not None else table.round,
            "form": form,
            "powers": console_powers(request.user),
            "max_delay": service.MAX_DELAY_MINUTES,
        },
        status=400 if request.method == "POST" else 200,
    )


def _item(tournament_id: int, broadcast_id: int):
    item = reads.broadcast(broadcast_id)
    if item is None or item.tournament_id != tournament_id:
        raise Http404(_("No such broadcast."))
    return item


@require_POST
@console_page
def delay(request: HttpRequest, tournament_id: int, broadcast_id: int) -> HttpResponse:
    item = _item(tournament_id, broadcast_id)
    form = DelayForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("The delay is a whole number of minutes."))
        return _back(tournament_id)
    try:
        service.change_delay(
            by=request.user, broadcast=item, delay_minutes=form.cleaned_data["delay_minutes"]
        )
    except ServiceError as refusal:
        messages.error(request, str(refusal))
    else:
        messages.success(
            request,
            _("Broadcast %(id)s: boards are now shown %(n)s minutes after every table has "
              "finished them.") % {"id": item.pk, "n": item.delay_minutes},
        )  # fmt: skip
    return _back(tournament_id)


@require_POST
@console_page
def end(request: HttpRequest, tournament_id: int, broadcast_id: int) -> HttpResponse:
    item = _item(tournament_id, broadcast_id)
    try:
        service.end_broadcast(by=request.user, broadcast=item)
    except ServiceError as refusal:
        messages.error(request, str(refusal))
    else:
        messages.success(request, _("Broadcast %(id)s has ended.") % {"id": broadcast_id})
    return _back(tournament_id)
