"""The replayed board of each table, kept in this process between actions.

A board is its stored actions replayed on the deal (`play.BoardState.replay`). Replaying
sixty actions for every action and every view was most of the table server's CPU, so
each process keeps the last state it built per (table, board) and brings it up to date
with only the rows stored since (another process, or the HTTP API, may have taken them).

The cache is never trusted blindly: every use names what the database holds now — the
number of actions and the id of the last one, read in the same transaction — and a state
is used only if it was built from exactly those rows. Rows are only ever appended (a
`PlayAction` is never edited), so "the first k rows and then these" is the board; if the
rows do not line up, the board is replayed from scratch. (Rows go only with their table
or board, whose ids are never reused, so the rows of one (table, board) only grow.)
A state is remembered only from committed rows (`act` remembers its own after the
commit), so a rolled-back action is never in it.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from functools import cache
from typing import NamedTuple

from django.db.models import Q

import play

from .. import sql
from ..models import PlayAction
from .board_views import action_of

# About two boards for each of 2,000 tables: a few KB each.
CAPACITY = 4096


class Stored(NamedTuple):
    """What the database holds of a board at a table: how many actions, the last id."""

    actions: int
    last_id: int


class _Kept(NamedTuple):
    stored: Stored
    deal: tuple[str, str, str]  # deal, dealer, vulnerability: ids can be reused by a test
    state: play.BoardState


_kept: OrderedDict[tuple[int, int], _Kept] = OrderedDict()
_lock = threading.Lock()


class Row(NamedTuple):
    """A stored action as the table server reads it (and as its events carry it)."""

    id: int
    seq: int
    seat: str
    kind: str
    call: str
    alert: str
    card: str
    tricks: int | None
    statement: str = ""  # a claim's (older events carry none)


_ROWS = (
    "SELECT {id}, {seq}, {seat}, {kind}, {call}, {alert}, {card}, {tricks}, {statement} FROM {t}"
    " WHERE {table} = %s AND {board} = %s AND {seq} > %s ORDER BY {seq}"
)


@cache
def _rows_sql() -> str:
    columns = {
        name: sql.column(PlayAction, name)
        for name in ("id", "seq", "seat", "kind", "call", "alert", "card", "tricks", "statement")
    }
    return _ROWS.format(
        t=sql.table(PlayAction),
        table=sql.column(PlayAction, "table"),
        board=sql.column(PlayAction, "board"),
        **columns,
    )


def _rows_after(table_id: int, board_id: int, after: int) -> list[Row]:
    return [Row(*row) for row in sql.fetch_all_prepared(_rows_sql(), [table_id, board_id, after])]


def _recall(key: tuple[int, int]) -> _Kept | None:
    with _lock:
        kept = _kept.get(key)
        if kept is not None:
            _kept.move_to_end(key)
        return kept


def remember(
    *,
    table_id: int,
    board_id: int,
    stored: Stored,
    deal: tuple[str, str, str],
    state: play.BoardState,
) -> None:
    """Keep `state` as the board of `deal` (deal, dealer, vulnerability) built from the
    `stored` (committed) rows."""
    with _lock:
        _kept[table_id, board_id] = _Kept(stored, deal, state)
        _kept.move_to_end((table_id, board_id))
        while len(_kept) > CAPACITY:
            _kept.popitem(last=False)


def follow(*, table_id: int, board_id: int, row: Row) -> None:
    """Another process stored `row` (its table's group said so): a kept board one
    action behind takes it, so the next action here needs no read of it. Anything else
    is left for `board_state` to check against the database."""
    key = (table_id, board_id)
    kept = _recall(key)
    if kept is None or kept.stored.actions != row.seq - 1:
        return
    try:
        state = kept.state.apply(action_of(row))
    except play.IllegalAction:
        return  # not the board kept here: `board_state` reads it again
    with _lock:
        if _kept.get(key) is kept:  # nobody moved it on meanwhile
            _kept[key] = _Kept(Stored(row.seq, row.id), kept.deal, state)


def kept_state(*, table_id: int, board_id: int, stored: Stored) -> play.BoardState | None:
    """The board kept here if it was built from exactly the `stored` rows (as a message
    names them: the bell's), else None; reads nothing."""
    kept = _recall((table_id, board_id))
    if kept is None or kept.stored != stored:
        return None
    return kept.state


def caught_up(
    *, table_id: int, board_id: int, stored: Stored, rows: list[Row]
) -> play.BoardState | None:
    """The board kept here brought up to the `stored` rows with `rows` (the board's last
    actions as the bell carries them, oldest first), if it is behind by no more than they
    hold; else None. Reads nothing; the board is kept so from then on."""
    key = (table_id, board_id)
    kept = _recall(key)
    if kept is None or kept.stored.actions >= stored.actions:
        return None
    done = kept.stored.actions
    if any(row.seq == done and row.id != kept.stored.last_id for row in rows):
        return None  # not the rows the kept board was built from
    after = [row for row in rows if row.seq > done]
    if not _follows(after, done, stored):
        return None
    state = kept.state
    try:
        for row in after:
            state = state.apply(action_of(row))
    except play.IllegalAction:
        return None
    with _lock:
        if _kept.get(key) is kept:
            _kept[key] = _Kept(stored, kept.deal, state)
    return state


def forget_all() -> None:
    """Drop every kept board (tests that rebuild the database use it)."""
    with _lock:
        _kept.clear()


def board_state(
    *,
    table_id: int,
    board_id: int,
    stored: Stored,
    deal: str,
    dealer: str,
    vulnerability: str,
) -> play.BoardState:
    """The board at `table_id` after the `stored` rows (read in the caller's
    transaction): the kept state if it is exactly that, else brought up to date with the
    rows after it, else replayed from the deal."""
    key = (table_id, board_id)
    dealt = (deal, dealer, vulnerability)
    kept = _recall(key)
    if kept is not None and kept.deal != dealt:
        kept = None
    if kept is not None and kept.stored == stored:
        return kept.state
    state: play.BoardState | None = None
    if kept is not None and kept.stored.actions < stored.actions:
        rows = _rows_after(table_id, board_id, kept.stored.actions)
        if _follows(rows, kept.stored.actions, stored):
            state = kept.state
            for row in rows:
                state = state.apply(action_of(row))
    if state is None:
        rows = _rows_after(table_id, board_id, 0)
        state = play.BoardState.replay(deal, dealer, vulnerability, map(action_of, rows))
        if not _follows(rows, 0, Stored(len(rows), rows[-1].id if rows else 0)):
            raise AssertionError(f"table {table_id} board {board_id}: seq is not 1, 2, 3 …")
        stored = Stored(len(rows), rows[-1].id if rows else 0)
    remember(table_id=table_id, board_id=board_id, stored=stored, deal=dealt, state=state)
    return state


class BoardAt(NamedTuple):
    """A board at a table as `board_states` takes it: where, how far it is stored, the deal."""

    table_id: int
    board_id: int
    stored: Stored
    deal: str
    dealer: str
    vulnerability: str


def board_states(boards: list[BoardAt]) -> dict[tuple[int, int], play.BoardState]:
    """`board_state` of many boards at once, keyed (table_id, board_id): the kept ones as
    they are, every other one replayed from its rows, read for all of them in one query
    (the console's live grid asks for a round's every table at each poll)."""
    states: dict[tuple[int, int], play.BoardState] = {}
    missing: dict[tuple[int, int], BoardAt] = {}
    for board in boards:
        key = (board.table_id, board.board_id)
        kept = _recall(key)
        dealt = (board.deal, board.dealer, board.vulnerability)
        if kept is not None and kept.deal == dealt and kept.stored == board.stored:
            states[key] = kept.state
        else:
            missing[key] = board
    if not missing:
        return states
    tables_by_board: dict[int, list[int]] = {}
    for table_id, board_id in missing:
        tables_by_board.setdefault(board_id, []).append(table_id)
    where = Q()
    for board_id, table_ids in tables_by_board.items():
        where |= Q(board_id=board_id, table_id__in=table_ids)
    rows: dict[tuple[int, int], list[Row]] = {key: [] for key in missing}
    for table_id, board_id, *fields in (
        PlayAction.objects.filter(where)
        .order_by("table_id", "board_id", "seq")
        .values_list("table_id", "board_id", *Row._fields)
    ):
        rows[table_id, board_id].append(Row(*fields))
    for key, board in missing.items():
        read = rows[key]
        stored = Stored(len(read), read[-1].id if read else 0)
        if not _follows(read, 0, stored):
            raise AssertionError(f"table {key[0]} board {key[1]}: seq is not 1, 2, 3 …")
        state = play.BoardState.replay(
            board.deal, board.dealer, board.vulnerability, map(action_of, read)
        )
        dealt = (board.deal, board.dealer, board.vulnerability)
        remember(table_id=key[0], board_id=key[1], stored=stored, deal=dealt, state=state)
        states[key] = state
    return states


def _follows(rows: list[Row], after: int, stored: Stored) -> bool:
    """Whether `rows` are exactly the actions after the first `after`, ending at `stored`."""
    if [row.seq for row in rows] != list(range(after + 1, stored.actions + 1)):
        return False
    return not rows or rows[-1].id == stored.last_id
