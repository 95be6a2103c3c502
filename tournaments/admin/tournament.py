"""The tournament pages and the clock's organiser actions: start now, close the round now,
extend it, pause, resume, re-score; the rounds with their tables; the clock's heartbeat."""

from __future__ import annotations

import copy
from decimal import Decimal

from django import forms
from django.contrib import admin, messages
from django.db.models import Count, Q
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

import movements

from .. import round_rules
from ..errors import ServiceError
from ..models import (
    ClockHeartbeat,
    DatumRounding,
    PairStatus,
    Round,
    RoundStatus,
    ScoringMethod,
    Seating,
    SettingsChange,
    Table,
    Tournament,
    TournamentStatus,
    UnplayedPolicy,
)
from ..services import clock, settings_change, setup
from ..services.permissions import RUN_CLOCK_CODENAME
from .actions import RunsClock, confirmed, run_action
from .late_entry import ManagesPlayers, add_late_pair

STALE_CLOCK_SECONDS = 30
VIEW_TOURNAMENT = "tournaments.view_tournament"


def _events(report: clock.ActionReport) -> tuple[str, ...]:
    return report.messages


def _new_bell(report: clock.ActionReport) -> list[str]:
    assert report.round is not None  # extend_round always names the round it extended
    return [
        _("round %(n)s now ends at %(t)s")
        % {
            "n": report.round.number,
            "t": timezone.localtime(report.round.ends_at).strftime("%H:%M:%S"),
        }
    ]


def _rescored(report: clock.ActionReport) -> list[str]:
    assert report.round is not None  # rescore_round always names the round it re-scored
    return [_("round %(n)s re-scored") % {"n": report.round.number}]


def _round_in_play(base: type[forms.Form], queryset) -> tuple[type[forms.Form], str]:
    """`base` plus a hidden field per tournament holding the round the organiser saw,
    and those rounds named for the confirmation page ("Spring pairs (round 2), …").

    The service refuses when that round is no longer in play, so a bell ringing between
    this page and the click cannot turn "close round 2" into "close round 3".
    """
    fields = {}
    seen = []
    for tournament in queryset:
        current = tournament.round_set.current()
        fields[f"round_{tournament.pk}"] = forms.IntegerField(
            widget=forms.HiddenInput,
            required=False,
            initial=current.number if current else None,
        )
        where = _("round %(n)s") % {"n": current.number} if current else _("not started")
        seen.append(f"{tournament.name} ({where})")
    return type("RoundInPlayForm", (base,), fields), ", ".join(seen)


# A round as admin shows it, read-only: the clock is its only writer.
ROUND_FIELDS = (
    "number",
    "status",
    "starts_at",
    "ends_at",
    "closed_at",
    "bye_pair",
    "rematches",
    "clock_note",
)


class RoundInline(admin.TabularInline):
    model = Round
    fields = ROUND_FIELDS
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request, obj=None):
        return False


class SettingsRecord:
    """The record of "change settings and re-score" as admin shows it: read only (it is
    append-only, RULES 3), seen by whoever sees the tournament (no permission of its own)."""

    @admin.display(description=_("what changed"))
    def what_changed(self, obj):
        return describe_change(obj)

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def has_view_permission(self, request, obj=None):
        return request.user.has_perm(VIEW_TOURNAMENT)


class SettingsChangeInline(SettingsRecord, admin.TabularInline):
    """The tournament's record of settings changes, on its change page."""

    model = SettingsChange
    fields = ("changed_at", "changed_by", "what_changed", "reason")
    readonly_fields = fields
    extra = 0
    can_delete = False


