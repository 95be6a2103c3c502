"""The demo a newcomer watches after `make run`: players, an organiser, a short event."""

from __future__ import annotations

from datetime import timedelta

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from ..models import Tournament, TournamentStatus
from .registration import register_pair

User = get_user_model()

DEMO_ORGANISER = "director"
DEMO_PASSWORD = "swiss-pairs-demo"
DEMO_PLAYER_PASSWORD = "demo-player"
DEMO_NAME = "Demo Swiss Pairs · 瑞士移位演示赛"

# Players of the demo, in the spirit of the seed platform's members.
DEMO_NAMES = [
    "王磊",
    "李娜",
    "张伟",
    "刘洋",
    "陈静",
    "杨帆",
    "赵敏",
    "黄强",
    "周杰",
    "吴霞",
    "徐明",
    "孙丽",
    "马超",
    "朱琳",
    "胡军",
    "郭佳",
    "何平",
    "高远",
    "林雪",
    "罗刚",
    "Alice",
    "Bob",
    "Carol",
    "Dave",
    "Erin",
    "Frank",
    "Grace",
    "Heidi",
    "Ivan",
    "Judy",
    "Mallory",
    "Niaj",
    "Olivia",
    "Peggy",
    "Rupert",
    "Sybil",
    "Trent",
    "Victor",
    "Walter",
    "Yuki",
]


def ensure_organiser() -> User:
    user, created = User.objects.get_or_create(
        username=DEMO_ORGANISER, defaults={"is_staff": True, "is_superuser": True}
    )
    if created:
        user.set_password(DEMO_PASSWORD)
        user.save()
    return user


def ensure_players(count: int) -> list:
    players = []
    for i in range(count):
        username = f"player{i + 1:02d}"
        user, created = User.objects.get_or_create(username=username)
        if created:
            user.set_password(DEMO_PLAYER_PASSWORD)
            user.save()
            user.profile.display_name = DEMO_NAMES[i % len(DEMO_NAMES)]
            user.profile.save(update_fields=["display_name"])
        players.append(user)
    return players


@transaction.atomic
def ensure_demo(
    *,
    pairs: int = 14,
    rounds: int = 5,
    boards_per_round: int = 3,
    round_minutes: float = 2.0,
    starts_in_seconds: float = 45,
) -> tuple[Tournament, bool]:
    organiser = ensure_organiser()
    live = Tournament.objects.filter(
        name=DEMO_NAME,
        status__in=[TournamentStatus.SCHEDULED, TournamentStatus.RUNNING],
    ).first()
    if live is not None:
        return live, False
    now = timezone.now()
    tournament = Tournament.objects.create(
        name=DEMO_NAME,
        description="A short event that plays itself: simulated tables enter results, "
        "the clock cuts off, scores and re-seats every round.",
        registration_opens_at=now - timedelta(minutes=5),
        start_at=now + timedelta(seconds=starts_in_seconds),
        rounds=rounds,
        boards_per_round=boards_per_round,
        round_length=timedelta(minutes=round_minutes),
        gap_length=timedelta(seconds=15),
        scoring_method="IMP",
        created_by=organiser,
    )
    players = ensure_players(pairs * 2)
    for i in range(pairs):
        register_pair(
            tournament=tournament,
            usernames=[players[2 * i].username, players[2 * i + 1].username],
            now=now,
        )
    return tournament, True
