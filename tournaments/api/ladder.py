"""The team ladder (RULES 11, 梯级挑战赛): read a ladder (its positions, open challenges and
latest history); a captain challenges for the caller's team, the challenged captain
accepts or declines, a director enters a match's result. The rules and the permissions are
`services.ladder`'s; the clock closes the deadlines."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from django.utils.translation import gettext as _
from ninja import Field, Router, Schema, Status
from ninja.security import django_auth

from ..errors import NotFound
from ..models import Ladder, LadderChallenge, LadderTeam
from ..selectors import ladder as reads
from ..services import ladder as services
from .auth import token_auth
from .errors import write
from .play import anonymous
from .schemas import ErrorOut

router = Router(tags=["ladder"])


class LadderTeamOut(Schema):
    id: int
    name: str
    position: int
    captain: str = Field(description="The captain's username.")


class ChallengeOut(Schema):
    id: int
    challenger: int = Field(description="The challenging team's id.")
    challenged: int = Field(description="The challenged team's id.")
    state: str = Field(
        description='"open", "accepted", "played", "forfeited", "declined", "lapsed" or "voided".'
    )
    issued_at: datetime
    accept_by: datetime
    accepted_at: datetime | None
    play_by: datetime | None
    challenger_vp: Decimal | None
    forfeited_by: int | None = Field(description="The team that forfeited, if one did.")
    decided_at: datetime | None


class HistoryOut(Schema):
    kind: str
    at: datetime
    team: int
    before: int | None
    after: int | None
    opponent: int | None
    opponent_before: int | None
    opponent_after: int | None
    challenger_vp: Decimal | None
    forfeited_by: int | None


class LadderOut(Schema):
    id: int
    name: str
    challenge_range: int
    accept_days: int
    play_days: int
    rematch_days: int
    boards_per_match: int
    teams: list[LadderTeamOut] = Field(description="The standing teams, position 1 first.")
    open_challenges: list[ChallengeOut]
    history: list[HistoryOut] = Field(description="The latest 50 changes, newest first.")


class ChallengeIn(Schema):
    challenged: int = Field(description="The id of the team the caller's team challenges.")


class ResultIn(Schema):
    challenger_vp: Decimal = Field(
        ge=0, le=20, decimal_places=2, description="The challenger's VPs, 0–20."
    )


def _challenge(c: LadderChallenge) -> dict:
    return {
        "id": c.pk,
        "challenger": c.challenger_id,
        "challenged": c.challenged_id,
        "state": c.state,
        "issued_at": c.issued_at,
        "accept_by": c.accept_by,
        "accepted_at": c.accepted_at,
        "play_by": c.play_by,
        "challenger_vp": c.challenger_vp,
        "forfeited_by": c.forfeited_by_id,
        "decided_at": c.decided_at,
    }


def _ladder(ladder_id: int) -> Ladder:
    found = Ladder.objects.filter(pk=ladder_id).first()
    if found is None:
        raise NotFound(_("There is no ladder %(id)s.") % {"id": ladder_id})
    return found


def _get_challenge(ladder_id: int, challenge_id: int) -> LadderChallenge:
    found = LadderChallenge.objects.filter(pk=challenge_id, ladder=_ladder(ladder_id)).first()
    if found is None:
        raise NotFound(_("This ladder has no challenge %(id)s.") % {"id": challenge_id})
    return found


@router.get(
    "/ladders/{ladder_id}",
    auth=[token_auth, django_auth, anonymous],
    response={200: LadderOut, 404: ErrorOut},
    summary="A team ladder: its positions, open challenges and latest changes",
)
def get_ladder(request, ladder_id: int):
    ladder = _ladder(ladder_id)
    return {
        "id": ladder.pk,
        "name": ladder.name,
        "challenge_range": ladder.challenge_range,
        "accept_days": ladder.accept_days,
        "play_days": ladder.play_days,
        "rematch_days": ladder.rematch_days,
        "boards_per_match": ladder.boards_per_match,
        "teams": [
            {
                "id": t.pk,
                "name": t.name,
                "position": t.position,
                "captain": t.captain.get_username(),
            }
            for t in reads.standing_teams(ladder)
        ],
        "open_challenges": [_challenge(c) for c in reads.open_challenges(ladder)],
        "history": [
            {
                "kind": e.kind,
                "at": e.at,
                "team": e.team_id,
                "before": e.before,
                "after": e.after,
                "opponent": e.opponent_id,
                "opponent_before": e.opponent_before,
                "opponent_after": e.opponent_after,
                "challenger_vp": e.challenger_vp,
                "forfeited_by": e.forfeited_by_id,
            }
            for e in reads.latest_history(ladder, limit=50)
        ],
    }


@router.post(
    "/ladders/{ladder_id}/challenges",
    **write(201, ChallengeOut, auth=token_auth),
    summary="Challenge a team above the caller's team (its captain)",
    description="At most the ladder's range above, neither team in an open challenge, "
    "and not within the rematch interval; the challenged team accepts by `accept_by`.",
)
def create_challenge(request, ladder_id: int, payload: ChallengeIn):
    ladder = _ladder(ladder_id)
    mine = reads.team_of(ladder, request.auth)
    if mine is None:
        raise services.LadderError(_("You play in no team on this ladder."))
    target = LadderTeam.objects.filter(
        pk=payload.challenged, ladder=ladder, left_at__isnull=True
    ).first()
    if target is None:
        raise NotFound(_("This ladder has no team %(id)s.") % {"id": payload.challenged})
    made = services.challenge(challenger=mine, challenged=target, by=request.auth)
    return Status(201, _challenge(made))


@router.post(
    "/ladders/{ladder_id}/challenges/{challenge_id}/accept",
    **write(200, ChallengeOut, auth=token_auth),
    summary="Accept a challenge (the challenged team's captain), before its accept deadline",
)
def accept_challenge(request, ladder_id: int, challenge_id: int):
    done = services.accept(challenge=_get_challenge(ladder_id, challenge_id), by=request.auth)
    return _challenge(done)


@router.post(
    "/ladders/{ladder_id}/challenges/{challenge_id}/decline",
    **write(200, ChallengeOut, auth=token_auth),
    summary="Decline a challenge (the challenged team's captain): a forfeit",
)
def decline_challenge(request, ladder_id: int, challenge_id: int):
    done = services.decline(challenge=_get_challenge(ladder_id, challenge_id), by=request.auth)
    return _challenge(done)


@router.post(
    "/ladders/{ladder_id}/challenges/{challenge_id}/result",
    **write(200, ChallengeOut),
    summary="Enter an accepted challenge's result, the challenger's VPs (a director)",
    description="Before the play deadline. Above 10 VP the challenger takes the "
    "challenged team's position and every team between moves down one.",
)
def record_result(request, ladder_id: int, challenge_id: int, payload: ResultIn):
    done = services.record_result(
        challenge=_get_challenge(ladder_id, challenge_id),
        challenger_vp=payload.challenger_vp,
        by=request.auth,
    )
    return _challenge(done)
