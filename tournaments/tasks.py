"""Celery tasks: thin callers of the clock service.

Beat calls `clock_tick` every few seconds with an `expires` shorter than the interval;
a tick that runs twice, late or concurrently does nothing the second time, because
`advance` is idempotent. No long ETA tasks (Redis redelivers them past the visibility
timeout).
"""

from celery import shared_task

from .services.clock import advance
from .views.cached import warm


@shared_task(name="tournaments.tasks.clock_tick", acks_late=True, ignore_result=True)
def clock_tick() -> list[str]:
    report = advance(driver="celery")
    # The pages of a tournament that just moved are built here, once, into the shared
    # cache, before the open pages' next poll asks for them.
    for tournament_id in report.moved:
        warm(tournament_id=tournament_id)
    return report.events
