"""`make run`'s server: `config.asgi` with the round clock ticking inside the same process.

With the in-memory channel layer (no Redis), only code running in the server's process
can reach its WebSockets; a clock in another process would close rounds that the
connected seats never hear of. So the embedded clock runs here, on the server's event
loop, each tick in a worker thread (`advance` is synchronous), and the close it makes
reaches the tables like any stored action. Production uses `config.asgi` and the Celery
clock, which reaches every server process through Redis.
"""

import asyncio
import logging
import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")

from asgiref.sync import sync_to_async  # noqa: E402

from config.asgi import application as site  # noqa: E402

logger = logging.getLogger("tournaments.clock")
TICK_SECONDS = float(os.environ.get("EMBEDDED_CLOCK_SECONDS", "1"))


def _tick() -> None:
    # Imported once Django is set up (get_asgi_application runs first in this module).
    from django.db import close_old_connections

    from tournaments.services.clock import advance

    close_old_connections()
    try:
        advance(driver="serve_with_clock")  # logs what it did itself
    finally:
        close_old_connections()


async def _tick_forever() -> None:
    while True:
        try:
            await sync_to_async(_tick, thread_sensitive=False)()
        except Exception:  # keep ticking; the next tick retries the step
            logger.exception("clock: tick failed")
        await asyncio.sleep(TICK_SECONDS)


async def application(scope, receive, send):
    if scope["type"] != "lifespan":
        return await site(scope, receive, send)
    ticking = None
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            ticking = asyncio.create_task(_tick_forever())
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            if ticking is not None:
                ticking.cancel()
            await send({"type": "lifespan.shutdown.complete"})
            return
