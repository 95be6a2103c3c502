"""Boards, results and scores: the director corrects a result or replaces it by an
adjusted score, always through the results service, which re-scores a closed round."""

from __future__ import annotations

from django import forms
from django.contrib import admin
from django.template.loader import render_to_string
from django.utils.translation import gettext_lazy as _

from .. import selectors, visibility
from ..models import Adjustment, Board, BoardResult, PairBoardScore, Standing
from ..services import results
from ..services.permissions import DIRECT_RESULTS, DIRECT_RESULTS_CODENAME
from .actions import confirmed, run_action


class OnlyWhatTheViewerMaySee:
    """Admin lists and pages of boards and results ask `tournaments.visibility` like every
    other renderer: the boards of a running round only for a director who may set
    results; a staff account with view permissions alone sees closed rounds' only."""

    public_filter = visibility.DEAL_PUBLIC
    # A director's: every board but the club's library deals (`visibility.directs`).
    directed_filter = visibility.DIRECTED_DEALS

    def get_queryset(self, request):
        queryset = super().get_queryset(request)
        if visibility.watches_live(request.user):
            return queryset.filter(self.directed_filter)
        return queryset.filter(self.public_filter)


@admin.register(Board)
class BoardAdmin(OnlyWhatTheViewerMaySee, admin.ModelAdmin):
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


class BoardResultForm(forms.ModelForm):
    """Organisers correct a result here; it goes through the same validation and re-scores.

    `clean` asks the service what it would refuse (`results.director_result_problem`: a
    contract that is not one, too many tricks), so a refusal is a form error on the page,
    not a success message over an unchanged result. `save_model` then runs the service.
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
        super().clean()
        data = self.cleaned_data
        if self.errors or self.director is None:
            return data
        kwargs = self.service_kwargs()
        problem = results.director_result_problem(
            table=kwargs["table"],
            board_number=kwargs["board_number"],
            by=kwargs["by"],
            entry=kwargs["entry"],
            reason=kwargs["reason"],
        )
        if problem:
            raise forms.ValidationError(problem)
        return data


@admin.register(BoardResult)
class BoardResultAdmin(OnlyWhatTheViewerMaySee, admin.ModelAdmin):
    public_filter = visibility.RESULT_PUBLIC
    directed_filter = visibility.DIRECTED_RESULTS
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
        "history",
    )
    actions = ["adjust"]

    @admin.display(description=_("result history"))
    def history(self, obj: BoardResult):
        """Every change to this result (services.history), oldest first: read-only, as it
        is appended by the services and never edited."""
        if obj is None or obj.pk is None:
            return "–"
        return render_to_string(
            "admin/tournaments/_result_history.html",
            {"lines": selectors.result_history(result=obj)},
        )

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
        # `clean` asked it about the same input and its refusals depend only on that
        # input, so it cannot refuse here.
        results.director_set_result(**form.service_kwargs())
        obj.refresh_from_db()

    @admin.action(
        description=_("Replace by an adjusted score…"), permissions=[DIRECT_RESULTS_CODENAME]
    )
    def adjust(self, request, queryset):
        def apply(form):
            for r in queryset.select_related("table", "board"):
                run_action(
                    self, request, str(r), results.director_set_result,
                    table=r.table, board_number=r.board.number, by=request.user,
                    ns_adjustment=form.cleaned_data["ns_adjustment"],
                    ew_adjustment=form.cleaned_data["ew_adjustment"],
                    reason=form.cleaned_data["reason"],
                )  # fmt: skip

        return confirmed(
            self, request, queryset, AdjustForm,
            action="adjust", title=_("Replace by an adjusted score"), apply=apply,
        )  # fmt: skip


admin.site.register(
    Standing,
    list_display=("pair", "round", "round_score", "total", "position"),
    list_filter=("round__tournament",),
)


@admin.register(PairBoardScore)
class PairBoardScoreAdmin(OnlyWhatTheViewerMaySee, admin.ModelAdmin):
    public_filter = visibility.RESULT_PUBLIC
    directed_filter = visibility.DIRECTED_RESULTS
    list_display = ("pair", "board", "direction", "points", "completed")
