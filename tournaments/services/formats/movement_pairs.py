"""Pairs seated by a movement (RULES 10): a Mitchell, a Howell or a movement given as data,
fixed at round 1's start, with one winner or two. Who plays, how a board is scored and how
the pairs are ranked are Swiss pairs' (`swiss_pairs`; `board_scoring` ranks each field
apart when the event has two winners); only the seating differs: each round's tables are
the movement's, its positions mapped to the pairs holding them.

Round 1 fixes the movement (`Tournament.movement`) and hands out its positions in
registration order, the phantom's skipped (`Pair.position`; in a two-winner event also
`Pair.field`, the position's direction). Later a late entry takes the phantom's position
(`registration.add_late_pair`); a withdrawn pair keeps its own, so the movement needs no
re-pairing: its later tables are seated as the movement says and their boards forfeited
at once (`seated`, through `registration.forfeit_unfinished_boards`).
"""

from __future__ import annotations

from datetime import datetime

from django.db.models import Q, QuerySet
from django.utils.translation import gettext as _

import movements
import pairing

from ...errors import ClockError
from ...models import (
    Board,
    BoardResult,
    Contestants,
    FormatKey,
    Pair,
    PairStatus,
    Round,
    Seating,
    Table,
    Tournament,
)
from ...selectors import movements as movement_selectors
from .. import board_scoring, registration
from .movement_rules import MovementRefused, check_sets, no_movement
from .round_boards import RoundBoards, duplicated
from .swiss_pairs import SWISS_PAIRS


class MovementPairs:
    key = FormatKey.MOVEMENT_PAIRS
    contestant = Contestants.PAIRS
    has_movement_page = True
    library_deals = False

    def contestants(self, tournament: Tournament) -> QuerySet[Pair]:
        return SWISS_PAIRS.contestants(tournament)

    def seat(self, *, tournament: Tournament, round_number: int) -> pairing.Seating:
        # Round 1 fixes the movement; every later round reads the one fixed then.
        movement = fix_movement(tournament) if round_number == 1 else stored_movement(tournament)
        if round_number > movement.round_count:
            raise ClockError(
                _("The movement has %(n)s rounds: round %(r)s cannot be seated by it.")
                % {"n": movement.round_count, "r": round_number}
            )
        return seating_of(
            movement,
            round_number,
            holders=movement_selectors.positions(tournament, movement),
            withdrawn=set(
                Pair.objects.filter(tournament=tournament, withdrawn_at__isnull=False).values_list(
                    "id", flat=True
                )
            ),
        )

    def boards(
        self, *, tournament: Tournament, round_number: int, seating: pairing.Seating
    ) -> RoundBoards:
        if not tournament.boards_travel:
            return duplicated(tournament.board_numbers(round_number))
        return travelling_boards(
            stored_movement(tournament),
            round_number,
            last_round=tournament.rounds,
            tables=[t.number for t in seating.tables],
        )

    def seated(self, *, round: Round, now: datetime) -> None:
        """A withdrawn pair keeps its position and the movement seats it: the boards at
        its table are forfeited at once (RULES 1: A+ to the opponents, A- to it)."""
        tournament = round.tournament
        seated = Q(pk__in=round.tables.values("ns_pair")) | Q(pk__in=round.tables.values("ew_pair"))
        for pair in Pair.objects.filter(seated, tournament=tournament, withdrawn_at__isnull=False):
            registration.forfeit_unfinished_boards(
                tournament=tournament, pair=pair, by=None, now=now
            )

    def score(self, *, round: Round) -> None:
        if not round.tournament.boards_travel:
            board_scoring.score_round(round=round, expected=board_scoring.tables_expected(round))
            return
        board_scoring.score_round(
            round=round,
            expected=board_scoring.tables_expected_per_board(round),
            byes=bye_boards(round),
        )

    def expected_results(self, *, tournament: Tournament, rounds: list[Round]) -> dict[int, int]:
        return board_scoring.tables_expected_of(tournament=tournament, rounds=rounds)

    def board_finished(self, *, result: BoardResult, play_table: Table, now: datetime) -> None:
        return None  # scored with the round's other results at its bell

    def late_entry_problem(self, tournament: Tournament) -> str | None:
        if free_position(tournament) is None:
            return _(
                "%(t)s is seated by a movement with no free place: a late pair takes the "
                "phantom's position, and every position is held (a withdrawn pair keeps "
                "its own)."
            ) % {"t": tournament.name}
        return None

    def admitted_late(self, *, tournament: Tournament, pair: Pair) -> None:
        """The late pair holds the phantom's position from the next seating on, and in a
        two-winner event is ranked in that position's field."""
        movement = movement_selectors.movement_of(tournament)
        position = free_position(tournament)
        assert movement is not None and position is not None  # late_entry_problem said so
        pair.position = position
        pair.field = movement_selectors.field_of(tournament, movement, position)
        pair.save(update_fields=["position", "field"])

    def rank(
        self,
        *,
        tournament: Tournament,
        from_round: Round,
        now: datetime,
        final: bool,
        at_the_bell: bool = False,
    ) -> None:
        SWISS_PAIRS.rank(
            tournament=tournament,
            from_round=from_round,
            now=now,
            final=final,
            at_the_bell=at_the_bell,
        )


