"""Who sits where: a round's seating list, and where a logged-in player sits now."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.db.models import OuterRef, Prefetch, Q, Subquery

from ..models import (
    Board,
    ClubTableStatus,
    Direction,
    FormatKey,
    Pair,
    Round,
    RoundStatus,
    Table,
    Tournament,
    TournamentStatus,
    pair_names,
)
from .common import PAIR_PLAYERS, PlayerName, player

# select_related() paths that give a table's two pairs with their players' names.
TABLE_PAIRS = (
    "ns_pair__player1__profile",
    "ns_pair__player2__profile",
    "ew_pair__player1__profile",
    "ew_pair__player2__profile",
)


# (pair, table or None, direction) of a logged-in player in a round.
Seat = tuple[Pair | None, Table | None, str]


def seat_of_user(*, tournament: Tournament, user, round: Round | None = None) -> Seat:
    """(pair, table or None, direction) of a logged-in player in `round`, by default the
    current round; the direction is Direction.NS, EW or BYE, or "" when not seated. Read
    by the event's format's reader (`SEAT_READERS`)."""
    if not user.is_authenticated:
        return None, None, ""
    return SEAT_READERS[tournament.format_key](tournament=tournament, user=user, round=round)


def _pair_seat_of_user(*, tournament: Tournament, user, round: Round | None) -> Seat:
    """`seat_of_user` in a pairs event: the player's pair (seated or not), its table and
    side, or the bye."""
    pair = (
        Pair.objects.filter(tournament=tournament, members__user=user)
        .select_related(*PAIR_PLAYERS)
        .first()
    )
    round = round or tournament.round_set.current()
    if pair is None or round is None:
        return pair, None, ""
    table = (
        Table.objects.filter(Q(ns_pair=pair) | Q(ew_pair=pair), round=round)
        .select_related("round", *TABLE_PAIRS)
        .first()
    )
    if table is None:
        return pair, None, Direction.BYE if round.bye_pair_id == pair.id else ""
    return pair, table, table.side_of(user.pk) or ""


def _seated(user) -> Q:
    """The tables where `user` is one of the four players (any pair: a team's player
    plays in whichever of its pairs the line-up names, with no `PairMember` row)."""
    return (
        Q(ns_pair__player1=user)
        | Q(ns_pair__player2=user)
        | Q(ew_pair__player1=user)
        | Q(ew_pair__player2=user)
    )


def _team_seat_of_user(*, tournament: Tournament, user, round: Round | None) -> Seat:
    """`seat_of_user` in a team event: the pair is the one the line-up seated the player
    in this round (None when the team's line-up left them out, or the team has the bye)."""
    round = round or tournament.round_set.current()
    if round is None:
        return None, None, ""
    table = (
        Table.objects.filter(_seated(user), round=round)
        .select_related("round", *TABLE_PAIRS)
        .first()
    )
    if table is None:
        return None, None, ""
    pair = table.ns_pair if table.ns_pair.has_player(user.pk) else table.ew_pair
    return pair, table, table.side_of(user.pk) or ""


def _club_seat_of_user(*, tournament: Tournament, user, round: Round | None) -> Seat:
    """`seat_of_user` at the club: the table the player sits at now in that week's
    field (RULES 13), whatever its sitting's round."""
    table = (
        Table.objects.filter(
            _seated(user),
            round__tournament=tournament,
            club_table__status=ClubTableStatus.PLAYING,
        )
        .select_related("round", *TABLE_PAIRS)
        .first()
    )
    if table is None:
        return None, None, ""
    pair = table.ns_pair if table.ns_pair.has_player(user.pk) else table.ew_pair
    return pair, table, table.side_of(user.pk) or ""


# Each format's seat reader, by its key (`Tournament.format_key`): one entry a format.
SEAT_READERS: dict[FormatKey, Callable[..., Seat]] = {
    FormatKey.SWISS_PAIRS: _pair_seat_of_user,
    FormatKey.MOVEMENT_PAIRS: _pair_seat_of_user,
    FormatKey.TEAM_MATCHES: _team_seat_of_user,
    FormatKey.CLUB: _club_seat_of_user,
}


def current_tables(*, user) -> list[Table]:
    """Where `user` sits now: their table in the current round of each tournament in
    play (home page: "your table"). One query."""
    if not user.is_authenticated:
        return []
    current = (
        Round.objects.filter(tournament=OuterRef("round__tournament"))
        .newest_first()
        .values("id")[:1]
    )
    return list(
        Table.objects.filter(
            _seated(user),
            round_id=Subquery(current),
            round__status__in=[RoundStatus.SCHEDULED, RoundStatus.OPEN],
            round__tournament__status__in=[TournamentStatus.RUNNING, TournamentStatus.PAUSED],
        )
        .select_related("round__tournament", *TABLE_PAIRS)
        .distinct()
        .order_by("round__tournament__start_at")
    )


@dataclass(frozen=True)
class SeatedPair:
    id: int
    registration_no: int
    players: tuple[PlayerName, PlayerName]

    @property
    def names(self) -> str:
        return pair_names(self.players[0].name, self.players[1].name)


@dataclass(frozen=True)
class SeatingRow:
    """A table of a round's seating as plain data (what the seating list and the API
    show; a 1,000-table round is read and rendered at every close)."""

    id: int
    number: int
    ns_pair: SeatedPair
    ew_pair: SeatedPair
    # The table's own board set when board sets travel (`Table.first_board` …); None,
    # the round's boards.
    first_board: int | None = None
    last_board: int | None = None


def round_seating(*, round: Round) -> list[SeatingRow]:
    """The round's tables in order with both pairs and their players. One query."""
    username = get_user_model().USERNAME_FIELD
    sides = []
    for side in ("ns_pair", "ew_pair"):
        sides += [f"{side}_id", f"{side}__registration_no"]
        for member in ("player1", "player2"):
            sides += [f"{side}__{member}__{username}", f"{side}__{member}__profile__display_name"]
    rows = (
        Table.objects.filter(round=round)
        .order_by("number")
        .values_list("id", "number", *sides, "first_board", "last_board")
    )

    def pair(values: tuple) -> SeatedPair:
        pair_id, number, username1, shown1, username2, shown2 = values
        return SeatedPair(
            id=pair_id,
            registration_no=number,
            players=(player(username1, shown1), player(username2, shown2)),
        )

    return [
        SeatingRow(
            id=row[0],
            number=row[1],
            ns_pair=pair(row[2:8]),
            ew_pair=pair(row[8:14]),
            first_board=row[14],
            last_board=row[15],
        )
        for row in rows
    ]


def round_with_boards(*, tournament: Tournament, number: int) -> Round:
    return Round.objects.prefetch_related(
        Prefetch("boards", queryset=Board.objects.order_by("number"))
    ).get(tournament=tournament, number=number)


def boards_played(*, round: Round, tables: Sequence[SeatingRow | Table]) -> list[Board]:
    """The boards played at `tables` (the round's) in `round`: the round's own, or, when
    board sets travel, every table's set (`Table.first_board` …), which other rounds may
    also play and complete."""
    if not any(t.first_board is not None for t in tables):
        return list(round.boards.all())
    numbers = {n for t in tables for n in range(t.first_board or 0, (t.last_board or -1) + 1)}
    return list(
        Board.objects.filter(tournament_id=round.tournament_id, number__in=numbers).order_by(
            "number"
        )
    )
