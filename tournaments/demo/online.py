"""The demo played card by card: an online event whose seats robots take
(`manage.py play_robots --demo`, started by `make run` beside the server).

A newcomer logs in as the organiser and watches any table live, or as one of the
event's players (``online01`` … with the demo players' password) and takes their seat:
the robot in it leaves at the login. Rounds are short, so now and then a table does not
finish before the bell and the cut-off shows. When the event ends, the robots' runner
calls `ensure_online_demo` again and the next one starts; the finished ones but the
last are removed. The played-elsewhere demos (`seed.ensure_demo`) stay as they are.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from ..models import PlayMode, Tournament, TournamentStatus
from ..services.bulk_registration import ensure_players as ensure_users
from ..services.simulator import refuse_demo_data_unless_allowed
from .seed import (
    DEMO_NAMES,
    DEMO_PLAYER_PASSWORD,
    _create_demo,
    _delete_demo,
    _on_schedule,
    ensure_organiser,
)

DEMO_ONLINE_NAME = "Demo Swiss Pairs, played by robots · 瑞士移位演示赛（机器人对局）"

# The robots' pace in the demo (seconds before each action) and when declarer claims:
# a board takes about half a minute, so most tables finish a round's three boards in
# its two and a half minutes and a few are cut off at the bell.
DEMO_PACE = "0.4-1.4"
DEMO_CLAIM_AFTER = 7


def online_usernames(count: int) -> list[str]:
    return [f"online{i + 1:02d}" for i in range(count)]


@dataclass(frozen=True)
class OnlineDemo:
    tournament: Tournament
    created: bool
    removed: tuple[str, ...] = ()


def ensure_online_demo(
    *,
    pairs: int = 12,
    rounds: int = 4,
    boards_per_round: int = 3,
    round_minutes: float = 2.5,
    starts_in_seconds: float = 20,
    gap_seconds: float = 20,
    now: datetime | None = None,
) -> OnlineDemo:
    """The live online demo: the one on schedule, or a new one starting in
    `starts_in_seconds` (when there is none, it is stale, or the last one finished)."""
    refuse_demo_data_unless_allowed()
    now = now or timezone.now()
    with transaction.atomic():
        live, removed = _on_schedule(DEMO_ONLINE_NAME, now)
        if live is not None:
            return OnlineDemo(live, False, tuple(removed))
        # Keep the last finished one (its results), remove older ones.
        finished = Tournament.objects.filter(
            name=DEMO_ONLINE_NAME, status=TournamentStatus.FINISHED
        ).order_by("-start_at", "-pk")
        for old in list(finished)[1:]:
            removed.append(_delete_demo(old))
        usernames = online_usernames(pairs * 2)
        tournament = _create_demo(
            name=DEMO_ONLINE_NAME,
            description="Played card by card at the system's tables by robots, which know "
            "all four hands and bid near par. Log in as the organiser to watch any table "
            "live, or as a player (online01 …) to take your seat from the robot.",
            play=PlayMode.ONLINE,
            organiser=ensure_organiser(),
            players=ensure_users(
                usernames,
                names=[DEMO_NAMES[(i + 7) % len(DEMO_NAMES)] for i in range(len(usernames))],
                password=DEMO_PLAYER_PASSWORD,
            ),
            now=now,
            rounds=rounds,
            boards_per_round=boards_per_round,
            round_minutes=round_minutes,
            starts_in_seconds=starts_in_seconds,
            gap_seconds=gap_seconds,
        )
    return OnlineDemo(tournament, True, tuple(removed))
