"""The pairs: an organiser registers one on the players' behalf, or withdraws one."""

from __future__ import annotations

from django import forms
from django.contrib import admin
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from ..errors import ServiceError
from ..models import Pair, TournamentStatus
from ..selectors.pair_labels import pair_labels
from ..services import registration
from ..services.permissions import MANAGE_PLAYERS, MANAGE_PLAYERS_CODENAME
from .actions import run_action


class NewPairForm(forms.ModelForm):
    """The add form: the registration service's own checks, asked before saving so that
    a refusal is a form error (save_model cannot refuse). Only confirmed pairs hold
    players: a pending proposal of either player is no obstacle."""

    def clean(self):
        super().clean()
        data = self.cleaned_data
        t, p1, p2 = data.get("tournament"), data.get("player1"), data.get("player2")
        if t and p1 and p2:
            problem = registration.pair_problem(tournament=t, player1=p1, player2=p2)
            if problem is None and t.status != TournamentStatus.SCHEDULED:
                problem = registration.registration_problem(t, timezone.now())
            if problem:
                raise forms.ValidationError(problem)
        return data


@admin.register(Pair)
class PairAdmin(admin.ModelAdmin):
    list_display = (
        "__str__",
        "tournament",
        "registration_no",
        "pair_number",
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
        # Handed out at round 1's start, or to a late entry, by the movement's format
        # (RULES 10): a position edited here could seat two pairs alike or none.
        "position",
        "field",
        "pair_number",
    )
    autocomplete_fields = ("player1", "player2", "tournament")
    actions = ["withdraw"]

    @admin.display(description=_("pair number"))
    def pair_number(self, obj: Pair) -> str:
        """The number the pages print for the pair: its movement position's label
        ("3NS") in an event seated by a movement, else its registration number."""
        if obj.pk is None:
            return "—"
        return pair_labels(obj.tournament).of(obj)

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

    def get_form(self, request, obj=None, change=False, **kwargs):
        if obj is None:
            kwargs["form"] = NewPairForm
        return super().get_form(request, obj, change=change, **kwargs)

    @admin.action(
        description=_("Withdraw (not seated from the next round)"),
        permissions=[MANAGE_PLAYERS_CODENAME],
    )
    def withdraw(self, request, queryset):
        for pair in queryset:
            run_action(
                self, request, str(pair), registration.withdraw_pair, pair=pair, by=request.user
            )
