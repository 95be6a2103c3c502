"""The demo's organiser, players and events: what `seed_demo` (and `make run`) sets up.

A live event starts within a minute of the server, with two-minute rounds that
`manage.py play_demo` plays at a human pace while the clock cuts off, scores and
re-seats; and a finished event, simulated to the end at once, so the results pages
show something from the first second. Running it again changes nothing while the live
event is on schedule; a live event left behind by an earlier `make run` (its rounds long
past) is replaced by a fresh one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractUser
from django.db import transaction
from django.utils import timezone

from ..models import PlayMode, Round, ScoringMethod, Table, Tournament, TournamentStatus
from ..services import analysis, board_scoring
from ..services.bulk_registration import ensure_players as ensure_users
from ..services.permissions import directors_group
from ..services.registration import register_pair
from ..services.simulator import refuse_demo_data_unless_allowed, simulate_tournament

User = get_user_model()

DEMO_ORGANISER = "director"
DEMO_PASSWORD = "swiss-pairs-demo"
DEMO_PLAYER_PASSWORD = "demo-player"
DEMO_NAME = "Demo Swiss Pairs · 瑞士移位演示赛"
DEMO_FINISHED_NAME = "Demo Swiss Pairs, played · 瑞士移位演示赛（已赛完）"
# A live demo whose timetable was missed by more than this (the server was stopped) is
# stale: nobody is going to watch it play, so a fresh one replaces it.
STALE_AFTER = timedelta(minutes=1)

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


def ensure_organiser() -> AbstractUser:
    """The demo's tournament director: staff in the "Tournament directors" group, not a
    superuser, as docs/SECURITY.md advises for real organisers."""
    refuse_demo_data_unless_allowed()
    user, created = User.objects.get_or_create(username=DEMO_ORGANISER, defaults={"is_staff": True})
    if created:
        user.set_password(DEMO_PASSWORD)
        user.save()
    user.groups.add(directors_group())
    return user


def player_usernames(count: int) -> list[str]:
    return [f"player{i + 1:02d}" for i in range(count)]


def ensure_players(count: int) -> list:
    """player01 … with the demo names; they log in with DEMO_PLAYER_PASSWORD."""
    return ensure_users(
        player_usernames(count),
        names=[DEMO_NAMES[i % len(DEMO_NAMES)] for i in range(count)],
        password=DEMO_PLAYER_PASSWORD,
    )


@dataclass
class DemoSetup:
    live: Tournament
    live_created: bool
    finished: Tournament | None = None
    finished_created: bool = False
    replaced: list[str] = field(default_factory=list)


def is_stale(tournament: Tournament, now: datetime) -> bool:
    """A live demo whose clock stopped: its start or its open round's bell is long past."""
    if tournament.status == TournamentStatus.SCHEDULED:
        return tournament.start_at < now - STALE_AFTER
    latest = tournament.round_set.current()
    if latest is None:
        return tournament.start_at < now - STALE_AFTER
    return latest.ends_at < now - STALE_AFTER


def _delete_demo(tournament: Tournament) -> str:
    name = f"{tournament.name} (id {tournament.id}, {tournament.status})"
    awarded = list(tournament.master_point_awards.values_list("user_id", flat=True))
    # Tables and byes hold their pairs with PROTECT (no pair vanishes from a seating by
    # accident); a whole demo goes, so its seatings go first.
    Round.objects.filter(tournament=tournament).update(bye_pair=None)
    Table.objects.filter(round__tournament=tournament).delete()
    tournament.delete()
    if awarded:
        board_scoring.refresh_master_point_totals(user_ids=awarded)
    return name


