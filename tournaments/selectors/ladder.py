"""Reads of a team ladder (RULES 11): the core's state from the rows (`load_ladder`, the
one place the services build a `teams.ladder.Ladder`), and the plain data of the standing
ladder page and of a ladder team's page."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db.models import Prefetch, Q

from teams import ladder as core

from ..models import (
    LADDER_CHALLENGE_PENDING,
    Ladder,
    LadderChallenge,
    LadderChallengeState,
    LadderHistory,
    LadderMember,
    LadderTeam,
)

#: the decided challenges that count as a meeting for the rematch rule (the core's own)
MEETING_STATES = (
    LadderChallengeState.PLAYED,
    LadderChallengeState.FORFEITED,
    LadderChallengeState.DECLINED,
)


def settings_of(ladder: Ladder) -> core.LadderSettings:
    return core.LadderSettings(
        range=ladder.challenge_range,
        accept_days=ladder.accept_days,
        play_days=ladder.play_days,
        rematch_days=ladder.rematch_days,
    )


@dataclass(frozen=True)
class Loaded:
    """The core's state and the rows of its open challenges, keyed (challenger,
    challenged) as the core names them."""

    state: core.Ladder
    pending: dict[tuple[int, int], LadderChallenge]


def load_ladder(ladder: Ladder, *, now: datetime) -> Loaded:
    """The ladder's state as the core knows it: the standing teams in position order, the
    open challenges, and the meetings recent enough for the rematch rule."""
    teams = tuple(
        LadderTeam.objects.filter(ladder=ladder, left_at__isnull=True)
        .order_by("position")
        .values_list("id", flat=True)
    )
    rows = list(
        LadderChallenge.objects.filter(ladder=ladder, state__in=LADDER_CHALLENGE_PENDING).order_by(
            "id"
        )
    )
    challenges = tuple(
        core.Challenge(
            r.challenger_id,
            r.challenged_id,
            issued_at=r.issued_at,
            accept_by=r.accept_by,
            accepted_at=r.accepted_at if r.state == LadderChallengeState.ACCEPTED else None,
            play_by=r.play_by if r.state == LadderChallengeState.ACCEPTED else None,
        )
        for r in rows
    )
    since = now - timedelta(days=ladder.rematch_days)
    meetings = tuple(
        core.Meeting(a, b, at)
        for a, b, at in LadderChallenge.objects.filter(
            ladder=ladder, state__in=MEETING_STATES, decided_at__gt=since
        ).values_list("challenger_id", "challenged_id", "decided_at")
        if at is not None
    )
    state = core.Ladder(
        teams=teams, challenges=challenges, meetings=meetings, settings=settings_of(ladder)
    )
    return Loaded(state, {(r.challenger_id, r.challenged_id): r for r in rows})


def due_ladder_ids(*, now: datetime) -> list[int]:
    """The ladders with a challenge whose deadline has passed (the clock's work)."""
    due = Q(state=LadderChallengeState.OPEN, accept_by__lte=now) | Q(
        state=LadderChallengeState.ACCEPTED, play_by__lte=now
    )
    return sorted(set(LadderChallenge.objects.filter(due).values_list("ladder_id", flat=True)))


# --- pages ------------------------------------------------------------------------------


def _members() -> Prefetch:
    return Prefetch(
        "members",
        queryset=LadderMember.objects.filter(left_at__isnull=True)
        .select_related("user__profile")
        .order_by("id"),
    )


def standing_teams(ladder: Ladder) -> list[LadderTeam]:
    return list(
        LadderTeam.objects.filter(ladder=ladder, left_at__isnull=True)
        .select_related("captain__profile")
        .prefetch_related(_members())
        .order_by("position")
    )


def open_challenges(ladder: Ladder) -> list[LadderChallenge]:
    return list(
        LadderChallenge.objects.filter(ladder=ladder, state__in=LADDER_CHALLENGE_PENDING)
        .select_related("challenger", "challenged")
        .order_by("issued_at", "id")
    )


def latest_history(ladder: Ladder, *, limit: int = 30) -> list[LadderHistory]:
    return list(
        LadderHistory.objects.filter(ladder=ladder)
        .select_related("team", "opponent", "forfeited_by")
        .order_by("-at", "-id")[:limit]
    )


def team_challenges(team: LadderTeam) -> list[LadderChallenge]:
    return list(
        LadderChallenge.objects.filter(Q(challenger=team) | Q(challenged=team))
        .select_related("challenger", "challenged", "forfeited_by")
        .order_by("-issued_at", "-id")
    )


def team_of(ladder: Ladder, user) -> LadderTeam | None:
    """The standing team ``user`` plays in on ``ladder``, or None."""
    if user is None or not user.is_authenticated:
        return None
    member = (
        LadderMember.objects.filter(ladder=ladder, user=user, left_at__isnull=True)
        .select_related("team")
        .first()
    )
    return member.team if member else None


def challengeable_teams(ladder: Ladder, team: LadderTeam, *, now: datetime) -> list[LadderTeam]:
    """The teams ``team`` may challenge now, top first (the core's `challengeable`)."""
    if team.left_at is not None:
        return []
    state = load_ladder(ladder, now=now).state
    ids = core.challengeable(state, team.pk, now)
    found = {t.pk: t for t in LadderTeam.objects.filter(pk__in=ids)}
    return [found[i] for i in ids]
