"""One tick of the round clock, whoever drives it: advance, then the work that follows.

`tick` is the only thing a clock driver calls (`tasks.clock_tick` under Celery beat in
production, `manage.py run_clock` in the embedded default). After `clock.advance` has
committed its steps it

- warms the live pages of the tournaments that moved (`cached.warm`), but only where the
  cache is shared: a process-local one would keep the values from every web process;
- starts the double-dummy analysis of the boards of closed rounds
  (`analysis.analyse_pending_boards`), which never runs inside the clock's transactions.

How each is done is the driver's choice, passed in: inline by default; Celery queues each
as a task of its own, so that building a big field's pages or a solve (seconds) never
delays the next tick (and another tournament's bell); `run_clock` wakes its analysis
thread. A follow-up that fails is logged and never fails the tick, whose work is done and
committed: the pages build the same values when asked, and the next tick asks for the
analysis again. A failed `advance` raises, and its follow-up waits for the next tick.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime

from ..services import analysis
from ..services.clock import AdvanceReport, advance
from . import cache, cached

logger = logging.getLogger(__name__)


def warm_now(tournament_id: int) -> None:
    """Warm a moved tournament's pages in this process (`cached.warm`)."""
    cached.warm(tournament_id=tournament_id)


def analyse_now() -> None:
    """Analyse every board of a closed round that has no analysis yet, in this process."""
    analysis.analyse_pending_boards(limit=None)


def tick(
    *,
    now: datetime | None = None,
    driver: str = "",
    warm: Callable[[int], object] = warm_now,
    analyse: Callable[[], object] = analyse_now,
) -> AdvanceReport:
    """Advance every due tournament (`driver` is written on the clock's heartbeat), then
    `warm(tournament_id)` each one that moved if the cache is shared, then `analyse()`.
    Returns `advance`'s report."""
    report = advance(now=now, driver=driver)
    for tournament_id in report.moved if cache.is_shared() else ():
        try:
            warm(tournament_id)
        except Exception:  # the pages build on demand
            logger.exception("clock: could not warm tournament %s", tournament_id)
    try:
        analyse()
    except Exception:  # the next tick asks again
        logger.exception("clock: could not start the board analysis")
    return report
