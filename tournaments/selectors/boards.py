"""A board's page: the public boards' numbers and a board's traveller (whether a hand
record may be shown is `tournaments.visibility`'s)."""

from __future__ import annotations

from dataclasses import dataclass

from ..models import (
    Board,
    BoardResult,
    Direction,
    PairBoardScore,
    Table,
    Tournament,
)
from ..visibility import DEAL_PUBLIC


def closed_board_numbers(tournament: Tournament) -> list[int]:
    """The numbers of the boards whose hand records are public, in order."""
    return list(
        Board.objects.filter(DEAL_PUBLIC, tournament=tournament)
        .order_by("number")
        .values_list("number", flat=True)
    )


@dataclass
class BoardLine:
    result: BoardResult
    table: Table
    ns_points: float | None
    ew_points: float | None


def board_detail(*, tournament: Tournament, number: int) -> tuple[Board, list[BoardLine]]:
    """A board and every result of it, with each side's points (three queries)."""
    board = Board.objects.select_related("round").get(tournament=tournament, number=number)
    results = list(
        BoardResult.objects.filter(board=board)
        .select_related(
            "table__ns_pair__player1__profile",
            "table__ns_pair__player2__profile",
            "table__ew_pair__player1__profile",
            "table__ew_pair__player2__profile",
            "entered_by",
        )
        .order_by("table__number")
    )
    points = {
        (result_id, direction): value
        for result_id, direction, value in PairBoardScore.objects.filter(board=board).values_list(
            "result_id", "direction", "points"
        )
    }
    lines = [
        BoardLine(
            result=r,
            table=r.table,
            ns_points=points.get((r.id, Direction.NS)),
            ew_points=points.get((r.id, Direction.EW)),
        )
        for r in results
    ]
    # Highest NS score first, as a traveller is read; unscored boards last.
    lines.sort(
        key=lambda line: (
            line.result.ns_score is None,
            -(line.result.ns_score or 0),
            line.table.number,
        )
    )
    return board, lines
