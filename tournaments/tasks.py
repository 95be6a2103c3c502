"""Celery tasks: thin callers of the clock service.

Beat calls `clock_tick` every few seconds with an `expires` shorter than the interval;
a tick that runs twice, late or concurrently does nothing the second time, because
`advance` is idempotent. No long ETA tasks (Redis redelivers them past the visibility
timeout).
"""

import logging

from celery import shared_task

from . import live_cache
from .services.clock import advance
from .views.cached import warm

logger = logging.getLogger(__name__)

# A warm-up that has not run within a minute is pointless: viewers built it meanwhile.
WARM_EXPIRES = 60


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
    return report.events


@shared_task(name="tournaments.tasks.warm_live_pages", ignore_result=True)
def warm_live_pages(tournament_id: int) -> bool:
    return warm(tournament_id=tournament_id)
