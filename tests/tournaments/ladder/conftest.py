"""A ladder of N teams, each a captain and three players, entered in order (team 1 at
the top), at ``T0`` under time-machine."""

from __future__ import annotations

from datetime import datetime

import pytest
import time_machine

from tournaments.models import LadderTeam
from tournaments.services import ladder as ladder_services


@pytest.fixture
def make_ladder(make_user, organiser, t0):
    def make(teams: int = 5, *, at: datetime | None = None, **settings):
        with time_machine.travel(at or t0, tick=False):
            ladder = ladder_services.create_ladder(
                name=settings.pop("name", "Club ladder"), by=organiser, **settings
            )
            for i in range(1, teams + 1):
                captain = make_user(f"cap{i}", name=f"Captain {i}")
                ladder_services.enter_team(
                    ladder=ladder,
                    captain=captain,
                    name=f"Team {i}",
                    members=[make_user(f"t{i}p{j}") for j in range(1, 4)],
                )
        return ladder

    return make


def by_position(ladder) -> list[str]:
    return list(
        LadderTeam.objects.filter(ladder=ladder, left_at__isnull=True)
        .order_by("position")
        .values_list("name", flat=True)
    )


def team(ladder, n: int) -> LadderTeam:
    return LadderTeam.objects.get(ladder=ladder, name=f"Team {n}", left_at__isnull=True)
