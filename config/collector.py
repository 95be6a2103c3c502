"""The garbage collector of a server process that holds thousands of sockets.

Each socket keeps a few tasks waiting (its next frame, its next group event), and each
message replaces one: coroutines, futures and contexts that live for seconds. With
CPython's default thresholds they pile up in the young generations between collections
(a collection is due when allocations outrun deallocations by the threshold, and at a
steady state they nearly balance), so a middle-generation collection walked 130,000
objects and stopped the process for 50–120 ms every few seconds; a full collection,
which walks every socket's objects, for 300–500 ms at 2,000–4,000 sockets. Nothing of
the process is served meanwhile: those pauses were the live tables' slowest 1 %
(BENCHMARKS.md, live tables).

So, in a server process:
- what exists at start (Django, the URL and model machinery) is frozen out of
  collection;
- the young generation is collected after 100 net allocations instead of 700, so the
  two young generations stay small and each collection short (a few milliseconds);
- the full collection is never started by allocations, only every
  `SERVER_FULL_COLLECTION_SECONDS` (10 minutes by default) by a thread of its own:
  what it frees is the cyclic garbage old enough to reach the oldest generation (about
  15,000 objects a minute at 200 actions a second), and one pause of a few hundred
  milliseconds every ten minutes replaces one every few seconds. 0 turns it off (the
  process's memory then grows with that garbage).
"""

from __future__ import annotations

import gc
import logging
import threading
import time

logger = logging.getLogger(__name__)

YOUNG_THRESHOLD = 100
MIDDLE_THRESHOLD = 10
# gc's oldest threshold counts middle-generation collections (a few a second under
# load): this many is days, so a full collection only comes from `collect_fully`.
NO_AUTOMATIC_FULL_COLLECTION = 1_000_000_000


def tune_for_sockets(*, full_collection_seconds: float) -> threading.Thread | None:
    """Set this process's collector for holding sockets (see the module's text); the
    thread that collects fully every `full_collection_seconds`, or None when 0."""
    gc.freeze()
    gc.set_threshold(YOUNG_THRESHOLD, MIDDLE_THRESHOLD, NO_AUTOMATIC_FULL_COLLECTION)
    if full_collection_seconds <= 0:
        return None
    collector = threading.Thread(
        target=collect_fully,
        kwargs={"every_seconds": full_collection_seconds},
        name="full-collection",
        daemon=True,
    )
    collector.start()
    return collector


def collect_fully(*, every_seconds: float, times: int | None = None) -> None:
    """A full collection every `every_seconds`, `times` times (None: for ever)."""
    done = 0
    while times is None or done < times:
        time.sleep(every_seconds)
        began = time.perf_counter()
        freed = gc.collect()
        logger.debug(
            "full collection: %d objects freed in %.0f ms",
            freed,
            1000 * (time.perf_counter() - began),
        )
        done += 1
