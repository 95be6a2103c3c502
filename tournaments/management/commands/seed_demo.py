"""Demo data for `make run`: an organiser login and a tournament that plays itself."""

from django.core.management.base import BaseCommand

from tournaments.services.demo import DEMO_ORGANISER, DEMO_PASSWORD, ensure_demo


class Command(BaseCommand):
    help = "Create the demo organiser and (if none is upcoming or running) a demo tournament."

    def add_arguments(self, parser):
        parser.add_argument("--pairs", type=int, default=14)
        parser.add_argument("--rounds", type=int, default=5)
        parser.add_argument("--boards", type=int, default=3, help="boards per round")
        parser.add_argument("--round-minutes", type=float, default=2.0)
        parser.add_argument("--starts-in", type=float, default=45, help="seconds from now")

    def handle(self, *args, pairs, rounds, boards, round_minutes, starts_in, **options):
        tournament, created = ensure_demo(
            pairs=pairs,
            rounds=rounds,
            boards_per_round=boards,
            round_minutes=round_minutes,
            starts_in_seconds=starts_in,
        )
        verb = "created" if created else "already there"
        self.stdout.write(
            self.style.SUCCESS(
                f"Demo tournament “{tournament.name}” {verb}: "
                f"starts {tournament.start_at:%H:%M:%S} UTC, "
                f"{tournament.rounds} rounds × {tournament.boards_per_round} boards."
            )
        )
        self.stdout.write(
            self.style.SUCCESS(
                f"Organiser login for /admin/: username “{DEMO_ORGANISER}”, "
                f"password “{DEMO_PASSWORD}”."
            )
        )
