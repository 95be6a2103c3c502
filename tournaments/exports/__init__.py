"""Standard result exports: PBN 2.1 (deals and travellers) and USEBIO 1.2 (results XML).

`pbn_export(tournament)` and `usebio_export(tournament)` return the file's text and
bytes; both refuse with `NothingToExport` (409) until a round has closed.

A team event (RULES 11) is written as one: USEBIO's team event (TEAM participants, one
MATCH per match with both rooms' traveller lines) and PBN with each board once per room.
"""

from __future__ import annotations

from . import pbn, usebio
from .data import NothingToExport, collect
from .team_data import collect_teams


def pbn_export(*, tournament) -> str:
    if tournament.is_teams:
        return pbn.render_teams(collect_teams(tournament=tournament))
    return pbn.render(collect(tournament=tournament))


def usebio_export(*, tournament) -> bytes:
    if tournament.is_teams:
        return usebio.render_teams(collect_teams(tournament=tournament))
    return usebio.render(collect(tournament=tournament))


__all__ = ["NothingToExport", "collect", "collect_teams", "pbn_export", "usebio_export"]
