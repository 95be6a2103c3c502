"""Demo data for `make run`: an organiser login, a live event that plays itself and a
finished one (see tournaments.demo)."""

import logging

from django.core.management.base import BaseCommand, CommandError
from django.urls import reverse
from django.utils import timezone

from tournaments.demo import (
    DEMO_ORGANISER,
    DEMO_PASSWORD,
    DEMO_PLAYER_PASSWORD,
    ensure_demo,
)
from tournaments.errors import ServiceError


class Command(BaseCommand):
    help = (
        "Create the demo organiser, a live demo tournament starting within a minute (unless "
        "one is on schedule) and a finished demo tournament (unless there is one)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--pairs", type=int, default=14)
        parser.add_argument("--rounds", type=int, default=5)
        parser.add_argument("--boards", type=int, default=3, help="boards per round")
        parser.add_argument("--round-minutes", type=float, default=2.0)
        parser.add_argument("--gap-seconds", type=float, default=15.0)
        parser.add_argument("--starts-in", type=float, default=30, help="seconds from now")
        parser.add_argument(
            "--no-finished", action="store_true", help="skip the finished (simulated) demo"
        )

    def handle(self, *args, **o):
        # The finished demo is played on a simulated clock; its log would only repeat.
        logging.getLogger("tournaments.services.clock").setLevel(logging.WARNING)
        try:
            setup = ensure_demo(
                pairs=o["pairs"],
                rounds=o["rounds"],
                boards_per_round=o["boards"],
                round_minutes=o["round_minutes"],
                gap_seconds=o["gap_seconds"],
                starts_in_seconds=o["starts_in"],
                finished=not o["no_finished"],
            )
        except ServiceError as error:
            raise CommandError(str(error)) from error
        from tournaments.demo.online import SEATS, ensure_online_demos, seat_offer

        try:
            online = ensure_online_demos()
        except ServiceError as error:
            raise CommandError(str(error)) from error
        for made in online:
            setup.replaced.extend(made.removed)
        from tournaments.demo.club import ensure_club_demo

        try:
            ensure_club_demo()
        except ServiceError as error:
            raise CommandError(str(error)) from error
        for name in setup.replaced:
            self.stdout.write(f"Replaced a stale demo: {name}")
        live = setup.live
        verb = "created" if setup.live_created else "already on schedule"
        start = timezone.localtime(live.start_at)
        self.stdout.write(
            self.style.SUCCESS(
                f"Live demo “{live.name}” (id {live.id}) {verb}: starts {start:%H:%M:%S}, "
                f"{live.rounds} rounds × {live.boards_per_round} boards, "
                f"{live.round_length.total_seconds() / 60:g}-minute rounds; watch it at "
                f"{reverse('tournament', args=[live.id])}"
            )
        )
        for made in online:
            t = made.tournament
            verb = "created" if made.created else "already on schedule"
            self.stdout.write(
                self.style.SUCCESS(
                    f"Online demo “{t.name}” (id {t.id}) {verb}: robots play it card by card, "
                    f"{t.round_length.total_seconds() / 60:g}-minute rounds of "
                    f"{t.boards_per_round} boards; watch at {reverse('tournament', args=[t.id])}"
                )
            )
        offer = seat_offer(tournaments=[made.tournament for made in online])
        if offer is not None and offer.usernames:
            self.stdout.write(
                self.style.SUCCESS(
                    f"Take a seat: log in as {offer.usernames[0]} (password "
                    f"“{offer.password}”; {SEATS.username_prefix}01 … are its players) and "
                    f"the robot in that seat leaves."
                )
            )
        if setup.finished is not None:
            verb = "simulated" if setup.finished_created else "already there"
            self.stdout.write(
                self.style.SUCCESS(
                    f"Finished demo “{setup.finished.name}” (id {setup.finished.id}) {verb}: "
                    f"results at {reverse('results', args=[setup.finished.id])}"
                )
            )
        self.stdout.write(
            self.style.SUCCESS(
                f"Organiser login for /admin/: username “{DEMO_ORGANISER}”, "
                f"password “{DEMO_PASSWORD}”; players player01 … log in with "
                f"“{DEMO_PLAYER_PASSWORD}”."
            )
        )
