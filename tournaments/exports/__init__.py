"""Standard result exports: PBN 2.1 (deals and travellers) and USEBIO 1.2 (results XML).

`pbn_export(tournament)` and `usebio_export(tournament)` return the file's text and
bytes; both refuse with `NothingToExport` (409) until a round has closed.
"""

from __future__ import annotations

from . import pbn, usebio
from .data import NothingToExport, collect


def pbn_export(*, tournament) -> str:
    return pbn.render(collect(tournament=tournament))


def usebio_export(*, tournament) -> bytes:
    return usebio.render(collect(tournament=tournament))


__all__ = ["NothingToExport", "collect", "pbn_export", "usebio_export"]
