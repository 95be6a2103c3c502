"""Robots in the empty seats of online tournaments, through the live table server."""

import asyncio
import signal

import uvloop
from django.core.management.base import BaseCommand, CommandError

from tournaments.models import PlayMode, Tournament
from tournaments.robots.client import Pace
from tournaments.robots.runner import Options, drive


def _pace(text: str) -> Pace:
    low, _, high = text.partition("-")
    try:
        pace = Pace(float(low), float(high or low))
    except ValueError:
        raise CommandError(f"--pace is seconds or a range, e.g. 2-6; got {text!r}") from None
    if not 0 <= pace.low <= pace.high:
        raise CommandError(f"--pace: 0 <= low <= high; got {text!r}")
    return pace


class Command(BaseCommand):
    help = (
        "Robots take every seat of the tournaments' open rounds whose player has not "
        "logged in since they started, and bid and play over the WebSocket protocol, "
        "round after round; a player who logs in takes their seat back. With --all-online, "
        "also the club's robot seats and the seats of players whose connection was lost."
    )

    def add_arguments(self, parser):
        parser.add_argument("tournament", nargs="*", type=int, help="tournament ids")
        parser.add_argument(
            "--all-online",
            action="store_true",
            help="every running online tournament, as they come (the demo)",
        )
        parser.add_argument(
            "--demo",
            action="store_true",
            help="the online demos: their seats, and the next events as they end",
        )
        parser.add_argument("--url", default="ws://127.0.0.1:8000", help="the server's base")
        parser.add_argument("--pace", default="2-6", help="seconds before each action: 2-6, 0")
        parser.add_argument(
            "--claim-after", type=int, default=None, help="declarer claims after n tricks"
        )
        parser.add_argument(
            "--heuristic", action="store_true", help="plan contracts without the solver"
        )
        parser.add_argument(
            "--double-dummy", action="store_true", help="play the solver's cards (slower)"
        )
        parser.add_argument(
            "--until-finished", action="store_true", help="stop when the tournaments finish"
        )
        parser.add_argument(
            "--club-all-seats",
            action="store_true",
            help="every seat of the club's playing tables, not only the robots' (a simulation)",
        )

    def handle(self, *args, tournament, all_online, demo, url, double_dummy, pace,
               claim_after, heuristic, until_finished, club_all_seats, **options):  # fmt: skip
        if not tournament and not all_online and not demo:
            raise CommandError("Name the tournaments (ids), or give --all-online or --demo.")
        hook = None
        names: tuple[str, ...] = ()
        if demo:
            from tournaments.demo.online import DEMO_ONLINE_NAMES, ensure_online_demos
            from tournaments.errors import ServiceError
            from tournaments.services.simulator import refuse_demo_data_unless_allowed

            try:
                refuse_demo_data_unless_allowed()
            except ServiceError as error:
                raise CommandError(str(error)) from error

            names = DEMO_ONLINE_NAMES

            from tournaments.demo.club import ensure_club_demo

            def hook():
                for table in ensure_club_demo():
                    self.stdout.write(f"play_robots: the demo's club table {table.pk} formed")
                for made in ensure_online_demos():
                    if made.created:
                        self.stdout.write(
                            f"play_robots: the next online demo, id {made.tournament.pk}: "
                            f"{made.tournament.name}"
                        )

        if tournament:
            found = set(
                Tournament.objects.filter(pk__in=tournament, play=PlayMode.ONLINE).values_list(
                    "pk", flat=True
                )
            )
            missing = sorted(set(tournament) - found)
            if missing:
                raise CommandError(f"Not online tournaments: {missing}")
        base = url.rstrip("/").replace("http://", "ws://").replace("https://", "wss://")
        settings = Options(
            base=base,
            pace=_pace(pace),
            claim_after=claim_after,
            heuristic=heuristic,
            names=names,
            double_dummy=double_dummy,
            club_all_seats=club_all_seats,
        )
        self.stdout.write(f"play_robots: robots playing at {base}")
        # uvloop (as uvicorn uses): hundreds of robot sockets cost less of the machine.
        counts = uvloop.run(
            self._run(tournament or None, settings, until_finished and bool(tournament), hook)
        )
        self.stdout.write(f"play_robots: stopped {counts}")

    async def _run(self, ids, settings, until_finished, hook):
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, stop.set)
        return await drive(
            tournament_ids=ids,
            options=settings,
            stop=stop,
            log=lambda message: self.stdout.write(f"play_robots: {message}"),
            until_finished=until_finished,
            before_poll=hook,
        )
