"""The director's console: one page per tournament, in the site's own look, for an
organiser who has never seen Django admin (docs/ARCHITECTURE.md says why it is not an
admin page).

Thin views: reads come from `selectors.console`, every change from a service called
with `by=request.user` (the clock's actions, `results.director_set_result`,
`setup.create_tournament`, and at one online table `table_director.give_extra_time`,
`seat_robot` and `programs.reserve`), which checks the permission; the pages only hide
the buttons a user may not use. Every clock action asks first on a confirmation page that
says what it will do (RULES 3), with a Cancel.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods

from ..console_forms import (
    DirectorResultForm,
    ExtendForm,
    ExtraTimeForm,
    MovementSettingsForm,
    NewTournamentForm,
    RobotForm,
)
from ..errors import ClockError, ServiceError
from ..models import (
    Board,
    Contestants,
    PlayMode,
    ResultState,
    RoundStatus,
    Seating,
    Table,
    Team,
    Tournament,
    TournamentStatus,
)
from ..round_rules import table_bell
from ..selectors import broadcasts as broadcast_reads
from ..selectors import console as console_selectors
from ..selectors import programs
from ..selectors.seating import TABLE_PAIRS
from ..services import clock, results, settings_change, setup, table_director, teams
from ..templatetags.bridge import seat_name
from ..timezones import zone_label
from . import programs as program_pages
from .format_pages import pages_of
from .organiser import console_page, console_powers

CONSOLE_POLL_SECONDS = 5


@require_GET
@console_page
def index(request: HttpRequest) -> HttpResponse:
    # The club's weeks are the lobby's, not events a director runs round by round.
    tournaments = Tournament.objects.events().order_by("-start_at")[:50]
    return render(
        request,
        "console/index.html",
        {"tournaments": tournaments, "powers": console_powers(request.user)},
    )


# The new-tournament form in the order an organiser decides: what and how it is played,
# when, and how it is scored.
NEW_TOURNAMENT_GROUPS = (
    (gettext_lazy("The event"), ("name", "description", "contestants", "play", "kibitz_live")),
    (
        gettext_lazy("Schedule"),
        (
            "start_at",
            "registration_opens_at",
            "rounds",
            "boards_per_round",
            "round_minutes",
            "gap_minutes",
        ),
    ),
    (
        gettext_lazy("Seating and scoring"),
        (
            "seating",
            "team_scoring",
            "bye_vp",
            "winners",
            "boards_travel",
            "arrow_switch",
            "movement_file",
            "first_round_draw",
            "scoring",
            "unplayed_policy",
            "completion_threshold",
            "neuberg",
            "datum_rounding",
        ),
    ),
)


# The fields that mean something for one kind of contestants only: the form hides the
# others' (the service still checks every value it is given).
PAIRS_ONLY_FIELDS = frozenset(
    ("winners", "boards_travel", "arrow_switch", "movement_file", "scoring", "neuberg",
     "datum_rounding", "completion_threshold")
)  # fmt: skip
TEAMS_ONLY_FIELDS = frozenset(("team_scoring", "bye_vp"))


@require_http_methods(["GET", "POST"])
@console_page
def new_tournament(request: HttpRequest) -> HttpResponse:
    form = NewTournamentForm(request.POST or None, request.FILES or None)
    error = ""
    if request.method == "POST" and form.is_valid():
        try:
            tournament = setup.create_tournament(by=request.user, **form.settings())
        except ServiceError as refusal:
            error = str(refusal)
        else:
            messages.success(request, _("Tournament created: %(t)s.") % {"t": tournament.name})
            return redirect("console", tournament.pk)
    return render(
        request,
        "console/new.html",
        {
            "form": form,
            "error": error,
            "zone": zone_label(timezone.now()),
            "groups": NEW_TOURNAMENT_GROUPS,
            "pairs_only": PAIRS_ONLY_FIELDS,
            "teams_only": TEAMS_ONLY_FIELDS,
            "contestants": form["contestants"].value() or Contestants.PAIRS,
        },
        status=400 if request.method == "POST" else 200,
    )


def _console_context(request: HttpRequest, tournament: Tournament, version: str = "") -> dict:
    version = version or console_selectors.progress_version(tournament=tournament)
    unfinished = request.GET.get("todo") == "1"
    progress = console_selectors.round_progress(
        tournament=tournament, page=request.GET.get("tp", 1), unfinished=unfinished
    )
    round = progress.round
    last_closed = tournament.round_set.filter(status=RoundStatus.CLOSED).current()
    status = tournament.status
    in_play = round is not None and round.status != RoundStatus.CLOSED
    pages = pages_of(tournament)
    return {
        "tournament": tournament,
        "progress": progress,
        "round": round,
        "now": timezone.now(),
        "powers": console_powers(request.user),
        # The buttons the clock's state allows; the services refuse the others anyway.
        "can": {
            "start": status == TournamentStatus.SCHEDULED,
            "close": status in (TournamentStatus.RUNNING, TournamentStatus.PAUSED)
            and round is not None
            and round.status == RoundStatus.OPEN,
            "extend": status in (TournamentStatus.RUNNING, TournamentStatus.PAUSED) and in_play,
            "pause": status in (TournamentStatus.SCHEDULED, TournamentStatus.RUNNING),
            "resume": status == TournamentStatus.PAUSED,
            "rescore": last_closed is not None,
        },
        "poll_seconds": CONSOLE_POLL_SECONDS,
        "progress_version": version,
        # The format's parts of the console; a team event's round: its matches, each
        # with its two rooms' tables.
        "format_pages": pages,
        "matches": pages.round_matches(round),
        "broadcasts": broadcast_panel(tournament, round),
    }


def broadcast_panel(tournament: Tournament, round) -> dict | None:
    """An online event's broadcasts (RULES 12), keyed for the match list and the table
    rows, and whether a new one may start (the round in play); None for an event
    played elsewhere."""
    if tournament.play != PlayMode.ONLINE:
        return None
    found = broadcast_reads.listed(tournament_id=tournament.pk)
    return {
        "list": found,
        "by_match": {row.match_id: row for row in found if row.match_id is not None},
        "by_table": {row.table_id: row for row in found if row.table_id is not None},
        "may_start": tournament.status != TournamentStatus.FINISHED
        and round is not None
        and round.status != RoundStatus.CLOSED,
    }


@require_GET
@console_page
def console(request: HttpRequest, tournament_id: int) -> HttpResponse:
    tournament = get_object_or_404(Tournament, pk=tournament_id)
    context = _console_context(request, tournament)
    context["dispute_count"] = console_selectors.dispute_count(tournament=tournament)
    # The programs playing seats of the round (SPEC 14) and their think times.
    round = context.get("round")
    context["programs"] = programs.round_programs(round_id=round.pk) if round else []
    query = request.GET.get("q", "")
    page = request.GET.get("page", 1)
    context.update(
        disputes=list(console_selectors.disputed_results(tournament=tournament)),
        query=query,
        forms={},
    )
    pages = context["format_pages"]
    context.update(pages.contestants_context(request, tournament, query=query, page=page))
    sights = console_selectors.dispute_sights(disputes=context["disputes"], user=request.user)
    context["rulings"] = [_ruling(sight) for sight in sights]
    context["movement"] = pages.movement_panel(tournament)
    return render(request, "console/console.html", context)


@require_http_methods(["GET", "POST"])
@console_page
def seating(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """The seating and the movement, changeable until round 1 starts
    (`settings_change.change_movement`, which checks the power and the movement)."""
    tournament = get_object_or_404(Tournament, pk=tournament_id)
    pages = pages_of(tournament)
    if not pages.seating_changes:
        # A team event is seated by its schedule, chosen when it was created (RULES 11).
        return render(
            request,
            "console/seating.html",
            {
                "tournament": tournament,
                "format_pages": pages,
                "powers": console_powers(request.user),
            },
            status=400 if request.method == "POST" else 200,
        )
    initial = {
        "seating": tournament.seating,
        "winners": tournament.winners,
        "boards_travel": tournament.boards_travel,
        "arrow_switch": tournament.arrow_switch,
    }
    form = MovementSettingsForm(request.POST or None, request.FILES or None, initial=initial)
    error = ""
    if request.method == "POST" and form.is_valid():
        chosen = form.seating_settings()
        if chosen["movement"] is None and chosen["seating"] == tournament.seating:
            # The movement already given stays when no new file comes with the form.
            chosen["movement"] = tournament.movement
        try:
            settings_change.change_movement(tournament=tournament, by=request.user, **chosen)
        except ServiceError as refusal:
            error = str(refusal)
        else:
            messages.success(
                request, _("Seating saved: %(s)s.") % {"s": Seating(chosen["seating"]).label}
            )
            return redirect("console", tournament.pk)
    return render(
        request,
        "console/seating.html",
        {
            "tournament": tournament,
            "form": form,
            "error": error,
            "format_pages": pages,
            "movement": pages.movement_panel(tournament),
            "powers": console_powers(request.user),
        },
        status=400 if request.method == "POST" else 200,
    )


def _ruling(sight: console_selectors.DisputeSight) -> tuple:
    """A dispute as the queue shows it (`selectors.console.dispute_sights`), with the
    director's form filled in with the entry."""
    result = sight.result
    form = DirectorResultForm(
        prefix=f"r{result.pk}", initial=DirectorResultForm.initial_for(result)
    )
    return result, sight.entered, sight.disputing, form, sight.sees_result, sight.sees_deal


