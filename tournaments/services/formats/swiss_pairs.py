"""Swiss pairs (RULES 4–7): pairs in one field, each round seated by score with no
rematch (`pairing/`), every board scored across the field (MP, cross-IMPs or IMPs against
a datum), the pairs ranked on their running totals with the completion threshold,
tie-breaks and master points (`scoring/`)."""

from __future__ import annotations

import secrets
from datetime import datetime

from django.db import connection
from django.db.models import QuerySet

import pairing

from ... import sql
from ...models import (
    BoardResult,
    Contestants,
    FirstRoundDraw,
    FormatKey,
    Pair,
    PairStatus,
    Round,
    RoundStatus,
    Table,
    Tournament,
)
from .. import board_scoring
from .round_boards import RoundBoards, duplicated


class SwissPairs:
    key = FormatKey.SWISS_PAIRS
    contestant = Contestants.PAIRS
    has_movement_page = False
    library_deals = False

    def contestants(self, tournament: Tournament) -> QuerySet[Pair]:
        return Pair.objects.filter(
            tournament=tournament, status=PairStatus.CONFIRMED, withdrawn_at__isnull=True
        )

    def seat(self, *, tournament: Tournament, round_number: int) -> pairing.Seating:
        if round_number == 1:
            return self._seat_first_round(tournament)
        states = pair_states(tournament)
        if len(states) < 2:
            # Everyone else withdrew: a lone pair has nobody to play; it sits out.
            return pairing.Seating(
                tables=(), bye=states[0].pair_id if states else None, rematches=0, cost=0.0
            )
        return pairing.seat_round(states)

    def _seat_first_round(self, tournament: Tournament) -> pairing.Seating:
        """By registration order, or a random draw whose seed is kept on the tournament
        (`draw_seed`, saved by the caller with the start)."""
        states = [
            pairing.PairState(pair_id=pid, registration_no=_numbered(reg))
            for pid, reg in self.contestants(tournament)
            .order_by("registration_no")
            .values_list("id", "registration_no")
        ]
        random_draw = tournament.first_round_draw == FirstRoundDraw.RANDOM
        # The engine insists on a seed so that a draw can be replayed; it comes from the
        # CSPRNG (nobody may predict the draw) and is kept on the tournament for audit.
        seed = secrets.randbits(63) if random_draw else None  # 63 bits: a signed bigint
        tournament.draw_seed = seed
        return pairing.seat_first_round(states, random_draw=random_draw, seed=seed)

    def boards(
        self, *, tournament: Tournament, round_number: int, seating: pairing.Seating
    ) -> RoundBoards:
        return duplicated(tournament.board_numbers(round_number))

    def seated(self, *, round: Round, now: datetime) -> None:
        """Nothing: a withdrawn pair is never seated again (RULES 1)."""

    def score(self, *, round: Round) -> None:
        board_scoring.score_round(round=round)

    def expected_results(self, *, tournament: Tournament, rounds: list[Round]) -> dict[int, int]:
        return {}  # E is each board's entries (RULES 5.3)

    def board_finished(self, *, result: BoardResult, play_table: Table, now: datetime) -> None:
        return None  # scored with the round's other results at its bell

    def late_entry_problem(self, tournament: Tournament) -> str | None:
        return None  # the Swiss rule seats any number of pairs

    def admitted_late(self, *, tournament: Tournament, pair: Pair) -> None:
        """Nothing: the next seating seats it by its score (RULES 1)."""

    def rank(
        self,
        *,
        tournament: Tournament,
        from_round: Round,
        now: datetime,
        final: bool,
        at_the_bell: bool = False,
    ) -> None:
        settled: dict[int, tuple[float, float]] = {}
        totals = board_scoring.update_totals(tournament=tournament, settled=settled)
        if at_the_bell:
            # No later round has scores yet, so the running totals are the standings
            # after the round that has just closed.
            board_scoring.record_standings(round=from_round, rows=totals, settled=settled)
        else:
            for later in (
                Round.objects.filter(
                    tournament=tournament, number__gte=from_round.number, status=RoundStatus.CLOSED
                )
                .select_related("tournament")
                .order_by("number")
            ):
                board_scoring.record_standings(round=later)
        if final:
            board_scoring.finalize_results(tournament=tournament, now=now)


def pair_states(tournament: Tournament) -> list[pairing.PairState]:
    """Everything the seating engine needs, from three queries whatever the field size.

    Every table of the event is read as bare (NS, EW) rows, in no order: at the bell of
    10,000 pairs, 50,000 seats, where the ORM's rows and its ordering (a join to sort by
    the tournament) cost more than the seating engine.
    """
    opponents: dict[int, list[int]] = {}
    ns_count: dict[int, int] = {}
    ew_count: dict[int, int] = {}
    for ns, ew in _seats(tournament):
        opponents.setdefault(ns, []).append(ew)
        opponents.setdefault(ew, []).append(ns)
        ns_count[ns] = ns_count.get(ns, 0) + 1
        ew_count[ew] = ew_count.get(ew, 0) + 1
    byes: dict[int, int] = {}
    for pair_id in Round.objects.filter(tournament=tournament, bye_pair__isnull=False).values_list(
        "bye_pair_id", flat=True
    ):
        byes[pair_id] = byes.get(pair_id, 0) + 1
    # A pair with no completed board yet stands at average, not at the bottom (RULES 4): a
    # table cut off in round 1 must not send both its pairs to the foot of round 2.
    average = board_scoring.AVERAGE[tournament.scoring_method]
    return [
        pairing.PairState(
            pair_id=pid,
            registration_no=_numbered(reg),
            score=total if done else average,
            boards_completed=done,
            opponents=frozenset(opponents.get(pid, ())),
            byes=byes.get(pid, 0),
            ns_count=ns_count.get(pid, 0),
            ew_count=ew_count.get(pid, 0),
        )
        for pid, reg, total, done in SWISS_PAIRS.contestants(tournament)
        .order_by("registration_no", "id")
        .values_list("id", "registration_no", "total", "boards_completed")
    ]


def _seats(tournament: Tournament) -> list[tuple[int, int]]:
    """(NS pair, EW pair) of every table of `tournament`, unordered."""
    table, round = sql.table(Table), sql.table(Round)
    statement = (
        f"SELECT t.{sql.column(Table, 'ns_pair')}, t.{sql.column(Table, 'ew_pair')}"
        f" FROM {table} AS t WHERE t.{sql.column(Table, 'round')} IN"
        f" (SELECT r.{sql.column(Round, 'id')} FROM {round} AS r"
        f" WHERE r.{sql.column(Round, 'tournament')} = %s)"
    )
    with connection.cursor() as cursor:
        cursor.execute(statement, [tournament.pk])
        return cursor.fetchall()


def _numbered(registration_no: int | None) -> int:
    # A confirmed pair always has its registration number (RULES 1).
    assert registration_no is not None
    return registration_no


SWISS_PAIRS = SwissPairs()
