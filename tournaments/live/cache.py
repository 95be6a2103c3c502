"""Values built once per live version of a tournament and shared by every viewer.

`selectors.live_version` fingerprints what the live pages show; a value keyed by it never
goes stale, because a change makes a new fingerprint (and an old one never comes back).
So each value lives at two levels:

- the Django cache (Redis in production), shared by every process: a version is built
  by whoever asks first (in production usually the clock's warm-up task right after the
  close), and at most once per process when several processes miss it at once;
- a small per-process memo in front of it, because unpickling 2,000 standings rows on
  every request costs more than rendering what a reader sees of them.

When a version is new, hundreds of open pages ask for it in the same second. Only one
thread per process builds it; the others wait for that build instead of repeating it.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import TypeVar

from django.core.cache import cache, caches
from django.core.cache.backends.dummy import DummyCache
from django.core.cache.backends.locmem import LocMemCache

T = TypeVar("T")
logger = logging.getLogger(__name__)

TIMEOUT = 15 * 60  # old versions are never asked for again; they only need to expire
# A few tournaments' standings, grids, seatings and API answers, plus the travellers of
# the boards being looked at; an entry pushed out is only read again from the cache.
MEMO_SIZE = 64

_memo: OrderedDict[str, object] = OrderedDict()
_memo_lock = threading.Lock()
_build_locks: dict[str, threading.Lock] = {}


# Part of every key: raise it when the shape of a cached value changes, so a deploy never
# reads values pickled by the previous code (a finished tournament's version never moves).
SCHEMA = 4


def key(*parts) -> str:
    """A cache key any backend takes: fingerprints hold timestamps and spaces."""
    digest = hashlib.sha1("|".join(str(p) for p in parts).encode()).hexdigest()
    return f"live:v{SCHEMA}:{parts[0]}:{digest}"


def _shared(k: str):
    """The shared cache's value, or None when it has none or cannot give it back (Redis
    away, a value pickled by other code): the caller then builds it."""
    try:
        return cache.get(k)
    except Exception:
        logger.warning("live cache: could not read %s; building it", k, exc_info=True)
        return None


def _remembered(k: str):
    with _memo_lock:
        value = _memo.get(k)
        if value is not None:
            _memo.move_to_end(k)
        return value


def _remember(k: str, value) -> None:
    with _memo_lock:
        _memo[k] = value
        _memo.move_to_end(k)
        while len(_memo) > MEMO_SIZE:
            _memo.popitem(last=False)


def get_or_build(k: str, build: Callable[[], T]) -> T:
    value = _remembered(k)
    if value is not None:
        return value
    with _memo_lock:
        lock = _build_locks.setdefault(k, threading.Lock())
    try:
        with lock:  # one build per process; the others wait for it
            value = _remembered(k)
            if value is None:
                value = _shared(k)
                if value is None:
                    value = build()
                    try:
                        cache.set(k, value, TIMEOUT)
                    except Exception:  # serve what was built; the next ask tries again
                        logger.warning("live cache: could not store %s", k, exc_info=True)
                _remember(k, value)
    finally:  # a failed build must not leave its lock behind
        with _memo_lock:
            _build_locks.pop(k, None)
    return value


def is_shared() -> bool:
    """Whether other processes see this cache (Redis, memcached, files, a table)."""
    return not isinstance(caches["default"], LocMemCache | DummyCache)


def clear_memo() -> None:
    """Forget this process's copies (tests that rewrite rows behind the fingerprint's
    back). The shared cache is left alone: in production it may be the Celery broker's
    Redis database, which a `cache.clear()` would empty."""
    with _memo_lock:
        _memo.clear()
