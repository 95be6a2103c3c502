"""A tournament's movement (RULES 10) and which pair holds which of its positions.

Before round 1 the movement is the one the settings give for the pairs registered so far
(the console and the movement page show it as it stands); from round 1's start it is the
one stored on the tournament (`Tournament.movement`), fixed. An organiser's own movement
(seating "movement") is stored from when it is given.

The movement on paper (`movement_sheet`, `balance_view`) is plain data for the movement
page, the table guide cards and the travel cards: every round's tables with the positions
as the movement labels them, the players' names once the positions are held, and the
boards as the event plays them (`as_played`): with duplicated boards (online, or
chosen face to face) every table of round r plays the round's boards,
`Tournament.board_numbers(r)`; when board sets travel (`Tournament.boards_travel`) each
table plays the movement's own set, and the paper prints it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from django.contrib.auth import get_user_model

import movements

from ..models import Pair, PairStatus, Seating, Tournament
from .common import player
from .seating import SeatedPair


def movement_of(tournament: Tournament, *, pairs: int | None = None) -> movements.Movement | None:
    """The movement `tournament` is (or would be) seated by, or None: a Swiss event, or a
    generated movement while fewer than the smallest movement's pairs have registered.
    `pairs`: the number of pairs to generate it for (default: the confirmed pairs)."""
    if tournament.seating == Seating.SWISS:
        return None
    if tournament.movement is not None:
        return movements.from_json(tournament.movement)
    if tournament.seating == Seating.MOVEMENT:
        return None  # not given yet
    if pairs is None:
        pairs = Pair.objects.filter(
            tournament=tournament, status=PairStatus.CONFIRMED, withdrawn_at__isnull=True
        ).count()
    try:
        return generated_movement(tournament, pairs=pairs)
    except movements.MovementError:
        return None  # too few or too many pairs for this movement: the console says why


def generated_movement(tournament: Tournament, *, pairs: int) -> movements.Movement:
    """The Mitchell or Howell the settings give for `pairs` pairs (the tournament's rounds
    and boards per round), or the core's `MovementError` saying why there is none: the
    one place the generator is asked, before round 1 and at its start."""
    return movements.for_pairs(
        pairs,
        kind=tournament.seating,  # "mitchell" | "howell"
        boards_per_round=tournament.boards_per_round,
        rounds=tournament.rounds,
        arrow_switch=tournament.arrow_switch,
    )


def positions(tournament: Tournament, movement: movements.Movement) -> dict[int, int]:
    """Position → pair id. Stored on the pairs from round 1's start; before it, the
    confirmed pairs in registration order take the positions in turn, the phantom's
    skipped (RULES 10)."""
    held = {
        position: pair_id
        for position, pair_id in Pair.objects.filter(
            tournament=tournament, position__isnull=False
        ).values_list("position", "id")
        if position is not None  # as filtered: for the type checker
    }
    if held:
        return held
    free = [p for p in range(1, movement.pairs + 1) if p != movement.phantom]
    # A pair withdrawn before round 1 is never seated, so it takes no position.
    pair_ids = (
        Pair.objects.filter(
            tournament=tournament, status=PairStatus.CONFIRMED, withdrawn_at__isnull=True
        )
        .order_by("registration_no")
        .values_list("id", flat=True)
    )
    return dict(zip(free, pair_ids, strict=False))


# ---- The movement on paper (the movement page, table guide cards, travel cards) ----


@dataclass(frozen=True)
class MovementSeat:
    """A movement position as the paper prints it: its number as the movement labels it
    ("3NS", "3EW", "3") and, once the positions are held (round 1's start), the pair."""

    position: int
    label: str
    pair: SeatedPair | None  # None before round 1, for the phantom or a position left free
    phantom: bool  # nobody holds it: whoever meets it sits the round out
    withdrawn: bool = False


@dataclass(frozen=True)
class MovementTable:
    """One table in one round: who sits NS and EW, and which boards they play there."""

    number: int
    ns: MovementSeat
    ew: MovementSeat
    boards: tuple[int, ...]  # the round's boards: the same at every table
    boards_text: str  # "1–2", "1–2, 5"

    @property
    def sits_out(self) -> MovementSeat | None:
        """The pair that meets the phantom here: its bye (RULES 10)."""
        if self.ew.phantom and not self.ns.phantom:
            return self.ns
        if self.ns.phantom and not self.ew.phantom:
            return self.ew
        return None


@dataclass(frozen=True)
class MovementRound:
    number: int
    tables: tuple[MovementTable, ...]
    switched: bool  # an arrow-switch round: every table swapped NS and EW

    @property
    def sitting_out(self) -> list[MovementSeat]:
        return [seat for t in self.tables if (seat := t.sits_out) is not None]


@dataclass(frozen=True)
class TravelStop:
    """Where a pair goes in one round (its travel card)."""

    round: int
    table: int | None  # None: the movement does not seat it this round
    direction: str  # "NS" | "EW" | ""
    opponents: MovementSeat | None
    boards_text: str
    sits_out: bool  # it meets the phantom: a bye


@dataclass(frozen=True)
class BalanceGrid:
    """One field's comparisons: for each two of its positions, the boards on which they
    are compared (played in the same direction)."""

    direction: str  # "NS" / "EW" (a two-winner field), "" (one field)
    labels: tuple[str, ...]
    rows: tuple[tuple[str, tuple[int | None, ...]], ...]  # (label, counts; None: itself)
    least: int
    most: int


@dataclass(frozen=True)
class BalanceView:
    """The movement's balance as a club scorer prints it (`movements.balance`): the
    quality figure, the fewest and most boards any two pairs of a field are compared on,
    and the grid of each field."""

    figure: float  # per cent: 100 is perfectly balanced
    least: int
    most: int
    grids: tuple[BalanceGrid, ...]


@dataclass(frozen=True)
class MovementSheet:
    """A tournament's movement as plain data, with the pairs' names once the positions
    are held: the movement page, the table guide cards and the travel cards read it."""

    movement: movements.Movement  # as played (`as_played`): the round's boards at each table
    rounds: tuple[MovementRound, ...]
    seats: tuple[MovementSeat, ...]  # seats[p - 1]: position p
    held: bool  # the positions are held by pairs (round 1 has started)

    @property
    def table_numbers(self) -> range:
        return range(1, self.movement.tables + 1)

    def table_card(self, number: int) -> list[tuple[int, MovementTable | None]]:
        """Table `number`'s guide card: each round, who sits there and which boards."""
        return [
            (r.number, next((t for t in r.tables if t.number == number), None)) for r in self.rounds
        ]

    def travel(self, position: int) -> list[TravelStop]:
        """Position `position`'s travel card: where it goes each round."""
        stops = []
        for r in self.rounds:
            stop = TravelStop(r.number, None, "", None, "", False)
            for t in r.tables:
                if position in (t.ns.position, t.ew.position):
                    ns = t.ns.position == position
                    opponents = t.ew if ns else t.ns
                    stop = TravelStop(
                        r.number, t.number, "NS" if ns else "EW", opponents, t.boards_text,
                        opponents.phantom,
                    )  # fmt: skip
                    break
            stops.append(stop)
        return stops

    @property
    def travellers(self) -> list[MovementSeat]:
        """The positions that travel cards are printed for: every one but the phantom."""
        return [seat for seat in self.seats if not seat.phantom]


def boards_text(boards: tuple[int, ...]) -> str:
    """Board numbers as a club prints them: runs as "1–3", the rest by commas."""
    runs: list[list[int]] = []
    for board in sorted(boards):
        if runs and board == runs[-1][-1] + 1:
            runs[-1].append(board)
        else:
            runs.append([board])
    return ", ".join(str(r[0]) if len(r) == 1 else f"{r[0]}–{r[-1]}" for r in runs)


def _held_pairs(tournament: Tournament) -> dict[int, tuple[SeatedPair, bool]]:
    """Position → (pair with its players' names, withdrawn), for the positions held. One
    query."""
    username = get_user_model().USERNAME_FIELD
    rows = Pair.objects.filter(tournament=tournament, position__isnull=False).values_list(
        "position",
        "id",
        "registration_no",
        "withdrawn_at",
        f"player1__{username}",
        "player1__profile__display_name",
        f"player2__{username}",
        "player2__profile__display_name",
    )
    return {
        position: (
            SeatedPair(
                id=pair_id,
                registration_no=number or 0,
                players=(player(username1, shown1), player(username2, shown2)),
            ),
            withdrawn_at is not None,
        )
        for position, pair_id, number, withdrawn_at, username1, shown1, username2, shown2 in rows
    }


def as_played(
    movement: movements.Movement, tournament: Tournament | None = None
) -> movements.Movement:
    """`movement` with every table of round r on the round's boards (unless the
    tournament's board sets travel: then the movement's own sets),
    `tournament.board_numbers(r)` (SPEC 2: duplicated boards, online or entered), in
    place of the movement's board sets: the seating is the movement's, the boards are
    what the event plays and records. Without a tournament (a movement not yet any
    event's) the boards are numbered the same way from the movement's boards per round.
    No query."""
    if tournament is not None and tournament.boards_travel:
        return movement  # face to face with board sets: the movement's sets are played
    numbering = tournament or Tournament(boards_per_round=movement.boards_per_round)
    rounds = []
    for number, round in enumerate(movement.rounds, start=1):
        boards = tuple(numbering.board_numbers(number))
        rounds.append(tuple(replace(e, boards=boards) for e in round))
    return replace(movement, rounds=tuple(rounds))


def movement_sheet(tournament: Tournament) -> MovementSheet | None:
    """`tournament`'s movement on paper (RULES 10), or None (a Swiss event, or no movement
    yet). At most two queries whatever the field's size: the pairs counted (before round
    1, when the movement is generated) and the pairs that hold positions."""
    stored = movement_of(tournament)
    if stored is None:
        return None
    movement = as_played(stored, tournament)
    held = _held_pairs(tournament)
    seats = []
    for position in range(1, movement.pairs + 1):
        pair, withdrawn = held.get(position, (None, False))
        # Before round 1 the phantom is the movement's; from it, any position nobody holds
        # (a late entry may take the phantom's; a withdrawal is still a pair of the event).
        phantom = position == movement.phantom if not held else pair is None
        seats.append(MovementSeat(position, movement.label(position), pair, phantom, withdrawn))
    rounds = []
    for index, round in enumerate(movement.rounds):
        tables = tuple(
            MovementTable(
                number=e.table,
                ns=seats[e.ns - 1],
                ew=seats[e.ew - 1],
                boards=e.boards,
                boards_text=boards_text(e.boards),
            )
            for e in sorted(round, key=lambda e: e.table)
        )
        rounds.append(MovementRound(index + 1, tables, index + 1 in movement.arrow_switch_rounds))
    return MovementSheet(
        movement=movement, rounds=tuple(rounds), seats=tuple(seats), held=bool(held)
    )


def field_of(tournament: Tournament, movement: movements.Movement, position: int) -> str:
    """The field the pair holding `position` is ranked in (`Pair.field`): its direction
    in a two-winner event ("NS" / "EW"), "" in one field."""
    if tournament.winners != 2 or movement.directions is None:
        return ""
    return movement.directions[position - 1]


def balance_view(movement: movements.Movement, tournament: Tournament | None = None) -> BalanceView:
    """`movement`'s balance for the page, on the boards the event plays (`as_played`:
    every table on the round's boards), not on the movement's board sets: which pairs
    are compared on which boards is what the scores will show. No query."""
    movement = as_played(movement, tournament)
    balance = movements.balance(movement)
    grids = []
    for field in balance.fields:
        direction = ""
        if movement.directions is not None and field:
            direction = movement.directions[field[0] - 1]
        rows = tuple(
            (
                movement.label(p),
                tuple(None if p == q else balance.compared(p, q) for q in field),
            )
            for p in field
        )
        counts = [c for _, row in rows for c in row if c is not None]
        grids.append(
            BalanceGrid(
                direction,
                tuple(movement.label(p) for p in field),
                rows,
                least=min(counts, default=0),
                most=max(counts, default=0),
            )
        )
    return BalanceView(
        figure=balance.figure, least=balance.minimum, most=balance.maximum, grids=tuple(grids)
    )
