"""A team event's registration on the pages (RULES 11): propose a team, confirm or decline
an invitation, cancel, withdraw, the team's page with the captain's line-up form. Thin:
the rules are `services.teams`', who sees the line-up `visibility.may_see_line_up`'s."""

from __future__ import annotations

from datetime import datetime

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Prefetch
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods, require_POST

from .. import visibility
from ..errors import ServiceError
from ..models import (
    Contestants,
    PairStatus,
    Team,
    TeamMember,
    Tournament,
    TournamentStatus,
    player_name,
)
from ..services import registration, teams
from ..services.formats import format_of
from ..services.permissions import MANAGE_PLAYERS, allowed
from .accounts import safe_next

OTHERS = teams.MAX_PLAYERS - 1  # the member fields of the proposal form
REQUIRED_OTHERS = teams.MIN_PLAYERS - 1


def _username_field(label, *, required: bool) -> forms.CharField:
    return forms.CharField(
        label=label,
        max_length=150,
        required=required,
        widget=forms.TextInput(attrs={"autocomplete": "off", "autocapitalize": "none"}),
    )


class ProposeTeamForm(forms.Form):
    """The team's name and the usernames of the players the captain invites: three
    needed, two more optional (a team is 4–6 players, the captain included)."""

    name = forms.CharField(label=gettext_lazy("Team name"), max_length=60)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for i in range(1, OTHERS + 1):
            # Labels made per form, in the request's language.
            label = (
                _("Member %(n)s's username") % {"n": i}
                if i <= REQUIRED_OTHERS
                else _("Member %(n)s's username (optional)") % {"n": i}
            )
            self.fields[f"member{i}"] = _username_field(label, required=i <= REQUIRED_OTHERS)

    def member_fields(self):
        return [self[f"member{i}"] for i in range(1, OTHERS + 1)]

    def usernames(self) -> list[str]:
        values = (self.cleaned_data.get(f"member{i}") or "" for i in range(1, OTHERS + 1))
        return [v.strip() for v in values if v.strip()]


SEATS = (
    ("open1", gettext_lazy("Open room, first player")),
    ("open2", gettext_lazy("Open room, second player")),
    ("closed1", gettext_lazy("Closed room, first player")),
    ("closed2", gettext_lazy("Closed room, second player")),
)


class LineUpForm(forms.Form):
    """Four of the team's confirmed members: the open room's pair and the closed room's."""

    def __init__(self, *args, members: list[TeamMember], **kwargs):
        super().__init__(*args, **kwargs)
        choices = [(m.user.get_username(), player_name(m.user)) for m in members]
        for name, label in SEATS:
            self.fields[name] = forms.ChoiceField(label=label, choices=choices)

    def seat_fields(self):
        return [self[name] for name, _label in SEATS]


# --- the tournament page's part ---------------------------------------------------------


def team_context(request, tournament: Tournament, *, now: datetime) -> dict:
    """What the tournament page of a team event shows: the registered teams, the
    visitor's team, the invitations waiting for their answer, the proposal form."""
    registered = list(
        Team.objects.filter(tournament=tournament, status=PairStatus.CONFIRMED).order_by(
            "registration_no"
        )
    )
    my_team, invitations = None, []
    if request.user.is_authenticated:
        mine = (
            TeamMember.objects.filter(tournament=tournament, user=request.user)
            .select_related("team__captain__profile")
            .order_by("invited_at", "id")
        )
        for member in mine:
            if member.confirmed_at is not None:
                my_team = member.team
            else:
                invitations.append(member.team)
        if my_team is not None:
            invitations = []  # held by a team: no other can be confirmed
    return {
        "registered_teams": registered,
        "my_team": my_team,
        "team_invitations": invitations,
        "propose_team_form": ProposeTeamForm(),
        "registration_problem": registration.registration_problem(tournament, now),
    }


def _back(request, tournament_id: int):
    return redirect(safe_next(request, reverse("tournament", args=[tournament_id])))


def _named(tournament_id: int, team_id: int) -> Team:
    """The team a form names. One that is gone (cancelled) is handed to the service as
    it was named, and the service says so: a page left open shows a plain message."""
    tournament = get_object_or_404(Tournament, pk=tournament_id)
    found = Team.objects.filter(pk=team_id, tournament=tournament).first()
    return found or Team(pk=team_id, tournament=tournament)


# --- the actions ---------------------------------------------------------------------------


@login_required
@require_POST
def propose_team(request, tournament_id: int):
    tournament = get_object_or_404(Tournament, pk=tournament_id)
    form = ProposeTeamForm(request.POST)
    if not form.is_valid():
        messages.error(
            request, _("Give the team a name and name at least three members by their usernames.")
        )
        return _back(request, tournament_id)
    try:
        team = teams.propose_team(
            tournament=tournament,
            captain=request.user,
            name=form.cleaned_data["name"],
            members=form.usernames(),
        )
    except ServiceError as error:
        messages.error(request, str(error))
        return _back(request, tournament_id)
    messages.success(
        request,
        _(
            "Team %(name)s is proposed. It is registered once four of its players (you "
            "included) have confirmed."
        )
        % {"name": team.name},
    )
    return redirect("team", tournament_id, team.pk)


