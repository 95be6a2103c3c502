"""Double-dummy analysis of the boards for their hand records: makeable contracts and par.

Solved once per board, off the request path, soon after the board's round closes: the
clock drivers call `analyse_pending_boards` after they tick (in production the tick
queues the `analyse_boards` Celery task when `analysis_needed`; in the embedded default,
`make run`'s server (config.asgi_embedded) and `run_clock`, the tick wakes one analysis
thread of the process, which runs it a batch at a time). It solves the boards of closed
rounds that have no analysis yet, `double_dummy.BATCH` deals per solver call, and stores
each answer on its board. It never runs inside a clock transaction, so the round close
stays fast.

Pages only read (`double_dummy`): until a board's analysis is stored the board page says
that it is being prepared. No request runs the solver, which is not thread-safe (see
tournaments/double_dummy.py, the only way into it).

Several workers may run `analyse_pending_boards` at once: each claims its boards first
(`Board.analysis_claimed_at`, taken with SKIP LOCKED in a short transaction) and the others
leave claimed boards alone, so no board is solved twice; a claim older than
`CLAIM_TIMEOUT` (its worker died or failed) is taken over. The solve itself runs outside any
transaction, so it holds no lock (on SQLite, not the write lock).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Count, Q
from django.utils import timezone

from scoring import STRAINS as STRAINS  # the columns of a makeable-contracts table (pages)

from .. import double_dummy as solver
from ..models import Board, RoundStatus

logger = logging.getLogger(__name__)

# The shape of `Board.double_dummy`. Raising it needs a data migration that sets the
# boards' double_dummy to NULL, so that the clock solves them again (the pending boards
# are found by an index on double_dummy IS NULL); until then pages show them as pending.
FORMAT_VERSION = 1
BATCH = solver.BATCH
# A batch takes seconds; a claim this old belongs to a worker that died or failed.
CLAIM_TIMEOUT = timedelta(minutes=2)


@dataclass(frozen=True)
class ParContract:
    level: int
    strain: str
    doubling: int  # 0, 1 (X), 2 (XX)
    declarers: str  # "N", "NS", "E", "EW", … : the seats it is par from
    result: int  # overtricks (+) or undertricks (-) at double dummy


@dataclass(frozen=True)
class DoubleDummy:
    tricks: solver.Tricks  # {"N": {"C": 7, …, "NT": 8}, …}
    par_score: int  # NS view
    par_contracts: list[ParContract]

    def makeable(self, seat: str, strain: str) -> int | None:
        """The highest level `seat` makes in `strain` at double dummy, or None."""
        level = self.tricks[seat][strain] - 6
        return level if level >= 1 else None


def double_dummy(*, board: Board) -> DoubleDummy | None:
    """The board's stored analysis, or None while it is still being prepared. Never
    solves: this is what pages call."""
    data = board.double_dummy
    if not isinstance(data, dict) or data.get("v") != FORMAT_VERSION:
        return None
    return _from_data(data)


def solve(*, deals: list[solver.Deal]) -> list[dict]:
    """Each deal's analysis as stored on a board (JSON-ready, see `_from_data`)."""
    return [{"v": FORMAT_VERSION, **data} for data in solver.analyse(deals)]


def pending_boards(*, tournament_id: int | None = None):
    """Boards whose round has closed and whose analysis is not stored yet."""
    boards = Board.objects.filter(double_dummy__isnull=True, round__status=RoundStatus.CLOSED)
    if tournament_id is not None:
        boards = boards.filter(tournament_id=tournament_id)
    return boards


def _unclaimed(now: datetime) -> Q:
    return Q(analysis_claimed_at__isnull=True) | Q(analysis_claimed_at__lt=now - CLAIM_TIMEOUT)


def analysis_needed(*, now: datetime | None = None) -> bool:
    """Whether a worker should be started: boards are waiting and no worker is on any
    board (one analysis worker at a time keeps the others free for the clock). One
    indexed query."""
    now = now or timezone.now()
    counts = pending_boards().aggregate(
        waiting=Count("pk", filter=_unclaimed(now)),
        busy=Count("pk", filter=~_unclaimed(now)),
    )
    return counts["waiting"] > 0 and counts["busy"] == 0


def analyse_pending_boards(
    *, limit: int | None = BATCH, tournament_id: int | None = None, now: datetime | None = None
) -> int:
    """Solve and store the analysis of up to `limit` (None: every) boards of closed
    rounds that have none, `BATCH` per solver call; returns how many were stored.

    Safe to run in several workers at once (each solves only the boards it claimed).
    A batch whose solve fails stays claimed and is tried again after `CLAIM_TIMEOUT`;
    the error is raised to the caller, which logs it.
    """
    stored = 0
    while limit is None or stored < limit:
        size = BATCH if limit is None else min(BATCH, limit - stored)
        boards = _claim(size=size, tournament_id=tournament_id, now=now or timezone.now())
        if not boards:
            break
        answers = solve(deals=[solver.Deal(b.deal, b.vulnerability, b.dealer) for b in boards])
        with transaction.atomic():
            for board, data in zip(boards, answers, strict=True):
                # Only where no worker that took over an expired claim stored it first.
                Board.objects.filter(pk=board.pk, double_dummy__isnull=True).update(
                    double_dummy=data, analysis_claimed_at=None
                )
        stored += len(boards)
        logger.info("analysis: %s boards analysed", len(boards))
    return stored


def _claim(*, size: int, tournament_id: int | None, now: datetime) -> list[Board]:
    """Up to `size` pending boards nobody else is solving, marked as this worker's."""
    waiting = pending_boards(tournament_id=tournament_id).filter(_unclaimed(now))
    if not waiting.exists():  # the usual answer; no write transaction for it
        return []
    with transaction.atomic():
        # NO KEY UPDATE: a result row's foreign key check (FOR KEY SHARE) never waits.
        ids = list(
            waiting.select_for_update(skip_locked=True, no_key=True, of=("self",))
            .order_by("pk")
            .values_list("pk", flat=True)[:size]
        )
        Board.objects.filter(pk__in=ids).update(analysis_claimed_at=now)
    return list(Board.objects.filter(pk__in=ids).only("deal", "vulnerability", "dealer"))


def _from_data(data: dict) -> DoubleDummy:
    return DoubleDummy(
        tricks=data["tricks"],
        par_score=data["par_score"],
        par_contracts=[ParContract(**p) for p in data["par"]],
    )
