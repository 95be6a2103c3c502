"""Sending to the Channels groups the sockets listen on.

The channel layer is the servers' own (Redis on a private network, or memory in one
process): no client reads it. Without a channel layer (`CHANNEL_LAYERS` unset) every
send is a no-op, so played-elsewhere events, tests and commands need no server.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections.abc import Iterable

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from channels_redis.pubsub import RedisPubSubChannelLayer

logger = logging.getLogger(__name__)

_serving = threading.local()


def table_group(table_id: int) -> str:
    """The group of every socket open at one table (any board, any viewer)."""
    return f"table-{table_id}"


def broadcast_group(broadcast_id: int) -> str:
    """The group of every spectator's socket of one broadcast (RULES 12)."""
    return f"broadcast-{broadcast_id}"


def serving_loop() -> asyncio.AbstractEventLoop | None:
    """The event loop of the socket whose call this thread is running, if it is one."""
    return getattr(_serving, "loop", None)


def serve_on(loop: asyncio.AbstractEventLoop | None) -> None:
    """Mark this thread as running a call for the socket server on `loop` (None: no
    longer): its sends are then handed to that loop instead of waited for."""
    _serving.loop = loop


def send(groups: Iterable[str], message: dict) -> None:
    """`message` to every socket of `groups`. Called after the commit of what it says."""
    send_each([(group, message) for group in groups])


def send_each(messages: list[tuple[str, dict]]) -> None:
    """Each (group, message): a message of its own to each group (the bell's, one per
    table), all handed to the channel layer at once rather than one after the other."""
    layer = get_channel_layer()
    if layer is None or not messages:
        return
    loop = serving_loop()
    if loop is not None:
        # Called by the table server's own pool (`sockets.pool`): handed to its event
        # loop without waiting, so the thread is free for the next table's action. Sends
        # of one process keep their order (the loop runs them as handed).
        for group, message in messages:
            loop.call_soon_threadsafe(_start_sending, layer, group, message)
        return

    async def send_all() -> None:
        if len(messages) > 1 and await _publish_pipelined(layer, messages):
            return
        sent = await asyncio.gather(
            *(layer.group_send(group, message) for group, message in messages),
            return_exceptions=True,
        )
        for (group, message), outcome in zip(messages, sent, strict=True):
            if isinstance(outcome, BaseException):
                logger.error(
                    "push: could not send %s to %s", message.get("type"), group, exc_info=outcome
                )

    try:
        async_to_sync(send_all)()
    except Exception:
        # What a message says is stored whatever happens here: a device that missed it
        # catches up with the next snapshot (reconnection, next event).
        logger.exception("push: could not send %s messages", len(messages))


async def _publish_pipelined(layer, messages: list[tuple[str, dict]]) -> bool:
    """The messages as Redis PUBLISHes in one pipeline per shard, if `layer` is
    channels-redis' pubsub layer (False, nothing sent, otherwise): what its `group_send`
    does, without a round trip per message. The bell's thousand messages took 1.5 s one
    by one on a quiet machine, and 8–26 s on a loaded one (BENCHMARKS.md). Relies on
    that layer's inner parts (channels-redis pinned at 4.3.0, requirements.txt)."""
    if not isinstance(layer, RedisPubSubChannelLayer):
        return False
    loop_layer = layer._get_layer()
    by_shard: dict[int, tuple[object, list[tuple[str, bytes]]]] = {}
    for group, message in messages:
        name = loop_layer._get_group_channel_name(group)
        shard = loop_layer._get_shard(name)
        by_shard.setdefault(id(shard), (shard, []))[1].append((name, layer.serialize(message)))
    for shard, published in by_shard.values():
        async with shard._lock:  # type: ignore[attr-defined]  # as its `publish` does
            shard._ensure_redis()  # type: ignore[attr-defined]
            async with shard._redis.pipeline(transaction=False) as pipe:  # type: ignore[attr-defined]
                for name, data in published:
                    pipe.publish(name, data)
                await pipe.execute()
    return True


def _start_sending(layer, group: str, message: dict) -> None:
    task = asyncio.ensure_future(layer.group_send(group, message))
    task.add_done_callback(lambda done: _log_failure(done, group, message))


def _log_failure(task: asyncio.Future, group: str, message: dict) -> None:
    if not task.cancelled() and task.exception() is not None:
        logger.error(
            "push: could not send %s to %s",
            message.get("type"),
            group,
            exc_info=task.exception(),
        )


def encoded_views(views: dict[str, dict]) -> dict[str, str]:
    """Each view's JSON text (`json.dumps`, as a socket would send it). The cards played
    are the same list in every view of a state: encoded once and put in each text."""
    texts = {}
    played: dict[int, str] = {}
    for viewer, view in views.items():
        cards = view.get("play")
        if not isinstance(cards, list):
            texts[viewer] = json.dumps(view)
            continue
        if id(cards) not in played:
            played[id(cards)] = json.dumps(cards)
        # Keys are fixed and come first as `"play": null` at the top level; any text
        # inside the view is escaped, so the first occurrence is the key's.
        text = json.dumps({**view, "play": None})
        texts[viewer] = text.replace('"play": null', '"play": ' + played[id(cards)], 1)
    return texts
