"""Simulated events: plausible results for real deals, and whole events played to the end.

Simulated tables (the pure model in the top-level `simulation` package) enter their
results through the real services (`registration.register_pair`,
`clock.advance_tournament`, `results.submit_result` with a seated player as the user), so
a simulated event exercises the same code and the same checks as a real one. It is what
`manage.py simulate`, the demo (`tournaments.demo`) and the benchmarks use.

The double-dummy tricks a simulated table plays to come from the one locked adapter
(`tournaments.double_dummy`), which solves each deal once per process, in batches, and
keeps it for the board analysis (`services.analysis`) to add par to.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext as _

from simulation import DealFacts, plausible_result

from .. import double_dummy as solver
from ..deals import hands_of, high_card_points
from ..errors import ServiceError
from ..models import (
    Board,
    BoardResult,
    Round,
    RoundStatus,
    ScoringMethod,
    Table,
    Tournament,
    TournamentStatus,
)
from ..selectors.boards import board_numbers_at
from ..selectors.seating import boards_played
from . import analysis, clock
from .bulk_registration import ensure_players
from .registration import register_pair
from .results import ContractEntry, submit_result


class SimulationError(ServiceError):
    pass


class DemoDataRefused(ServiceError):
    status_code = 403


def refuse_demo_data_unless_allowed() -> None:
    """Production settings refuse the demo: it creates accounts with published passwords
    (`director` is a superuser) and plays made-up results into running events."""
    if not getattr(settings, "DEMO_DATA_ALLOWED", True):
        raise DemoDataRefused(
            _(
                "Demo data is refused under these settings (production): the demo creates "
                "accounts with published passwords and enters made-up results."
            )
        )


# --- What the simulated tables know of the boards ----------------------------------------


def board_facts(boards: Iterable[Board]) -> dict[int, DealFacts]:
    """{board id: facts}, solving every unsolved deal of `boards` in one batch."""
    boards = list(boards)
    stored: dict[int, solver.Tricks] = {}
    for board in boards:
        # A board already analysed (its round closed) carries its tricks; reuse them.
        if (analysed := analysis.double_dummy(board=board)) is not None:
            stored[board.id] = analysed.tricks
    unsolved = [b for b in boards if b.id not in stored]
    for board, tricks in zip(unsolved, solver.tricks([b.deal for b in unsolved]), strict=True):
        stored[board.id] = tricks
    facts = {}
    for board in boards:
        hands = hands_of(board.deal)
        facts[board.id] = DealFacts(
            tricks=stored[board.id],
            hands=hands,
            hcp={seat: high_card_points(hand) for seat, hand in hands.items()},
            vulnerability=board.vulnerability,
        )
    return facts


def plausible_entry(facts: DealFacts, rng: random.Random) -> ContractEntry:
    """One simulated table's result on a board, as the result service takes it."""
    result = plausible_result(facts, rng)
    return ContractEntry(
        contract=result.contract, declarer=result.declarer, tricks=result.tricks, lead=result.lead
    )


# --- Rounds and whole events -------------------------------------------------------------


def seated_players(table: Table) -> list:
    """The four players at `table` (needs ns_pair/ew_pair players selected)."""
    return [
        table.ns_pair.player1,
        table.ns_pair.player2,
        table.ew_pair.player1,
        table.ew_pair.player2,
    ]


def round_tables(round: Round) -> list[Table]:
    return list(
        Table.objects.filter(round=round)
        .select_related(
            "ns_pair__player1", "ns_pair__player2", "ew_pair__player1", "ew_pair__player2"
        )
        .order_by("number")
    )


def simulate_round_results(
    *, round: Round, rng: random.Random, unfinished: float = 0.0, now: datetime
) -> int:
    """Every table of `round` enters a plausible result for every board it has not yet
    entered, through `submit_result` as one of its seated players, except a random share
    `unfinished` of the boards, left for the bell to cut off. Returns the number entered.
    """
    tables = round_tables(round)
    # The round's boards, or every table's own set when board sets travel.
    played = boards_played(round=round, tables=tables)
    facts = board_facts(played)
    by_number = {b.number: b for b in played}
    done = set(BoardResult.objects.filter(table__round=round).values_list("table_id", "board_id"))
    entered = 0
    for table in tables:
        players = seated_players(table)
        numbers = board_numbers_at(table, round.tournament, round.number)
        boards = [by_number[n] for n in numbers]
        for board in boards:
            if (table.id, board.id) in done:
                continue
            if unfinished and rng.random() < unfinished:
                continue
            entry = plausible_entry(facts[board.id], rng)
            submit_result(
                table=table,
                board_number=board.number,
                entry=entry,
                user=rng.choice(players),
                now=now,
            )
            entered += 1
    return entered


