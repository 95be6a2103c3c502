"""Team events' registration and line-ups (RULES 11): a captain proposes a team, its
invited players confirm or decline, the captain (or an organiser) sets the line-up and
withdraws the team. The writes are the caller's own (any player's token); the list is
public, with each team's line-up only to its members and the organisers."""

from __future__ import annotations

from datetime import datetime

from django.db.models import Prefetch
from django.utils.translation import gettext as _
from ninja import Field, Router, Schema, Status
from ninja.security import django_auth

from .. import visibility
from ..errors import NotFound
from ..live.schemas import PlayerOut
from ..models import Team, TeamMember
from ..services import teams
from . import lookups
from .auth import token_auth
from .errors import write
from .play import anonymous
from .schemas import ErrorOut, Text

router = Router(tags=["teams"])


class TeamIn(Schema):
    name: Text = Field(description="The team's name, unique in the tournament; at most 60.")
    members: list[Text] = Field(
        description="The usernames of the 3–5 players the captain (the caller) invites."
    )


class LineUpIn(Schema):
    open_pair: list[Text] = Field(
        description="Two usernames: the pair in the open room (NS at home, EW away)."
    )
    closed_pair: list[Text] = Field(
        description="Two usernames: the pair in the closed room (EW at home, NS away)."
    )


class MemberOut(PlayerOut):
    confirmed: bool = Field(description="False while the invitation waits for an answer.")
    captain: bool


class LineUpOut(Schema):
    open_pair: list[PlayerOut]
    closed_pair: list[PlayerOut]


class TeamOut(Schema):
    id: int
    name: str
    registration_no: int | None = Field(description="Given once four members confirmed.")
    status: str = Field(description='"pending" or "confirmed" (registered).')
    withdrawn_at: datetime | None
    members: list[MemberOut] = Field(description="In invitation order, the captain first.")
    line_up: LineUpOut | None = Field(
        description="The line-up for the next match: only to the team's members and the "
        "organisers (the opponents see it at the tables once the round is seated); null "
        "to anyone else, and while the team is not registered."
    )


def _player(user) -> dict:
    profile = getattr(user, "profile", None)
    return {"username": user.get_username(), "name": profile.name if profile else user.username}


def _pair(pair) -> list[dict]:
    return [_player(pair.player1), _player(pair.player2)]


def _team(team: Team, user) -> dict:
    members = list(team.members.all())
    confirmed = {m.user_id for m in members if m.confirmed_at is not None}
    line_up = None
    if (
        team.open_pair_id
        and team.closed_pair_id
        and visibility.may_see_line_up(user, team, member_ids=confirmed)
    ):
        line_up = {"open_pair": _pair(team.open_pair), "closed_pair": _pair(team.closed_pair)}
    return {
        "id": team.id,
        "name": team.name,
        "registration_no": team.registration_no,
        "status": team.status,
        "withdrawn_at": team.withdrawn_at,
        "members": [
            {
                **_player(m.user),
                "confirmed": m.confirmed_at is not None,
                "captain": m.user_id == team.captain_id,
            }
            for m in members
        ],
        "line_up": line_up,
    }


def _teams(tournament_id: int):
    return (
        Team.objects.filter(tournament_id=tournament_id)
        .select_related(
            "open_pair__player1__profile",
            "open_pair__player2__profile",
            "closed_pair__player1__profile",
            "closed_pair__player2__profile",
        )
        .prefetch_related(
            Prefetch(
                "members",
                queryset=TeamMember.objects.select_related("user__profile").order_by(
                    "invited_at", "id"
                ),
            )
        )
    )


def _get_team(tournament_id: int, team_id: int) -> Team:
    t = lookups.get_tournament(tournament_id)
    found = _teams(t.pk).filter(pk=team_id).first()
    if found is None:
        raise NotFound(_("%(t)s has no team %(id)s.") % {"t": t.name, "id": team_id})
    return found


def _fresh(team: Team, user) -> dict:
    return _team(_get_team(team.tournament_id, team.pk), user)


@router.get(
    "/tournaments/{tournament_id}/teams",
    auth=[token_auth, django_auth, anonymous],
    response={200: list[TeamOut], 404: ErrorOut},
    summary="A team event's teams, registered and proposed",
)
def list_teams(request, tournament_id: int):
    t = lookups.get_tournament(tournament_id)
    found = _teams(t.pk).order_by("registration_no", "id")
    return [_team(team, request.auth) for team in found]


@router.get(
    "/tournaments/{tournament_id}/teams/{team_id}",
    auth=[token_auth, django_auth, anonymous],
    response={200: TeamOut, 404: ErrorOut},
    summary="A team: its members and, to its members and the organisers, its line-up",
)
def get_team(request, tournament_id: int, team_id: int):
    return _team(_get_team(tournament_id, team_id), request.auth)


@router.post(
    "/tournaments/{tournament_id}/teams",
    **write(201, TeamOut, auth=token_auth),
    summary="Propose a team: the caller is its captain, the members are invited",
    description="Registration must be open and the event a team event. The team is "
    "registered (its number given, the first four confirmed members its line-up) once "
    "four members, the captain included, have confirmed.",
)
def propose_team(request, tournament_id: int, payload: TeamIn):
    t = lookups.get_tournament(tournament_id)
    team = teams.propose_team(
        tournament=t, captain=request.auth, name=payload.name, members=payload.members
    )
    return Status(201, _fresh(team, request.auth))


@router.post(
    "/tournaments/{tournament_id}/teams/{team_id}/confirm",
    **write(200, TeamOut, auth=token_auth),
    summary="Confirm the caller's place in a team they are invited to",
)
def confirm_membership(request, tournament_id: int, team_id: int):
    team = teams.confirm_membership(team=_get_team(tournament_id, team_id), user=request.auth)
    return _fresh(team, request.auth)


@router.post(
    "/tournaments/{tournament_id}/teams/{team_id}/decline",
    **write(200, TeamOut, auth=token_auth),
    summary="Decline the caller's invitation to a team",
)
def decline_membership(request, tournament_id: int, team_id: int):
    team = teams.decline_membership(team=_get_team(tournament_id, team_id), user=request.auth)
    return _fresh(team, request.auth)


@router.post(
    "/tournaments/{tournament_id}/teams/{team_id}/cancel",
    **write(204, None, auth=token_auth),
    summary="Cancel a team not yet registered (its captain)",
)
def cancel_team(request, tournament_id: int, team_id: int):
    teams.cancel_team(team=_get_team(tournament_id, team_id), by=request.auth)
    return Status(204, None)


@router.put(
    "/tournaments/{tournament_id}/teams/{team_id}/line-up",
    **write(200, TeamOut, auth=token_auth),
    summary="Set the line-up for the next match (the captain, or an organiser)",
    description="Four different confirmed members; refused once the team withdrew or the "
    "tournament finished. The format seats the line-up it finds when it seats a round.",
)
def set_line_up(request, tournament_id: int, team_id: int, payload: LineUpIn):
    team = teams.set_line_up(
        team=_get_team(tournament_id, team_id),
        by=request.auth,
        open_pair=payload.open_pair,
        closed_pair=payload.closed_pair,
    )
    return _fresh(team, request.auth)


@router.post(
    "/tournaments/{tournament_id}/teams/{team_id}/withdraw",
    **write(200, TeamOut, auth=token_auth),
    summary="Withdraw a registered team from the next seating on (its captain, or an organiser)",
)
def withdraw_team(request, tournament_id: int, team_id: int):
    team = teams.withdraw_team(team=_get_team(tournament_id, team_id), by=request.auth)
    return _fresh(team, request.auth)
