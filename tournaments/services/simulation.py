"""Simulated tables: plausible results for real deals, and whole events played to the end.

A simulated table bids something near the deal's double-dummy par for the side with more
high-card points and takes about the double-dummy number of tricks, with the noise of
real play: partscores stopped short of game, the odd overbid, penalty doubles and
sacrifices, a trick more or less, weak deals passed out, boards left unfinished at the
bell. It is what the demo players, `manage.py simulate` and the benchmarks use.

Everything goes through the real services (`registration.register_pair`,
`clock.advance_tournament`, `results.submit_result` with a seated player as the user), so
a simulated event exercises the same code and the same checks as a real one.

Double-dummy solving (endplay's DDS, through `tournaments.double_dummy`, the one locked way
in) costs a large fraction of a second per deal, so each deal is solved once, in batches,
and kept in a process-wide cache: one table per board serves every table that plays it.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.utils import timezone
from django.utils.translation import gettext as _

import scoring

from .. import double_dummy as solver
from ..deals import hands_of, high_card_points
from ..errors import ServiceError
from ..models import (
    Board,
    BoardResult,
    Pair,
    PairMember,
    PairStatus,
    PlayerProfile,
    ResultState,
    Round,
    RoundStatus,
    Table,
    Tournament,
    TournamentStatus,
)
from . import clock
from .registration import register_pair
from .results import ContractEntry, submit_result

User = get_user_model()

SEATS = ("N", "E", "S", "W")
PARTNER = {"N": "S", "S": "N", "E": "W", "W": "E"}
LEFT_HAND = {"N": "E", "E": "S", "S": "W", "W": "N"}
SIDES = {"NS": ("N", "S"), "EW": ("E", "W")}
STRAINS = ("C", "D", "H", "S", "NT")  # bidding order, lowest first
GAME_LEVEL = {"C": 5, "D": 5, "H": 4, "S": 4, "NT": 3}
RANKS = "AKQJT98765432"

# Tricks taken against double dummy: mostly exactly, sometimes one off, rarely two.
TRICK_NOISE = ((0, 0.70), (-1, 0.13), (1, 0.12), (-2, 0.025), (2, 0.025))

Tricks = solver.Tricks  # {"N": {"C": 7, "D": 8, "H": 6, "S": 9, "NT": 8}, …}


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


# --- Double dummy ------------------------------------------------------------------------


def double_dummy_tricks(deals: Sequence[str]) -> list[Tricks]:
    """Double-dummy tricks per declarer and strain for each PBN deal (each solved once per
    process, in batches, through the locked solver adapter)."""
    return solver.tricks(deals)


@dataclass(frozen=True)
class DealFacts:
    """What a simulated table needs to know about a board to produce a result."""

    tricks: Tricks
    hands: dict[str, dict[str, str]]
    hcp: dict[str, int]
    vulnerability: str


def board_facts(boards: Iterable[Board]) -> dict[int, DealFacts]:
    """{board id: facts}, solving every unsolved deal of `boards` in one batch."""
    boards = list(boards)
    stored: dict[int, Tricks] = {}
    for board in boards:
        # A board already analysed (its round closed) carries its tricks; reuse them.
        data = getattr(board, "double_dummy", None)
        if isinstance(data, dict) and isinstance(data.get("tricks"), dict):
            stored[board.id] = data["tricks"]
    unsolved = [b for b in boards if b.id not in stored]
    for board, tricks in zip(
        unsolved, double_dummy_tricks([b.deal for b in unsolved]), strict=True
    ):
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


# --- A plausible result ------------------------------------------------------------------


def _side_of(seat: str) -> str:
    return "NS" if seat in ("N", "S") else "EW"


def _side_score(contract: str, declarer: str, tricks: int, vulnerability: str) -> int:
    ns = scoring.contract_score(contract, declarer, tricks, vulnerability)
    return ns if declarer in ("N", "S") else -ns


def _best_declarer(facts: DealFacts, side: str, strain: str, rng: random.Random) -> str:
    first, second = SIDES[side]
    a, b = facts.tricks[first][strain], facts.tricks[second][strain]
    if a == b:
        return rng.choice((first, second))
    return first if a > b else second


def _par_for_side(facts: DealFacts, side: str, rng: random.Random) -> tuple[str, str, int]:
    """(strain, declarer, makeable level) of the side's highest-scoring makeable contract.

    Level 0 when nothing makes: the side then plays its best strain at the one level.
    """
    best = None
    for strain in reversed(STRAINS):  # NT and majors first on equal scores
        declarer = _best_declarer(facts, side, strain, rng)
        tricks = facts.tricks[declarer][strain]
        level = min(tricks - 6, 7)
        if level < 1:
            key = (-10_000, tricks)
        else:
            key = (_side_score(f"{level}{strain}", declarer, tricks, facts.vulnerability), tricks)
        if best is None or key > best[0]:
            best = (key, strain, declarer, max(level, 0))
    return best[1], best[2], best[3]


def _bid_level(makeable: int, strain: str, rng: random.Random) -> int:
    """The level a real table reaches when double dummy says `makeable` is the limit."""
    game = GAME_LEVEL[strain]
    roll = rng.random()
    if makeable <= 0:
        return 1
    if makeable == 7:
        return 7 if roll < 0.2 else 6 if roll < 0.65 else game
    if makeable == 6:
        return 6 if roll < 0.55 else 7 if roll < 0.6 else game
    if makeable >= game:
        # Game bid, now and then a slam overbid (on eleven tricks) or a partscore underbid.
        if makeable >= 5 and roll < 0.1:
            return 6
        if roll < 0.2:
            return max(1, game - 1)
        return game
    if makeable == game - 1 and roll < 0.3:
        return game  # the optimistic game one trick short
    if roll < 0.15:
        return max(1, makeable - 1)
    if roll < 0.25:
        return makeable + 1
    return makeable


def _cheapest_above(level: int, strain: str, their_strain: str) -> int:
    return level if STRAINS.index(their_strain) > STRAINS.index(strain) else level + 1


def _trick_noise(rng: random.Random) -> int:
    roll = rng.random()
    for delta, weight in TRICK_NOISE:
        if roll < weight:
            return delta
        roll -= weight
    return 0


def _opening_lead(hand: dict[str, str], trump: str, rng: random.Random) -> str:
    """A sensible lead: top of touching honours, fourth best from length, else top."""
    suits = [s for s in ("S", "H", "D", "C") if hand[s] and s != trump] or [
        s for s in ("S", "H", "D", "C") if hand[s]
    ]
    longest = max(len(hand[s]) for s in suits)
    suit = rng.choice([s for s in suits if len(hand[s]) == longest])
    cards = hand[suit]
    touching = len(cards) >= 2 and RANKS.index(cards[1]) == RANKS.index(cards[0]) + 1
    if touching and cards[0] in "AKQJT":
        return suit + cards[0]
    if len(cards) >= 4:
        return suit + cards[3]
    return suit + cards[0]


def _opens(facts: DealFacts, seat: str) -> bool:
    # The rule of 20: points plus the lengths of the two longest suits.
    lengths = sorted((len(cards) for cards in facts.hands[seat].values()), reverse=True)
    return facts.hcp[seat] >= 12 or facts.hcp[seat] + lengths[0] + lengths[1] >= 20


def plausible_entry(facts: DealFacts, rng: random.Random) -> ContractEntry:
    """One table's result on a deal: contract, declarer, tricks and opening lead."""
    hcp_ns = facts.hcp["N"] + facts.hcp["S"]
    hcp_ew = facts.hcp["E"] + facts.hcp["W"]
    if not any(_opens(facts, seat) for seat in SEATS) and rng.random() < 0.75:
        return ContractEntry(contract="PASS")
    side = "NS" if hcp_ns > hcp_ew else "EW" if hcp_ew > hcp_ns else rng.choice(("NS", "EW"))
    strain, declarer, makeable = _par_for_side(facts, side, rng)
    level = _bid_level(makeable, strain, rng)
    dd_tricks = facts.tricks[declarer][strain]
    doubling = 0

    # The opponents may sacrifice over a game or slam when going down doubled costs less.
    if level >= GAME_LEVEL[strain] and level + 6 <= dd_tricks and rng.random() < 0.15:
        their_side = "EW" if side == "NS" else "NS"
        their_strain, their_declarer, _ = _par_for_side(facts, their_side, rng)
        their_level = _cheapest_above(level, strain, their_strain)
        if their_level <= 7:
            their_tricks = facts.tricks[their_declarer][their_strain]
            cost = _side_score(
                f"{their_level}{their_strain}X",
                their_declarer,
                their_tricks,
                facts.vulnerability,
            )
            ours = _side_score(f"{level}{strain}", declarer, dd_tricks, facts.vulnerability)
            if -cost < ours:
                strain, declarer, level, dd_tricks = (
                    their_strain,
                    their_declarer,
                    their_level,
                    their_tricks,
                )
                doubling = 1
    if doubling == 0:
        short = level + 6 - dd_tricks
        if (short >= 2 and rng.random() < 0.45) or (short == 1 and rng.random() < 0.1):
            doubling = 1  # a penalty double
        elif short <= -1 and level >= 3 and rng.random() < 0.02:
            doubling = 1  # doubled into game and it makes
    if doubling == 1 and level + 6 <= dd_tricks and rng.random() < 0.15:
        doubling = 2

    tricks = max(0, min(13, dd_tricks + _trick_noise(rng)))
    lead = _opening_lead(facts.hands[LEFT_HAND[declarer]], strain, rng)
    contract = f"{level}{strain}{'X' * doubling}"
    return ContractEntry(contract=contract, declarer=declarer, tricks=tricks, lead=lead)


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
    boards = list(Board.objects.filter(round=round).order_by("number"))
    facts = board_facts(boards)
    done = set(BoardResult.objects.filter(board__round=round).values_list("table_id", "board_id"))
    entered = 0
    for table in round_tables(round):
        players = seated_players(table)
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


