"""The API's "change settings and re-score the whole event" (RULES 3): the settings that
decide scores, once round 1 has started, change only here (or admin's action), with a
reason, and the whole event is re-scored and the change recorded
(`services.settings_change`). Refusals: 400 bad value, 403 no permission, 409 a change
that contradicts the rounds played."""

from __future__ import annotations

from decimal import Decimal

from ninja import Field, Router, Schema

from ..services import settings_change
from . import lookups
from .endpoints import _tournament_now
from .errors import write
from .schemas import Text, TournamentOut

router = Router()


class ScoringSettingsIn(Schema):
    scoring_method: str | None = Field(None, description="MP, IMP or XIMP.")
    completion_threshold: Decimal | None = Field(None, description="Percentage 1–100.")
    unplayed_policy: str | None = Field(None, description="not_played, avg_minus or avg.")
    neuberg: bool | None = None
    datum_rounding: str | None = Field(
        None, description="half_even or half_away: how a datum ending in exactly 5 is rounded."
    )
    rounds: int | None = Field(None, description="Never fewer than the rounds seated.")
    boards_per_round: int | None = Field(
        None, description="Only before round 1 starts: refused (409) once it has."
    )
    reason: Text = Field(description="Why; recorded with who and when. At most 500 characters.")


class SettingsChangeOut(Schema):
    id: int
    changed_by: str | None
    changed_at: str
    before: dict
    after: dict
    reason: str


class SettingsChangedOut(Schema):
    change: SettingsChangeOut
    tournament: TournamentOut


@router.patch(
    "/tournaments/{tournament_id}/scoring-settings",
    **write(200, SettingsChangedOut),
    tags=["setup"],
    summary="Change settings and re-score the whole event (organiser)",
)
def change_scoring_settings(request, tournament_id: int, payload: ScoringSettingsIn):
    t = lookups.get_tournament(tournament_id)
    changes = payload.dict(exclude_none=True, exclude={"reason"})
    record = settings_change.change_scoring_settings(
        tournament=t, by=request.auth, changes=changes, reason=payload.reason
    )
    return {
        "change": {
            "id": record.pk,
            "changed_by": record.changed_by.get_username() if record.changed_by else None,
            "changed_at": record.changed_at.isoformat(),
            "before": record.before,
            "after": record.after,
            "reason": record.reason,
        },
        "tournament": _tournament_now(t),
    }


class ScheduleIn(Schema):
    round_minutes: float | None = Field(None, description="Length of the rounds not yet opened.")
    gap_minutes: float | None = Field(None, description="Gap before the rounds not yet opened.")


@router.patch(
    "/tournaments/{tournament_id}/schedule",
    **write(200, TournamentOut),
    tags=["setup"],
    summary="Round length and gap of the rounds not yet opened (organiser)",
)
def change_schedule(request, tournament_id: int, payload: ScheduleIn):
    t = lookups.get_tournament(tournament_id)
    settings_change.change_schedule(
        tournament=t,
        by=request.auth,
        round_length=settings_change.minutes(payload.round_minutes, "round_length"),
        gap_length=settings_change.minutes(payload.gap_minutes, "gap_length"),
    )
    return _tournament_now(t)
