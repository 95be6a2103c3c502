"""The embedded round clock: `live.clock.tick` about once a second until SIGINT/SIGTERM.

The tick warms the moved tournaments' pages in this process (only where the cache is
shared) and then wakes the clock's analysis thread, which solves the boards of the rounds
that have closed (`analysis.analyse_pending_boards`, a batch at a time) while the clock
keeps ticking: a batch takes seconds, a bell must not wait for it. `--once` analyses them
all before it exits.
"""

import signal
import threading

from django.core.management.base import BaseCommand
from django.db import close_old_connections, connection

from tournaments.live.clock import tick
from tournaments.services import analysis

# How long a stop waits for the analysis batch in progress (its boards are otherwise
# solved again once their claim expires).
STOP_WAIT = 30


class BoardAnalysis(threading.Thread):
    """Solves boards whenever the clock wakes it, until it is told to stop. A failure is
    written to stderr and never reaches the clock; the boards are tried again later."""

    def __init__(self, *, stop: threading.Event, stderr):
        super().__init__(name="board-analysis", daemon=True)
        self.stop = stop
        self.stderr = stderr
        self.woken = threading.Event()

    def wake(self) -> None:
        self.woken.set()

    def run(self) -> None:
        try:
            while not self.stop.is_set():
                self.woken.wait()
                self.woken.clear()
                if self.stop.is_set():
                    break
                close_old_connections()
                try:
                    # One batch per call: the stop signal is heard between batches.
                    while not self.stop.is_set() and analysis.analyse_pending_boards(
                        limit=analysis.BATCH
                    ):
                        pass
                except Exception as error:
                    self.stderr.write(f"run_clock: board analysis failed: {error!r}")
        finally:
            connection.close()  # this thread's own connection


class Command(BaseCommand):
    help = "Run the in-process round clock (the embedded default; production uses Celery beat)."

    def add_arguments(self, parser):
        parser.add_argument("--interval", type=float, default=1.0, help="seconds between ticks")
        parser.add_argument(
            "--once", action="store_true", help="tick once, analyse the closed boards, exit"
        )

    def handle(self, *args, interval: float, once: bool, **options):
        stop = threading.Event()

        def on_signal(signum, frame):
            self.stdout.write(f"run_clock: signal {signum}, stopping after this tick")
            stop.set()

        signal.signal(signal.SIGINT, on_signal)
        signal.signal(signal.SIGTERM, on_signal)
        analyser = None if once else BoardAnalysis(stop=stop, stderr=self.stderr)
        if analyser is not None:
            analyser.start()

        def analyse_all() -> None:  # --once: every closed board before the exit
            try:
                analysis.analyse_pending_boards(limit=None)
            except Exception as error:
                self.stderr.write(f"run_clock: board analysis failed: {error!r}")

        self.stdout.write(f"run_clock: ticking every {interval:g}s")
        while not stop.is_set():
            close_old_connections()
            try:
                report = tick(
                    driver="run_clock",
                    analyse=analyse_all if analyser is None else analyser.wake,
                )
                for event in report.events:
                    self.stdout.write(f"run_clock: {event}")
            except Exception as error:  # keep ticking; the next tick retries the step
                self.stderr.write(f"run_clock: tick failed: {error!r}")
            if once:
                break
            stop.wait(interval)
        if analyser is not None:
            # A batch in progress runs inside DDS; exiting under it could crash the exit.
            analyser.wake()
            analyser.join(timeout=STOP_WAIT)
            if analyser.is_alive():
                self.stderr.write("run_clock: left a board analysis batch unfinished")
        self.stdout.write("run_clock: stopped")
