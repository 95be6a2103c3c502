"""The club in `make run`'s demo (RULES 13): members, and two tables always playing.

A full-field (IMPs) table of four demo members and a handicap table of two members and
two robots, played by the robots' runner (`play_robots --demo` plays the seats of the
demo's members, who never log in: `robots.club`). So a newcomer opening the club sees
tables at play, the standings and "a deal's field" filling; they sign up and open a
handicap table of their own (everyone's), ask robots for the empty seats and play; a
demo member's login (`clubdemo01` …, password `DEMO_PLAYER_PASSWORD`) also plays the
members' systems. Called by `seed_demo` and before each of the runner's looks, so the
tables form again in each new week.
"""

from __future__ import annotations

from datetime import datetime

from django.contrib.auth import get_user_model
from django.utils import timezone

from .. import permissions
from ..models import ClubSeat, ClubSystem, ClubTable, ClubTableStatus
from ..services import club
from ..services.bulk_registration import ensure_players as ensure_users
from ..services.simulator import refuse_demo_data_unless_allowed
from .seed import DEMO_NAMES, DEMO_PLAYER_PASSWORD, ensure_organiser

CLUB_DEMO_PLAYERS = 6


def club_usernames() -> list[str]:
    return [f"clubdemo{i + 1:02d}" for i in range(CLUB_DEMO_PLAYERS)]


def ensure_club_demo(*, now: datetime | None = None) -> list[ClubTable]:
    """The demo's club tables of this week (made when missing); answers those made."""
    refuse_demo_data_unless_allowed()
    now = now or timezone.now()
    organiser = ensure_organiser()
    names = [DEMO_NAMES[(i + 7) % len(DEMO_NAMES)] for i in range(CLUB_DEMO_PLAYERS)]
    players = ensure_users(club_usernames(), names=names, password=DEMO_PLAYER_PASSWORD)
    users = get_user_model()
    for player in players:
        fresh = users.objects.get(pk=player.pk)
        if not fresh.has_perm(permissions.CLUB_MEMBER):
            club.grant_membership(by=organiser, user=fresh)
    players = list(users.objects.filter(pk__in=[p.pk for p in players]).order_by("username"))
    seated = set(
        ClubSeat.objects.filter(
            user__in=players,
            active=True,
            club_table__status=ClubTableStatus.PLAYING,
            club_table__field__week=club.current_week(now=now),
        ).values_list("user_id", flat=True)
    )
    made = []
    four = players[:4]
    if not seated & {p.pk for p in four} and all(p.last_login is None for p in four):
        table = club.open_table(user=four[0], system=ClubSystem.FULL_FIELD_IMPS, seat="N", now=now)
        for player, seat in zip(four[1:], "ESW", strict=True):
            club.sit(user=player, club_table_id=table.pk, seat=seat, now=now)
        made.append(table)
    two = players[4:6]
    if not seated & {p.pk for p in two} and all(p.last_login is None for p in two):
        table = club.open_table(user=two[0], system=ClubSystem.HANDICAP, seat="S", now=now)
        club.sit(user=two[1], club_table_id=table.pk, seat="N", now=now)
        club.add_robots(user=two[0], club_table_id=table.pk, now=now)
        made.append(table)
    return made
