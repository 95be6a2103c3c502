"""The club's Rate (RULES 13) in the API: the Rate list and a player's Rate week by week
(public, like the pages)."""

from __future__ import annotations

from datetime import datetime

from django.utils.translation import gettext as _
from ninja import Query, Router, Schema

from ..errors import NotFound
from ..selectors import club_rate
from .schemas import ErrorOut

router = Router(tags=["club"])


class RateLineOut(Schema):
    rank: int
    user_id: int
    name: str
    rate: float  # one decimal, as shown
    boards_carried: float
    total_boards: int
    week_points: float
    week_boards: int
    last_week_average: float | None


class RateWeekOut(Schema):
    week_starts_at: datetime
    rate: float  # one decimal, as shown
    boards: int
    average: float | None


class PlayerRateOut(Schema):
    user_id: int
    name: str
    rated: bool
    listed: bool
    now: RateLineOut | None
    weeks: list[RateWeekOut]


def _line(line: club_rate.RateLine) -> dict:
    return {
        "rank": line.rank,
        "user_id": line.user_id,
        "name": line.name,
        "rate": float(line.rate),
        "boards_carried": round(line.carried, 3),
        "total_boards": line.total_boards,
        "week_points": line.week_points,
        "week_boards": line.week_boards,
        "last_week_average": line.last_average,
    }


@router.get(
    "/club/rate",
    response={200: list[RateLineOut], 422: ErrorOut},
    summary="The Rate list: members carrying at least 50 boards, by Rate",
)
def rate_list(
    request, limit: int = Query(100, ge=1, le=500), offset: int = Query(0, ge=0, le=10**9)
):
    return [_line(line) for line in club_rate.rate_list(limit=limit, offset=offset)]


@router.get(
    "/club/players/{user_id}/rate",
    response={200: PlayerRateOut, 404: ErrorOut},
    summary="A player's Rate now and week by week",
)
def player_rate(request, user_id: int):
    found = club_rate.player_rate(user_id=user_id)
    if found is None:
        raise NotFound(_("There is no such player."))
    return {
        "user_id": found.user_id,
        "name": found.name,
        "rated": found.line is not None,
        "listed": found.listed,
        "now": _line(found.line) if found.line is not None else None,
        "weeks": [
            {
                "week_starts_at": w.starts_at,
                "rate": float(w.shown),
                "boards": w.boards,
                "average": w.average,
            }
            for w in found.weeks
        ],
    }