def seating_of(
    movement: movements.Movement,
    round_number: int,
    *,
    holders: dict[int, int],
    withdrawn: set[int],
) -> pairing.Seating:
    """Round `round_number` of `movement` with its positions' pairs (`holders`: position
    → pair id). A table where one side's position has no pair (the phantom) is the other
    pair's bye; a table of two withdrawn pairs, or of a withdrawn pair and the phantom,
    is not seated (nobody there plays). The movement never meets two pairs twice, so a
    seating has no rematch."""
    tables: list[pairing.Table] = []
    bye: int | None = None
    for encounter in sorted(movement.round(round_number), key=lambda e: e.table):
        ns, ew = holders.get(encounter.ns), holders.get(encounter.ew)
        if ns is not None and ew is not None:
            if not (ns in withdrawn and ew in withdrawn):
                tables.append(pairing.Table(number=encounter.table, ns=ns, ew=ew))
            continue
        alone = ns if ns is not None else ew
        if alone is None or alone in withdrawn:
            continue
        if bye is not None:
            # A round has one bye (RULES 4); only the phantom's position is ever free.
            raise ClockError(
                _("Round %(r)s of the movement leaves more than one pair without opponents.")
                % {"r": round_number}
            )
        bye = alone
    return pairing.Seating(tables=tuple(tables), bye=bye, rematches=0, cost=0.0)


def travelling_boards(
    movement: movements.Movement, round_number: int, *, last_round: int, tables: list[int]
) -> RoundBoards:
    """Round `round_number`'s boards when the sets travel (RULES 10): the boards the
    movement first plays in it (the phantom's table counted: its set is the bye's), the
    boards it last plays in it (all the rest at the event's last round, should the event
    stop short of the movement), and the set at each of the seated `tables`."""
    first: dict[int, int] = {}
    last: dict[int, int] = {}
    for number, encounters in enumerate(movement.rounds, start=1):
        for encounter in encounters:
            for board in encounter.boards:
                first.setdefault(board, number)
                last[board] = number
    completed = sorted(b for b, r in last.items() if min(r, last_round) == round_number)
    at_table = {e.table: e for e in movement.round(round_number)}
    sets = {}
    for table in tables:
        boards = at_table[table].boards
        if list(boards) != list(range(boards[0], boards[-1] + 1)):
            raise ClockError(
                _("Table %(t)s of round %(r)s plays boards that are not one set in a row.")
                % {"t": table, "r": round_number}
            )
        sets[table] = (boards[0], boards[-1])
    return RoundBoards(
        dealt=tuple(sorted(b for b, r in first.items() if r == round_number)),
        completed=tuple(completed),
        sets=sets,
    )


