"""Django admin: where organisers run events. Every action calls a service."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.db import transaction
from django.shortcuts import render
from django.utils import timezone
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from .errors import ServiceError
from .forms import TournamentAdminForm
from .models import (
    Adjustment,
    Board,
    BoardResult,
    ClockHeartbeat,
    MasterPointAward,
    Pair,
    PairBoardScore,
    PlayerProfile,
    RankTitle,
    Round,
    Standing,
    Table,
    Tournament,
)
from .services import clock, registration, results
from .services.permissions import (
    DIRECT_RESULTS,
    DIRECT_RESULTS_CODENAME,
    MANAGE_PLAYERS,
    MANAGE_PLAYERS_CODENAME,
    RUN_CLOCK,
    RUN_CLOCK_CODENAME,
)

STALE_CLOCK_SECONDS = 30


class RunsClock:
    """Admin actions declaring `permissions=[RUN_CLOCK_CODENAME]` are offered only to
    users holding it; the service checks it again."""

    def has_run_clock_permission(self, request) -> bool:
        return request.user.has_perm(RUN_CLOCK)


def _run(modeladmin, request, label, func, *args, _describe=None, **kwargs):
    """Call a service and show its outcome; a refusal is an error message, never a 500.

    The message is `_describe(outcome)` when given, else the clock's event text(s).
    """
    try:
        outcome = func(*args, **kwargs)
    except ServiceError as error:
        modeladmin.message_user(request, f"{label}: {error}", messages.ERROR)
        return None
    if _describe is not None:
        details = [_describe(outcome)]
    elif isinstance(outcome, str):
        details = [outcome]
    elif isinstance(outcome, list) and all(isinstance(o, str) for o in outcome):
        details = outcome
    else:
        details = []
    # Clock events start with the tournament's name, which is already the label.
    details = [d.removeprefix(f"{label}: ") for d in details if d]
    detail = "; ".join(details) or _("done")
    modeladmin.message_user(request, f"{label}: {detail}", messages.SUCCESS)
    return outcome


def _new_bell(round: Round) -> str:
    return _("round %(n)s now ends at %(t)s") % {
        "n": round.number,
        "t": timezone.localtime(round.ends_at).strftime("%H:%M:%S"),
    }


def _round_in_play_form(base: type[forms.Form], queryset) -> type[forms.Form]:
    """`base` plus a hidden field per tournament holding the round the organiser saw.

    The service refuses when that round is no longer in play, so a bell ringing between
    this page and the click cannot turn "close round 2" into "close round 3".
    """
    fields = {}
    for tournament in queryset:
        current = tournament.round_set.order_by("-number").first()
        fields[f"round_{tournament.pk}"] = forms.IntegerField(
            widget=forms.HiddenInput,
            required=False,
            initial=current.number if current else None,
        )
    return type("RoundInPlayForm", (base,), fields)


def _rounds_in_play(queryset) -> str:
    parts = []
    for tournament in queryset:
        current = tournament.round_set.order_by("-number").first()
        where = _("round %(n)s") % {"n": current.number} if current else _("not started")
        parts.append(f"{tournament.name} ({where})")
    return ", ".join(parts)


class PairInline(admin.TabularInline):
    model = Pair
    fields = (
        "registration_no",
        "player1",
        "player2",
        "status",
        "withdrawn_at",
        "total",
        "boards_completed",
        "rank",
        "master_points",
    )
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True
    ordering = ("registration_no",)

    def has_add_permission(self, request, obj=None):
        return False


class RoundInline(admin.TabularInline):
    model = Round
    fields = ("number", "status", "starts_at", "ends_at", "closed_at", "bye_pair", "rematches")
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request, obj=None):
        return False


class ExtendForm(forms.Form):
    minutes = forms.FloatField(label=_("Extend by (minutes)"), min_value=0.1, max_value=1440)


@admin.register(Tournament)
class TournamentAdmin(RunsClock, admin.ModelAdmin):
    form = TournamentAdminForm
    list_display = (
        "name",
        "start_at",
        "status",
        "scoring_method",
        "rounds",
        "boards_per_round",
        "pair_count",
        "clock_health",
    )
    list_filter = ("status", "scoring_method", "unplayed_policy")
    search_fields = ("name",)
    date_hierarchy = "start_at"
    inlines = [PairInline, RoundInline]
    readonly_fields = (
        "status",
        "paused_at",
        "finished_at",
        "created_by",
        "draw_seed",
        "clock_health",
    )
    fieldsets = (
        (None, {"fields": ("name", "description", "status", "clock_health")}),
        (
            _("Schedule"),
            {
                "fields": (
                    "registration_opens_at",
                    "start_at",
                    "rounds",
                    "boards_per_round",
                    "round_length",
                    "gap_length",
                    "paused_at",
                    "finished_at",
                )
            },
        ),
        (
            _("Scoring"),
            {
                "fields": (
                    "scoring_method",
                    "neuberg",
                    "unplayed_policy",
                    "completion_threshold",
                    "first_round_draw",
                    "draw_seed",
                )
            },
        ),
    )
    actions = [
        "start_now",
        "close_round_now",
        "extend_round",
        "pause",
        "resume",
        "rescore_last_round",
    ]

    def get_queryset(self, request):
        from django.db.models import Count, Q

        return (
            super()
            .get_queryset(request)
            .annotate(_pairs=Count("pairs", filter=Q(pairs__status="confirmed")))
        )

    def get_readonly_fields(self, request, obj=None):
        fixed = list(self.readonly_fields)
        if obj is not None and obj.status != "scheduled":
            # The format of a running event is fixed; only the clock actions change it.
            fixed += [
                "rounds",
                "boards_per_round",
                "scoring_method",
                "start_at",
                "registration_opens_at",
                "first_round_draw",
            ]
        return fixed

    def save_model(self, request, obj, form, change):
        if not change:
            obj.created_by = request.user
        super().save_model(request, obj, form, change)

    @admin.display(description=_("pairs"), ordering="_pairs")
    def pair_count(self, obj):
        return obj._pairs

    @admin.display(description=_("round clock"))
    def clock_health(self, obj=None):
        beat = ClockHeartbeat.objects.filter(name="clock").first()
        if beat is None or beat.last_tick_at is None:
            return format_html('<span style="color:#b00">{}</span>', _("never ticked"))
        age = (timezone.now() - beat.last_tick_at).total_seconds()
        if age > STALE_CLOCK_SECONDS:
            return format_html(
                '<span style="color:#b00">{} {}s</span>', _("STALLED: last tick"), int(age)
            )
        return format_html(
            '<span style="color:#070">{} {}s ({})</span>',
            _("ticking: last tick"),
            int(age),
            beat.last_driver,
        )

    @admin.action(description=_("Start now"), permissions=[RUN_CLOCK_CODENAME])
    def start_now(self, request, queryset):
        for t in queryset:
            _run(self, request, t.name, clock.start_now, tournament=t, by=request.user)

    def _confirm_page(self, request, queryset, form, action, title):
        return render(
            request,
            "admin/tournaments/extend_round.html",
            {
                "form": form,
                "queryset": queryset,
                "action": action,
                "action_checkbox_name": ACTION_CHECKBOX_NAME,
                "opts": self.model._meta,
                "title": f"{title}: {_rounds_in_play(queryset)}",
            },
        )

    @admin.action(description=_("Close the current round now…"), permissions=[RUN_CLOCK_CODENAME])
    def close_round_now(self, request, queryset):
        # Closing cuts off every unfinished board for good, so it is confirmed on a page
        # that names the round.
        return self._round_action(
            request, queryset, forms.Form, clock.close_round_now,
            action="close_round_now", title=_("Close the current round now"),
        )  # fmt: skip

    @admin.action(description=_("Extend the current round…"), permissions=[RUN_CLOCK_CODENAME])
    def extend_round(self, request, queryset):
        return self._round_action(
            request, queryset, ExtendForm, clock.extend_round,
            action="extend_round", title=_("Extend the current round"),
            fields=("minutes",), describe=_new_bell,
        )  # fmt: skip

    def _round_action(
        self, request, queryset, base_form, service, *, action, title, fields=(), describe=None
    ):
        """A clock action on each tournament's round in play, confirmed on a page that
        names the round; the service refuses if that round is no longer in play."""
        form_class = _round_in_play_form(base_form, queryset)
        if "apply" not in request.POST:
            return self._confirm_page(request, queryset, form_class(), action, title)
        form = form_class(request.POST)
        if not form.is_valid():
            return self._confirm_page(request, queryset, form, action, title)
        for t in queryset:
            _run(
                self, request, t.name, service, tournament=t, by=request.user,
                round_number=form.cleaned_data.get(f"round_{t.pk}"),
                **{name: form.cleaned_data[name] for name in fields},
                _describe=describe,
            )  # fmt: skip
        return None

    @admin.action(description=_("Pause"), permissions=[RUN_CLOCK_CODENAME])
    def pause(self, request, queryset):
        for t in queryset:
            _run(
                self, request, t.name, clock.pause, tournament=t, by=request.user,
                _describe=lambda _t: _("paused"),
            )  # fmt: skip

    @admin.action(description=_("Resume"), permissions=[RUN_CLOCK_CODENAME])
    def resume(self, request, queryset):
        for t in queryset:
            _run(
                self, request, t.name, clock.resume, tournament=t, by=request.user,
                _describe=lambda _t: _("resumed"),
            )  # fmt: skip

    @admin.action(description=_("Re-score the last closed round"), permissions=[RUN_CLOCK_CODENAME])
    def rescore_last_round(self, request, queryset):
        for t in queryset:
            last = t.round_set.filter(status="closed").order_by("-number").first()
            if last is None:
                self.message_user(request, f"{t.name}: {_('no closed round')}", messages.ERROR)
                continue
            _run(
                self,
                request,
                t.name,
                clock.rescore_round,
                round=last,
                by=request.user,
                _describe=lambda _none, n=last.number: _("round %(n)s re-scored") % {"n": n},
            )


@admin.register(Pair)
class PairAdmin(admin.ModelAdmin):
    list_display = (
        "__str__",
        "tournament",
        "registration_no",
        "status",
        "withdrawn_at",
        "total",
        "boards_completed",
        "rank",
        "master_points",
    )
    list_filter = ("tournament", "status", "completed")
    search_fields = ("player1__username", "player2__username", "tournament__name")
    list_select_related = ("tournament", "player1__profile", "player2__profile")
    readonly_fields = (
        "status",
        "registration_no",
        "proposed_at",
        "confirmed_at",
        "withdrawn_at",
        "total",
        "boards_completed",
        "completed",
        "rank",
        "master_points",
    )
    autocomplete_fields = ("player1", "player2", "tournament")
    actions = ["withdraw"]

    def has_manage_players_permission(self, request) -> bool:
        return request.user.has_perm(MANAGE_PLAYERS)

    def has_add_permission(self, request):
        # Adding a pair here registers it on the players' behalf (save_model).
        return super().has_add_permission(request) and self.has_manage_players_permission(request)

    def get_readonly_fields(self, request, obj=None):
        if obj is not None:
            return self.readonly_fields + ("tournament", "player1", "player2")
        return self.readonly_fields

    def save_model(self, request, obj, form, change):
        if change:
            return super().save_model(request, obj, form, change)
        # A pair added by an organiser is registered at once, through the service.
        try:
            pair = registration.register_pair(
                tournament=obj.tournament,
                usernames=[obj.player1.get_username(), obj.player2.get_username()],
                by=request.user,
            )
        except ServiceError as error:
            raise forms.ValidationError(str(error)) from error
        obj.pk = pair.pk
        obj.refresh_from_db()

    def get_form(self, request, obj=None, **kwargs):
        form = super().get_form(request, obj, **kwargs)
        if obj is None:
            original_clean = form.clean

            def clean(self_form):
                data = original_clean(self_form)
                t, p1, p2 = data.get("tournament"), data.get("player1"), data.get("player2")
                if t and p1 and p2:
                    # The service's own checks, asked before saving so that a refusal is
                    # a form error (save_model cannot refuse). Only confirmed pairs hold
                    # players: a pending proposal of either player is no obstacle.
                    problem = registration.pair_problem(tournament=t, player1=p1, player2=p2)
                    if problem is None and t.status != "scheduled":
                        problem = registration.registration_problem(t, timezone.now())
                    if problem:
                        raise forms.ValidationError(problem)
                return data

            form.clean = clean
        return form

    @admin.action(
        description=_("Withdraw (not seated from the next round)"),
        permissions=[MANAGE_PLAYERS_CODENAME],
    )
    def withdraw(self, request, queryset):
        for pair in queryset:
            _run(self, request, str(pair), registration.withdraw_pair, pair=pair, by=request.user)


class TableInline(admin.TabularInline):
    model = Table
    fields = ("number", "ns_pair", "ew_pair")
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Round)
class RoundAdmin(RunsClock, admin.ModelAdmin):
    list_display = (
        "__str__",
        "status",
        "starts_at",
        "ends_at",
        "closed_at",
        "bye_pair",
        "rematches",
    )
    list_filter = ("status", "tournament")
    readonly_fields = (
        "tournament",
        "number",
        "status",
        "starts_at",
        "ends_at",
        "closed_at",
        "bye_pair",
        "rematches",
    )
    inlines = [TableInline]
    actions = ["rescore"]

    def has_add_permission(self, request):
        return False

    @admin.action(description=_("Re-score (closed rounds)"), permissions=[RUN_CLOCK_CODENAME])
    def rescore(self, request, queryset):
        for r in queryset:
            _run(
                self,
                request,
                str(r),
                clock.rescore_round,
                round=r,
                by=request.user,
                _describe=lambda _none: _("re-scored"),
            )


@admin.register(Board)
class BoardAdmin(admin.ModelAdmin):
    list_display = ("__str__", "round", "dealer", "vulnerability", "datum")
    list_filter = ("tournament",)
    readonly_fields = (
        "tournament",
        "round",
        "number",
        "dealer",
        "vulnerability",
        "deal",
        "datum",
        "double_dummy",  # solved by the clock after the close (services.analysis)
        "analysis_claimed_at",
    )

    def has_add_permission(self, request):
        return False


class AdjustForm(forms.Form):
    ns_adjustment = forms.ChoiceField(label=_("NS"), choices=Adjustment.choices)
    ew_adjustment = forms.ChoiceField(label=_("EW"), choices=Adjustment.choices)
    reason = forms.CharField(label=_("Reason"), max_length=500)


class _DryRun(Exception):
    pass


class BoardResultForm(forms.ModelForm):
    """Organisers correct a result here; it goes through the same validation and re-scores.

    `clean` runs the service in a savepoint that is always rolled back, so whatever the
    service refuses (a contract that is not one, too many tricks) is a form error on the
    page, not a success message over an unchanged result. `save_model` then runs it for
    real.
    """

    result_text = forms.CharField(label=_("result (=, +1, -2)"), required=False)
    director = None  # the organiser editing, set by BoardResultAdmin.get_form

    class Meta:
        model = BoardResult
        fields = ("contract", "declarer", "tricks", "lead", "adjustment_reason")

    def service_kwargs(self) -> dict:
        data = self.cleaned_data
        return {
            "table": self.instance.table,
            "board_number": self.instance.board.number,
            "by": self.director,
            "entry": results.ContractEntry(
                contract=data.get("contract") or "",
                declarer=data.get("declarer") or "",
                tricks=data.get("tricks"),
                result=data.get("result_text") or None,
                lead=data.get("lead") or "",
            ),
            "reason": data.get("adjustment_reason") or "",
        }

    def _post_clean(self):
        # A ModelForm copies the typed fields onto the instance here. The service writes
        # the result instead, and a refused contract copied onto it would break its
        # __str__ when the page with the error is drawn, so the instance stays as stored.
        pass

    def clean(self):
        data = super().clean()
        if self.errors or self.director is None:
            return data
        try:
            with transaction.atomic():
                results.director_set_result(**self.service_kwargs())
                raise _DryRun
        except _DryRun:
            pass
        except ServiceError as error:
            raise forms.ValidationError(str(error)) from error
        return data


@admin.register(BoardResult)
class BoardResultAdmin(admin.ModelAdmin):
    form = BoardResultForm
    list_display = (
        "board",
        "table",
        "state",
        "contract",
        "declarer",
        "tricks",
        "ns_score",
        "ns_adjustment",
        "ew_adjustment",
        "disputed",
        "entered_by",
        "entered_at",
    )
    list_filter = ("state", "disputed", "board__tournament")
    search_fields = ("board__tournament__name",)
    list_select_related = ("board__tournament", "table__round", "entered_by")
    readonly_fields = (
        "table",
        "board",
        "state",
        "ns_score",
        "ns_adjustment",
        "ew_adjustment",
        "entered_by",
        "entered_at",
        "confirmed_by",
        "confirmed_at",
        "disputed",
        "dispute_note",
        "disputed_at",
        "adjusted_by",
    )
    actions = ["adjust"]

    def has_add_permission(self, request):
        return False

    def has_direct_results_permission(self, request) -> bool:
        return request.user.has_perm(DIRECT_RESULTS)

    def has_change_permission(self, request, obj=None):
        # The change form is the director's correction (director_set_result): without
        # the power the result is shown read-only.
        return super().has_change_permission(request, obj) and self.has_direct_results_permission(
            request
        )

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change=change, **kwargs)
        return type(form.__name__, (form,), {"director": request.user})

    def save_model(self, request, obj, form, change):
        # The service writes the result (never the form's raw fields) and re-scores.
        # `clean` already ran it with the same input and its refusals depend only on
        # that input, so it cannot refuse here.
        results.director_set_result(**form.service_kwargs())
        obj.refresh_from_db()

    @admin.action(
        description=_("Replace by an adjusted score…"), permissions=[DIRECT_RESULTS_CODENAME]
    )
    def adjust(self, request, queryset):
        if "apply" in request.POST:
            form = AdjustForm(request.POST)
            if form.is_valid():
                for r in queryset.select_related("table", "board"):
                    _run(
                        self,
                        request,
                        str(r),
                        results.director_set_result,
                        table=r.table,
                        board_number=r.board.number,
                        by=request.user,
                        ns_adjustment=form.cleaned_data["ns_adjustment"],
                        ew_adjustment=form.cleaned_data["ew_adjustment"],
                        reason=form.cleaned_data["reason"],
                    )
                return None
        else:
            form = AdjustForm()
        return render(
            request,
            "admin/tournaments/extend_round.html",
            {
                "form": form,
                "queryset": queryset,
                "action": "adjust",
                "action_checkbox_name": ACTION_CHECKBOX_NAME,
                "opts": self.model._meta,
                "title": _("Replace by an adjusted score"),
            },
        )


@admin.register(PlayerProfile)
class PlayerProfileAdmin(admin.ModelAdmin):
    list_display = ("user", "display_name", "master_points")
    search_fields = ("user__username", "display_name")
    readonly_fields = ("master_points",)


@admin.register(RankTitle)
class RankTitleAdmin(admin.ModelAdmin):
    list_display = ("level", "name_zh", "name_en", "min_master_points")
    list_editable = ("min_master_points",)
    ordering = ("level",)


@admin.register(MasterPointAward)
class MasterPointAwardAdmin(admin.ModelAdmin):
    list_display = ("tournament", "user", "rank", "points", "awarded_at")
    list_filter = ("tournament",)
    search_fields = ("user__username",)

    def has_change_permission(self, request, obj=None):
        return False

    def has_add_permission(self, request):
        return False


@admin.register(ClockHeartbeat)
class ClockHeartbeatAdmin(admin.ModelAdmin):
    list_display = ("name", "last_tick_at", "last_driver", "ticks", "last_error")
    readonly_fields = ("name", "last_tick_at", "last_driver", "ticks", "last_error")

    def has_add_permission(self, request):
        return False


admin.site.register(
    Standing,
    list_display=("pair", "round", "round_score", "total", "position"),
    list_filter=("round__tournament",),
)
admin.site.register(
    PairBoardScore, list_display=("pair", "board", "direction", "points", "completed")
)
admin.site.site_header = _("Swiss pairs tournament director")
admin.site.site_title = _("Swiss pairs")

from . import admin_tokens  # noqa: E402, F401 - API tokens' admin, kept apart
