"""The embedded round clock: `advance` about once a second until SIGINT/SIGTERM."""

import signal
import threading

from django.core.management.base import BaseCommand
from django.db import close_old_connections

from tournaments.services.clock import advance
from tournaments.views.cached import warm


class Command(BaseCommand):
    help = "Run the in-process round clock (the embedded default; production uses Celery beat)."

    def add_arguments(self, parser):
        parser.add_argument("--interval", type=float, default=1.0, help="seconds between ticks")
        parser.add_argument("--once", action="store_true", help="tick once and exit")

    def handle(self, *args, interval: float, once: bool, **options):
        stop = threading.Event()

        def on_signal(signum, frame):
            self.stdout.write(f"run_clock: signal {signum}, stopping after this tick")
            stop.set()

        signal.signal(signal.SIGINT, on_signal)
        signal.signal(signal.SIGTERM, on_signal)
        self.stdout.write(f"run_clock: ticking every {interval:g}s")
        while not stop.is_set():
            close_old_connections()
            try:
                report = advance(driver="run_clock")
                for event in report.events:
                    self.stdout.write(f"run_clock: {event}")
                for tournament_id in report.moved:
                    warm(tournament_id=tournament_id)  # a no-op unless the cache is shared
            except Exception as error:  # keep ticking; the next tick retries the step
                self.stderr.write(f"run_clock: tick failed: {error!r}")
            if once:
                break
            stop.wait(interval)
        self.stdout.write("run_clock: stopped")
