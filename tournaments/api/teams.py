"""Team events (RULES 11): registration and line-ups — a captain proposes a team, its
invited players confirm or decline, the captain (or an organiser) sets the line-up and
withdraws the team; the writes are the caller's own (any player's token), the list is
public, with each team's line-up only to its members and the organisers. And the reads
of the matches: each round's matches, a match's score card, the team standings, every
score only once its round has closed (`visibility.results_public`). A room's results are
entered at its table like any table's (`PUT …/rounds/{n}/tables/{t}/boards/{b}`)."""

from __future__ import annotations

from datetime import datetime
from math import isfinite

from django.db.models import Prefetch
from django.utils.translation import gettext as _
from ninja import Field, Router, Schema, Status
from ninja.security import django_auth

from .. import visibility
from ..errors import NotFound
from ..live.schemas import PlayerOut
from ..models import Match, Round, Team, TeamMember
from ..selectors import team_results
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


# --- matches, score cards and standings (reads) ------------------------------------


class TeamRefOut(Schema):
    id: int
    name: str
    registration_no: int | None


class MatchOut(Schema):
    id: int
    number: int
    home: TeamRefOut = Field(description="NS in the open room, EW in the closed room.")
    away: TeamRefOut | None = Field(description="Null: the home team's bye.")
    open_table: int | None = Field(
        description="The open room's table number in the round (enter its results there); "
        "null for a bye."
    )
    closed_table: int | None = Field(description="The closed room's table number.")
    public: bool = Field(description="Whether the round has closed: only then the scores.")
    carry_over: int | None = Field(
        description="IMPs carried over from an earlier stanza (the home team's; negative: "
        "the away team's)."
    )
    home_imps: int | None = Field(
        description="IMPs the home team won over the boards; null until the round closed."
    )
    away_imps: int | None
    home_vp: float | None = Field(
        description="Victory points (a bye's too); null until the round closed, and in an "
        "IMPs-only event."
    )
    away_vp: float | None


class RoundMatchesOut(Schema):
    round: int
    status: str
    matches: list[MatchOut]


class RoomOut(Schema):
    table: int
    state: str
    contract: str
    declarer: str
    tricks: int | None
    result: str
    ns_score: int | None
    ns_adjustment: str
    ew_adjustment: str


class CardLineOut(Schema):
    board: int
    open_room: RoomOut | None = Field(description="Null: no result at the open room's table.")
    closed_room: RoomOut | None
    home_imps: int | None = Field(description="The home team's IMPs on the board.")
    away_imps: int | None
    running: int = Field(description="The home team's running score, carry-over included.")


class MatchCardOut(Schema):
    round: int
    match: MatchOut
    boards: list[CardLineOut] = Field(
        description="Empty while the round runs: a room's result is never shown while the "
        "other room may still be playing the board."
    )


class TeamStandingOut(Schema):
    position: int | None = Field(description="After the last closed round; null before.")
    team: TeamRefOut
    vp: float = Field(description="Victory points (IMP margins in an IMPs-only event).")
    imps_won: int
    imps_lost: int
    quotient: float | None = Field(
        description="IMPs won / IMPs lost; null when no IMP was lost (or none scored)."
    )
    matches: int = Field(description="Matches of closed rounds, byes included.")
    withdrawn: bool


def _team_ref(team: Team | None) -> dict | None:
    if team is None:
        return None
    return {"id": team.id, "name": team.name, "registration_no": team.registration_no}


def _match(match: Match, round: Round) -> dict:
    public = visibility.results_public(round)
    bye = match.is_bye
    return {
        "id": match.id,
        "number": match.number,
        "home": _team_ref(match.home),
        "away": _team_ref(match.away),
        "open_table": match.open_table.number if match.open_table is not None else None,
        "closed_table": match.closed_table.number if match.closed_table is not None else None,
        "public": public,
        "carry_over": match.carry_over,
        "home_imps": match.home_imps_won if public and not bye else None,
        "away_imps": match.away_imps_won if public and not bye else None,
        "home_vp": float(match.home_vp) if public and match.home_vp is not None else None,
        "away_vp": float(match.away_vp) if public and match.away_vp is not None else None,
    }


def _room(result, table) -> dict | None:
    if result is None:
        return None
    return {
        "table": table.number,
        "state": result.state,
        "contract": result.contract,
        "declarer": result.declarer,
        "tricks": result.tricks,
        "result": result.result_relative,
        "ns_score": result.ns_score,
        "ns_adjustment": result.ns_adjustment,
        "ew_adjustment": result.ew_adjustment,
    }


@router.get(
    "/tournaments/{tournament_id}/matches",
    response={200: list[RoundMatchesOut], 404: ErrorOut},
    summary="A team event's matches, round by round (scores once each round has closed)",
)
def list_matches(request, tournament_id: int):
    t = lookups.get_tournament(tournament_id)
    rounds = Round.objects.filter(tournament=t).order_by("number")
    return [
        {
            "round": r.number,
            "status": r.status,
            "matches": [_match(m, r) for m in team_results.round_matches(round=r)],
        }
        for r in rounds
    ]


@router.get(
    "/tournaments/{tournament_id}/matches/{match_id}",
    response={200: MatchCardOut, 404: ErrorOut},
    summary="A match's score card: both rooms' results and each team's IMPs, board by board",
)
def get_match(request, tournament_id: int, match_id: int):
    t = lookups.get_tournament(tournament_id)
    match = (
        Match.objects.filter(round__tournament=t, pk=match_id)
        .select_related("round", "home", "away", "open_table", "closed_table")
        .first()
    )
    if match is None:
        raise NotFound(_("%(t)s has no match %(id)s.") % {"t": t.name, "id": match_id})
    card = team_results.match_card(match=match)
    return {
        "round": match.round.number,
        "match": _match(match, match.round),
        "boards": [
            {
                "board": line.board,
                "open_room": _room(line.open_room, match.open_table),
                "closed_room": _room(line.closed_room, match.closed_table),
                "home_imps": line.home_imps,
                "away_imps": line.away_imps,
                "running": line.running,
            }
            for line in card.lines
        ],
    }


@router.get(
    "/tournaments/{tournament_id}/team-standings",
    response={200: list[TeamStandingOut], 404: ErrorOut},
    summary="A team event's standings after the last closed round (the final ranking)",
)
def get_team_standings(request, tournament_id: int):
    t = lookups.get_tournament(tournament_id)
    return [
        {
            "position": line.position,
            "team": {
                "id": line.team_id,
                "name": line.name,
                "registration_no": line.registration_no,
            },
            "vp": float(line.vp),
            "imps_won": line.imps_won,
            "imps_lost": line.imps_lost,
            "quotient": line.quotient
            if line.quotient is not None and isfinite(line.quotient)
            else None,
            "matches": line.matches,
            "withdrawn": line.withdrawn,
        }
        for line in team_results.team_standings(tournament=t)
    ]