@login_required
@require_POST
def confirm_team(request, tournament_id: int, team_id: int):
    try:
        team = teams.confirm_membership(team=_named(tournament_id, team_id), user=request.user)
    except ServiceError as error:
        messages.error(request, str(error))
        return _back(request, tournament_id)
    if team.status == PairStatus.CONFIRMED:
        messages.success(
            request,
            _("You are in team %(name)s, registered as team no. %(no)s.")
            % {"name": team.name, "no": team.registration_no},
        )
    else:
        messages.success(
            request,
            _("You are in team %(name)s. It is registered once four of its players have confirmed.")
            % {"name": team.name},
        )
    return redirect("team", tournament_id, team.pk)


@login_required
@require_POST
def decline_team(request, tournament_id: int, team_id: int):
    try:
        team = teams.decline_membership(team=_named(tournament_id, team_id), user=request.user)
    except ServiceError as error:
        messages.error(request, str(error))
    else:
        messages.success(
            request, _("You declined the invitation to %(name)s.") % {"name": team.name}
        )
    return _back(request, tournament_id)


@login_required
@require_POST
def cancel_team(request, tournament_id: int, team_id: int):
    try:
        teams.cancel_team(team=_named(tournament_id, team_id), by=request.user)
    except ServiceError as error:
        messages.error(request, str(error))
        return redirect("team", tournament_id, team_id)
    messages.success(request, _("The team is cancelled."))
    return redirect("tournament", tournament_id)


@login_required
@require_POST
def set_line_up(request, tournament_id: int, team_id: int):
    team = _team(tournament_id, team_id)
    form = LineUpForm(request.POST, members=teams.confirmed_members(team))
    if not form.is_valid():
        messages.error(request, _("Choose four of the team's members for the line-up."))
        return redirect("team", tournament_id, team_id)
    data = form.cleaned_data
    try:
        teams.set_line_up(
            team=team,
            by=request.user,
            open_pair=[data["open1"], data["open2"]],
            closed_pair=[data["closed1"], data["closed2"]],
        )
    except ServiceError as error:
        messages.error(request, str(error))
    else:
        messages.success(request, _("The line-up is set for the next match."))
    return redirect("team", tournament_id, team_id)


@login_required
@require_http_methods(["GET", "POST"])
def withdraw_team(request, tournament_id: int, team_id: int):
    """GET asks "are you sure?" (the team page with the question); the POST withdraws."""
    team = _team(tournament_id, team_id)
    if request.method == "POST":
        try:
            teams.withdraw_team(team=team, by=request.user)
        except ServiceError as error:
            messages.error(request, str(error))
        else:
            messages.success(
                request,
                _("Team %(name)s has withdrawn. It will not play in later rounds.")
                % {"name": team.name},
            )
        return redirect("team", tournament_id, team_id)
    return _team_page(request, team, confirm_withdraw=True)


# --- the team's page -----------------------------------------------------------------------


def _team(tournament_id: int, team_id: int) -> Team:
    return get_object_or_404(
        Team.objects.select_related(
            "tournament",
            "captain__profile",
            "open_pair__player1__profile",
            "open_pair__player2__profile",
            "closed_pair__player1__profile",
            "closed_pair__player2__profile",
        ).prefetch_related(
            Prefetch(
                "members",
                queryset=TeamMember.objects.select_related("user__profile").order_by(
                    "invited_at", "id"
                ),
            )
        ),
        pk=team_id,
        tournament_id=tournament_id,
    )


def team(request, tournament_id: int, team_id: int):
    return _team_page(request, _team(tournament_id, team_id))


def _team_page(request, team: Team, *, confirm_withdraw: bool = False):
    tournament = team.tournament
    if format_of(tournament).contestant != Contestants.TEAMS:
        raise Http404
    members = list(team.members.all())
    confirmed = [m for m in members if m.confirmed_at is not None]
    confirmed_ids = {m.user_id for m in confirmed}
    user = request.user
    sees_line_up = visibility.may_see_line_up(user, team, member_ids=confirmed_ids)
    may_set = (
        user.is_authenticated
        and teams.may_set_line_up(user, team)
        and teams.line_up_problem(team) is None
    )
    line_up_form = None
    if may_set:
        initial = {}
        if team.open_pair_id and team.closed_pair_id:
            initial = {
                "open1": team.open_pair.player1.get_username(),
                "open2": team.open_pair.player2.get_username(),
                "closed1": team.closed_pair.player1.get_username(),
                "closed2": team.closed_pair.player2.get_username(),
            }
        line_up_form = LineUpForm(initial=initial, members=confirmed)
    is_captain = user.is_authenticated and user.pk == team.captain_id
    registered = team.status == PairStatus.CONFIRMED
    finished = tournament.status == TournamentStatus.FINISHED
    may_withdraw = (
        user.is_authenticated
        and registered
        and team.withdrawn_at is None
        and not finished
        and (is_captain or allowed(user, MANAGE_PLAYERS))
    )
    my_invitation = next(
        (m for m in members if m.user_id == getattr(user, "pk", None) and m.confirmed_at is None),
        None,
    )
    return render(
        request,
        "tournaments/team.html",
        {
            "tournament": tournament,
            "team": team,
            "members": members,
            "confirmed_count": len(confirmed),
            "needed": max(0, teams.MIN_PLAYERS - len(confirmed)),
            "registered": registered,
            "sees_line_up": sees_line_up and team.open_pair_id and team.closed_pair_id,
            "line_up_form": line_up_form,
            "is_captain": is_captain,
            "may_cancel": is_captain and not registered,
            "may_withdraw": may_withdraw,
            "confirm_withdraw": confirm_withdraw and may_withdraw,
            "my_invitation": my_invitation,
            "now": timezone.now(),
        },
    )
