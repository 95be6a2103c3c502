"""The director's console for team ladders (RULES 11): create a ladder, and run one — the
standing teams, the open and accepted challenges with their deadlines, and the director's
actions on a challenge: the match's result (the challenger's VPs), who turned up for it,
a forfeit. Thin: every change is a `services.ladder` call with `by=request.user`, which
checks the permission; the page only hides what the user may not do."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods, require_POST

from ..errors import ServiceError
from ..models import Ladder, LadderChallenge, LadderTeam
from ..selectors import ladder as reads
from ..services import ladder as services
from .ladder import history_line
from .organiser import console_page, console_powers


class NewLadderForm(forms.Form):
    name = forms.CharField(label=gettext_lazy("Ladder name"), max_length=80)
    challenge_range = forms.IntegerField(
        label=gettext_lazy("Challenge range (positions above)"), initial=3
    )
    accept_days = forms.IntegerField(label=gettext_lazy("Days to accept"), initial=4)
    play_days = forms.IntegerField(label=gettext_lazy("Days to play once accepted"), initial=7)
    rematch_days = forms.IntegerField(label=gettext_lazy("Days before a rematch"), initial=14)
    boards_per_match = forms.IntegerField(label=gettext_lazy("Boards per match"), initial=16)


class ResultForm(forms.Form):
    challenger_vp = forms.DecimalField(
        label=gettext_lazy("Challenger's VPs"), max_digits=4, decimal_places=2
    )


@require_http_methods(["GET", "POST"])
@console_page
def ladders(request: HttpRequest) -> HttpResponse:
    form = NewLadderForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            created = services.create_ladder(by=request.user, **form.cleaned_data)
        except ServiceError as error:
            form.add_error(None, str(error))
        else:
            messages.success(request, _("Ladder “%(name)s” created.") % {"name": created.name})
            return redirect("console_ladder", ladder_id=created.pk)
    return render(
        request,
        "console/ladders.html",
        {
            "ladders": Ladder.objects.order_by("name"),
            "form": form,
            "powers": console_powers(request.user),
        },
    )


@require_http_methods(["GET"])
@console_page
def ladder(request: HttpRequest, ladder_id: int) -> HttpResponse:
    found = get_object_or_404(Ladder, pk=ladder_id)
    return render(
        request,
        "console/ladder.html",
        {
            "ladder": found,
            "teams": reads.standing_teams(found),
            "challenges": [
                {"challenge": c, "teams": (c.challenger, c.challenged)}
                for c in reads.open_challenges(found)
            ],
            "history": [(e, history_line(e)) for e in reads.latest_history(found, limit=20)],
            "result_form": ResultForm(),
            "powers": console_powers(request.user),
        },
    )


@require_POST
@console_page
def challenge_action(
    request: HttpRequest, ladder_id: int, challenge_id: int, name: str
) -> HttpResponse:
    challenge = get_object_or_404(LadderChallenge, pk=challenge_id, ladder_id=ladder_id)
    team = None
    if name in ("showed", "forfeit"):
        team = get_object_or_404(
            LadderTeam,
            pk=request.POST.get("team") or 0,
            ladder_id=ladder_id,
        )
    try:
        if name == "result":
            form = ResultForm(request.POST)
            if not form.is_valid():
                raise services.LadderError(_("A match's VPs are a number from 0 to 20."))
            services.record_result(
                challenge=challenge,
                challenger_vp=form.cleaned_data["challenger_vp"],
                by=request.user,
            )
            messages.success(request, _("The result is recorded."))
        elif name == "showed" and team is not None:
            services.record_showed(challenge=challenge, team=team, by=request.user)
            messages.success(request, _("%(team)s turned up.") % {"team": team.name})
        elif name == "forfeit" and team is not None:
            services.forfeit(challenge=challenge, team=team, by=request.user)
            messages.success(request, _("%(team)s forfeits.") % {"team": team.name})
        else:
            messages.error(request, _("Unknown action."))
    except ServiceError as error:
        messages.error(request, str(error))
    return redirect("console_ladder", ladder_id=ladder_id)