class ScoringSettingsForm(forms.Form):
    """The settings that decide scores, for "change settings and re-score" (RULES 3)."""

    scoring_method = forms.ChoiceField(label=_("scoring method"), choices=ScoringMethod.choices)
    completion_threshold = forms.DecimalField(
        label=_("completion threshold (%)"), min_value=1, max_value=100, decimal_places=2
    )
    unplayed_policy = forms.ChoiceField(
        label=_("unplayed-board policy"), choices=UnplayedPolicy.choices
    )
    neuberg = forms.BooleanField(
        label=_("Neuberg for boards with artificial scores"), required=False
    )
    datum_rounding = forms.ChoiceField(label=_("datum rounding"), choices=DatumRounding.choices)
    rounds = forms.IntegerField(label=_("rounds"), min_value=1)
    boards_per_round = forms.IntegerField(label=_("boards per round"), min_value=1)
    reason = forms.CharField(
        label=_("reason (recorded)"),
        max_length=settings_change.REASON_MAX,
        widget=forms.TextInput(attrs={"size": 80}),
    )
    confirm = forms.BooleanField(
        label=_("Re-score every closed round, the totals, the ranking and the master points"),
    )


def _settings_form(tournament: Tournament) -> type[forms.Form]:
    """`ScoringSettingsForm` showing the tournament's settings in force."""
    current = settings_change.settings_snapshot(tournament)
    fields = {}
    for name in settings_change.LOCKED_FIELDS:
        field = copy.deepcopy(ScoringSettingsForm.base_fields[name])
        field.initial = current[name]
        fields[name] = field
    return type("ScoringSettingsChangeForm", (ScoringSettingsForm,), fields)


def _changed(tournament: Tournament, data: dict) -> dict:
    """Only the settings the organiser changed; the service refuses if none."""
    current = settings_change.settings_snapshot(tournament)
    changes = {}
    for name in settings_change.LOCKED_FIELDS:
        value = data[name]
        if name == "completion_threshold":
            if Decimal(current[name]) != value:
                changes[name] = value
        elif value != current[name]:
            changes[name] = value
    return changes


def _setting_value(name: str, value) -> str:
    field = Tournament._meta.get_field(name)
    if isinstance(value, bool):
        return str(_("on") if value else _("off"))
    labels = dict(field.choices or ())  # type: ignore[arg-type]
    return str(labels.get(value, value))


def describe_change(record: SettingsChange) -> str:
    """ "scoring method: Total IMPs → Matchpoints; …" in the reader's language."""
    return "; ".join(
        f"{Tournament._meta.get_field(name).verbose_name}: "
        f"{_setting_value(name, record.before.get(name))} → {_setting_value(name, value)}"
        for name, value in record.after.items()
    )


def _recorded(record: SettingsChange) -> list[str]:
    return [_("settings changed (%(c)s), whole event re-scored") % {"c": describe_change(record)}]


class ExtendForm(forms.Form):
    minutes = forms.FloatField(label=_("Extend by (minutes)"), min_value=0.1, max_value=1440)


def _new_tournament_settings(data: dict) -> dict:
    """The admin form's cleaned settings of a new tournament as the setup service takes
    them (`setup.check_tournament_settings`)."""
    return {
        "name": data["name"],
        "description": data.get("description") or "",
        "start_at": data["start_at"],
        "registration_opens_at": data["registration_opens_at"],
        "rounds": data["rounds"],
        "boards_per_round": data["boards_per_round"],
        "round_minutes": data["round_length"].total_seconds() / 60,
        "gap_minutes": data["gap_length"].total_seconds() / 60,
        "scoring": data["scoring_method"],
        "neuberg": bool(data.get("neuberg")),
        "unplayed_policy": data["unplayed_policy"],
        "completion_threshold": data["completion_threshold"],
        "first_round_draw": data["first_round_draw"],
        "kibitz_live": bool(data.get("kibitz_live")),
    }


