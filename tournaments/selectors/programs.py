"""The programs at the tables (SPEC 14): which seats are programs, which program, whether
it is connected, its think times and what our robot played for it at the think-time
limit. Read by the table's page and the director's console (one query each)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from ..models import ProgramSeat


@dataclass(frozen=True)
class ProgramAtTable:
    table_number: int
    seat: str
    program: str
    connected: bool
    connected_at: datetime | None
    think_seconds: int  # the limit
    moves: int
    think_average: float | None  # seconds per call or card
    think_max: float
    replaced: int  # calls and cards our robot made for it at the limit, or for it refused
    replaced_last: dict | None  # {"board", "made", "why"}


def _lines(rows) -> list[ProgramAtTable]:
    return [
        ProgramAtTable(
            table_number=row.table.number,
            seat=row.seat,
            program=row.program,
            connected=row.connected_at is not None and row.disconnected_at is None,
            connected_at=row.connected_at,
            think_seconds=row.think_seconds,
            moves=row.moves,
            think_average=row.think_total / row.moves if row.moves else None,
            think_max=row.think_max,
            replaced=row.replaced,
            replaced_last=row.replaced_last,
        )
        for row in rows
    ]


def table_programs(*, table_id: int) -> list[ProgramAtTable]:
    return _lines(
        ProgramSeat.objects.filter(table_id=table_id).select_related("table").order_by("seat")
    )


def round_programs(*, round_id: int) -> list[ProgramAtTable]:
    return _lines(
        ProgramSeat.objects.filter(table__round_id=round_id)
        .select_related("table")
        .order_by("table__number", "seat")
    )