def ensure_players(
    usernames: Sequence[str], *, names: Sequence[str] = (), password: str | None = None
) -> list:
    """Users for `usernames` (existing ones reused), each with a player profile.

    Created in bulk with one password hash shared by all, since hashing a password per
    player would dominate seeding a large field.
    """
    existing = {u.username: u for u in User.objects.filter(username__in=usernames)}
    missing = [name for name in usernames if name not in existing]
    if missing:
        hashed = make_password(password)
        User.objects.bulk_create(
            [User(username=name, password=hashed) for name in missing], batch_size=2000
        )
        created = list(User.objects.filter(username__in=missing))
        display = dict(zip(usernames, names, strict=False))
        # bulk_create sends no post_save, so the profile signal does not run.
        PlayerProfile.objects.bulk_create(
            [PlayerProfile(user=u, display_name=display.get(u.username, "")) for u in created],
            batch_size=2000,
            ignore_conflicts=True,
        )
        existing.update({u.username: u for u in created})
    return [existing[name] for name in usernames]


def register_pairs_in_bulk(*, tournament: Tournament, players: Sequence, at: datetime) -> list:
    """Confirmed pairs of consecutive `players` (1 with 2, 3 with 4, …), registration
    numbers in that order: the rows `register_pair` writes, in two statements.

    For fields of thousands of pairs built for benchmarks and tests, where registering
    pair by pair would measure nothing of interest. The per-pair checks are skipped;
    the database constraints (a player in one pair per tournament) still hold.
    """
    pairs = Pair.objects.bulk_create(
        [
            Pair(
                tournament=tournament,
                player1=players[2 * i],
                player2=players[2 * i + 1],
                status=PairStatus.CONFIRMED,
                proposed_at=at,
                confirmed_at=at,
                registration_no=i + 1,
            )
            for i in range(len(players) // 2)
        ],
        batch_size=2000,
    )
    PairMember.objects.bulk_create(
        [
            PairMember(tournament=tournament, pair=pair, user_id=user_id)
            for pair in pairs
            for user_id in (pair.player1_id, pair.player2_id)
        ],
        batch_size=4000,
    )
    return pairs


@dataclass
class SimulationReport:
    tournament: Tournament
    results_entered: int = 0
    rounds_played: int = 0
    events: list[str] = field(default_factory=list)
    seconds: float = 0.0


def _latest_round(tournament: Tournament) -> Round | None:
    return Round.objects.filter(tournament=tournament).order_by("-number").first()


def simulate_tournament(
    *,
    pairs: int,
    rounds: int,
    boards_per_round: int,
    scoring_method: str = "IMP",
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
    if scoring_method not in ("MP", "IMP", "XIMP"):
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
        current = _latest_round(tournament)
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


# --- The demo's players: results at a human pace -----------------------------------------


@dataclass(frozen=True)
class PlannedResult:
    at: datetime
    table_id: int
    board_number: int
    seed: str


def plan_round(
    round: Round, tables: Sequence[Table], board_numbers: Sequence[int], *, unfinished: float
) -> list[PlannedResult]:
    """When each table enters each of its boards: at random moments between 20 % and 90 %
    of the round, in board order, with a share `unfinished` never entered.

    Seeded by the round, so a restarted player loop keeps the same plan.
    """
    length = round.ends_at - round.starts_at
    plan = []
    for table in tables:
        rng = random.Random(f"plan:{round.id}:{table.id}")
        moments = sorted(rng.uniform(0.2, 0.9) for _ in board_numbers)
        for number, moment in zip(board_numbers, moments, strict=True):
            if rng.random() < unfinished:
                continue
            plan.append(
                PlannedResult(
                    at=round.starts_at + length * moment,
                    table_id=table.id,
                    board_number=number,
                    seed=f"result:{round.id}:{table.id}:{number}",
                )
            )
    return plan


def play_tick(
    *,
    now: datetime | None = None,
    tournaments: Iterable[Tournament] | None = None,
    unfinished: float = 0.06,
    log: Callable[[str], None] | None = None,
) -> int:
    """Enter the results that are due by `now` in the open rounds of `tournaments` (the
    running demo by default). Only a round that is open and whose bell has not rung is
    touched. Returns the number of results entered.
    """
    from .demo import DEMO_NAME

    refuse_demo_data_unless_allowed()
    now = now or timezone.now()
    say = log or (lambda message: None)
    if tournaments is None:
        tournaments = Tournament.objects.filter(name=DEMO_NAME, status=TournamentStatus.RUNNING)
    entered = 0
    for tournament in tournaments:
        rounds = list(
            Round.objects.filter(
                tournament=tournament, status__in=[RoundStatus.OPEN, RoundStatus.SCHEDULED]
            )
        )
        # Solve the next round's deals during the gap, not when its first result is due.
        for upcoming in rounds:
            if upcoming.status == RoundStatus.SCHEDULED:
                board_facts(Board.objects.filter(round=upcoming))
        for current in rounds:
            if not (
                current.status == RoundStatus.OPEN and current.starts_at <= now < current.ends_at
            ):
                continue
            entered += _play_round(current, now, unfinished, say)
    return entered


def _play_round(round: Round, now: datetime, unfinished: float, say) -> int:
    boards = {b.number: b for b in Board.objects.filter(round=round)}
    tables = {t.id: t for t in round_tables(round)}
    plan = plan_round(round, list(tables.values()), sorted(boards), unfinished=unfinished)
    done = set(
        BoardResult.objects.filter(board__round=round).values_list("table_id", "board__number")
    )
    due = [p for p in plan if p.at <= now and (p.table_id, p.board_number) not in done]
    if not due:
        return 0
    facts = board_facts(boards.values())
    entered = 0
    for planned in sorted(due, key=lambda p: p.at):
        table = tables[planned.table_id]
        rng = random.Random(planned.seed)
        entry = plausible_entry(facts[boards[planned.board_number].id], rng)
        try:
            result = submit_result(
                table=table,
                board_number=planned.board_number,
                entry=entry,
                user=rng.choice(seated_players(table)),
                now=now,
            )
        except ServiceError as error:
            # The bell may ring between the check above and this entry: that is the
            # service refusing a late result, as it should; the rest waits for next round.
            say(f"round {round.number} table {table.number}: {error}")
            break
        entered += 1
        played = (
            result.display_contract
            if result.state == ResultState.PLAYED
            else result.get_state_display()
        )
        say(
            f"{round.tournament.name} R{round.number} T{table.number} "
            f"board {planned.board_number}: {played} {result.result_relative} "
            f"by {result.declarer or '-'} ({result.ns_score:+d})"
        )
    return entered
