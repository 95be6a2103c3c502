"""The demo's simulated players: results at a human pace (`manage.py play_demo`).

Each table of an open round enters its boards at moments planned from the round's seed
(so a restarted loop keeps the same plan), through `results.submit_result` as one of its
seated players, and never after the bell: a late entry is the service's refusal.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from django.utils import timezone

from ..errors import ServiceError
from ..models import (
    Board,
    BoardResult,
    ResultState,
    Round,
    RoundStatus,
    Table,
    Tournament,
    TournamentStatus,
)
from ..services.results import submit_result
from ..services.simulator import (
    board_facts,
    plausible_entry,
    refuse_demo_data_unless_allowed,
    round_tables,
    seated_players,
)
from .seed import DEMO_NAME


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
