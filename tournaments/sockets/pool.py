"""The table server's database calls: a small pool of threads, each with its own
database connection.

Channels' `database_sync_to_async` runs every such call of a process in one thread, so
one table's commit waiting for the disk holds up every other table's action in that
process, and at a few hundred actions a second that queue is the latency. The table
server's calls (`services.act`, `board_view`, the token and table look-ups) share no
thread-bound state but Django's per-thread connection, so they run in a pool of
`TABLE_SERVER_DB_THREADS` threads (settings; 4 by default) and their commits overlap.

Connections are kept as Django keeps them between requests (`close_old_connections`
before and after each call: broken or past `CONN_MAX_AGE`, closed). The health check
(`CONN_HEALTH_CHECKS`, a `SELECT 1` before the first query of each "request") is not
repeated for every call: a call is one short transaction, and a connection that broke
fails its statement, is marked, and is replaced before the next call.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from typing import Any

from asgiref.sync import SyncToAsync
from django.conf import settings
from django.db import close_old_connections, connections

from ..push.channel import serve_on


@cache
def _executor() -> ThreadPoolExecutor:
    workers = int(getattr(settings, "TABLE_SERVER_DB_THREADS", 4))
    return ThreadPoolExecutor(max_workers=workers, thread_name_prefix="table-db")


def _fresh_connections() -> None:
    close_old_connections()
    for connection in connections.all(initialized_only=True):
        # `close_old_connections` asks for a ping before the next query; a call here
        # is one short transaction, and a broken connection is caught by its error.
        if connection.connection is not None and not connection.errors_occurred:
            connection.health_check_done = True  # type: ignore[attr-defined]  # not in the stubs


class _TableServerCall(SyncToAsync):
    def thread_handler(self, loop, *args, **kwargs):
        _fresh_connections()
        # What the call sends after its commit is handed to the socket's loop (`push`).
        serve_on(loop)
        try:
            return super().thread_handler(loop, *args, **kwargs)
        finally:
            serve_on(None)
            close_old_connections()


def table_db(func: Callable[..., Any]) -> Callable[..., Any]:
    """`func` (synchronous, using the database) as an awaitable run in the pool."""
    return _TableServerCall(func, thread_sensitive=False, executor=_executor())


def close_connections() -> None:
    """Close every pool thread's connection (a test database is dropped at the end of
    the run: no session may be left on it). Each thread gets one closing task: the
    barrier keeps a task from running twice in one thread."""
    executor = _executor()
    workers = executor._max_workers
    barrier = threading.Barrier(workers)

    def close() -> None:
        barrier.wait(timeout=10)
        connections.close_all()

    for future in [executor.submit(close) for _ in range(workers)]:
        future.result()
