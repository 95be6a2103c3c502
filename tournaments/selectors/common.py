"""What several page families read alike: a pair's players, a player's name as plain
data, the registered pairs of a tournament."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import QuerySet

from ..models import Pair, PairStatus, Tournament, display_name

# select_related() paths that give a pair's two players with their names (`Pair.names`).
PAIR_PLAYERS = ("player1__profile", "player2__profile")


@dataclass(frozen=True)
class PlayerName:
    username: str
    name: str  # `models.display_name`: the display name, or the username when there is none


def player(username: str, shown: str | None) -> PlayerName:
    """A player read as raw values (username, profile display name or None)."""
    return PlayerName(username=username, name=display_name(shown, username))


def confirmed_pairs(tournament: Tournament) -> QuerySet[Pair]:
    return Pair.objects.filter(tournament=tournament, status=PairStatus.CONFIRMED).select_related(
        *PAIR_PLAYERS
    )
