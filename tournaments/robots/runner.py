"""The robots of whole tournaments: every robot-driven seat of each open round, round
after round, each seat a `client.play_seat` task (see the package's docstring for
which seats robots take and how a person takes theirs back).

The database is read in worker threads (`asyncio.to_thread`), once a second: the open
rounds, their tables' seats and boards, who logged in. The plans (the contract each
table's robots bid toward) are drawn near the double-dummy par of each deal
(`simulation.robot.plan_of`, through the one locked solver) or, with ``heuristic``,
from points and fits alone.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.contrib.auth import get_user_model
from django.db import close_old_connections, connections
from django.db.models import Q
from django.utils import timezone

from simulation.robot import Plan, heuristic_plan, plan_of

from ..deals import hands_of
from ..models import (
    EVENT_FORMATS,
    Board,
    PlayMode,
    ProgramSeat,
    Round,
    RoundStatus,
    Table,
    TableDirection,
    TableDirectionKind,
    Tournament,
    TournamentStatus,
    played_in,
)
from ..selectors import table_seats
from ..services.simulator import board_facts
from ..services.tokens import ROBOT_TOKEN_DAYS, issue_robot_token, revoke_tokens
from . import club
from .client import CLOSED, DONE, GAVE_UP, BoardJob, Pace, SeatJob, play_seat

logger = logging.getLogger("tournaments.robots")

# A player who logged in since the robots started holds their seats this long after
# the login (a robot takes an empty seat again after that).
HUMAN_HOLDS = timedelta(minutes=30)
# The robots' tokens expire a day after they are issued (`issue_robot_token`): a seat's
# new runs get a fresh one once its token is half that old, so no run starts on a token
# about to expire; every token a run issued is revoked when it stops.
RENEW_TOKENS_AFTER = timedelta(days=ROBOT_TOKEN_DAYS) / 2


@dataclass
class RobotTokens:
    """The tokens one run of the robots issued: a live one per player, and every one."""

    live: dict[int, tuple[str, datetime]] = field(default_factory=dict)  # user -> key, issued
    issued: list = field(default_factory=list)  # every ApiToken, to revoke at the stop

    def key_for(self, user, now: datetime) -> str:
        held = self.live.get(user.pk)
        if held is None or now - held[1] >= RENEW_TOKENS_AFTER:
            token, key = issue_robot_token(user=user, now=now)
            self.issued.append(token)
            held = self.live[user.pk] = (key, now)
        return held[0]

    def revoke_all(self) -> int:
        """Revoke every token this run issued (the seats' sockets then close)."""
        revoked = revoke_tokens(tokens=self.issued)
        self.live.clear()
        return revoked


@dataclass(frozen=True)
class Options:
    base: str = "ws://127.0.0.1:8000"
    pace: Pace = Pace(2.0, 6.0)
    claim_after: int | None = None
    heuristic: bool = False
    poll: float = 1.0
    names: tuple[str, ...] = ()  # only tournaments of these names (the demo's)
    double_dummy: bool = False  # cards from the solver (the demo), not the rule of thumb
    club_all_seats: bool = False  # every seat of the club's tables (the simulated week)


@dataclass(frozen=True)
class _Seat:
    job: SeatJob
    user_id: int
    # The task's key: (table, seat) in an event; (table, seat, board) at the club, whose
    # boards are dealt one at a time (`robots.club`).
    key: tuple = ()


def _plans(round: Round, tables: list[Table], boards: list[Board], heuristic: bool):
    facts = {} if heuristic else board_facts(boards)
    plans: dict[tuple[int, int], Plan] = {}
    for board in boards:
        for table in tables:
            if heuristic:
                hands = hands_of(board.deal)
                plans[table.pk, board.number] = heuristic_plan(
                    {
                        seat: [suit + rank for suit, ranks in hand.items() for rank in ranks]
                        for seat, hand in hands.items()
                    }  # fmt: skip
                )
            else:
                rng = random.Random(f"{board.pk}-{table.pk}")
                plans[table.pk, board.number] = plan_of(facts[board.pk], rng)
    return plans


def open_seats(
    *,
    tournament_ids: Iterable[int] | None,
    since: datetime,
    tokens: RobotTokens,
    heuristic: bool,
    plan_cache: dict,
    names: tuple[str, ...] = (),
    now: datetime | None = None,
    club_all_seats: bool = False,
) -> list[_Seat]:
    """The robot-driven seats of the open rounds: their players have not logged in
    since `since`. `tournament_ids` None: every running online tournament, and every
    paused one: a robot holds its seat through a pause (its socket waits for the
    resume) instead of leaving a table no one would come back to. And the club's
    robot-played seats, board by board (`robots.club`)."""
    close_old_connections()
    rounds = Round.objects.filter(
        status=RoundStatus.OPEN,
        tournament__play=PlayMode.ONLINE,
        tournament__status__in=(TournamentStatus.RUNNING, TournamentStatus.PAUSED),
    ).filter(played_in(EVENT_FORMATS, via="tournament__"))
    if tournament_ids is not None:
        rounds = rounds.filter(tournament_id__in=list(tournament_ids))
    # The seats a director gave a robot (`table_director.seat_robot`): played whatever
    # the login, and in any event, the demo's runner included.
    directed = set(
        TableDirection.objects.filter(
            kind=TableDirectionKind.ROBOT, table__round__in=rounds
        ).values_list("table_id", "seat")
    )
    # The seats reserved for outside programs (SPEC 14) are theirs: the gateway plays
    # them, and our robot for a program only through it.
    programs = set(
        ProgramSeat.objects.filter(table__round__in=rounds).values_list("table_id", "seat")
    )
    if names:
        rounds = rounds.filter(
            Q(tournament__name__in=names) | Q(tables__directions__kind=TableDirectionKind.ROBOT)
        ).distinct()
    # A player holds their seat for a while after logging in; then robots may take it.
    now = now or timezone.now()
    taken_after = max(since, now - HUMAN_HOLDS)
    found: list[_Seat] = [
        _Seat(seat.job, seat.user_id, seat.key)
        for seat in club.club_seats(
            tournament_ids=tournament_ids,
            tokens=tokens,
            heuristic=heuristic,
            plan_cache=plan_cache.setdefault("club", {}),
            all_seats=club_all_seats,
            # The demo's seeded members never log in: robots play them (a person who
            # logs in as one takes the seat over at the next poll).
            never_logged_in=bool(names),
            now=now,
        )
    ]
    users = get_user_model()
    for round in rounds.select_related("tournament"):
        only_directed = bool(names) and round.tournament.name not in names
        tables = list(Table.objects.filter(round=round).select_related("ns_pair", "ew_pair"))
        boards = list(Board.objects.filter(round=round).order_by("number"))
        if round.pk not in plan_cache:
            plan_cache[round.pk] = _plans(round, tables, boards, heuristic)
        plans = plan_cache[round.pk]
        seated = {table.pk: table_seats.table_seats(table) for table in tables}
        people = users.objects.in_bulk({u for s in seated.values() for u in s.values()})
        for table in tables:
            for seat, user_id in seated[table.pk].items():
                user = people[user_id]
                if (table.pk, seat) in programs:
                    continue
                if (table.pk, seat) in directed:
                    pass  # the director gave it a robot
                elif only_directed or (
                    user.last_login is not None and user.last_login > taken_after
                ):
                    continue  # a person logged in: the seat is theirs
                job = SeatJob(
                    table_id=table.pk,
                    seat=seat,
                    token=tokens.key_for(user, now),
                    boards=tuple(
                        BoardJob(b.number, b.deal, plans[table.pk, b.number]) for b in boards
                    ),
                )
                found.append(_Seat(job, user_id, (table.pk, seat)))
    return found


def _all_finished(tournament_ids: Iterable[int]) -> bool:
    close_old_connections()
    return (
        not Tournament.objects.filter(pk__in=list(tournament_ids))
        .exclude(status=TournamentStatus.FINISHED)
        .exists()
    )


def _closing(function: Callable, /, *args, **kwargs):
    """`function` in a worker thread, its database connection closed after (the
    threads are the event loop's, which Django's request cycle never cleans)."""
    try:
        return function(*args, **kwargs)
    finally:
        connections.close_all()


async def drive(
    *,
    tournament_ids: list[int] | None,
    options: Options,
    stop: asyncio.Event,
    log: Callable[[str], None] = logger.info,
    until_finished: bool = False,
    before_poll: Callable[[], object] | None = None,
) -> dict[str, int]:
    """Run the robots until `stop` is set (or, with `until_finished`, until the chosen
    tournaments are over). `before_poll` runs in a worker thread before each look at
    the open rounds (the demo starts its next event there). Answers how the seats'
    runs ended, counted by outcome."""
    since = timezone.now()
    tokens = RobotTokens()
    plan_cache: dict = {}
    tasks: dict[tuple[int, str], asyncio.Task] = {}
    counts: dict[str, int] = {}
    rng = random.Random()
    try:
        while not stop.is_set():
            if before_poll is not None:
                try:
                    await asyncio.to_thread(_closing, before_poll)
                except Exception:
                    logger.exception("robots: the hook before the poll failed")
            try:
                wanted = await asyncio.to_thread(
                    _closing,
                    open_seats,
                    tournament_ids=tournament_ids,
                    since=since,
                    tokens=tokens,
                    heuristic=options.heuristic,
                    plan_cache=plan_cache,
                    names=options.names,
                    club_all_seats=options.club_all_seats,
                )
            except Exception:  # keep driving; the next poll retries
                logger.exception("robots: reading the open rounds failed")
                wanted = None
            if wanted is not None:
                keys = {s.key: s for s in wanted}
                for key, seat in keys.items():
                    if key not in tasks:
                        tasks[key] = asyncio.create_task(
                            play_seat(
                                seat.job,
                                base=options.base,
                                pace=options.pace,
                                rng=random.Random(rng.random()),
                                claim_after=options.claim_after,
                                double_dummy=options.double_dummy,
                            )
                        )
                for key, task in tasks.items():
                    if key not in keys and not task.done():
                        task.cancel()  # the player logged in, or the round closed
                        log(f"robot leaves table {key[0]} seat {key[1]}")
            for key, task in list(tasks.items()):
                if task.done() and not getattr(task, "_counted", False):
                    task._counted = True  # type: ignore[attr-defined]
                    outcome = "cancelled" if task.cancelled() else _outcome(task)
                    counts[outcome] = counts.get(outcome, 0) + 1
                    if outcome not in (DONE, CLOSED, "cancelled"):
                        log(f"robot at table {key[0]} seat {key[1]}: {outcome}")
                    if outcome == GAVE_UP:
                        log(f"robot gives table {key[0]} seat {key[1]} up to its player")
                if len(key) == 3 and task.done() and (wanted is None or key not in keys):
                    del tasks[key]  # a club board over: its key does not come back
            if (
                until_finished
                and tournament_ids is not None
                and await asyncio.to_thread(_closing, _all_finished, tournament_ids)
            ):
                break
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), options.poll)
    finally:
        for task in tasks.values():
            task.cancel()
        await asyncio.gather(*tasks.values(), return_exceptions=True)
        # The players' keys this run held stop working with it (they also expire).
        try:
            await asyncio.to_thread(_closing, tokens.revoke_all)
        except Exception:
            logger.exception("robots: revoking the robots' tokens failed (they expire)")
    return counts


def _outcome(task: asyncio.Task) -> str:
    error = task.exception()
    if error is not None:
        logger.error("robot failed: %r", error)
        return f"error: {error!r}"
    return task.result()
