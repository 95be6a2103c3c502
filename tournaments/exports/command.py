"""Shared body of the export management commands: find the tournament, write the file."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from tournaments.errors import ServiceError
from tournaments.models import Tournament


class ExportCommand(BaseCommand):
    def add_arguments(self, parser):
        parser.add_argument("tournament_id", type=int)
        parser.add_argument("-o", "--output", help="file to write (default: standard output)")

    def render(self, tournament) -> bytes:
        raise NotImplementedError

    def handle(self, *args, tournament_id, output, **options):
        tournament = Tournament.objects.filter(pk=tournament_id).first()
        if tournament is None:
            raise CommandError(f"There is no tournament {tournament_id}.")
        try:
            content = self.render(tournament)
        except ServiceError as error:
            raise CommandError(str(error)) from None
        if output:
            Path(output).write_bytes(content)
            self.stderr.write(f"Wrote {output}")
        else:
            self.stdout.write(content.decode("utf-8"), ending="")
