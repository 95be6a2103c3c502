"""The demo played card by card: online events whose seats robots take
(`manage.py play_robots --demo`, started by `make run` beside the server).

Two kinds run side by side, each always live:

- the robots' event (`SHOWCASE`), to watch: short rounds that robots play fast, so now
  and then a table does not finish before the bell and the cut-off shows. Its next
  event starts a minute before the last one's last bell, so something is always being
  played, also between events;
- the event to take a seat in (`SEATS`), at a person's pace: rounds of two boards in
  nine minutes. A newcomer logs in as one of its players (the home page names a free
  one, password `DEMO_PLAYER_PASSWORD`) and the robot in that seat leaves at the login;
  the other three seats stay robots. Its next event starts as the last one ends.

Every new event takes players nobody is using: none registered in another unfinished
event of its kind, none who logged in within `HUMAN_HOLDS` (the robots would leave that
seat empty, for a person who may be gone). So a person who took a seat never leaves an
empty one in the next event; they log in as a free player of it to play on.

The robots' runner calls `ensure_online_demos` before each look at the open rounds; the
finished events but the last of each kind are removed. The played-elsewhere demos
(`seed.ensure_demo`) stay as they are.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from ..models import Pair, PlayMode, RoundStatus, Tournament, TournamentStatus
from ..robots.runner import HUMAN_HOLDS
from ..services.bulk_registration import ensure_players as ensure_users
from ..services.simulator import refuse_demo_data_unless_allowed
from .seed import (
    DEMO_NAMES,
    DEMO_PLAYER_PASSWORD,
    _create_demo,
    _delete_demo,
    ensure_organiser,
    is_stale,
)

DEMO_ONLINE_NAME = "Demo Swiss Pairs, played by robots · 瑞士移位演示赛（机器人对局）"
DEMO_SEATS_NAME = "Demo Swiss Pairs, take a seat · 瑞士移位演示赛（欢迎入座）"
DEMO_ONLINE_NAMES = (DEMO_ONLINE_NAME, DEMO_SEATS_NAME)

# The robots' pace in the demo (seconds before each action) and when declarer claims:
# a board takes about half a minute, so most tables of the robots' event finish a
# round's three boards in its two and a half minutes and a few are cut off at the bell.
DEMO_PACE = "0.4-1.4"
DEMO_CLAIM_AFTER = 7


@dataclass(frozen=True)
class DemoKind:
    name: str
    username_prefix: str  # its players are prefix01, prefix02, …
    pairs: int
    rounds: int
    boards_per_round: int
    round_minutes: float
    gap_seconds: float
    # When the live event is in its last round, the next starts this long before that
    # round's bell (0: at the bell).
    overlap: timedelta
    description: str


SHOWCASE = DemoKind(
    name=DEMO_ONLINE_NAME,
    username_prefix="online",
    pairs=12,
    rounds=4,
    boards_per_round=3,
    round_minutes=2.5,
    gap_seconds=20,
    overlap=timedelta(minutes=1),
    description="Played card by card at the system's tables by robots, which know all four "
    "hands and bid near par, fast: open it to watch the rounds go by. To play yourself, "
    "take a seat in the other demo event (the home page says how).",
)
SEATS = DemoKind(
    name=DEMO_SEATS_NAME,
    username_prefix="seat",
    pairs=8,
    rounds=3,
    boards_per_round=2,
    # About a person's pace with three robots at the table (BBO's robot games allow
    # a little more; a robot answers at once, so all the time is the person's). The
    # whole event lasts less than `HUMAN_HOLDS`, the time a login holds its seat, so a
    # person who sits down at any moment keeps the seat to the end.
    round_minutes=9,
    gap_seconds=20,
    overlap=timedelta(0),
    description="Take a seat: log in as one of its players (the home page names a free "
    "one) and the robot in that seat leaves; the other three seats are robots. Two "
    "boards in nine minutes a round.",
)
KINDS = (SHOWCASE, SEATS)


def online_usernames(count: int, *, prefix: str = SHOWCASE.username_prefix, first: int = 1):
    return [f"{prefix}{i:02d}" for i in range(first, first + count)]


@dataclass(frozen=True)
class OnlineDemo:
    tournament: Tournament
    created: bool
    removed: tuple[str, ...] = ()


def ensure_online_demos(
    *, now: datetime | None = None, starts_in_seconds: float = 20
) -> list[OnlineDemo]:
    """Each kind's live event, and its next one when it is due (`ensure_online_demo`)."""
    return [
        ensure_online_demo(kind=kind, now=now, starts_in_seconds=starts_in_seconds)
        for kind in KINDS
    ]


