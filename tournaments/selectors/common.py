"""What several page families read alike: a pair's players, a player's name as plain
data, the registered pairs of a tournament."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import QuerySet

from ..models import Direction, Pair, PairStatus, Round, Table, Tournament, display_name

# select_related() paths that give a pair's two players with their names (`Pair.names`).
PAIR_PLAYERS = ("player1__profile", "player2__profile")


@dataclass(frozen=True)
class PlayerName:
    username: str
    name: str  # `models.display_name`: the display name, or the username when there is none


def player(username: str, shown: str | None) -> PlayerName:
    """A player read as raw values (username, profile display name or None)."""
    return PlayerName(username=username, name=display_name(shown, username))


def confirmed_pairs(tournament: Tournament | int) -> QuerySet[Pair]:
    """The tournament's confirmed pairs (a tournament or its id), with their players."""
    return Pair.objects.filter(tournament=tournament, status=PairStatus.CONFIRMED).select_related(
        *PAIR_PLAYERS
    )


def pair_seat(pair_id: int, round: Round, table: Table | None) -> tuple[str, Pair | None]:
    """Where a pair sat in `round` and against whom: (Direction.NS or EW and the other
    pair at `table`, the table it played at that round), (Direction.BYE, None) for the
    round's bye, or ("", None) when it did not play (withdrawn, entered late)."""
    if table is None:
        return (Direction.BYE if round.bye_pair_id == pair_id else ""), None
    direction = table.side_of_pair(pair_id) or ""
    return direction, table.ew_pair if direction == Direction.NS else table.ns_pair
