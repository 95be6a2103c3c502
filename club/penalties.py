"""Disconnection penalties (断线扣分, SPEC 13).

A seated player whose connection stays lost for longer than the grace period (60 s by
default) while a board is in play has disconnected once; a robot holds the seat until they
come back, and the board's result stands for the other three. Each disconnection costs:
handicap play −20 points of the player's total, duplicate and full-field play −16 of the
week's points (and a Rate of 0 on that board, which is the Rate's business, not this one's).

"Once per disconnection": one outage is one disconnection however long it lasts and however
many boards it spans, and the same outage reported twice (two sockets, a retry) or in
overlapping pieces is still one. `count_disconnections` merges a player's overlapping or
touching outages before counting the ones longer than the grace period. Whether a board was
in play during an outage is the caller's to decide: only such outages are given here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from types import MappingProxyType
from typing import Generic

from .deal import P, frozen
from .errors import ClubError, gettext_noop

HANDICAP = "handicap"
DUPLICATE = "duplicate"
FULL_FIELD = "full_field"
SYSTEMS = (HANDICAP, DUPLICATE, FULL_FIELD)

#: what a penalty is taken from
TOTAL = "total"
WEEK = "week"

DEFAULT_GRACE = timedelta(seconds=60)


@dataclass(frozen=True)
class Penalty:
    """Points per disconnection (negative) and the tally they come off: the player's
    ``total`` (handicap) or the ``week``'s points (duplicate, full field)."""

    points: int
    taken_from: str


#: SPEC 13's penalties, per scoring system
DISCONNECTION_PENALTIES: Mapping[str, Penalty] = MappingProxyType(
    {
        HANDICAP: Penalty(-20, TOTAL),
        DUPLICATE: Penalty(-16, WEEK),
        FULL_FIELD: Penalty(-16, WEEK),
    }
)


def validate_system(system: object) -> str:
    if system not in DISCONNECTION_PENALTIES:
        raise ClubError(
            gettext_noop("a club scoring system is one of %(systems)s, got %(system)s"),
            systems=", ".join(SYSTEMS),
            system=repr(system),
        )
    return str(system)


@dataclass(frozen=True)
class Outage(Generic[P]):
    """A seated player's lost connection while a board was in play: from ``lost_at``
    until ``back_at`` (None: not back yet)."""

    player: P
    lost_at: datetime
    back_at: datetime | None = None

    def __post_init__(self) -> None:
        if self.back_at is not None and self.back_at < self.lost_at:
            raise ClubError(
                gettext_noop("%(player)s came back at %(back)s, before being lost at %(lost)s"),
                player=str(self.player),
                back=self.back_at.isoformat(),
                lost=self.lost_at.isoformat(),
            )


def count_disconnections(
    outages: Iterable[Outage[P]], *, now: datetime, grace: timedelta = DEFAULT_GRACE
) -> Mapping[P, int]:
    """Each player's disconnections: their outages, overlapping or touching ones merged
    into one, that lasted longer than ``grace`` (one still open lasts until ``now``).
    Players with none are left out."""
    if grace < timedelta(0):
        raise ClubError(gettext_noop("the grace period cannot be negative"))
    spans: dict[P, list[tuple[datetime, datetime]]] = {}
    for outage in outages:
        end = now if outage.back_at is None else outage.back_at
        spans.setdefault(outage.player, []).append((outage.lost_at, max(end, outage.lost_at)))
    counts: dict[P, int] = {}
    for player, player_spans in spans.items():
        merged: list[list[datetime]] = []
        for start, end in sorted(player_spans):
            if merged and start <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], end)
            else:
                merged.append([start, end])
        count = sum(1 for start, end in merged if end - start > grace)
        if count:
            counts[player] = count
    return frozen(counts)


def disconnection_penalty(system: str, disconnections: int) -> int:
    """The points ``disconnections`` cost in ``system`` (≤ 0), off `Penalty.taken_from`."""
    penalty = DISCONNECTION_PENALTIES[validate_system(system)]
    if (
        isinstance(disconnections, bool)
        or not isinstance(disconnections, int)
        or disconnections < 0
    ):
        raise ClubError(
            gettext_noop("a number of disconnections is a whole number from 0, got %(count)s"),
            count=repr(disconnections),
        )
    return penalty.points * disconnections


def disconnection_penalties(
    system: str,
    outages: Iterable[Outage[P]],
    *,
    now: datetime,
    grace: timedelta = DEFAULT_GRACE,
) -> Mapping[P, int]:
    """Each disconnected player's penalty in ``system``: `count_disconnections` times the
    system's points. Players who never disconnected are left out."""
    validate_system(system)
    counts = count_disconnections(outages, now=now, grace=grace)
    return frozen({player: disconnection_penalty(system, n) for player, n in counts.items()})
