"""Registration on the tournament page: propose, confirm, cancel, withdraw (RULES 1)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from ..errors import ServiceError
from ..forms import ProposePairForm
from ..models import Pair, Tournament, player_name
from ..services import registration
from .accounts import safe_next


def _back(request, tournament_id: int):
    return redirect(safe_next(request, reverse("tournament", args=[tournament_id])))


@login_required
@require_POST
def propose_pair(request, tournament_id: int):
    tournament = get_object_or_404(Tournament, pk=tournament_id)
    form = ProposePairForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Name your partner by their username."))
        return _back(request, tournament_id)
    try:
        pair = registration.propose_pair(
            tournament=tournament,
            proposer=request.user,
            partner_username=form.cleaned_data["partner"],
        )
    except ServiceError as error:
        messages.error(request, str(error))
    else:
        messages.success(
            request,
            _("You invited %(partner)s. The pair is registered when they confirm.")
            % {"partner": player_name(pair.player2)},
        )
    return _back(request, tournament_id)


def _pair(tournament_id: int, pair_id: int) -> Pair:
    return get_object_or_404(
        Pair.objects.select_related("tournament", "player1__profile", "player2__profile"),
        pk=pair_id,
        tournament_id=tournament_id,
    )


def _proposal(tournament_id: int, pair_id: int) -> Pair:
    """The proposal to confirm or cancel. One that is gone (cancelled, or lapsed at the
    start) is handed to the service as it was named, and the service says so: a page
    left open shows a plain message, not a 404."""
    tournament = get_object_or_404(Tournament, pk=tournament_id)
    found = Pair.objects.filter(pk=pair_id, tournament=tournament).first()
    return found or Pair(pk=pair_id, tournament=tournament)


@login_required
@require_POST
def confirm_pair(request, tournament_id: int, pair_id: int):
    pair = _proposal(tournament_id, pair_id)
    try:
        pair = registration.confirm_pair(pair=pair, user=request.user)
    except ServiceError as error:
        messages.error(request, str(error))
    else:
        messages.success(
            request,
            _("You are registered with %(partner)s as pair no. %(no)s.")
            % {"partner": player_name(pair.player1), "no": pair.registration_no},
        )
    return _back(request, tournament_id)


@login_required
@require_POST
def cancel_pair(request, tournament_id: int, pair_id: int):
    pair = _proposal(tournament_id, pair_id)
    try:
        registration.cancel_pair(pair=pair, user=request.user)
    except ServiceError as error:
        messages.error(request, str(error))
    else:
        messages.success(request, _("The proposal is cancelled."))
    return _back(request, tournament_id)


@login_required
@require_http_methods(["GET", "POST"])
def withdraw_pair(request, tournament_id: int, pair_id: int):
    """GET asks "are you sure?"; the POST from that page withdraws."""
    pair = _pair(tournament_id, pair_id)
    if not pair.has_player(request.user.pk):
        raise PermissionDenied(_("Only the pair's players can withdraw it."))
    if request.method == "POST":
        try:
            registration.withdraw_pair(pair=pair, by=request.user)
        except ServiceError as error:
            messages.error(request, str(error))
        else:
            messages.success(
                request,
                _("Pair no. %(no)s has withdrawn. It will not be seated in later rounds.")
                % {"no": pair.registration_no},
            )
        return redirect("tournament", tournament_id)
    return render(
        request, "tournaments/withdraw.html", {"pair": pair, "tournament": pair.tournament}
    )
