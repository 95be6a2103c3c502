"""The team ladder's pages (RULES 11, 梯级挑战赛): the ladders, a standing ladder (the
positions, the open challenges with their deadlines, the latest history, a captain's
challenge form, the challenged captain's accept and decline buttons, entering a team), and
a ladder team's page. Thin: the rules are the core's (`teams.ladder`), the writes
`services.ladder`'s, the reads `selectors.ladder`'s."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from ..errors import ServiceError
from ..models import Ladder, LadderChallenge, LadderHistory, LadderTeam
from ..selectors import ladder as reads
from ..services import ladder as services
from ..templatetags.bridge import zoned
from .teams import ProposeTeamForm


def history_line(entry: LadderHistory) -> str:
    """One history entry in plain words, in the request's language."""
    values = {
        "team": entry.team.name,
        "opponent": entry.opponent.name if entry.opponent else "",
        "before": entry.before,
        "after": entry.after,
        "forfeiter": entry.forfeited_by.name if entry.forfeited_by else "",
        "vp": f"{entry.challenger_vp:.2f}" if entry.challenger_vp is not None else "",
        "other": f"{20 - entry.challenger_vp:.2f}" if entry.challenger_vp is not None else "",
    }
    texts = {
        "entered": _("%(team)s entered the ladder at position %(after)s."),
        "challenged": _("%(team)s challenged %(opponent)s."),
        "accepted": _("%(opponent)s accepted the challenge of %(team)s."),
        "declined": _("%(opponent)s declined the challenge of %(team)s: a forfeit."),
        "forfeited": _("%(forfeiter)s forfeited the match %(team)s – %(opponent)s."),
        "played": _("%(team)s – %(opponent)s: %(vp)s – %(other)s VP."),
        "lapsed": _(
            "The challenge %(team)s – %(opponent)s lapsed: no result by the play deadline."
        ),
        "voided": _("The challenge %(team)s – %(opponent)s is void: a team left the ladder."),
        "moved": _("%(team)s moved from position %(before)s to %(after)s."),
        "left": _("%(team)s left the ladder (it stood at position %(before)s)."),
    }
    return texts.get(entry.kind, entry.kind) % values


def ladders(request):
    found = Ladder.objects.order_by("name")
    return render(request, "tournaments/ladders.html", {"ladders": found})


def ladder(request, ladder_id: int):
    found = get_object_or_404(Ladder, pk=ladder_id)
    now = timezone.now()
    mine = reads.team_of(found, request.user)
    is_captain = mine is not None and mine.captain_id == request.user.pk
    history = reads.latest_history(found)
    return render(
        request,
        "tournaments/ladder.html",
        {
            "ladder": found,
            "teams": reads.standing_teams(found),
            "challenges": reads.open_challenges(found),
            "history": [(entry, history_line(entry)) for entry in history],
            "my_team": mine,
            "is_captain": is_captain,
            "challengeable": reads.challengeable_teams(found, mine, now=now)
            if is_captain and mine is not None
            else [],
            "enter_form": ProposeTeamForm()
            if request.user.is_authenticated and mine is None
            else None,
            "now": now,
        },
    )


def ladder_team(request, ladder_id: int, team_id: int):
    found = get_object_or_404(Ladder, pk=ladder_id)
    team = get_object_or_404(
        LadderTeam.objects.select_related("captain__profile"), pk=team_id, ladder=found
    )
    challenges = reads.team_challenges(team)
    for c in challenges:
        c.other_vp = 20 - c.challenger_vp if c.challenger_vp is not None else None
    history = list(
        LadderHistory.objects.filter(team=team)
        .select_related("team", "opponent", "forfeited_by")
        .order_by("-at", "-id")[:50]
    )
    return render(
        request,
        "tournaments/ladder_team.html",
        {
            "ladder": found,
            "team": team,
            "members": list(team.members.select_related("user__profile").order_by("id")),
            "challenges": challenges,
            "history": [(entry, history_line(entry)) for entry in history],
        },
    )


@login_required
@require_POST
def ladder_enter(request, ladder_id: int):
    found = get_object_or_404(Ladder, pk=ladder_id)
    form = ProposeTeamForm(request.POST)
    if not form.is_valid():
        messages.error(
            request, _("Give the team a name and name at least three members by their usernames.")
        )
        return redirect("ladder", found.pk)
    try:
        team = services.enter_team(
            ladder=found,
            captain=request.user,
            name=form.cleaned_data["name"],
            members=form.usernames(),
        )
    except ServiceError as error:
        messages.error(request, str(error))
        return redirect("ladder", found.pk)
    messages.success(
        request,
        _("Team %(name)s stands at position %(position)s.")
        % {"name": team.name, "position": team.position},
    )
    return redirect("ladder_team", found.pk, team.pk)


@login_required
@require_POST
def ladder_challenge(request, ladder_id: int):
    found = get_object_or_404(Ladder, pk=ladder_id)
    mine = reads.team_of(found, request.user)
    target = LadderTeam.objects.filter(
        ladder=found, pk=request.POST.get("challenged") or 0, left_at__isnull=True
    ).first()
    if mine is None or target is None:
        messages.error(request, _("Choose a team to challenge."))
        return redirect("ladder", found.pk)
    try:
        services.challenge(challenger=mine, challenged=target, by=request.user)
    except ServiceError as error:
        messages.error(request, str(error))
    else:
        messages.success(request, _("You challenged %(team)s.") % {"team": target.name})
    return redirect("ladder", found.pk)


def _answer(request, ladder_id: int, challenge_id: int, *, accept: bool):
    found = get_object_or_404(Ladder, pk=ladder_id)
    challenge = get_object_or_404(
        LadderChallenge.objects.select_related("challenger"), pk=challenge_id, ladder=found
    )
    try:
        if accept:
            done = services.accept(challenge=challenge, by=request.user)
            messages.success(
                request,
                _("You accepted the challenge of %(team)s. Play the match by %(deadline)s.")
                % {
                    "team": challenge.challenger.name,
                    "deadline": zoned(done.play_by),
                },
            )
        else:
            services.decline(challenge=challenge, by=request.user)
            messages.success(
                request,
                _("You declined the challenge of %(team)s: %(team)s takes your position.")
                % {"team": challenge.challenger.name},
            )
    except ServiceError as error:
        messages.error(request, str(error))
    return redirect("ladder", found.pk)


@login_required
@require_POST
def ladder_accept(request, ladder_id: int, challenge_id: int):
    return _answer(request, ladder_id, challenge_id, accept=True)


@login_required
@require_POST
def ladder_decline(request, ladder_id: int, challenge_id: int):
    return _answer(request, ladder_id, challenge_id, accept=False)
