"""The late entry: an organiser adds a confirmed pair to a running tournament (RULES 1),
from the tournaments list ("Add a late pair…"), through `registration.add_late_pair`."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from ..models import Pair
from ..services import registration
from ..services.permissions import MANAGE_PLAYERS, MANAGE_PLAYERS_CODENAME
from .actions import confirmed, run_action


class ManagesPlayers:
    """Admin actions declaring `permissions=[MANAGE_PLAYERS_CODENAME]` are offered only
    to users holding it; the service checks it again."""

    def has_manage_players_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm(MANAGE_PLAYERS)


class LatePairForm(forms.Form):
    """The two players by username; the service's own checks, asked before it acts, so
    that a refusal (an unknown player, one already in a pair, the last round seated) is an
    error on this form and what the organiser typed stays in it."""

    player1 = forms.CharField(label=_("Player (username)"), max_length=150)
    player2 = forms.CharField(label=_("Partner (username)"), max_length=150)

    tournament = None  # set by `add_late_pair` for the one tournament selected
    by = None

    def usernames(self) -> list[str]:
        return [self.cleaned_data["player1"], self.cleaned_data["player2"]]

    def clean(self):
        data = super().clean()
        if not self.errors:
            problem = registration.late_pair_problem(
                tournament=self.tournament, usernames=self.usernames(), by=self.by
            )
            if problem:
                raise forms.ValidationError(problem)
        return data


def _joined(pair: Pair) -> list[str]:
    return [
        _("%(pair)s added as no. %(n)s, seated from the next round")
        % {"pair": pair.names, "n": pair.registration_no}
    ]


@admin.action(description=_("Add a late pair…"), permissions=[MANAGE_PLAYERS_CODENAME])
def add_late_pair(modeladmin, request, queryset):
    selected = list(queryset[:2])
    if len(selected) != 1:
        modeladmin.message_user(
            request, _("Select one tournament to add a late pair to."), messages.ERROR
        )
        return None
    (tournament,) = selected
    form_class = type(
        "LatePairFormFor", (LatePairForm,), {"tournament": tournament, "by": request.user}
    )

    def apply(form):
        run_action(
            modeladmin, request, tournament.name, registration.add_late_pair,
            tournament=tournament, usernames=form.usernames(), by=request.user,
            describe=_joined,
        )  # fmt: skip

    return confirmed(
        modeladmin, request, queryset, form_class,
        action="add_late_pair",
        title=_("Add a late pair to %(t)s") % {"t": tournament.name},
        apply=apply,
    )  # fmt: skip
