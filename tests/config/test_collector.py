"""A server process's collector (config/collector.py): young collections stay small and
never walk the oldest generation; only the timed full collection frees old cycles."""

import gc
import threading
import weakref

import pytest

from config import collector


class Cycle:
    def __init__(self):
        self.me = self


@pytest.fixture
def restored_collector():
    thresholds = gc.get_threshold()
    enabled = gc.isenabled()
    gc.enable()
    yield
    gc.unfreeze()
    gc.set_threshold(*thresholds)
    if not enabled:
        gc.disable()


def _old_cycle() -> weakref.ref:
    """A reference cycle, unreachable, already in the oldest generation."""
    cycle = Cycle()
    ref = weakref.ref(cycle)
    gc.collect(1)  # survives a middle collection: promoted to the oldest generation
    del cycle
    return ref


def test_tuned_collector_keeps_young_generations_small_and_leaves_the_old_one(
    restored_collector,
):
    assert collector.tune_for_sockets(full_collection_seconds=0) is None
    assert gc.get_threshold() == (
        collector.YOUNG_THRESHOLD,
        collector.MIDDLE_THRESHOLD,
        collector.NO_AUTOMATIC_FULL_COLLECTION,
    )
    full_before = gc.get_stats()[2]["collections"]
    old = _old_cycle()
    young = weakref.ref(Cycle())  # unreachable at once: the young generation's
    # Enough container allocations, kept alive, for many young and middle collections.
    kept = [[index] for index in range(50 * collector.YOUNG_THRESHOLD * collector.MIDDLE_THRESHOLD)]
    assert young() is None, "a young cycle is freed by the automatic collections"
    assert old() is not None, "no automatic collection walks the oldest generation"
    assert gc.get_stats()[2]["collections"] == full_before
    collector.collect_fully(every_seconds=0, times=1)
    assert old() is None, "the timed full collection frees it"
    del kept


@pytest.fixture
def stoppable_full_collections(monkeypatch):
    """The thread tune_for_sockets starts runs collect_fully for ever: left running, a
    full collection every 0.05 s for the rest of the test process made every later test
    several times slower (the pure property tests 3-6 times). It stops after the test."""
    stop = threading.Event()
    threads = []
    real = collector.collect_fully

    def until_stopped(*, every_seconds: float) -> None:
        threads.append(threading.current_thread())
        while not stop.is_set():
            real(every_seconds=every_seconds, times=1)

    monkeypatch.setattr(collector, "collect_fully", until_stopped)
    yield
    stop.set()
    for thread in threads:
        thread.join(timeout=10)
        assert not thread.is_alive()


def test_full_collections_run_in_their_own_thread(restored_collector, stoppable_full_collections):
    thread = collector.tune_for_sockets(full_collection_seconds=0.05)
    old = _old_cycle()  # made after the freeze: frozen objects are never collected
    assert thread is not None and thread.daemon
    for _ in range(100):
        if old() is None:
            break
        thread.join(timeout=0.05)
    assert old() is None
