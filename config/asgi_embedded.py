"""`make run`'s server: `config.asgi` with the round clock ticking inside the same process,
and the boards of closed rounds analysed beside it.

With the in-memory channel layer (no Redis), only code running in the server's process
can reach its WebSockets; a clock in another process would close rounds that the
connected seats never hear of. So the embedded clock runs here, on the server's event
loop, each tick in a worker thread (`live.clock.tick` is synchronous), and the close it
makes reaches the tables like any stored action. Production uses `config.asgi` and the
Celery clock, which reaches every server process through Redis. For the same reason the
Blue Chip gateway (SPEC 14) runs here when `BLUECHIP_GATEWAY_PORT` is set (`make run`
sets it): its programs' calls and cards reach the tables' sockets; production runs it as
its own process (`manage.py bluechip_gateway`) on Redis.

The tick's follow-up is production's too: where Celery queues the `analyse_boards` task,
the tick here wakes one analysis thread of this process, which runs the same service
(`analysis.analyse_pending_boards`, a batch at a time) until no board of a closed round
is left. One thread, so one solve at a time (DDS is not thread-safe; every solve also
goes through the lock in tournaments/double_dummy.py, whoever calls it), and never on the
tick's thread: a solve takes seconds, a bell must not wait for it.
"""

import asyncio
import logging
import os
import threading

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")

from asgiref.sync import sync_to_async  # noqa: E402

from config.asgi import application as site  # noqa: E402

logger = logging.getLogger("tournaments.clock")
TICK_SECONDS = float(os.environ.get("EMBEDDED_CLOCK_SECONDS", "1"))
# How long a shutdown waits for the batch being solved (its boards are otherwise solved
# again once their claim expires, `analysis.CLAIM_TIMEOUT`).
STOP_WAIT = 30


class BoardAnalysis(threading.Thread):
    """Solves the boards of closed rounds whenever the clock wakes it, until stopped. A
    failure is logged and never reaches the clock; its boards are tried again later."""

    def __init__(self) -> None:
        super().__init__(name="board-analysis", daemon=True)
        self.woken = threading.Event()
        self.stopping = threading.Event()

    def wake(self) -> None:
        self.woken.set()

    def stop(self) -> None:
        self.stopping.set()
        self.woken.set()

    def run(self) -> None:
        from django.db import close_old_connections, connection

        from tournaments.services import analysis

        try:
            while not self.stopping.is_set():
                self.woken.wait()
                self.woken.clear()
                close_old_connections()
                try:
                    # One batch per call: a shutdown is heard between batches.
                    while not self.stopping.is_set() and analysis.analyse_pending_boards(
                        limit=analysis.BATCH
                    ):
                        pass
                except Exception:
                    logger.exception("clock: board analysis failed")
        finally:
            connection.close()  # this thread's own connection


def _tick(analyser: BoardAnalysis) -> None:
    # Imported once Django is set up (get_asgi_application runs first in this module).
    from django.db import close_old_connections

    from tournaments.live.clock import tick

    close_old_connections()
    try:
        tick(driver="serve_with_clock", analyse=analyser.wake)  # logs what it did itself
    finally:
        close_old_connections()


async def _tick_forever(analyser: BoardAnalysis) -> None:
    while True:
        try:
            await sync_to_async(_tick, thread_sensitive=False)(analyser)
        except Exception:  # keep ticking; the next tick retries the step
            logger.exception("clock: tick failed")
        await asyncio.sleep(TICK_SECONDS)


def _gateway():
    """The Blue Chip gateway on this loop, if `BLUECHIP_GATEWAY_PORT` says where: (its
    stop, its task)."""
    port = os.environ.get("BLUECHIP_GATEWAY_PORT")
    if not port:
        return None
    from tournaments.bluechip.gateway import Gateway, Options

    stop = asyncio.Event()
    host = os.environ.get("BLUECHIP_GATEWAY_HOST", "127.0.0.1")
    task = asyncio.create_task(Gateway(Options(host=host, port=int(port))).serve(stop))
    return stop, task


async def application(scope, receive, send):
    if scope["type"] != "lifespan":
        return await site(scope, receive, send)
    ticking = analyser = gateway = None
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            analyser = BoardAnalysis()
            analyser.start()
            ticking = asyncio.create_task(_tick_forever(analyser))
            gateway = _gateway()
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            if ticking is not None:
                ticking.cancel()
            if gateway is not None:
                gateway[0].set()
                await asyncio.gather(gateway[1], return_exceptions=True)
            if analyser is not None:
                # A batch in progress runs inside DDS; exiting under it could crash the exit.
                analyser.stop()
                await asyncio.to_thread(analyser.join, STOP_WAIT)
            await send({"type": "lifespan.shutdown.complete"})
            return