@require_GET
@console_page
def progress(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """Polled by the console every few seconds: the round's clock, buttons and tables;
    an empty 204 while nothing they show has changed."""
    tournament = get_object_or_404(Tournament, pk=tournament_id)
    version = console_selectors.progress_version(tournament=tournament)
    if request.GET.get("v") == version:
        return HttpResponse(status=204)
    context = _console_context(request, tournament, version)
    context["dispute_count"] = console_selectors.dispute_count(tournament=tournament)
    return render(request, "console/_progress.html", context)


# The clock's actions: what each one asks and does.


@dataclass(frozen=True)
class Action:
    title: object  # lazy text
    button: object
    danger: bool = False


ACTIONS = {
    "start": Action(gettext_lazy("Start the tournament now"), gettext_lazy("Start now")),
    "close": Action(
        gettext_lazy("Close the round now"), gettext_lazy("Close the round"), danger=True
    ),
    "extend": Action(gettext_lazy("Extend the round"), gettext_lazy("Extend")),
    "pause": Action(gettext_lazy("Pause the tournament"), gettext_lazy("Pause")),
    "resume": Action(gettext_lazy("Resume the tournament"), gettext_lazy("Resume")),
    "rescore": Action(gettext_lazy("Re-score the last closed round"), gettext_lazy("Re-score")),
}


def _round_number(request: HttpRequest) -> int | None:
    raw = request.POST.get("round_number", "")
    return int(raw) if raw.isdigit() else None


def _apply(request: HttpRequest, tournament: Tournament, name: str, form) -> str:
    """Call the clock service for action `name`; what to tell the organiser."""
    by, now = request.user, timezone.now()
    if name == "start":
        clock.start_now(tournament=tournament, by=by, now=now)
        # The clock's own event text is English (the log's); this is the organiser's.
        return _("Started: round 1 is seated and open.")
    if name == "close":
        report = clock.close_round_now(
            tournament=tournament, by=by, now=now, round_number=_round_number(request)
        )
        return _("Round %(n)s closed and scored.") % {"n": report.round.number}
    if name == "extend":
        report = clock.extend_round(
            tournament=tournament,
            minutes=form.cleaned_data["minutes"],
            by=by,
            now=now,
            round_number=_round_number(request),
        )
        return _("Round %(n)s now ends at %(t)s.") % {
            "n": report.round.number,
            "t": _local(report.round.ends_at),
        }
    if name == "pause":
        clock.pause(tournament=tournament, by=by, now=now)
        return _("Paused: the clock has stopped.")
    if name == "resume":
        clock.resume(tournament=tournament, by=by, now=now)
        return _("Resumed: the clock runs again.")
    last = tournament.round_set.filter(status=RoundStatus.CLOSED).current()
    if last is None:
        raise ClockError(_("No round has closed yet; there is nothing to re-score."))
    clock.rescore_round(round=last, by=by, now=now)
    return _("Round %(n)s re-scored.") % {"n": last.number}


def _local(when: datetime) -> str:
    return f"{timezone.localtime(when).strftime('%H:%M:%S')} {zone_label(when)}"


@require_http_methods(["GET", "POST"])
@console_page
def action(request: HttpRequest, tournament_id: int, name: str) -> HttpResponse:
    """GET: what `name` will do, with Confirm and Cancel. POST: do it, back to the console."""
    if name not in ACTIONS:
        raise Http404
    tournament = get_object_or_404(Tournament, pk=tournament_id)
    form = ExtendForm(request.POST or None) if name == "extend" else None
    if request.method == "POST" and (form is None or form.is_valid()):
        try:
            said = _apply(request, tournament, name, form)
        except ServiceError as refusal:
            messages.error(request, str(refusal))
        else:
            messages.success(request, said)
        return redirect("console", tournament.pk)
    round = tournament.round_set.current()
    pages = pages_of(tournament)
    context = {
        "tournament": tournament,
        "format_pages": pages,
        "name": name,
        "action": ACTIONS[name],
        "form": form,
        "round": round,
        "last_closed": tournament.round_set.filter(status=RoundStatus.CLOSED).current(),
        "powers": console_powers(request.user),
    }
    if name == "start":
        context.update(pages.start_context(tournament))
    if name == "close":
        context["close"] = console_selectors.close_summary(tournament=tournament)
    return render(request, "console/confirm.html", context)


# The director's result: a ruling on a dispute, or any table's result.


def _table(tournament_id: int, table_id: int) -> Table:
    return get_object_or_404(
        Table.objects.select_related("round__tournament", *TABLE_PAIRS),
        pk=table_id,
        round__tournament_id=tournament_id,
    )


def _rule(request: HttpRequest, table: Table, board_number: int, form: DirectorResultForm):
    data = form.cleaned_data
    if form.adjusting:
        return results.director_set_result(
            table=table,
            board_number=board_number,
            by=request.user,
            ns_adjustment=data["ns_adjustment"],
            ew_adjustment=data["ew_adjustment"],
            reason=data["reason"],
        )
    return results.director_set_result(
        table=table,
        board_number=board_number,
        by=request.user,
        entry=form.entry,
        reason=data["reason"],
    )


@require_http_methods(["GET", "POST"])
@console_page
def result(request: HttpRequest, tournament_id: int, table_id: int, number: int) -> HttpResponse:
    """The director's result for one board at one table: the players' pickers, the
    result as entered (and by whom), the dispute, the hand. A ruling from the dispute
    queue posts here too (its form has the result's prefix)."""
    table = _table(tournament_id, table_id)
    board = get_object_or_404(Board, round=table.round, number=number)
    current, sees_result, sees_deal = console_selectors.director_result(
        table=table, board=board, user=request.user
    )
    prefix = request.POST.get("prefix", "") or None
    form = DirectorResultForm(
        request.POST or None, prefix=prefix, initial=DirectorResultForm.initial_for(current)
    )
    error = ""
    if request.method == "POST" and form.is_valid():
        try:
            _rule(request, table, number, form)
        except ServiceError as refusal:
            error = str(refusal)
        else:
            messages.success(
                request,
                _("Board %(b)s at table %(t)s: the director's result is recorded.")
                % {"b": number, "t": table.number},
            )
            return redirect("console", tournament_id)
    return render(
        request,
        "console/result.html",
        {
            "tournament": table.round.tournament,
            "table": table,
            "board": board,
            "sees_result": sees_result,
            "sees_deal": sees_deal,
            "current": current,
            "form": form,
            "error": error,
            "played": ResultState.PLAYED,
            "powers": console_powers(request.user),
        },
        status=400 if request.method == "POST" else 200,
    )


@require_http_methods(["GET", "POST"])
@console_page
def extra_time(request: HttpRequest, tournament_id: int, table_id: int) -> HttpResponse:
    """GET: what extra time for one table does, with the minutes and a reason. POST:
    `table_director.give_extra_time` (which checks the power), back to the console."""
    table = _table(tournament_id, table_id)
    form = ExtraTimeForm(request.POST or None)
    error = ""
    if request.method == "POST" and form.is_valid():
        try:
            given = table_director.give_extra_time(
                table=table,
                minutes=form.cleaned_data["minutes"],
                reason=form.cleaned_data["reason"],
                by=request.user,
            )
        except ServiceError as refusal:
            error = str(refusal)
        else:
            messages.success(
                request,
                _("Table %(t)s now plays until %(at)s; the other tables stop at the bell.")
                % {"t": given.number, "at": _local(given.ends_at)},
            )
            return redirect("console", tournament_id)
    round = table.round
    return render(
        request,
        "console/extra_time.html",
        {
            "tournament": round.tournament,
            "table": table,
            "round": round,
            "bell": table_bell(round_ends_at=round.ends_at, table_ends_at=table.ends_at),
            "history": console_selectors.table_directions(table=table),
            "form": form,
            "error": error,
            "powers": console_powers(request.user),
        },
        status=400 if request.method == "POST" else 200,
    )


@require_http_methods(["GET", "POST"])
@console_page
def robot(request: HttpRequest, tournament_id: int, table_id: int) -> HttpResponse:
    """GET: who is connected at the table, and what a robot in a seat does. POST:
    `table_director.seat_robot` (which checks the power and the seat), to the console."""
    table = _table(tournament_id, table_id)
    form = RobotForm(request.POST or None)
    error = ""
    if request.method == "POST" and form.is_valid():
        try:
            table_director.seat_robot(
                table=table,
                seat=form.cleaned_data["seat"],
                reason=form.cleaned_data["reason"],
                by=request.user,
            )
        except ServiceError as refusal:
            error = str(refusal)
        else:
            messages.success(
                request,
                _("A robot plays seat %(s)s at table %(t)s for the rest of the round.")
                % {"s": seat_name(form.cleaned_data["seat"]), "t": table.number},
            )
            return redirect("console", tournament_id)
    round = table.round
    connected = console_selectors.connections(table_ids=[table.pk], now=timezone.now())
    return render(
        request,
        "console/robot.html",
        {
            "tournament": round.tournament,
            "table": table,
            "round": round,
            "connected": sorted(connected.get(table.pk, {})),
            "history": console_selectors.table_directions(table=table),
            "form": form,
            "error": error,
            "powers": console_powers(request.user),
        },
        status=400 if request.method == "POST" else 200,
    )


@never_cache
@require_http_methods(["GET", "POST"])
@console_page
def program(request: HttpRequest, tournament_id: int, table_id: int) -> HttpResponse:
    """GET: a seat at an online table for an outside program (SPEC 14). POST:
    `programs.reserve` (which checks the power), then its ticket, shown this once."""
    table = _table(tournament_id, table_id)
    return program_pages.seat_program(
        request,
        table=table,
        seats=None,
        back_url=reverse("console", args=[tournament_id]),
        console=True,
        powers=console_powers(request.user),
    )


# A team event's team withdrawn by the director (RULES 11).


@require_http_methods(["GET", "POST"])
@console_page
def withdraw_team(request: HttpRequest, tournament_id: int, team_id: int) -> HttpResponse:
    """GET: what withdrawing the team does, with Confirm and Cancel. POST:
    `teams.withdraw_team` (which checks the power), back to the console."""
    team = get_object_or_404(
        Team.objects.select_related("tournament"), pk=team_id, tournament_id=tournament_id
    )
    error = ""
    if request.method == "POST":
        try:
            teams.withdraw_team(team=team, by=request.user)
        except ServiceError as refusal:
            error = str(refusal)
        else:
            messages.success(
                request,
                _("Team %(name)s has withdrawn. It will not play in later rounds.")
                % {"name": team.name},
            )
            return redirect("console", tournament_id)
    tournament = team.tournament
    round = tournament.round_set.current()
    return render(
        request,
        "console/withdraw_team.html",
        {
            "tournament": tournament,
            "team": team,
            "in_play": round is not None and round.status != RoundStatus.CLOSED,
            "error": error,
            "powers": console_powers(request.user),
        },
        status=400 if error else 200,
    )
