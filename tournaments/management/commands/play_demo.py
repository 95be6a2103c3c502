"""The demo's simulated players: results at a human pace until SIGINT/SIGTERM."""

import signal
import threading

from django.core.management.base import BaseCommand, CommandError
from django.db import close_old_connections

from tournaments.demo import play_tick
from tournaments.errors import ServiceError
from tournaments.models import Tournament, TournamentStatus
from tournaments.services.simulator import refuse_demo_data_unless_allowed


class Command(BaseCommand):
    help = (
        "Play the running demo tournament: every table enters its boards at random "
        "moments of each open round (wall-clock time), some leave one unfinished."
    )

    def add_arguments(self, parser):
        parser.add_argument("--interval", type=float, default=1.0, help="seconds between ticks")
        parser.add_argument(
            "--tournament",
            type=int,
            action="append",
            default=None,
            help="play this tournament (id) instead of the demo; may be repeated",
        )
        parser.add_argument(
            "--unfinished", type=float, default=0.06, help="share of boards never entered"
        )
        parser.add_argument("--once", action="store_true", help="tick once and exit")
        parser.add_argument("--quiet", action="store_true", help="do not print each result")

    def handle(self, *args, interval, tournament, unfinished, once, quiet, **options):
        try:  # before the loop, which keeps playing through a failed tick
            refuse_demo_data_unless_allowed()
        except ServiceError as error:
            raise CommandError(str(error)) from error
        stop = threading.Event()

        def on_signal(signum, frame):
            self.stdout.write(f"play_demo: signal {signum}, stopping after this tick")
            stop.set()

        signal.signal(signal.SIGINT, on_signal)
        signal.signal(signal.SIGTERM, on_signal)

        def log(message: str) -> None:
            if not quiet:
                self.stdout.write(f"play_demo: {message}")

        self.stdout.write("play_demo: simulated tables are playing the demo")
        while not stop.is_set():
            close_old_connections()
            try:
                chosen = (
                    Tournament.objects.filter(pk__in=tournament, status=TournamentStatus.RUNNING)
                    if tournament
                    else None
                )
                play_tick(tournaments=chosen, unfinished=unfinished, log=log)
            except Exception as error:  # keep playing; the next tick retries
                self.stderr.write(f"play_demo: tick failed: {error!r}")
            if once:
                break
            stop.wait(interval)
        self.stdout.write("play_demo: stopped")
