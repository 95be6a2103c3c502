"""`manage.py simulate`: a whole Swiss-pairs event played by simulated tables, to the end."""

import logging
from datetime import timedelta

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from tournaments import selectors
from tournaments.errors import ServiceError
from tournaments.models import ScoringMethod
from tournaments.services import analysis
from tournaments.services.simulator import simulate_tournament


class Command(BaseCommand):
    help = (
        "Create players and a tournament, register the pairs and play every round on a "
        "simulated clock, entering plausible double-dummy-based results through the "
        "services; prints progress and the final standings."
    )

    def add_arguments(self, parser):
        parser.add_argument("--pairs", type=int, default=16)
        parser.add_argument("--rounds", type=int, default=5)
        parser.add_argument("--boards", type=int, default=4, help="boards per round")
        parser.add_argument(
            "--scoring", choices=ScoringMethod.values, default=ScoringMethod.IMP.value
        )
        parser.add_argument(
            "--unfinished",
            type=float,
            default=0.05,
            help="share of boards left unfinished for the bell to cut off (e.g. 0.05)",
        )
        parser.add_argument("--seed", type=int, default=None, help="for a reproducible event")
        parser.add_argument("--name", default=None)
        parser.add_argument("--round-minutes", type=float, default=28.0)
        parser.add_argument("--gap-minutes", type=float, default=0.0)
        parser.add_argument(
            "--start",
            default=None,
            help="simulated start time, ISO 8601 (default: now; the rounds then run in "
            "simulated time ahead, where a live round clock never interferes)",
        )
        parser.add_argument("--top", type=int, default=10, help="standings rows to print")

    def handle(self, *args, **o):
        # The progress lines already say what the clock did; its log would repeat them.
        logging.getLogger("tournaments.services.clock").setLevel(logging.WARNING)
        start_at = None
        if o["start"]:
            start_at = parse_datetime(o["start"])
            if start_at is None:
                raise CommandError(f"--start {o['start']!r} is not an ISO 8601 date and time")
            if timezone.is_naive(start_at):
                start_at = timezone.make_aware(start_at)
        try:
            report = simulate_tournament(
                pairs=o["pairs"],
                rounds=o["rounds"],
                boards_per_round=o["boards"],
                scoring_method=o["scoring"],
                unfinished=o["unfinished"],
                seed=o["seed"],
                name=o["name"],
                start_at=start_at,
                round_length=timedelta(minutes=o["round_minutes"]),
                gap_length=timedelta(minutes=o["gap_minutes"]),
                progress=lambda message: self.stdout.write(f"  {message}"),
            )
            # The hand records' analysis, here rather than left to a round clock that may
            # not be running on this database (the deals are solved already: par only).
            analysed = analysis.analyse_pending_boards(
                tournament_id=report.tournament.id, limit=None
            )
        except ServiceError as error:
            raise CommandError(str(error)) from error
        tournament = report.tournament
        self.stdout.write(
            self.style.SUCCESS(
                f"{tournament.name} (id {tournament.id}): {report.rounds_played} rounds, "
                f"{report.results_entered} results entered, {report.seconds:.1f} s; "
                f"hand records analysed: {analysed}"
            )
        )
        unit = tournament.points_unit
        self.stdout.write(f"{'rank':>4}  {'pair':<40} {'total':>12}  {'boards':>6}  {'MP':>4}")
        for row in selectors.standings(tournament=tournament)[: o["top"]]:
            rank = str(row.rank) if row.rank else "–"
            self.stdout.write(
                f"{rank:>4}  {row.names[:40]:<40} {row.total:>8.2f} {unit:<3}"
                f"  {row.boards_completed:>6}  {row.master_points:>4g}"
            )
