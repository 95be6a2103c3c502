"""A board's page: the public boards' numbers and a board's traveller (whether a hand
record may be shown is `tournaments.visibility`'s)."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import QuerySet

from ..models import (
    Board,
    BoardResult,
    Direction,
    PairBoardScore,
    Table,
    Tournament,
)
from ..visibility import DEAL_PUBLIC
from .seating import SeatingRow


def board_numbers_at(
    table: Table | SeatingRow, tournament: Tournament, round_number: int | None = None
) -> range:
    """The numbers of the boards `table` (a table, or a seating row) plays: its board set
    when the sets travel (`Table.first_board` … `last_board`), else its round's boards,
    numbered from `round_number` (default: the table's round, read if not loaded)."""
    if table.first_board is None or table.last_board is None:
        if round_number is None:
            assert isinstance(table, Table)
            round_number = table.round.number
        return tournament.board_numbers(round_number)
    return range(table.first_board, table.last_board + 1)


def boards_at(table: Table, *, tournament_id: int | None = None) -> QuerySet[Board]:
    """The boards `table` plays, as `board_numbers_at` numbers them."""
    if table.first_board is None:
        return Board.objects.filter(round_id=table.round_id)
    return Board.objects.filter(
        tournament_id=tournament_id if tournament_id is not None else table.round.tournament_id,
        number__gte=table.first_board,
        number__lte=table.last_board,
    )


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
            "table__round",
            "table__ns_pair__player1__profile",
            "table__ns_pair__player2__profile",
            "table__ew_pair__player1__profile",
            "table__ew_pair__player2__profile",
            "entered_by",
        )
        # A travelling board's results come from several rounds' tables.
        .order_by("table__round__number", "table__number")
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
