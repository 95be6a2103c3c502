"""The result history (RULES 3): every change to a board result, appended, never edited.

Each change is one `ResultChange` row: the result, what kind of change (entry,
correction, confirmation, dispute, cut-off, director's result, adjusted score,
re-score), who made it (None: the clock), when, the result before (None when this
change stored it first) and after, and the director's reason.

Why a table of our own and not django-simple-history or django-reversion: both record
by hooking the ORM's `save()` / signals, one history row per saved instance. The
writes that matter here never go through `save()`: the result entry's hot path is one
hand-written upsert (`sql.upsert`), and the bell inserts every cut-off board in one
`INSERT … SELECT FROM unnest` (`services/bulk.py`). A library would miss those (or
force them back to per-row saves, which the round-close benchmark cannot afford), and
it would record "a field changed" where the director needs "who confirmed, who
disputed, why it was adjusted". So the results service and the clock call this module
at the one place each change is made, and the history stays exact by construction:

- every write path records in the same transaction as its write, after it took the
  row's lock (the upsert's or `select_for_update`), so concurrent changes of one result
  are recorded in the order they were made;
- the entry's hot path adds one statement, whose "before" is the last recorded "after"
  of that result (read after the upsert locked the row, so it is the state it replaced);
- the cut-off and a re-score record one statement per kind, whatever the field size;
- the table refuses UPDATE in the database (migration 0014), so history is not edited.

Snapshots (`before`, `after`) hold the result's stored fields as JSON: user ids, ISO
times. A re-score changes no stored field of the result but its scores across the
field; its snapshots are each side's points.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from django.core.serializers.json import DjangoJSONEncoder
from django.db import connection

from .. import sql
from ..models import RESULT_SNAPSHOT_FIELDS, BoardResult, ResultChange, ResultChangeKind
from .bulk import insert_rows

HISTORY_FIELDS = ("result", "kind", "by", "at", "before", "after", "reason")


def _plain(value: Any) -> Any:
    return value.isoformat() if isinstance(value, datetime) else value


def snapshot(result: BoardResult) -> dict:
    """The result's stored fields as JSON-ready values."""
    return {name: _plain(getattr(result, name)) for name in RESULT_SNAPSHOT_FIELDS}


def _user_id(user) -> int | None:
    return getattr(user, "pk", None) if user is not None else None


def _line(
    result_id: int, kind: ResultChangeKind, *, by, at: datetime, before, after, reason: str
) -> tuple:
    """One history row, its values in `HISTORY_FIELDS`' order."""
    return (result_id, kind.value, _user_id(by), at, before, after, reason)


def _append(lines: list[tuple]) -> int:
    """The rows of `_line`, in one statement; how many."""
    insert_rows(ResultChange, HISTORY_FIELDS, lines)
    return len(lines)


def record(
    *,
    result: BoardResult,
    kind: ResultChangeKind,
    by,
    at: datetime,
    before: dict | None,
    reason: str = "",
) -> ResultChange:
    """Append one change of `result` (as it is now, after the change)."""
    return ResultChange.objects.create(
        result_id=result.pk,
        kind=kind,
        by_id=_user_id(by),
        at=at,
        before=before,
        after=snapshot(result),
        reason=reason,
    )


def record_entry(*, result: BoardResult, by, at: datetime, existed: bool) -> None:
    """A player's (or organiser's) entry or correction, from the entry's hot path: one
    statement. Call it after the upsert, which holds the row's lock: "before" is then the
    last recorded state of the result, the one the upsert replaced. A result stored
    before the history existed has none: its first correction shows no "before"."""
    history = sql.table(ResultChange)
    columns = ", ".join(sql.column(ResultChange, name) for name in HISTORY_FIELDS)
    after, kind, result_column = (
        sql.column(ResultChange, "after"),
        sql.column(ResultChange, "kind"),
        sql.column(ResultChange, "result"),
    )
    # An entry is a correction when a result was there before: seen by the entry's
    # checks, or recorded (a first entry that raced another one at the same table).
    with connection.cursor() as cursor:
        cursor.execute(
            f"WITH last AS (SELECT h.{after} AS after FROM {history} h"
            f" WHERE h.{result_column} = %s AND h.{kind} <> %s"
            f" ORDER BY h.{sql.column(ResultChange, 'id')} DESC LIMIT 1)"
            f" INSERT INTO {history} ({columns}) VALUES (%s,"
            " CASE WHEN %s OR EXISTS (SELECT 1 FROM last) THEN %s ELSE %s END,"
            " %s, %s, (SELECT after FROM last), %s, '')",
            [
                result.pk,
                ResultChangeKind.RESCORE.value,
                result.pk,
                existed,
                ResultChangeKind.CORRECTION.value,
                ResultChangeKind.ENTRY.value,
                _user_id(by),
                at,
                _json(snapshot(result)),
            ],
        )


def record_many(
    *,
    results: Iterable[BoardResult],
    kind: ResultChangeKind,
    by,
    at: datetime,
    before: Mapping[int, dict] | None = None,
    reason: str = "",
) -> int:
    """One change of each of `results` (as they are now, after it), in one statement:
    a withdrawal's forfeits, a policy's cut-offs applied again. `before` by result id
    (None: the change stored them first). Returns how many."""
    earlier = before or {}
    return _append(
        [
            _line(
                result.pk,
                kind,
                by=by,
                at=at,
                before=earlier.get(result.pk),
                after=snapshot(result),
                reason=reason,
            )  # fmt: skip
            for result in results
        ]
    )


def record_cut_off(
    *, result_ids: Iterable[int], at: datetime, stored_as: BoardResult, reason: str
) -> None:
    """The bell stored these results, every one as `stored_as`: one statement for all."""
    after = snapshot(stored_as)
    kind = ResultChangeKind.CUT_OFF
    _append(
        [
            _line(rid, kind, by=None, at=at, before=None, after=after, reason=reason)
            for rid in result_ids
        ]
    )


def record_rescore(
    *,
    before: Mapping[int, dict],
    after: Mapping[int, dict],
    by,
    at: datetime,
    reason: str = "",
) -> int:
    """A re-score changed these results' scores across the field (each side's points by
    result id, before and after): one statement for all that changed. Returns how many."""
    kind = ResultChangeKind.RESCORE
    return _append(
        [
            _line(rid, kind, by=by, at=at, before=before.get(rid), after=points, reason=reason)
            for rid, points in sorted(after.items())
            if before.get(rid) != points
        ]
    )


def _json(value: Any) -> str:
    return json.dumps(value, cls=DjangoJSONEncoder)