@dataclass
class SimulationReport:
    tournament: Tournament
    results_entered: int = 0
    rounds_played: int = 0
    events: list[str] = field(default_factory=list)
    seconds: float = 0.0


def simulate_tournament(
    *,
    pairs: int,
    rounds: int,
    boards_per_round: int,
    scoring_method: str = ScoringMethod.IMP,
    unfinished: float = 0.05,
    seed: int | None = None,
    name: str | None = None,
    start_at: datetime | None = None,
    round_length: timedelta = timedelta(minutes=28),
    gap_length: timedelta = timedelta(0),
    player_prefix: str = "sim",
    player_usernames: Sequence[str] = (),
    player_names: Sequence[str] = (),
    player_password: str | None = None,
    created_by=None,
    description: str = "",
    progress: Callable[[str], None] | None = None,
) -> SimulationReport:
    """Create a tournament, register `pairs` pairs and play it to the end on a simulated
    clock: the clock starts it at `start_at`, tables enter results while each round is
    open, the clock rings each round's bell at its end time, until results are published.

    Only this tournament is advanced (`advance_tournament`), so other events in the
    database never see the simulated time. A clock running on the same database while
    the simulated times are past would close these rounds itself; that is detected and
    refused rather than producing an event with missing results.
    """
    refuse_demo_data_unless_allowed()
    if pairs < 2:
        raise SimulationError("A tournament needs at least two pairs.")
    if not 0 <= unfinished < 1:
        raise SimulationError("The unfinished share is from 0 up to (not including) 1.")
    if scoring_method not in ScoringMethod.values:
        raise SimulationError("The scoring method is MP, IMP or XIMP.")
    began = time.perf_counter()
    say = progress or (lambda message: None)
    rng = random.Random(seed)
    start_at = start_at or timezone.now().replace(microsecond=0)
    tournament = Tournament.objects.create(
        name=name or f"Simulated Swiss pairs #{rng.randrange(10_000):04d}",
        description=description,
        registration_opens_at=start_at - timedelta(days=1),
        start_at=start_at,
        rounds=rounds,
        boards_per_round=boards_per_round,
        round_length=round_length,
        gap_length=gap_length,
        scoring_method=scoring_method,
        created_by=created_by,
    )
    usernames = list(player_usernames) or [f"{player_prefix}{i + 1:04d}" for i in range(pairs * 2)]
    if len(usernames) < pairs * 2:
        raise SimulationError(f"{pairs} pairs need {pairs * 2} players.")
    players = ensure_players(usernames, names=player_names, password=player_password)
    for i in range(pairs):
        register_pair(
            tournament=tournament,
            usernames=[players[2 * i].username, players[2 * i + 1].username],
            by=None,  # the system: simulations run from commands, the demo and tests
            now=start_at - timedelta(hours=1),
        )
    say(f"{tournament.name}: {pairs} pairs registered, starting at {start_at:%Y-%m-%d %H:%M}")
    report = SimulationReport(tournament=tournament)
    _tick(report, tournament, start_at, say)

    for _step in range(rounds * 3 + 3):
        tournament.refresh_from_db()
        if tournament.status == TournamentStatus.FINISHED:
            break
        current = tournament.round_set.current()
        if current is None:
            raise SimulationError(f"{tournament.name} did not start.")
        if current.status == RoundStatus.SCHEDULED:
            _tick(report, tournament, current.starts_at, say)
            continue
        if current.status != RoundStatus.OPEN:
            raise SimulationError(f"Round {current.number} is {current.status}, not open.")
        # Tables finish, on average, a little before the bell.
        entered_at = current.starts_at + (current.ends_at - current.starts_at) * 0.8
        try:
            entered = simulate_round_results(
                round=current, rng=rng, unfinished=unfinished, now=entered_at
            )
        except ServiceError as error:
            raise SimulationError(
                f"Round {current.number} refused a simulated result ({error}); is a round "
                "clock running on this database? Simulate with a start time in the future."
            ) from error
        report.results_entered += entered
        report.rounds_played += 1
        expected = Table.objects.filter(round=current).count() * boards_per_round
        say(f"round {current.number}: {entered} of {expected} results entered")
        _tick(report, tournament, current.ends_at, say)
    else:
        raise SimulationError(f"{tournament.name} did not finish.")
    report.seconds = time.perf_counter() - began
    return report


def _tick(report: SimulationReport, tournament: Tournament, now: datetime, say) -> None:
    for event in clock.advance_tournament(tournament_id=tournament.id, now=now):
        report.events.append(event)
        say(event)