def bye_boards(round: Round) -> dict[int, tuple[int, ...]]:
    """{board id: the pairs with a bye on it} for the boards `round`'s bell completes
    when board sets travel: a round's bye pair sits out the set of the table where the
    movement puts its position that round (the phantom's opponent's), which may be a
    board another round completes."""
    tournament = round.tournament
    movement = stored_movement(tournament)
    boards = dict(Board.objects.filter(round=round).values_list("number", "id"))
    byes: dict[int, list[int]] = {}
    for number, pair_id, position in Round.objects.filter(
        tournament=tournament, number__lte=round.number, bye_pair__isnull=False
    ).values_list("number", "bye_pair_id", "bye_pair__position"):
        if position is None:
            continue
        for encounter in movement.round(number):
            if position in (encounter.ns, encounter.ew):
                for board in encounter.boards:
                    if board in boards:
                        byes.setdefault(boards[board], []).append(pair_id)
    return {board_id: tuple(pairs) for board_id, pairs in byes.items()}


def free_position(tournament: Tournament) -> int | None:
    """The movement's position no pair holds (the phantom's), which a late entry takes
    (RULES 10), or None."""
    movement = movement_selectors.movement_of(tournament)
    if movement is None:
        return None
    held = set(
        Pair.objects.filter(tournament=tournament, position__isnull=False).values_list(
            "position", flat=True
        )
    )
    free = [p for p in range(1, movement.pairs + 1) if p not in held]
    return free[0] if free else None


def stored_movement(tournament: Tournament) -> movements.Movement:
    """The movement fixed at round 1's start."""
    if tournament.movement is None:
        raise ClockError(
            _("%(t)s has no movement stored: it is seated by a movement from round 1.")
            % {"t": tournament.name}
        )
    return movements.from_json(tournament.movement)


def movement_problem(tournament: Tournament) -> str | None:
    """Why `tournament` cannot be seated by a movement for the pairs registered now, or
    None when it can (the console shows it before round 1; the start refuses with it)."""
    try:
        _movement_for_start(tournament)
    except ClockError as error:
        return str(error)
    return None


def _movement_for_start(tournament: Tournament) -> movements.Movement:
    pairs = SWISS_PAIRS.contestants(tournament).count()
    if tournament.seating == Seating.MOVEMENT:
        if tournament.movement is None:
            raise ClockError(_("No movement has been given yet: give one in the settings."))
        movement = movements.from_json(tournament.movement)
        holdable = movement.pairs - (1 if movement.phantom is not None else 0)
        if pairs != holdable:
            raise ClockError(
                _(
                    "The movement given is for %(m)s pairs and %(n)s are registered: "
                    "give a movement for %(n)s pairs, or register %(m)s."
                )
                % {"m": holdable, "n": pairs}
            )
    else:
        try:
            movement = movement_selectors.generated_movement(tournament, pairs=pairs)
        except movements.MovementError as error:
            raise ClockError(
                no_movement(seating=tournament.seating, pairs=pairs, error=error)
            ) from None
    if tournament.boards_travel:
        try:
            check_sets(movement)
        except MovementRefused as error:
            raise ClockError(str(error)) from None
    if tournament.winners == 2 and movement.directions is None:
        raise ClockError(
            _(
                "Two winners need a movement whose pairs keep their direction; in this one "
                "they do not."
            )
        )
    return movement


def fix_movement(tournament: Tournament) -> movements.Movement:
    """Round 1's start: the movement for the pairs registered, stored on the tournament,
    and each pair's position (registration order, the phantom's skipped) and field.
    Refused with a `ClockError` saying why when there is no such movement."""
    movement = _movement_for_start(tournament)
    tournament.movement = movements.to_json(movement)
    Tournament.objects.filter(pk=tournament.pk).update(movement=tournament.movement)
    # Nobody holds a position before round 1: `positions` hands them out (the one rule).
    held = list(movement_selectors.positions(tournament, movement).items())
    rows = [
        Pair(
            pk=pair_id,
            position=position,
            field=movement_selectors.field_of(tournament, movement, position),
        )
        for position, pair_id in held
    ]
    # A pair withdrawn before round 1 holds no position (it is never seated).
    Pair.objects.filter(tournament=tournament).exclude(
        pk__in=[pair_id for _position, pair_id in held]
    ).filter(status=PairStatus.CONFIRMED).update(position=None, field="")
    Pair.objects.bulk_update(rows, ["position", "field"])
    return movement


MOVEMENT_PAIRS = MovementPairs()
