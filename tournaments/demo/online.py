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
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from ..models import PlayMode, ScoringMethod, Tournament, TournamentStatus
from ..services.bulk_registration import ensure_players as ensure_users
from ..services.registration import register_pair
from ..services.simulator import refuse_demo_data_unless_allowed
from .seed import DEMO_NAMES, DEMO_PLAYER_PASSWORD, _delete_demo, ensure_organiser, is_stale

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
    removed: list[str] = []
    with transaction.atomic():
        live = None
        for candidate in Tournament.objects.filter(name=DEMO_ONLINE_NAME).exclude(
            status=TournamentStatus.FINISHED
        ):
            if live is None and not is_stale(candidate, now):
                live = candidate
            else:
                removed.append(_delete_demo(candidate))
        if live is not None:
            return OnlineDemo(live, False, tuple(removed))
        # Keep the last finished one (its results), remove older ones.
        finished = Tournament.objects.filter(
            name=DEMO_ONLINE_NAME, status=TournamentStatus.FINISHED
        ).order_by("-start_at", "-pk")
        for old in list(finished)[1:]:
            removed.append(_delete_demo(old))
        organiser = ensure_organiser()
        start_at = (now + timedelta(seconds=starts_in_seconds)).replace(microsecond=0)
        tournament = Tournament.objects.create(
            name=DEMO_ONLINE_NAME,
            description="Played card by card at the system's tables by robots, which know "
            "all four hands and bid near par. Log in as the organiser to watch any table "
            "live, or as a player (online01 …) to take your seat from the robot.",
            registration_opens_at=now - timedelta(minutes=5),
            start_at=start_at,
            rounds=rounds,
            boards_per_round=boards_per_round,
            round_length=timedelta(minutes=round_minutes),
            gap_length=timedelta(seconds=gap_seconds),
            scoring_method=ScoringMethod.IMP,
            play=PlayMode.ONLINE,
            created_by=organiser,
        )
        usernames = online_usernames(pairs * 2)
        players = ensure_users(
            usernames,
            names=[DEMO_NAMES[(i + 7) % len(DEMO_NAMES)] for i in range(len(usernames))],
            password=DEMO_PLAYER_PASSWORD,
        )
        for i in range(pairs):
            register_pair(
                tournament=tournament,
                usernames=[players[2 * i].username, players[2 * i + 1].username],
                by=None,  # the system sets up the demo
                now=now,
            )
    return OnlineDemo(tournament, True, tuple(removed))
