"""Team events run by the clock, for the service tests (RULES 11): one way to create one
with its teams registered and their line-ups set, and to enter a round's results in both
rooms of every match."""

from __future__ import annotations

from datetime import timedelta
from itertools import count

from django.contrib.auth import get_user_model
from django.utils import timezone

from tests.support.clock import submit
from tournaments.models import (
    BoardResult,
    Match,
    Pair,
    PairStatus,
    Round,
    Table,
    Team,
    TeamMember,
    Tournament,
)
from tournaments.services import clock, setup

MINUTE = timedelta(minutes=1)
ROUND = 20 * MINUTE
_players = count(1)


def create_team_event(
    *, organiser, t0, teams: int, rounds: int, boards_per_round: int = 4, **settings
) -> Tournament:
    """A team tournament made by the setup service, starting at t0, 20-minute rounds and
    no gap, with `teams` teams of four registered and their line-ups set."""
    settings.setdefault("seating", "swiss")
    tournament = setup.create_tournament(
        by=organiser,
        now=t0 - timedelta(days=1),
        name=f"Teams {settings['seating']} {teams}",
        start_at=t0,
        registration_opens_at=t0 - timedelta(days=2),
        rounds=rounds,
        boards_per_round=boards_per_round,
        round_minutes=20,
        contestants="teams",
        **settings,
    )
    for number in range(1, teams + 1):
        add_team(tournament, number, at=t0 - timedelta(hours=1))
    return tournament


def add_team(tournament: Tournament, number: int, *, at) -> Team:
    """A registered team of four new players, its two pairs and its line-up (player 1–2
    in the open room, 3–4 in the closed room)."""
    users = [
        get_user_model().objects.create_user(username=f"teamplayer{next(_players)}", password="pw")
        for _ in range(4)
    ]
    team = Team.objects.create(
        tournament=tournament,
        name=f"Team {number}",
        captain=users[0],
        status=PairStatus.CONFIRMED,
        confirmed_at=at,
        registration_no=number,
    )
    TeamMember.objects.bulk_create(
        TeamMember(tournament=tournament, team=team, user=u, confirmed_at=at) for u in users
    )
    pairs = [
        Pair.objects.create(
            tournament=tournament,
            team=team,
            player1=users[2 * k],
            player2=users[2 * k + 1],
            status=PairStatus.CONFIRMED,
            confirmed_at=at,
            registration_no=2 * number - 1 + k,
        )
        for k in range(2)
    ]
    team.open_pair, team.closed_pair = pairs
    team.save(update_fields=["open_pair", "closed_pair"])
    return team


def tricks_for(table: int, round_number: int, board: int) -> int:
    """Tricks that differ by table, round and board, so the two rooms differ."""
    return 6 + (5 * table + 3 * round_number + 2 * board) % 7


def play_round(tournament: Tournament, number: int, *, now=None, skip=frozenset()) -> int:
    """3NT by North on every board of round `number` at every table not in `skip` that
    has no result yet, entered through the real service."""
    now = now or timezone.now()
    rnd = Round.objects.get(tournament=tournament, number=number)
    done = set(
        BoardResult.objects.filter(table__round=rnd).values_list("table_id", "board__number")
    )
    entered = 0
    for table in Table.objects.filter(round=rnd).order_by("number"):
        if table.number in skip:
            continue
        for board in tournament.board_numbers(number):
            if (table.pk, board) in done:
                continue
            submit(table, board, "3NT", "N", tricks_for(table.number, number, board), now=now)
            entered += 1
    return entered


def opponents(tournament: Tournament) -> list[frozenset[int]]:
    """Every match of the event as the set of its two teams (byes left out)."""
    return [
        frozenset((home, away))
        for home, away in Match.objects.filter(
            round__tournament=tournament, away__isnull=False
        ).values_list("home_id", "away_id")
    ]


def two_team_event(
    *, organiser, name: str, boards: int, play: str = "online", open_now: bool = False
) -> Tournament:
    """A one-round event of two registered teams (one match, both rooms) made by the setup
    service, starting a second ago with a 60-minute round; `open_now`: the clock seats and
    opens it now."""
    now = timezone.now()
    event = setup.create_tournament(
        by=organiser,
        now=now - timedelta(days=1),
        name=name,
        registration_opens_at=now - timedelta(days=1),
        start_at=now - timedelta(seconds=1),
        rounds=1,
        boards_per_round=boards,
        round_minutes=60,
        play=play,
        contestants="teams",
    )
    for number in (1, 2):
        add_team(event, number, at=now - timedelta(minutes=10))
    if open_now:
        clock.advance(now=now)
    return event