def ensure_demo(
    *,
    pairs: int = 14,
    rounds: int = 5,
    boards_per_round: int = 3,
    round_minutes: float = 2.0,
    starts_in_seconds: float = 30,
    gap_seconds: float = 15,
    finished: bool = True,
    now: datetime | None = None,
) -> DemoSetup:
    """The organiser, the players, a live demo and (unless `finished` is False) a
    finished one; idempotent."""
    refuse_demo_data_unless_allowed()
    wall_clock = now is None
    now = now or timezone.now()
    organiser = ensure_organiser()
    finished_demo, finished_created = None, False
    if finished:
        # First: simulating it takes a few seconds, which the live countdown should not.
        finished_demo, finished_created = ensure_finished_demo(organiser, now=now)
        if wall_clock:
            now = timezone.now()
    with transaction.atomic():
        live, replaced = _on_schedule(DEMO_NAME, now)
        live_created = live is None
        if live is None:
            live = _create_demo(
                name=DEMO_NAME,
                description="A short event that plays itself: simulated tables enter results "
                "at a human pace, and at every bell the clock cuts off unfinished boards, "
                "scores the round across the field and re-seats the pairs by running score.",
                play=PlayMode.ENTERED,
                organiser=organiser,
                players=ensure_players(pairs * 2),
                now=now,
                rounds=rounds,
                boards_per_round=boards_per_round,
                round_minutes=round_minutes,
                starts_in_seconds=starts_in_seconds,
                gap_seconds=gap_seconds,
            )
    setup = DemoSetup(
        live=live,
        live_created=live_created,
        finished=finished_demo,
        finished_created=finished_created,
        replaced=replaced,
    )
    return setup


def _on_schedule(name: str, now: datetime) -> tuple[Tournament | None, list[str]]:
    """The unfinished demo called `name` that is on schedule, if any; every other
    unfinished one (stale, or one too many) is removed and named in the list."""
    live, removed = None, []
    for candidate in Tournament.objects.filter(name=name).exclude(status=TournamentStatus.FINISHED):
        if live is None and not is_stale(candidate, now):
            live = candidate
        else:
            removed.append(_delete_demo(candidate))
    return live, removed


def _create_demo(
    *,
    name: str,
    description: str,
    play: PlayMode,
    organiser,
    players: list,
    now: datetime,
    rounds: int,
    boards_per_round: int,
    round_minutes: float,
    starts_in_seconds: float,
    gap_seconds: float,
) -> Tournament:
    """A demo event starting in `starts_in_seconds`, IMP-scored, registration open, with
    `players` registered two by two as confirmed pairs (by the system)."""
    # On the minute's next whole second, so the countdown on the pages reads cleanly.
    start_at = (now + timedelta(seconds=starts_in_seconds)).replace(microsecond=0)
    tournament = Tournament.objects.create(
        name=name,
        description=description,
        registration_opens_at=now - timedelta(minutes=5),
        start_at=start_at,
        rounds=rounds,
        boards_per_round=boards_per_round,
        round_length=timedelta(minutes=round_minutes),
        gap_length=timedelta(seconds=gap_seconds),
        scoring_method=ScoringMethod.IMP,
        play=play,
        created_by=organiser,
    )
    for i in range(len(players) // 2):
        register_pair(
            tournament=tournament,
            usernames=[players[2 * i].username, players[2 * i + 1].username],
            by=None,  # the system sets up the demo
            now=now,
        )
    return tournament


def ensure_finished_demo(
    organiser,
    *,
    now: datetime,
    pairs: int = 10,
    rounds: int = 4,
    boards_per_round: int = 3,
) -> tuple[Tournament, bool]:
    """A matchpoint event that ended a few minutes ago, simulated to the end at once."""
    existing = Tournament.objects.filter(name=DEMO_FINISHED_NAME)
    done = existing.filter(status=TournamentStatus.FINISHED).first()
    if done is not None:
        # One seeded before the boards were analysed after the close: analyse it now.
        analysis.analyse_pending_boards(tournament_id=done.id, limit=None)
        return done, False
    for broken in existing:  # an interrupted simulation
        _delete_demo(broken)
    round_length = timedelta(minutes=20)
    start_at = (now - rounds * round_length - timedelta(minutes=10)).replace(
        second=0, microsecond=0
    )
    ensure_players(pairs * 2)  # with the demo names and password
    report = simulate_tournament(
        pairs=pairs,
        rounds=rounds,
        boards_per_round=boards_per_round,
        scoring_method=ScoringMethod.MP,
        unfinished=0.03,
        name=DEMO_FINISHED_NAME,
        description="Played by simulated tables when the demo was set up: every board's "
        "traveller, hand record and the final ranking with master points.",
        start_at=start_at,
        round_length=round_length,
        player_usernames=player_usernames(pairs * 2),
        created_by=organiser,
    )
    # Its rounds closed on a simulated clock just now; the hand records' analysis is there
    # from the first view instead of waiting for the round clock to solve the boards. The
    # simulation solved the deals already, so this adds only par.
    analysis.analyse_pending_boards(tournament_id=report.tournament.id, limit=None)
    return report.tournament, True
