"""Write a tournament's results as USEBIO 1.2 XML."""

from tournaments.exports import usebio_export
from tournaments.exports.command import ExportCommand


class Command(ExportCommand):
    help = "Export a tournament's results as USEBIO 1.2 XML."

    def render(self, tournament) -> bytes:
        return usebio_export(tournament=tournament)
