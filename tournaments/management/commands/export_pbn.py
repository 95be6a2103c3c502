"""Write a tournament's deals, travellers and ranking as a PBN 2.1 file."""

from tournaments.exports import pbn_export
from tournaments.exports.command import ExportCommand


class Command(ExportCommand):
    help = "Export a tournament's closed boards and ranking as PBN 2.1 (UTF-8)."

    def render(self, tournament) -> bytes:
        return pbn_export(tournament=tournament).encode("utf-8")
