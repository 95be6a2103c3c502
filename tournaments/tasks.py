"""Celery tasks: thin callers of the clock service.

Beat calls `clock_tick` every few seconds with an `expires` shorter than the interval;
a tick that runs twice, late or concurrently does nothing the second time, because
`advance` is idempotent. No long ETA tasks (Redis redelivers them past the visibility
timeout).
"""

from celery import shared_task

from .services.clock import advance
from .views.cached import warm

# A warm-up that has not run within a minute is pointless: viewers built it meanwhile.
WARM_EXPIRES = 60


@shared_task(name="tournaments.tasks.clock_tick", acks_late=True, ignore_result=True)
def clock_tick() -> list[str]:
    report = advance(driver="celery")
    # The pages of a tournament that just moved are built into the shared cache before
    # the open pages' next poll asks for them; in a task of their own, so that building
    # a big field's pages never delays the next tick (and another tournament's bell).
    for tournament_id in report.moved:
        warm_live_pages.apply_async(args=[tournament_id], expires=WARM_EXPIRES)
    return report.events


@shared_task(name="tournaments.tasks.warm_live_pages", ignore_result=True)
def warm_live_pages(tournament_id: int) -> bool:
    return warm(tournament_id=tournament_id)
