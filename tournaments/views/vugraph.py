"""Vugraph LIN in and out (RULES 12): a match's or a table's LIN file to download; an
organiser's upload of a LIN file (`services.vugraph_import`); the imported matches'
list and each one drawn by the broadcast page as a finished record. Thin: the export,
the service and the selector decide."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.response import TemplateResponse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_http_methods

from ..errors import ServiceError
from ..exports import lin
from ..models import ImportPolicy, Match, Table
from ..selectors import imported_matches as reads
from ..services import vugraph_import
from ..services.permissions import ADD_TOURNAMENT, allowed


def _lin_response(text: str, filename: str, *, attachment: bool = True) -> HttpResponse:
    response = HttpResponse(text, content_type="text/plain; charset=utf-8")
    disposition = "attachment" if attachment else "inline"
    response["Content-Disposition"] = f'{disposition}; filename="{filename}"'
    return response


def _refused(error: ServiceError) -> HttpResponse:
    return HttpResponse(
        str(error), status=error.status_code, content_type="text/plain; charset=utf-8"
    )


@require_GET
def match_lin(request: HttpRequest, tournament_id: int, match_id: int) -> HttpResponse:
    """A match's two rooms as LIN (its boards once their round has closed)."""
    match = get_object_or_404(
        Match.objects.select_related("round__tournament", "home", "away"),
        pk=match_id,
        round__tournament_id=tournament_id,
    )
    try:
        text = lin.match_lin(match=match)
    except ServiceError as error:
        return _refused(error)
    return _lin_response(text, lin.match_filename(match))


@require_GET
def table_lin(
    request: HttpRequest, tournament_id: int, round_number: int, table_number: int
) -> HttpResponse:
    """One table's boards as a one-room LIN (once their round has closed)."""
    table = get_object_or_404(
        Table.objects.select_related("round__tournament"),
        round__tournament_id=tournament_id,
        round__number=round_number,
        number=table_number,
    )
    try:
        text = lin.table_lin(table=table)
    except ServiceError as error:
        return _refused(error)
    return _lin_response(text, lin.table_filename(table))


class LinImportForm(forms.Form):
    file = forms.FileField(label=gettext_lazy("LIN file"))
    policy = forms.ChoiceField(
        label=gettext_lazy("Policy"),
        choices=ImportPolicy.choices,
        initial=ImportPolicy.LENIENT,
        widget=forms.RadioSelect,
    )
    title = forms.CharField(
        label=gettext_lazy("Title"),
        required=False,
        max_length=vugraph_import.TITLE_MAX_LENGTH,
        help_text=gettext_lazy("Leave it empty to use the file's own (vg)."),
    )


def _organiser(request: HttpRequest) -> None:
    if not request.user.is_staff:
        raise PermissionDenied(_("Importing a LIN file is for tournament directors."))


@require_GET
def imported_list(request: HttpRequest) -> HttpResponse:
    """Every imported match, newest first; the upload link for organisers."""
    return render(
        request,
        "vugraph/list.html",
        {
            "matches": reads.imported_matches()[:200],
            "may_import": request.user.is_authenticated
            and request.user.is_staff
            and allowed(request.user, ADD_TOURNAMENT),
        },
    )


@login_required
@require_http_methods(["GET", "POST"])
def import_lin(request: HttpRequest) -> HttpResponse:
    """The organiser's upload: a file, strict or lenient, an optional title."""
    _organiser(request)
    form = LinImportForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        upload = form.cleaned_data["file"]
        if upload.size > vugraph_import.MAX_LIN_BYTES:
            data = upload.read(vugraph_import.MAX_LIN_BYTES + 1)
        else:
            data = upload.read()
        try:
            item = vugraph_import.import_lin_file(
                by=request.user,
                data=data,
                policy=form.cleaned_data["policy"],
                title=form.cleaned_data["title"] or None,
            )
        except ServiceError as error:
            form.add_error(None, str(error))
        else:
            refused = item.outcome.get("refused", 0)
            if refused:
                messages.warning(
                    request,
                    _("Imported; %(n)s rooms were refused and are marked.") % {"n": refused},
                )
            else:
                messages.success(request, _("Imported: every room replayed."))
            return redirect("vugraph_match", item.pk)
    return render(
        request,
        "vugraph/import.html",
        {"form": form, "max_mb": vugraph_import.MAX_LIN_BYTES // (1024 * 1024)},
    )


@require_GET
def imported_match(request: HttpRequest, match_id: int) -> HttpResponse:
    """An imported match drawn by the broadcast page, as a finished record (no socket,
    no commentary)."""
    item = reads.imported_match(match_id)
    if item is None:
        raise Http404(_("No such imported match."))
    title = item.title if not item.segment else f"{item.title} · {item.segment}"
    return TemplateResponse(
        request,
        "broadcasts/broadcast.html",
        {
            "snapshot": reads.snapshot(item=item, now=timezone.now()),
            "socket_path": None,
            "comment_url": None,
            "title": title,
            "imported": item,
        },
    )


@require_GET
def imported_match_lin(request: HttpRequest, match_id: int) -> HttpResponse:
    """The file an imported match was read from, as it was uploaded."""
    item = reads.imported_match(match_id)
    if item is None:
        raise Http404(_("No such imported match."))
    return _lin_response(item.text, f"imported-{item.pk}.lin")