class TournamentAdminForm(forms.ModelForm):
    """The admin's tournament form: the fields' own limits run in the model's full_clean
    (the validators the API's setup service uses too); the checks across the dates are
    the service's `check_schedule`, so both ways in refuse the same settings. A new
    tournament is checked whole by the setup service and created by it
    (`TournamentAdmin.save_model`)."""

    class Meta:
        model = Tournament
        # The admin's fieldsets choose what is shown; these are the editable settings.
        fields = (
            "name",
            "description",
            "registration_opens_at",
            "start_at",
            "rounds",
            "boards_per_round",
            "round_length",
            "gap_length",
            "scoring_method",
            "neuberg",
            "unplayed_policy",
            "completion_threshold",
            "first_round_draw",
            "kibitz_live",
        )

    def clean(self):
        super().clean()
        data = self.cleaned_data
        dates = ("start_at", "registration_opens_at")
        adding = self.instance._state.adding
        if adding:
            if self.errors:
                return data  # each field's own error says what is wrong
            try:
                setup.check_tournament_settings(**_new_tournament_settings(data))
            except ServiceError as error:
                raise forms.ValidationError(str(error)) from error
            return data
        if "kibitz_live" in self.changed_data:
            try:
                setup.checked_kibitz_live(bool(data.get("kibitz_live")), self.instance.play)
            except ServiceError as error:
                raise forms.ValidationError(str(error)) from error
        if not adding and not set(dates) & set(self.changed_data):
            return data  # dates stored earlier stay as they are
        # A running event shows its dates read-only: they are not in the form then.
        start_at, opens_at = (
            data.get(name) if name in self.fields else getattr(self.instance, name)
            for name in dates
        )
        if start_at is None or opens_at is None:
            return data  # the field's own error says what is wrong
        try:
            setup.check_schedule(
                start_at=start_at,
                registration_opens_at=opens_at,
                now=timezone.now(),
                new_start=adding or "start_at" in self.changed_data,
            )
        except ServiceError as error:
            raise forms.ValidationError(str(error)) from error
        return data


