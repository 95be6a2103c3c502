"""Celery tasks: thin callers of the clock's tick, the live pages' warm-up and the board
analysis.

Beat calls `clock_tick` every few seconds with an `expires` shorter than the interval;
a tick that runs twice, late or concurrently does nothing the second time, because
`advance` is idempotent. No long ETA tasks (Redis redelivers them past the visibility
timeout).
"""

from celery import shared_task

from .live import cached
from .live.clock import tick
from .services import analysis

# A warm-up that has not run within a minute is pointless: viewers built it meanwhile.
WARM_EXPIRES = 60
# An analysis task not started within a minute is dropped; a later tick queues another.
ANALYSE_EXPIRES = 60


@shared_task(name="tournaments.tasks.clock_tick", acks_late=True, ignore_result=True)
def clock_tick() -> list[str]:
    # The follow-up work of the tick is queued, each in a task of its own (`live.clock`).
    return tick(driver="celery", warm=_queue_warm_up, analyse=_queue_analysis).events


def _queue_warm_up(tournament_id: int) -> None:
    # The pages of a tournament that just moved are built into the shared cache before
    # the open pages' next poll asks for them, without delaying the next tick.
    warm_live_pages.apply_async(args=[tournament_id], expires=WARM_EXPIRES)


def _queue_analysis() -> None:
    # One batch per task and one task at a time (`analysis_needed` is false while one is
    # solving), so a solve (seconds) never holds up a tick.
    if analysis.analysis_needed():
        analyse_boards.apply_async(expires=ANALYSE_EXPIRES)


@shared_task(name="tournaments.tasks.warm_live_pages", ignore_result=True)
def warm_live_pages(tournament_id: int) -> bool:
    return cached.warm(tournament_id=tournament_id)


@shared_task(name="tournaments.tasks.analyse_boards", ignore_result=True)
def analyse_boards() -> int:
    """Double-dummy analysis of one batch of boards of closed rounds (see
    `services.analysis`); the next tick queues the next batch."""
    return analysis.analyse_pending_boards(limit=analysis.BATCH)
