"""Celery tasks: thin callers of the clock and analysis services.

Beat calls `clock_tick` every few seconds with an `expires` shorter than the interval;
a tick that runs twice, late or concurrently does nothing the second time, because
`advance` is idempotent. No long ETA tasks (Redis redelivers them past the visibility
timeout).
"""

import logging

from celery import shared_task

from . import live_cache
from .services import analysis
from .services.clock import advance
from .views.cached import warm

logger = logging.getLogger(__name__)

# A warm-up that has not run within a minute is pointless: viewers built it meanwhile.
WARM_EXPIRES = 60
# An analysis task not started within a minute is dropped; a later tick queues another.
ANALYSE_EXPIRES = 60


@shared_task(name="tournaments.tasks.clock_tick", acks_late=True, ignore_result=True)
def clock_tick() -> list[str]:
    report = advance(driver="celery")
    # The pages of a tournament that just moved are built into the shared cache before
    # the open pages' next poll asks for them; in a task of their own, so that building
    # a big field's pages never delays the next tick (and another tournament's bell).
    # Only a shared cache is worth warming (see `views.cached.warm`).
    for tournament_id in report.moved if live_cache.is_shared() else ():
        try:
            warm_live_pages.apply_async(args=[tournament_id], expires=WARM_EXPIRES)
        except Exception:  # the tick's work is done and committed; pages build on demand
            logger.exception("clock: could not queue warming tournament %s", tournament_id)
    # Boards of closed rounds are solved in a task of their own, one batch per task and
    # one task at a time (`analysis_needed` is false while one is solving), so a solve
    # (seconds) never holds up a tick and never fails one.
    try:
        if analysis.analysis_needed():
            analyse_boards.apply_async(expires=ANALYSE_EXPIRES)
    except Exception:  # the next tick asks again
        logger.exception("clock: could not queue the board analysis")
    return report.events


@shared_task(name="tournaments.tasks.warm_live_pages", ignore_result=True)
def warm_live_pages(tournament_id: int) -> bool:
    return warm(tournament_id=tournament_id)


@shared_task(name="tournaments.tasks.analyse_boards", ignore_result=True)
def analyse_boards() -> int:
    """Double-dummy analysis of one batch of boards of closed rounds (see
    `services.analysis`); the next tick queues the next batch."""
    return analysis.analyse_pending_boards(limit=analysis.BATCH)