def ensure_online_demo(
    *,
    kind: DemoKind = SHOWCASE,
    pairs: int | None = None,
    rounds: int | None = None,
    boards_per_round: int | None = None,
    round_minutes: float | None = None,
    starts_in_seconds: float = 20,
    gap_seconds: float | None = None,
    now: datetime | None = None,
) -> OnlineDemo:
    """The live online demo of `kind` (its shape's fields may be overridden): the one on
    schedule, or a new one starting in `starts_in_seconds` when there is none (or it is
    stale, or the last one finished). Once the live one plays its last round, its
    successor is scheduled to start `kind.overlap` before that round's bell; the answer
    is then the successor, `created` when this call made it."""
    refuse_demo_data_unless_allowed()
    now = now or timezone.now()
    shape = {
        "pairs": pairs or kind.pairs,
        "rounds": rounds or kind.rounds,
        "boards_per_round": boards_per_round or kind.boards_per_round,
        "round_minutes": round_minutes or kind.round_minutes,
    }
    with transaction.atomic():
        removed: list[str] = []
        unfinished = []
        for candidate in (
            Tournament.objects.filter(name=kind.name)
            .exclude(status=TournamentStatus.FINISHED)
            .order_by("start_at", "pk")
        ):
            # The live one and its successor; a stale one (the server was stopped) or a
            # third goes.
            if len(unfinished) < 2 and not is_stale(candidate, now):
                unfinished.append(candidate)
            else:
                removed.append(_delete_demo(candidate))
        if len(unfinished) == 2:
            return OnlineDemo(unfinished[1], False, tuple(removed))
        if unfinished:
            live = unfinished[0]
            bell = _last_bell(live)
            if bell is None:
                return OnlineDemo(live, False, tuple(removed))
            starts_in = max((bell - kind.overlap - now).total_seconds(), 5)
        else:
            starts_in = starts_in_seconds
        # Keep the last finished one (its results), remove older ones.
        finished = Tournament.objects.filter(
            name=kind.name, status=TournamentStatus.FINISHED
        ).order_by("-start_at", "-pk")
        for old in list(finished)[1:]:
            removed.append(_delete_demo(old))
        tournament = _create_demo(
            name=kind.name,
            description=kind.description,
            play=PlayMode.ONLINE,
            organiser=ensure_organiser(),
            players=free_players(kind=kind, count=shape["pairs"] * 2, now=now),
            now=now,
            rounds=shape["rounds"],
            boards_per_round=shape["boards_per_round"],
            round_minutes=shape["round_minutes"],
            starts_in_seconds=starts_in,
            gap_seconds=kind.gap_seconds if gap_seconds is None else gap_seconds,
        )
    return OnlineDemo(tournament, True, tuple(removed))


def _last_bell(tournament: Tournament) -> datetime | None:
    """The bell of `tournament`'s last round once that round is open, else None."""
    latest = tournament.round_set.current()
    if latest is None or latest.number < tournament.rounds or latest.status != RoundStatus.OPEN:
        return None
    return latest.ends_at


def free_players(*, kind: DemoKind, count: int, now: datetime) -> list:
    """`count` players of `kind` (created as needed) that no unfinished event of that kind
    has and that have not logged in within `HUMAN_HOLDS`, lowest numbers first."""
    taken = set()
    for names in (
        Pair.objects.filter(tournament__name=kind.name)
        .exclude(tournament__status=TournamentStatus.FINISHED)
        .values_list("player1__username", "player2__username")
    ):
        taken.update(names)
    users = get_user_model()
    recent = set(
        users.objects.filter(
            username__startswith=kind.username_prefix, last_login__gt=now - HUMAN_HOLDS
        ).values_list("username", flat=True)
    )
    chosen: list[str] = []
    number = 0
    while len(chosen) < count:
        number += 1
        username = f"{kind.username_prefix}{number:02d}"
        if username not in taken and username not in recent:
            chosen.append(username)
    numbers = [int(u[len(kind.username_prefix) :]) for u in chosen]
    return ensure_users(
        chosen,
        names=[DEMO_NAMES[(n + 6) % len(DEMO_NAMES)] for n in numbers],
        password=DEMO_PLAYER_PASSWORD,
    )


@dataclass(frozen=True)
class SeatOffer:
    """How a newcomer takes a seat (home page): the event and a few of its free players."""

    tournament: Tournament
    usernames: list[str]
    password: str = DEMO_PLAYER_PASSWORD
    minutes_per_round: int = 0
    boards_per_round: int = 0


def seat_offer(
    *, tournaments: list[Tournament], now: datetime | None = None, limit: int = 3
) -> SeatOffer | None:
    """How to take a seat in the demo (home page): the event to take a seat in among
    `tournaments` (the page's unfinished ones; the running one first, else the next) and
    up to `limit` of its players nobody has logged in as lately. None (and no query)
    when there is no such demo."""
    candidates = sorted(
        (
            t
            for t in tournaments
            if t.name == DEMO_SEATS_NAME and t.status != TournamentStatus.FINISHED
        ),
        key=lambda t: (t.status != TournamentStatus.RUNNING, t.start_at, t.pk),
    )
    if not candidates:
        return None
    tournament = candidates[0]
    recent = (now or timezone.now()) - HUMAN_HOLDS
    usernames = []
    for pair in tournament.pairs.select_related("player1", "player2").order_by("pk"):
        for player in (pair.player1, pair.player2):
            if player is not None and not (player.last_login and player.last_login > recent):
                usernames.append(player.username)
    return SeatOffer(
        tournament=tournament,
        usernames=usernames[:limit],
        minutes_per_round=round(tournament.round_length.total_seconds() / 60),
        boards_per_round=tournament.boards_per_round,
    )
