"""The club's pages (RULES 13): the lobby (open a table, sit, wait, robots, leave; polled
so a waiting player sees their table start), "my boards" with each deal's field, a
deal's field, the week's standings per system, and the organiser's membership page.

Thin: reads from `selectors.club`, every change from `services.club`, whose refusal is
shown as it is worded (nothing changed).
"""

from __future__ import annotations

from collections.abc import Callable

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from .. import permissions
from ..errors import ServiceError
from ..models import ClubSystem
from ..selectors import club as reads
from ..services import club
from .organiser import console_page

SEATS = ("N", "E", "S", "W")
LOBBY_POLL_SECONDS = 3


def short_labels() -> list[tuple[str, str]]:
    """The systems as the standings' tabs name them (short enough for a phone)."""
    return [
        (ClubSystem.DUPLICATE, _("Duplicate")),
        (ClubSystem.FULL_FIELD_IMPS, _("Full field IMPs")),
        (ClubSystem.FULL_FIELD_MP, _("Full field MP")),
        (ClubSystem.HANDICAP, _("Handicap")),
    ]


def play_url(path: tuple[int, int, int] | None) -> str | None:
    """The table page of a playing club table (its sitting's round, table 1)."""
    if path is None:
        return None
    return reverse("play_table", args=path)


def _lobby_context(request: HttpRequest) -> dict:
    lobby = reads.lobby(user=request.user, now=timezone.now())
    my_url = None
    if lobby.my_table is not None and not lobby.my_table.forming:
        my_url = play_url(lobby.my_table.play_path)
    return {
        "lobby": lobby,
        "my_url": my_url,
        "seats": SEATS,
        "systems": ClubSystem.choices,
        "poll_seconds": LOBBY_POLL_SECONDS,
    }


@require_GET
def lobby(request: HttpRequest) -> HttpResponse:
    context = _lobby_context(request)
    if request.headers.get("HX-Request"):
        return render(request, "club/_lobby.html", context)
    return render(request, "club/lobby.html", context)


def _act(request: HttpRequest, action: Callable[[], object]) -> HttpResponse:
    """Run a lobby action; its refusal is the page's error message."""
    try:
        action()
    except ServiceError as refused:
        messages.error(request, str(refused))
        return redirect("club_lobby")
    # Seated at a table that started: straight to it.
    mine = reads.lobby(user=request.user, now=timezone.now()).my_table
    if mine is not None and not mine.forming and mine.play_path is not None:
        return redirect(play_url(mine.play_path))
    return redirect("club_lobby")


def _table_id(request: HttpRequest) -> int:
    try:
        value = int(request.POST.get("table", ""))
    except ValueError:
        raise Http404(_("There is no such club table.")) from None
    if not 0 < value < 2**63:
        raise Http404(_("There is no such club table."))
    return value


@login_required
@require_POST
def open_table(request: HttpRequest) -> HttpResponse:
    system, seat = request.POST.get("system", ""), request.POST.get("seat", "S")
    return _act(request, lambda: club.open_table(user=request.user, system=system, seat=seat))


@login_required
@require_POST
def sit(request: HttpRequest) -> HttpResponse:
    table, seat = _table_id(request), request.POST.get("seat", "")
    return _act(request, lambda: club.sit(user=request.user, club_table_id=table, seat=seat))


@login_required
@require_POST
def wait(request: HttpRequest) -> HttpResponse:
    system = request.POST.get("system", "")
    return _act(request, lambda: club.wait(user=request.user, system=system))


@login_required
@require_POST
def stop_waiting(request: HttpRequest) -> HttpResponse:
    return _act(request, lambda: club.stop_waiting(user=request.user))


@login_required
@require_POST
def robots(request: HttpRequest) -> HttpResponse:
    table = _table_id(request)
    return _act(request, lambda: club.add_robots(user=request.user, club_table_id=table))


@login_required
@require_POST
def leave(request: HttpRequest) -> HttpResponse:
    table = _table_id(request)
    return _act(request, lambda: club.leave(user=request.user, club_table_id=table))


def _week(request: HttpRequest):
    """The week asked for (`?week=<id>`), else this week."""
    asked = request.GET.get("week")
    if asked:
        if not asked.isdigit() or len(asked) > 18:
            raise Http404(_("There is no such club week."))
        week = reads.week_by_id(int(asked))
        if week is None:
            raise Http404(_("There is no such club week."))
        return week
    return reads.this_week(timezone.now())


@login_required
@require_GET
def my_boards(request: HttpRequest) -> HttpResponse:
    week = _week(request) if request.GET.get("week") else None
    total = reads.my_boards(user=request.user, week=week, limit=0).total
    paginator = Paginator(range(total), reads.MY_BOARDS_PAGE)
    page = paginator.get_page(request.GET.get("page"))
    found = reads.my_boards(
        user=request.user,
        week=week,
        limit=reads.MY_BOARDS_PAGE,
        offset=(page.number - 1) * reads.MY_BOARDS_PAGE,
    )
    return render(
        request,
        "club/my_boards.html",
        {
            "boards": found.boards,
            "page": page,
            "week": week,
            "weeks": reads.recent_weeks(),
        },
    )


@require_GET
def deal(request: HttpRequest, deal_id: int) -> HttpResponse:
    found = reads.deal_field(user=request.user, deal_id=deal_id)
    if found is None:
        # Hidden (not given it, the week open) or no such deal: the same answer.
        raise Http404(_("This deal's results are shown to those who played it."))
    return render(request, "club/deal.html", {"found": found})


@require_GET
def standings(request: HttpRequest, system: str = ClubSystem.DUPLICATE) -> HttpResponse:
    if system not in ClubSystem.values:
        raise Http404(_("Choose duplicate, full field (IMPs or MP) or handicap."))
    week = _week(request)
    found = reads.standings(week=week, system=system)
    return render(
        request,
        "club/standings.html",
        {
            "found": found,
            "systems": short_labels(),
            "weeks": reads.recent_weeks(),
            "week": week,
            "asked_week": request.GET.get("week", ""),
        },
    )


@console_page
def members(request: HttpRequest) -> HttpResponse:
    """Grant or withdraw club membership (the service checks the power)."""
    may_grant = request.user.has_perm(permissions.GRANT_CLUB_MEMBERSHIP)
    if request.method == "POST":
        username = request.POST.get("username", "").strip()
        grant = request.POST.get("grant") == "1"
        person = get_user_model().objects.filter(username=username).first()
        if person is None:
            messages.error(request, _("There is no player called %(u)s.") % {"u": username})
        else:
            try:
                club.grant_membership(by=request.user, user=person, member=grant)
            except ServiceError as refused:
                messages.error(request, str(refused))
            else:
                messages.success(
                    request,
                    (
                        _("%(u)s is a club member now.")
                        if grant
                        else _("%(u)s is no longer a club member.")
                    )
                    % {"u": username},
                )
        return redirect("console_club_members")
    return render(
        request,
        "club/members.html",
        {"members": reads.members(), "may_grant": may_grant},
    )
