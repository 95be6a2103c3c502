"""The Rate's reads (RULES 13): the Rate list and one player's figures week by week.

Per player: the Rate (one decimal), this week's points and boards (the open week's
duplicate and full-field IMP scores with its penalties, as they stand), total boards
(rated boards so far), last week's average (the last closed week's points per board).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from django.contrib.auth import get_user_model
from django.db.models import Count, Sum
from django.utils import timezone

import rating

from ..models import (
    ClubPenalty,
    ClubRating,
    ClubScore,
    ClubSystem,
    ClubWeek,
    ClubWeekFigure,
    player_name,
)

IMP_SYSTEMS = (ClubSystem.DUPLICATE, ClubSystem.FULL_FIELD_IMPS)


@dataclass(frozen=True)
class RateLine:
    user_id: int
    name: str
    rate: Decimal
    carried: float
    total_boards: int
    week_points: float
    week_boards: int
    last_average: float | None
    rank: int = 0


@dataclass(frozen=True)
class WeekPoint:
    starts_at: datetime
    rate: float
    shown: Decimal
    boards: int
    average: float | None


def _this_week(now: datetime) -> ClubWeek | None:
    return ClubWeek.objects.filter(starts_at__lte=now, ends_at__gt=now).first()


def _week_points(week: ClubWeek | None, user_ids: list[int]) -> dict[int, tuple[float, int]]:
    if week is None or not user_ids:
        return {}
    scored = dict.fromkeys(user_ids, (0.0, 0))
    for user_id, points, boards in (
        ClubScore.objects.filter(
            field__week=week, field__system__in=IMP_SYSTEMS, user_id__in=user_ids, robot=False
        )
        .values_list("user_id")
        .annotate(Sum("points"), Count("id"))
    ):
        scored[user_id] = (points or 0.0, boards)
    for user_id, penalty in (
        ClubPenalty.objects.filter(field__week=week, user_id__in=user_ids)
        .exclude(field__system=ClubSystem.HANDICAP)
        .values_list("user_id")
        .annotate(Sum("points"))
    ):
        points, boards = scored[user_id]
        scored[user_id] = (points + (penalty or 0), boards)
    return scored


def _last_averages(user_ids: list[int], now: datetime) -> dict[int, float | None]:
    last = (
        ClubWeek.objects.filter(closed_at__isnull=False, ends_at__lte=now)
        .order_by("-starts_at")
        .first()
    )
    if last is None:
        return {}
    return {
        f.user_id: f.average for f in ClubWeekFigure.objects.filter(week=last, user_id__in=user_ids)
    }


def rate_list(*, now: datetime | None = None, limit: int = 100, offset: int = 0) -> list[RateLine]:
    """The Rate list: members carrying at least the listed weight (50 boards), by Rate."""
    now = now or timezone.now()
    threshold = rating.DEFAULT_PARAMETERS.listed_weight - 1e-9
    ratings = list(
        ClubRating.objects.filter(carried__gte=threshold)
        .select_related("user__profile")
        .order_by("-rate", "user_id")[offset : offset + limit]
    )
    return _lines(ratings, now=now, first_rank=offset + 1)


def _lines(ratings: list[ClubRating], *, now: datetime, first_rank: int = 1) -> list[RateLine]:
    ids = [r.user_id for r in ratings]
    week = _week_points(_this_week(now), ids)
    averages = _last_averages(ids, now)
    return [
        RateLine(
            user_id=r.user_id,
            name=player_name(r.user),
            rate=rating.shown_rate(r.rate),
            carried=r.carried,
            total_boards=r.total_boards,
            week_points=week.get(r.user_id, (0.0, 0))[0],
            week_boards=week.get(r.user_id, (0.0, 0))[1],
            last_average=averages.get(r.user_id),
            rank=first_rank + i,
        )
        for i, r in enumerate(ratings)
    ]


def listed_count() -> int:
    threshold = rating.DEFAULT_PARAMETERS.listed_weight - 1e-9
    return ClubRating.objects.filter(carried__gte=threshold).count()


@dataclass(frozen=True)
class PlayerRate:
    user_id: int
    name: str
    line: RateLine | None  # None: not rated yet (no closed week with a board)
    listed: bool
    weeks: list[WeekPoint]


def player_rate(*, user_id: int, now: datetime | None = None) -> PlayerRate | None:
    """One player's Rate and its history week by week (None: no such player)."""
    now = now or timezone.now()
    user = get_user_model().objects.select_related("profile").filter(pk=user_id).first()
    if user is None:
        return None
    current = ClubRating.objects.filter(user=user).select_related("user__profile").first()
    line = _lines([current], now=now)[0] if current is not None else None
    weeks = [
        WeekPoint(
            starts_at=f.week.starts_at,
            rate=f.rate,
            shown=rating.shown_rate(f.rate),
            boards=f.boards,
            average=f.average,
        )
        for f in ClubWeekFigure.objects.filter(user=user)
        .select_related("week")
        .order_by("week__starts_at")
    ]
    listed = current is not None and bool(rating.listed([current.carried])[0])
    return PlayerRate(
        user_id=user.pk, name=player_name(user), line=line, listed=listed, weeks=weeks
    )


__all__ = ["listed_count", "player_rate", "rate_list"]
