"""Standard result exports: PBN 2.1 (deals and travellers) and USEBIO 1.2 (results XML).

`pbn_export(tournament)` and `usebio_export(tournament)` return the file's text and
bytes; both refuse with `NothingToExport` (409) until a round has closed.

Each format writes its own event (`EXPORTS`, keyed by the format's key): a pairs event its
boards' travellers and its field's standings; a team event (RULES 11) USEBIO's team event
(TEAM participants, one MATCH per match with both rooms' traveller lines) and PBN with each
board once per room.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..models import FormatKey, Tournament
from . import pbn, usebio
from .data import NothingToExport, collect
from .team_data import collect_teams


@dataclass(frozen=True)
class FormatExport:
    """How one format's event is exported: what is read, and how each file writes it."""

    collect: Callable[..., Any]  # collect(tournament=…): the event's data, or NothingToExport
    render: str  # the name of its writer in `pbn` and in `usebio` (looked up at each call)


PAIRS_EXPORT = FormatExport(collect=collect, render="render")

# The formats' exports by key (`Tournament.format_key`): one entry a format.
EXPORTS: dict[FormatKey, FormatExport] = {
    FormatKey.SWISS_PAIRS: PAIRS_EXPORT,
    FormatKey.MOVEMENT_PAIRS: PAIRS_EXPORT,
    FormatKey.TEAM_MATCHES: FormatExport(collect=collect_teams, render="render_teams"),
    # A club week's boards are pairs' boards, exported once the week has closed.
    FormatKey.CLUB: PAIRS_EXPORT,
}


def export_of(tournament: Tournament) -> FormatExport:
    return EXPORTS[tournament.format_key]


def pbn_export(*, tournament: Tournament) -> str:
    export = export_of(tournament)
    return getattr(pbn, export.render)(export.collect(tournament=tournament))


def usebio_export(*, tournament: Tournament) -> bytes:
    export = export_of(tournament)
    return getattr(usebio, export.render)(export.collect(tournament=tournament))


__all__ = [
    "EXPORTS",
    "FormatExport",
    "NothingToExport",
    "collect",
    "collect_teams",
    "export_of",
    "pbn_export",
    "usebio_export",
]
