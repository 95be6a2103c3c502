"""Players and confirmed pairs created in bulk, for fields of thousands of pairs (the
benchmarks, page tests) and the demo's and simulations' player accounts.

`registration.register_pair` is the service for one pair with every check; these write
the same rows in a handful of statements.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.db.models import Max

from ..models import Pair, PairMember, PairStatus, PlayerProfile, Tournament

User = get_user_model()


def ensure_players(
    usernames: Sequence[str], *, names: Sequence[str] = (), password: str | None = None
) -> list:
    """Users for `usernames` (existing ones reused), each with a player profile.

    Created in bulk with one password hash shared by all, since hashing a password per
    player would dominate seeding a large field.
    """
    existing = {u.username: u for u in User.objects.filter(username__in=usernames)}
    missing = [name for name in usernames if name not in existing]
    if missing:
        hashed = make_password(password)
        User.objects.bulk_create(
            [User(username=name, password=hashed) for name in missing], batch_size=2000
        )
        created = list(User.objects.filter(username__in=missing))
        display = dict(zip(usernames, names, strict=False))
        # bulk_create sends no post_save, so the profile signal does not run.
        PlayerProfile.objects.bulk_create(
            [PlayerProfile(user=u, display_name=display.get(u.username, "")) for u in created],
            batch_size=2000,
            ignore_conflicts=True,
        )
        existing.update({u.username: u for u in created})
    return [existing[name] for name in usernames]


def register_pairs_in_bulk(*, tournament: Tournament, players: Sequence, at: datetime) -> list:
    """Confirmed pairs of consecutive `players` (1 with 2, 3 with 4, …), registration
    numbers in that order after the tournament's last: the rows `register_pair` writes,
    in three statements.

    For fields of thousands of pairs built for benchmarks and tests, where registering
    pair by pair would measure nothing of interest. The per-pair checks are skipped;
    the database constraints (a player in one pair per tournament) still hold.
    """
    last = Pair.objects.filter(tournament=tournament).aggregate(last=Max("registration_no"))
    first = (last["last"] or 0) + 1
    pairs = Pair.objects.bulk_create(
        [
            Pair(
                tournament=tournament,
                player1=players[2 * i],
                player2=players[2 * i + 1],
                status=PairStatus.CONFIRMED,
                proposed_at=at,
                confirmed_at=at,
                registration_no=first + i,
            )
            for i in range(len(players) // 2)
        ],
        batch_size=2000,
    )
    PairMember.objects.bulk_create(
        [
            PairMember(tournament=tournament, pair=pair, user_id=user_id)
            for pair in pairs
            for user_id in (pair.player1_id, pair.player2_id)
        ],
        batch_size=4000,
    )
    return pairs