@admin.register(Tournament)
class TournamentAdmin(RunsClock, ManagesPlayers, admin.ModelAdmin):
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
        "console_link",
    )
    list_filter = ("status", "scoring_method", "unplayed_policy")
    search_fields = ("name",)
    date_hierarchy = "start_at"
    # The pairs are listed on the console, paginated and searchable: an inline of a
    # 400-pair event took seconds to draw.
    inlines = [RoundInline, SettingsChangeInline]
    change_form_template = "admin/tournaments/tournament/change_form.html"
    readonly_fields = (
        "status",
        "paused_at",
        "finished_at",
        "created_by",
        "draw_seed",
        "clock_health",
        "console_link",
        # The seating is chosen on the console's seating page until round 1
        # (`settings_change.change_movement`, which checks the power and the movement);
        # editing it here would skip those checks, so admin only shows it.
        "seating",
        "winners",
        "arrow_switch",
        "boards_travel",
        "movement_summary",
        # Chosen with the event (console, API) and changed by "change settings and
        # re-score", as the other settings that decide scores once it has started.
        "datum_rounding",
    )
    fieldsets = (
        (None, {"fields": ("name", "description", "status", "clock_health", "console_link")}),
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
                    "datum_rounding",
                    "unplayed_policy",
                    "completion_threshold",
                    "first_round_draw",
                    "draw_seed",
                )
            },
        ),
        (
            _("Seating"),
            {"fields": ("seating", "winners", "arrow_switch", "boards_travel", "movement_summary")},
        ),
        (_("Watching"), {"fields": ("kibitz_live",)}),
    )
    actions = [
        "start_now",
        "close_round_now",
        "extend_round",
        "pause",
        "resume",
        "rescore_last_round",
        add_late_pair,
        "change_scoring_settings",
    ]

    def get_inline_instances(self, request, obj=None):
        inlines = super().get_inline_instances(request, obj)
        if obj is None or not obj.settings_changes.exists():
            # The record of settings changes shows once there is one.
            inlines = [i for i in inlines if not isinstance(i, SettingsChangeInline)]
        return inlines

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .annotate(_pairs=Count("pairs", filter=Q(pairs__status=PairStatus.CONFIRMED)))
        )

    def get_readonly_fields(self, request, obj=None):
        fixed = list(self.readonly_fields)
        if obj is not None and obj.status != TournamentStatus.SCHEDULED:
            # The format of a running event is fixed; only the clock actions change it.
            fixed += [
                "rounds",
                "boards_per_round",
                "scoring_method",
                "start_at",
                "registration_opens_at",
                "first_round_draw",
            ]
        if obj is not None and round_rules.started(obj):
            # Changed only by "change settings and re-score the whole event" (RULES 3).
            fixed += [f for f in settings_change.LOCKED_FIELDS if f not in fixed]
        if obj is not None and obj.status == TournamentStatus.FINISHED:
            fixed += ["round_length", "gap_length"]  # no round is left to time
        return fixed

    def save_model(self, request, obj, form, change):
        if not change:
            # Created by the service (its permission, its checks, its creator), which the
            # form's clean has already asked; admin goes on with the stored row.
            created = setup.create_tournament(
                by=request.user, **_new_tournament_settings(form.cleaned_data)
            )
            for field in Tournament._meta.concrete_fields:
                setattr(obj, field.attname, getattr(created, field.attname))
            obj._state.adding, obj._state.db = False, created._state.db
            return
        schedule = {}
        if change and round_rules.started(obj):
            # Round length and gap of a started event time only the rounds not yet
            # opened: the service moves the seated round's times with them.
            for name in ("round_length", "gap_length"):
                if name in form.changed_data:
                    schedule[name] = getattr(obj, name)
                    setattr(obj, name, form.initial[name])
        super().save_model(request, obj, form, change)
        if schedule:
            settings_change.change_schedule(tournament=obj, by=request.user, **schedule)
            obj.refresh_from_db()

    @admin.action(
        description=_("Change settings and re-score the whole event…"), permissions=["change"]
    )
    def change_scoring_settings(self, request, queryset):
        if queryset.count() != 1:
            self.message_user(
                request, _("Change the settings of one tournament at a time."), messages.ERROR
            )
            return None
        tournament = queryset.get()

        def apply(form):
            run_action(
                self, request, tournament.name, settings_change.change_scoring_settings,
                tournament=tournament, by=request.user,
                changes=_changed(tournament, form.cleaned_data),
                reason=form.cleaned_data["reason"], describe=_recorded,
            )  # fmt: skip

        return confirmed(
            self, request, queryset, _settings_form(tournament),
            action="change_scoring_settings",
            title=_("Change settings and re-score the whole event: %(t)s") % {"t": tournament.name},
            apply=apply,
        )  # fmt: skip

    @admin.display(description=_("pairs"), ordering="_pairs")
    def pair_count(self, obj):
        return obj._pairs

    @admin.display(description=_("director's console"))
    def console_link(self, obj=None):
        if obj is None or obj.pk is None:
            return "—"
        return format_html(
            '<a class="button" href="{}">{}</a>',
            reverse("console", args=[obj.pk]),
            _("Open the console: clock, progress, disputes, pairs"),
        )

    @admin.display(description=_("movement"))
    def movement_summary(self, obj=None):
        """The stored movement in a line, with its page and the console's seating page
        (where it is changed until round 1), not its raw JSON."""
        if obj is None or obj.pk is None:
            return "—"
        change = format_html(
            '<a href="{}">{}</a>',
            reverse("console_seating", args=[obj.pk]),
            _("Change the seating (until round 1 starts)"),
        )
        if obj.seating == Seating.SWISS:
            return format_html("{} · {}", _("none: seated by the Swiss rule"), change)
        if obj.movement is None:
            stored = _("not stored yet: it is fixed when round 1 is seated")
            return format_html("{} · {}", stored, change)
        movement = movements.from_json(obj.movement)
        facts = _("%(name)s · tables: %(tables)s, rounds: %(rounds)s, positions: %(pairs)s") % {
            "name": movement.name,
            "tables": movement.tables,
            "rounds": movement.round_count,
            "pairs": movement.pairs,
        }
        if movement.phantom is not None:
            facts += " · " + _("phantom: %(p)s") % {"p": movement.label(movement.phantom)}
        return format_html(
            '{} · <a href="{}">{}</a> · {}',
            facts,
            reverse("movement", args=[obj.pk]),
            _("the movement page"),
            change,
        )

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

    @admin.action(description=_("Start now…"), permissions=[RUN_CLOCK_CODENAME])
    def start_now(self, request, queryset):
        # Starting seats round 1 and lapses every pending proposal: asked first, like a
        # close (the console's start page also counts what lapses).
        def apply(_form):
            self._each(request, queryset, clock.start_now, describe=_events)

        return confirmed(
            self, request, queryset, forms.Form,
            action="start_now", title=_("Start now"), apply=apply,
        )  # fmt: skip

    @admin.action(description=_("Close the current round now…"), permissions=[RUN_CLOCK_CODENAME])
    def close_round_now(self, request, queryset):
        # Closing cuts off every unfinished board for good, so it is confirmed on a page
        # that names the round.
        return self._round_action(
            request, queryset, forms.Form, clock.close_round_now,
            action="close_round_now", title=_("Close the current round now"),
            describe=_events,
        )  # fmt: skip

    @admin.action(description=_("Extend the current round…"), permissions=[RUN_CLOCK_CODENAME])
    def extend_round(self, request, queryset):
        return self._round_action(
            request, queryset, ExtendForm, clock.extend_round,
            action="extend_round", title=_("Extend the current round"),
            fields=("minutes",), describe=_new_bell,
        )  # fmt: skip

    def _round_action(
        self, request, queryset, base_form, service, *, action, title, describe, fields=()
    ):
        """A clock action on each tournament's round in play, confirmed on a page that
        names the round; the service refuses if that round is no longer in play."""
        form_class, rounds = _round_in_play(base_form, queryset)

        def apply(form):
            self._each(
                request, queryset, service, describe=describe,
                extra=lambda t: {
                    "round_number": form.cleaned_data.get(f"round_{t.pk}"),
                    **{name: form.cleaned_data[name] for name in fields},
                },
            )  # fmt: skip

        return confirmed(
            self, request, queryset, form_class,
            action=action, title=f"{title}: {rounds}", apply=apply,
        )  # fmt: skip

    @admin.action(description=_("Pause"), permissions=[RUN_CLOCK_CODENAME])
    def pause(self, request, queryset):
        self._each(request, queryset, clock.pause, describe=lambda _report: [_("paused")])

    @admin.action(description=_("Resume"), permissions=[RUN_CLOCK_CODENAME])
    def resume(self, request, queryset):
        self._each(request, queryset, clock.resume, describe=lambda _report: [_("resumed")])

    def _each(self, request, queryset, service, *, describe, extra=lambda _t: {}):
        """`service(tournament=t, by=request.user, **extra(t))` for each selected
        tournament, one message each ("name: what happened", or why it was refused): a
        refusal of one does not stop the others."""
        for t in queryset:
            run_action(
                self, request, t.name, service, tournament=t, by=request.user,
                describe=describe, **extra(t),
            )  # fmt: skip

    @admin.action(description=_("Re-score the last closed round"), permissions=[RUN_CLOCK_CODENAME])
    def rescore_last_round(self, request, queryset):
        for t in queryset:
            last = t.round_set.filter(status=RoundStatus.CLOSED).current()
            if last is None:
                self.message_user(request, f"{t.name}: {_('no closed round')}", messages.ERROR)
                continue
            run_action(
                self, request, t.name, clock.rescore_round, round=last, by=request.user,
                describe=_rescored,
            )  # fmt: skip


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
    readonly_fields = ("tournament", *ROUND_FIELDS)
    inlines = [TableInline]
    actions = ["rescore"]

    def has_add_permission(self, request):
        return False

    @admin.action(description=_("Re-score (closed rounds)"), permissions=[RUN_CLOCK_CODENAME])
    def rescore(self, request, queryset):
        for r in queryset:
            run_action(
                self, request, str(r), clock.rescore_round, round=r, by=request.user,
                describe=lambda _report: [_("re-scored")],
            )  # fmt: skip


@admin.register(SettingsChange)
class SettingsChangeAdmin(SettingsRecord, admin.ModelAdmin):
    """The append-only record of settings changes: read, never edited."""

    list_display = ("tournament", "changed_at", "changed_by", "what_changed", "reason")
    list_filter = ("tournament",)
    readonly_fields = (
        "tournament",
        "changed_at",
        "changed_by",
        "what_changed",
        "before",
        "after",
        "reason",
    )

    def has_module_permission(self, request):
        return request.user.has_perm(VIEW_TOURNAMENT)


@admin.register(ClockHeartbeat)
class ClockHeartbeatAdmin(admin.ModelAdmin):
    list_display = ("name", "last_tick_at", "last_driver", "ticks", "last_error")
    readonly_fields = ("name", "last_tick_at", "last_driver", "ticks", "last_error")

    def has_add_permission(self, request):
        return False
