"""The record of every table's auction and play (RULES 3, 9): read once a round has
closed, for the board page (trick by trick) and the PBN export.

Each table's board is rebuilt from its stored actions with `play.BoardState.replay`, the
same way the live view is, so the record is exactly what was played.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

import play
from scoring import SEATS, seat_offset, side_of

from ..models import Board, BoardResult, PlayAction, PlayMode
from ..visibility import deal_public
from .board_views import action_of


@dataclass(frozen=True)
class RecordedTrick:
    number: int
    leader: str
    plays: tuple[tuple[str, str], ...]  # (seat, card) in the order played
    winner: str | None  # None for a trick the bell or a claim left unfinished
    ns_tricks: int  # tricks won by each side so far, this one included
    ew_tricks: int

    @property
    def by_seat(self) -> dict[str, str]:
        return dict(self.plays)

    @property
    def cells(self) -> list[tuple[str, str, bool, bool]]:
        """(seat, card or "", led, won) in N, E, S, W order, for a table row."""
        cards = self.by_seat
        return [
            (seat, cards.get(seat, ""), seat == self.leader, seat == self.winner) for seat in SEATS
        ]


@dataclass
class TableRecord:
    table_number: int
    ns_pair_id: int
    ew_pair_id: int
    state: play.BoardState
    result: BoardResult | None
    tricks: list[RecordedTrick] = field(default_factory=list)

    @property
    def dealer(self) -> str:
        return self.state.dealer

    @property
    def auction_rows(self) -> list[list[dict | None]]:
        """The calls in rows of four under N, E, S, W; empty cells before the dealer."""
        cells: list[dict | None] = [None] * SEATS.index(self.state.dealer)
        cells += [{"seat": c.seat, "call": c.call, "alert": c.alert} for c in self.state.calls]
        return [cells[i : i + 4] for i in range(0, len(cells), 4)]

    @property
    def claim(self) -> play.Claim | None:
        return self.state.accepted_claim

    @property
    def finished(self) -> bool:
        return self.state.is_over

    @property
    def played_online(self) -> bool:
        return self.result is not None and self.result.played_online and self.state.is_over


def _tricks(state: play.BoardState) -> list[RecordedTrick]:
    if state.contract is None:
        return []
    won = {"NS": 0, "EW": 0}
    out = []
    current = (state.current_trick,) if state.current_trick and state.current_trick.cards else ()
    for number, trick in enumerate((*state.tricks, *current), start=1):
        if trick.winner:
            won[side_of(trick.winner)] += 1
        out.append(
            RecordedTrick(number, trick.leader, trick.plays, trick.winner, won["NS"], won["EW"])
        )
    return out


def board_records(*, board: Board, tournament=None, public_only: bool = True) -> list[TableRecord]:
    """Every table's record of `board`, by table number; [] while its round is open
    (unless `public_only` is False: an organiser's tool) and, without a query, for a
    played-elsewhere `tournament`."""
    if tournament is not None and tournament.play != PlayMode.ONLINE:
        return []
    if public_only and not deal_public(board.round):
        return []
    return records_of(boards=[board]).get(board.pk, [])


def records_of(*, boards: list[Board]) -> dict[int, list[TableRecord]]:
    """board id -> its tables' records (three queries whatever the number of boards)."""
    by_id = {b.pk: b for b in boards}
    actions: dict[tuple[int, int], list] = defaultdict(list)
    tables = {}
    for row in (
        PlayAction.objects.filter(board_id__in=by_id)
        .select_related("table")
        .only("board_id", "seq", "seat", "kind", "call", "alert", "card", "tricks", "statement",
              "table__number", "table__ns_pair_id", "table__ew_pair_id")
        .order_by("board_id", "table__number", "seq")
    ):  # fmt: skip
        actions[(row.board_id, row.table_id)].append(row)
        tables[row.table_id] = row.table
    results = {
        (r.board_id, r.table_id): r
        for r in BoardResult.objects.filter(board_id__in=by_id, table_id__in=tables)
    }
    out: dict[int, list[TableRecord]] = defaultdict(list)
    for (board_id, table_id), rows in actions.items():
        board = by_id[board_id]
        state = play.BoardState.replay(
            board.deal, board.dealer, board.vulnerability, [action_of(r) for r in rows]
        )
        table = tables[table_id]
        out[board_id].append(
            TableRecord(
                table_number=table.number,
                ns_pair_id=table.ns_pair_id,
                ew_pair_id=table.ew_pair_id,
                state=state,
                result=results.get((board_id, table_id)),
                tricks=_tricks(state),
            )
        )
    return out


def opening_leader(state: play.BoardState) -> str | None:
    return seat_offset(state.declarer, 1) if state.declarer else None
