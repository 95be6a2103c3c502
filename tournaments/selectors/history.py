"""A board's result history for organisers (the board page's organiser section, admin).

Two queries whatever the number of changes: the changes with their tables and authors,
then the players the snapshots name (who entered, confirmed, adjusted).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth import get_user_model
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext as _
from django_stubs_ext import StrOrPromise

from ..models import (
    RESULT_SNAPSHOT_FIELDS,
    Board,
    BoardResult,
    ResultChange,
    ResultChangeKind,
    ResultState,
    player_name,
)

# Snapshot keys that name a user, and those that hold a time.
USER_KEYS = ("entered_by_id", "confirmed_by_id", "adjusted_by_id")
TIME_KEYS = ("entered_at", "confirmed_at", "disputed_at")


@dataclass(frozen=True)
class FieldChange:
    label: str
    before: str
    after: str


@dataclass(frozen=True)
class HistoryLine:
    table: int
    kind: str  # ResultChangeKind value
    kind_label: StrOrPromise
    by: str  # a player's name, or "the clock"
    at: datetime
    changes: tuple[FieldChange, ...]
    reason: str


def _label(key: str) -> str:
    special = {
        "ns_points": _("NS points"),
        "ew_points": _("EW points"),
        "entered_by_id": _("entered by"),
        "confirmed_by_id": _("confirmed by"),
        "adjusted_by_id": _("adjusted by"),
    }
    if key in special:
        return special[key]
    return str(getattr(BoardResult._meta.get_field(key), "verbose_name", key))


def _shown(key: str, value, names: dict[int, str]) -> str:
    if value is None or value == "":
        return "–"
    if key in USER_KEYS:
        return names.get(value, f"#{value}")
    if key in TIME_KEYS:
        when = parse_datetime(value)
        return timezone.localtime(when).strftime("%H:%M:%S") if when else str(value)
    if key == "state" and value in ResultState.values:
        return str(ResultState(value).label)
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    if isinstance(value, float):
        return f"{value:.2f}"
    return str(value)


def _changes(
    before: dict | None, after: dict, names: dict[int, str], reason: str
) -> tuple[FieldChange, ...]:
    """The fields that changed, in the result's field order (the line's reason is not
    repeated as a changed field)."""
    before = before or {}
    order = {key: i for i, key in enumerate((*RESULT_SNAPSHOT_FIELDS, "ns_points", "ew_points"))}
    return tuple(
        FieldChange(_label(key), _shown(key, before.get(key), names), _shown(key, value, names))
        for key, value in sorted(after.items(), key=lambda item: order.get(item[0], len(order)))
        if before.get(key) != value
        and not (before == {} and value in (None, "", False))
        and not (key in ("adjustment_reason", "dispute_note") and value == reason)
    )


def result_history(
    *, board: Board | None = None, result: BoardResult | None = None
) -> list[HistoryLine]:
    """Every change to the results of `board` (or to the one `result`), table by table,
    oldest first."""
    found = ResultChange.objects.filter(result__board=board) if board else None
    if result is not None:
        found = ResultChange.objects.filter(result=result)
    if found is None:
        raise ValueError("result_history needs a board or a result")
    changes = list(
        found.select_related("result__table", "by__profile").order_by("result__table__number", "id")
    )
    ids = {
        value
        for change in changes
        for snap in (change.before or {}, change.after or {})
        for key, value in snap.items()
        if key in USER_KEYS and value is not None
    }
    users = get_user_model().objects.filter(pk__in=ids).select_related("profile") if ids else []
    names = {user.pk: player_name(user) for user in users}
    return [
        HistoryLine(
            table=change.result.table.number,
            kind=change.kind,
            kind_label=ResultChangeKind(change.kind).label,
            by=player_name(change.by) if change.by else _("the clock"),
            at=change.at,
            changes=_changes(change.before, change.after, names, change.reason),
            reason=change.reason,
        )
        for change in changes
    ]
