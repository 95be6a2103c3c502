"""A table's page: its boards with the table's results, and what its poll compares."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from .. import sql
from ..models import Board, BoardResult, Pair, Round, Table, Tournament
from .boards import boards_at


@dataclass
class TableBoard:
    board: Board
    result: BoardResult | None


def table_sheet(*, table: Table) -> list[TableBoard]:
    """The boards the table plays (its round's, or its own set when board sets travel)
    with the table's result of each (two queries)."""
    boards = list(boards_at(table).order_by("number"))
    results = {
        r.board_id: r
        for r in BoardResult.objects.filter(table=table).select_related(
            "entered_by__profile", "confirmed_by__profile"
        )
    }
    return [TableBoard(board=b, result=results.get(b.id)) for b in boards]


@dataclass(frozen=True)
class TableSnapshot:
    """What a table page's poll compares, read in one fixed statement."""

    player_ids: frozenset[int]
    round_status: str
    round_ends_at: datetime
    tournament_status: str
    # (board number, (result id, state, NS score, entered at, confirmed at, disputed) or None)
    results: tuple[tuple[int, tuple | None], ...]


def table_snapshot(*, tournament_id: int, table_id: int) -> TableSnapshot | None:
    """The seats, round state and each board's result fields of a table (None when the
    table is not in that tournament). Every open table page polls every few seconds, so
    this is the one statement of an unchanged poll."""
    q = sql.quote
    rows = sql.fetch_all(
        "SELECT r.status, r.ends_at, t.status,"
        " ns.player1_id, ns.player2_id, ew.player1_id, ew.player2_id,"
        " b.number, br.id, br.state, br.ns_score, br.entered_at, br.confirmed_at, br.disputed"
        f" FROM {q(Table._meta.db_table)} tb"
        f" JOIN {q(Round._meta.db_table)} r ON r.id = tb.round_id"
        f" JOIN {q(Tournament._meta.db_table)} t ON t.id = r.tournament_id"
        f" JOIN {q(Pair._meta.db_table)} ns ON ns.id = tb.ns_pair_id"
        f" JOIN {q(Pair._meta.db_table)} ew ON ew.id = tb.ew_pair_id"
        # The table's boards by number (the unique index): its own set when board sets
        # travel, else its round's (`Tournament.board_numbers`).
        f" LEFT JOIN {q(Board._meta.db_table)} b ON b.tournament_id = r.tournament_id"
        " AND b.number BETWEEN COALESCE(tb.first_board, (r.number - 1) * t.boards_per_round + 1)"
        " AND COALESCE(tb.last_board, r.number * t.boards_per_round)"
        f" LEFT JOIN {q(BoardResult._meta.db_table)} br"
        "   ON br.board_id = b.id AND br.table_id = tb.id"
        " WHERE tb.id = %s AND r.tournament_id = %s"
        " ORDER BY b.number",
        [table_id, tournament_id],
    )
    if not rows:
        return None
    first = rows[0]
    results = []
    for row in rows:
        number, result_id, state, ns_score, entered_at, confirmed_at, disputed = row[7:]
        if number is None:
            continue  # a round without boards
        values = None
        if result_id is not None:
            values = (result_id, state, ns_score, sql.timestamp(entered_at),
                      sql.timestamp(confirmed_at), bool(disputed))  # fmt: skip
        results.append((number, values))
    return TableSnapshot(
        player_ids=frozenset(first[3:7]),
        round_status=first[0],
        round_ends_at=sql.timestamp(first[1]),
        tournament_status=first[2],
        results=tuple(results),
    )
