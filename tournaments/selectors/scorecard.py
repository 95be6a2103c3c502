"""A pair's personal score card: every board it played with the opponents, its direction,
the contract, declarer, lead, tricks, its score and its MP % or IMPs, and round totals
(what club sites and BBO hand a pair after a session)."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Q

from ..models import (
    BoardResult,
    Direction,
    Pair,
    PairBoardScore,
    ResultState,
    Round,
    RoundStatus,
    Standing,
    Table,
)
from ..visibility import results_public
from .boards import board_numbers_at
from .common import pair_seat
from .seating import TABLE_PAIRS


@dataclass(frozen=True)
class CardBoard:
    number: int
    result: BoardResult | None  # None: no result stored (a bye, or not reached)
    score: int | None  # the contract score from this pair's side (NS score or its negative)
    points: float | None  # this pair's MP % or IMPs on the board; None when not completed
    completed: bool
    artificial: str  # "A+", "A", "A-" for an adjusted or bye score, else ""
    # A travelling board other tables still play: nothing of it is shown yet.
    pending: bool = False

    @property
    def played(self) -> bool:
        return self.result is not None and self.result.state == ResultState.PLAYED

    @property
    def passed_out(self) -> bool:
        return self.result is not None and self.result.state == ResultState.PASSED_OUT


@dataclass(frozen=True)
class CardRound:
    round: Round
    direction: str  # Direction.NS, EW or BYE, or "" (not seated: withdrawn or late entry)
    table: Table | None
    opponents: Pair | None
    shown: bool  # the round has closed: its results are public (RULES 2, 8)
    boards: list[CardBoard]
    round_score: float | None
    total: float | None
    position: int | None

    @property
    def has_total(self) -> bool:
        """A score to show after the round: its own (duplicated boards), or a running
        total once a board is scored (travelling sets score a board at its last round)."""
        return self.round_score is not None or self.position is not None


def score_card(*, pair: Pair) -> list[CardRound]:
    """The pair's rounds that have started, each with its boards (five queries).

    Results are only read for closed rounds: while a round is open another table may
    still have its boards to play (`visibility.results_public`)."""
    tournament = pair.tournament
    rounds = [
        r
        for r in Round.objects.filter(tournament=tournament).order_by("number")
        if r.status != RoundStatus.SCHEDULED
    ]
    tables = {
        t.round_id: t
        for t in Table.objects.filter(
            Q(ns_pair=pair) | Q(ew_pair=pair), round__tournament=tournament
        ).select_related(*TABLE_PAIRS)
    }
    closed = {r.id for r in rounds if results_public(r)}
    # A result is shown once its board's round has closed (`Board.round`): the round it
    # was played in, or for a travelling board set the last round a table plays it.
    results: dict[tuple[int, int], BoardResult] = {}
    for entered in BoardResult.objects.filter(
        table_id__in=[t.id for t in tables.values()], board__round_id__in=closed
    ).select_related("board"):
        results[(entered.table_id, entered.board.number)] = entered
    # The pair's scored boards: every board of a closed round has its row (a cut-off one
    # too), so a board of a closed round without one is a travelling board other tables
    # still play.
    scores = {
        number: (points, completed, artificial)
        for number, points, completed, artificial in PairBoardScore.objects.filter(
            pair=pair, board__round_id__in=closed
        ).values_list("board__number", "points", "completed", "artificial")
    }
    standings = {s.round_id: s for s in Standing.objects.filter(pair=pair)}

    card = []
    for r in rounds:
        table = tables.get(r.id)
        direction, opponents = pair_seat(pair.id, r, table)
        boards = []
        numbers = (
            board_numbers_at(table, tournament, r.number)
            if table is not None
            else tournament.board_numbers(r.number)
        )
        # The table played the round's own boards, which its bell completed (not a
        # travelling set, which later rounds' bells complete).
        own_boards = table is None or table.first_board is None
        if r.id in closed and direction:
            for number in numbers:
                result = results.get((table.id, number)) if table is not None else None
                points, completed, artificial = scores.get(number, (None, False, ""))
                ns_score = result.ns_score if result is not None else None
                score = None
                if ns_score is not None:
                    score = ns_score if direction == Direction.NS else -ns_score
                boards.append(
                    CardBoard(
                        number=number,
                        result=result,
                        score=score,
                        points=points,
                        completed=completed,
                        artificial=artificial,
                        pending=number not in scores,
                    )
                )
        standing = standings.get(r.id)
        card.append(
            CardRound(
                round=r,
                direction=direction,
                table=table,
                opponents=opponents,
                shown=r.id in closed,
                boards=boards,
                # With travelling sets a round's bell completes other rounds' boards: no
                # round score is this round's play, and nothing may be scored yet (a
                # Mitchell's boards all complete at its last bell): no total of nothing.
                round_score=standing.round_score if standing and own_boards else None,
                total=standing.total if standing and shows(standing, own_boards) else None,
                position=standing.position if standing and shows(standing, own_boards) else None,
            )
        )
    return card


def shows(standing: Standing, own_boards: bool) -> bool:
    return own_boards or standing.boards_completed > 0
