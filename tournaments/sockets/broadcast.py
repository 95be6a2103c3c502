"""A broadcast's spectators (RULES 12, Vugraph): `ws/broadcasts/<id>/`, anyone may open it,
anonymous too — except a player of the event while it runs (closed with 4403).

What a spectator is sent is `selectors.broadcasts.snapshot`, the same for every spectator,
so each server process reads it at most once a second per broadcast and every socket of
the process shares it (`_Snapshots`): two thousand spectators cost the database what one
does, and a busy broadcast never queues behind the players' tables for a read. The group's
messages carry no card: how far a room has come, and when a board may be shown. Each
process's spectators of a broadcast share one member of its group (`_Hub`), which shows a
board at its time from the shared snapshot to every local socket, a slice at a time.

Messages to the client (JSON):
    {"type": "snapshot", "broadcast": {…}, "spectators": n}   on opening, and after a
        reload (the bell, a new delay)
    {"type": "progress", "table_id", "board", "progress"}     a room's board moved on
    {"type": "released", "board": {…}, "score": {…}}           a board shown in every room
    {"type": "comment", "comment": {…}}
    {"type": "spectators", "count": n}                         every SPECTATORS_SECONDS
                                                                when it changed
    {"type": "error", "error": text}                           before a close
The client sends nothing; whatever it sends is ignored.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import time
from datetime import datetime

from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.core.cache import cache
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext as _

from .. import visibility
from ..push.channel import broadcast_group
from ..selectors import broadcasts
from ..services import table_play
from .auth import AUTH_REFUSAL, socket_address
from .consumers import (
    CLOSE_NOT_ALLOWED,
    CLOSE_NOT_FOUND,
    CLOSE_TOO_MANY,
    CLOSE_UNAUTHENTICATED,
    _give_back_anonymous_place,
    anonymous_place_refusal,
)
from .pool import table_db

logger = logging.getLogger(__name__)

# How old a process's shared snapshot may be before a new spectator reads it again.
SNAPSHOT_SECONDS = 1.0
# How often each socket looks at the number of spectators (drawn around it, so that the
# sockets of a process do not all read it at once).
SPECTATORS_SECONDS = 15.0
# The longest a socket waits before reading the broadcast again on its own: a board
# released by a director's ruling rather than by the cards is shown by then.
RESYNC_SECONDS = 60.0


def _spectators_key(broadcast_id: int) -> str:
    return f"broadcast:{broadcast_id}:spectators"


@table_db
def _opening(broadcast_id: int, user) -> tuple[object | None, str | None]:
    """(the broadcast, None), (None, why not) — read once per socket."""
    item = broadcasts.broadcast(broadcast_id)
    if item is None:
        return None, "gone"
    plays = table_play.plays_in_tournament(tournament_id=item.tournament_id, user=user)
    if not visibility.may_watch_broadcast(
        plays_in_event=plays, event_over=broadcasts.event_over(item)
    ):
        return None, "player"
    return item, None


@table_db
def _read_snapshot(broadcast_id: int) -> dict | None:
    item = broadcasts.broadcast(broadcast_id)
    if item is None:
        return None
    return broadcasts.snapshot(item=item, now=timezone.now())


@table_db
def _count(broadcast_id: int, change: int) -> int:
    key = _spectators_key(broadcast_id)
    try:
        if change:
            cache.add(key, 0, None)
            return max(0, int(cache.incr(key, change)))
        return max(0, int(cache.get(key) or 0))
    except Exception:
        logger.warning("broadcast: could not count spectators", exc_info=True)
        return 0


class _Shared:
    """One snapshot of a broadcast as this process read it, with its messages encoded
    once: every socket of the process sends the same text instead of encoding its own."""

    def __init__(self, read_at: datetime, snapshot: dict) -> None:
        self.read_at = read_at
        self.snapshot = snapshot
        # Compared by the hub's re-read: `at` changes at every read, the rest only with news.
        self.text = json.dumps(snapshot, separators=(",", ":"))
        self.news = json.dumps({**snapshot, "at": None}, separators=(",", ":"))
        self._released: dict[int, str] = {}

    def released_text(self, line: dict) -> str:
        number = line["number"]
        text = self._released.get(number)
        if text is None:
            text = self._released[number] = json.dumps(
                {"type": "released", "board": line, "score": self.snapshot["score"]},
                separators=(",", ":"),
            )
        return text


class _Snapshots:
    """This process's latest snapshot of each broadcast, shared by its sockets."""

    def __init__(self) -> None:
        self.kept: dict[int, tuple[float, _Shared | None]] = {}
        self.locks: dict[tuple[int, int], asyncio.Lock] = {}

    async def get(self, broadcast_id: int, *, not_before: datetime | None = None) -> _Shared | None:
        """A snapshot read at `not_before` or later and at most SNAPSHOT_SECONDS old."""
        # A lock belongs to the loop it first waited on: one per loop and broadcast.
        lock = self.locks.setdefault(_hub_key(broadcast_id), asyncio.Lock())
        async with lock:
            kept = self.kept.get(broadcast_id)
            if (
                kept is not None
                and kept[0] > time.monotonic()
                and (not_before is None or (kept[1] is not None and kept[1].read_at >= not_before))
            ):
                return kept[1]
            read_at = timezone.now()
            found = await _read_snapshot(broadcast_id)
            shared = _Shared(read_at, found) if found is not None else None
            self.kept[broadcast_id] = (time.monotonic() + SNAPSHOT_SECONDS, shared)
            return shared


SNAPSHOTS = _Snapshots()

# A fan-out lets the loop serve other sockets (the players' tables) after this many sends.
SENDS_BETWEEN_YIELDS = 16
# A room's progress reaches the spectators at most this often: the latest of each room
# then, so two rooms finishing tricks together make one fan-out, not two.
PROGRESS_SECONDS = 0.5


class _Hub:
    """This process's spectators of one broadcast. The hub, not each socket, is in the
    broadcast's group: a group message is received and decoded once per process, encoded
    once, and handed to every local socket a slice at a time, so a thousand spectators
    cost a busy process one message's work plus a thousand writes, yielding to the
    players' tables between slices. The spectators' number and the periodic re-read are
    the hub's too: one read per process, not one per socket."""

    def __init__(self, broadcast_id: int, layer) -> None:
        self.broadcast_id = broadcast_id
        self.layer = layer
        self.sockets: set[BroadcastConsumer] = set()
        self.channel = ""
        self.listening: asyncio.Task | None = None
        self.ticking: asyncio.Task | None = None
        self.timers: dict[int, asyncio.TimerHandle] = {}
        self.spectators = 0
        self.last_news = ""
        self.progress: dict[int, str] = {}  # room's table id -> its latest progress message
        self.progress_flush: asyncio.TimerHandle | None = None

    async def join(self, socket: BroadcastConsumer) -> None:
        self.sockets.add(socket)
        if self.listening is None:
            self.channel = await self.layer.new_channel()
            await self.layer.group_add(broadcast_group(self.broadcast_id), self.channel)
            self.listening = asyncio.ensure_future(self.listen())
            self.ticking = asyncio.ensure_future(self.tick())

    async def leave(self, socket: BroadcastConsumer) -> None:
        self.sockets.discard(socket)
        if self.sockets or self.listening is None:
            return
        for task in (self.listening, self.ticking):
            if task is not None and task is not asyncio.current_task():
                task.cancel()
        self.listening = self.ticking = None
        for timer in [*self.timers.values(), self.progress_flush]:
            if timer is not None:
                timer.cancel()
        self.timers, self.progress_flush = {}, None
        await self.layer.group_discard(broadcast_group(self.broadcast_id), self.channel)
        HUBS.pop(_hub_key(self.broadcast_id), None)

    async def listen(self) -> None:
        while True:
            message = await self.layer.receive(self.channel)
            try:
                await self.dispatch(message)
            except Exception:
                logger.exception("broadcast %s: could not fan out", self.broadcast_id)

    async def dispatch(self, message: dict) -> None:
        kind = message.get("type")
        if kind == "broadcast.progress":
            self.progress[message["table_id"]] = json.dumps(
                {
                    "type": "progress",
                    "table_id": message["table_id"],
                    "board": message["board"],
                    "progress": message["progress"],
                },
                separators=(",", ":"),
            )
            if self.progress_flush is None:
                self.progress_flush = asyncio.get_running_loop().call_later(
                    PROGRESS_SECONDS, lambda: asyncio.ensure_future(self.send_progress())
                )
        elif kind == "broadcast.comment":
            await self.fan_out(
                json.dumps(
                    {"type": "comment", "comment": message["comment"]}, separators=(",", ":")
                )
            )
        elif kind == "broadcast.release":
            self.schedule(parse_datetime(message["release_at"]), int(message["board"]))
        elif kind == "broadcast.reload":
            shared = await SNAPSHOTS.get(
                self.broadcast_id, not_before=parse_datetime(message["at"])
            )
            await self.each(lambda socket: socket.take_snapshot(shared))

    def schedule(self, at: datetime | None, board: int) -> None:
        if at is None:
            return
        if board in self.timers:
            self.timers[board].cancel()
        wait = max(0.0, (at - timezone.now()).total_seconds())
        self.timers[board] = asyncio.get_running_loop().call_later(
            wait, lambda: asyncio.ensure_future(self.release(board, at))
        )

    async def release(self, board: int, at: datetime) -> None:
        self.timers.pop(board, None)
        shared = await SNAPSHOTS.get(self.broadcast_id, not_before=at)
        await self.each(lambda socket: socket.show_released(shared))

    async def send_progress(self) -> None:
        self.progress_flush = None
        pending, self.progress = self.progress, {}
        for text in pending.values():
            await self.fan_out(text)

    async def fan_out(self, text: str) -> None:
        await self.each(lambda socket: socket.send(text_data=text))

    async def each(self, send) -> None:
        for count, socket in enumerate(list(self.sockets), 1):
            if socket.closing or socket not in self.sockets:
                continue
            try:
                await send(socket)
            except Exception:
                logger.debug("broadcast: a spectator's socket went away", exc_info=True)
            if count % SENDS_BETWEEN_YIELDS == 0:
                await asyncio.sleep(0)

    async def tick(self) -> None:
        """The spectators' number when it changed (every SPECTATORS_SECONDS), and the
        broadcast read again every RESYNC_SECONDS, sent only if it changed (a board a
        director's result released, a delay that ran out)."""
        resync_at = time.monotonic() + RESYNC_SECONDS
        while True:
            await asyncio.sleep(SPECTATORS_SECONDS * random.uniform(0.75, 1.25))
            count = await _count(self.broadcast_id, 0)
            if count != self.spectators:
                self.spectators = count
                await self.fan_out(f'{{"type":"spectators","count":{int(count)}}}')
            if time.monotonic() >= resync_at:
                resync_at = time.monotonic() + RESYNC_SECONDS
                shared = await SNAPSHOTS.get(self.broadcast_id, not_before=timezone.now())
                if shared is None or shared.news != self.last_news:
                    await self.each(lambda socket, shared=shared: socket.take_snapshot(shared))


# By event loop and broadcast: a hub's tasks, timers and group member live on one loop
# (a server process has one; a test process makes a loop per test).
HUBS: dict[tuple[int, int], _Hub] = {}


def _hub_key(broadcast_id: int) -> tuple[int, int]:
    return id(asyncio.get_running_loop()), broadcast_id


def hub_of(broadcast_id: int, layer) -> _Hub:
    key = _hub_key(broadcast_id)
    hub = HUBS.get(key)
    if hub is None:
        hub = HUBS[key] = _Hub(broadcast_id, layer)
    return hub


class BroadcastConsumer(AsyncJsonWebsocketConsumer):
    broadcast_id = 0
    hub: _Hub | None = None
    counted = False
    anonymous_place = False
    closing = False
    address = ""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.release_timer: asyncio.TimerHandle | None = None
        self.shown: set[int] = set()  # the boards this socket has been shown

    @property
    def user(self):
        return self.scope["user"]

    async def connect(self):
        self.broadcast_id = int(self.scope["url_route"]["kwargs"]["broadcast_id"])
        await self.accept()
        refusal = self.scope.get(AUTH_REFUSAL)
        if refusal is not None:
            await self.refuse(refusal, CLOSE_UNAUTHENTICATED)
            return
        self.address = socket_address(self.scope)
        if not getattr(self.user, "is_authenticated", False):
            refusal = await anonymous_place_refusal(self.address)
            if refusal is not None:
                await self.refuse(refusal, CLOSE_TOO_MANY)
                return
            self.anonymous_place = True
        item, why = await _opening(self.broadcast_id, self.user)
        if item is None:
            if why == "player":
                await self.refuse(
                    _(
                        "You play in this event: its broadcast is not shown to its players "
                        "while it runs."
                    ),
                    CLOSE_NOT_ALLOWED,
                )
            else:
                await self.refuse(_("No such broadcast."), CLOSE_NOT_FOUND)
            return
        # Joined before the snapshot is read: what happens in between arrives after it.
        self.hub = hub_of(self.broadcast_id, self.channel_layer)
        await self.hub.join(self)
        self.counted = True
        spectators = await _count(self.broadcast_id, +1)
        shared = await SNAPSHOTS.get(self.broadcast_id)
        await self.take_snapshot(shared, spectators=spectators)

    async def disconnect(self, code):
        await self.leave()

    async def leave(self):
        if self.release_timer is not None:
            self.release_timer.cancel()
            self.release_timer = None
        if self.hub is not None:
            hub, self.hub = self.hub, None
            await hub.leave(self)
        if self.counted:
            self.counted = False
            await _count(self.broadcast_id, -1)
        if self.anonymous_place:
            self.anonymous_place = False
            await _give_back_anonymous_place(self.address)

    async def refuse(self, message: str, code: int):
        if self.closing:
            return
        self.closing = True
        await self.leave()
        await self.send_json({"type": "error", "error": str(message)})
        await self.close(code=code)

    async def receive(self, text_data=None, bytes_data=None):
        return  # spectators only watch

    async def take_snapshot(self, shared: _Shared | None, *, spectators: int | None = None):
        """The whole broadcast (on opening, after a reload, when the re-read changed)."""
        if shared is None:
            await self.refuse(_("This broadcast has ended."), CLOSE_NOT_FOUND)
            return
        if self.hub is not None:
            self.hub.last_news = shared.news
            if spectators is None:
                spectators = self.hub.spectators
        await self.send(
            text_data=f'{{"type":"snapshot","spectators":{int(spectators or 0)},'
            f'"broadcast":{shared.text}}}'
        )
        self.shown = {line["number"] for line in shared.snapshot["boards"] if line["released"]}
        self.schedule_next(shared.snapshot.get("next_release_at"))

    def schedule_next(self, when: str | None) -> None:
        """A board held back by the broadcast's delay: shown from a snapshot read then."""
        if self.release_timer is not None:
            self.release_timer.cancel()
            self.release_timer = None
        at = parse_datetime(when) if when else None
        if at is None:
            return
        wait = max(0.0, (at - timezone.now()).total_seconds())

        async def due() -> None:
            self.release_timer = None
            if not self.closing:
                await self.show_released(await SNAPSHOTS.get(self.broadcast_id, not_before=at))

        self.release_timer = asyncio.get_running_loop().call_later(
            wait, lambda: asyncio.ensure_future(due())
        )

    async def show_released(self, shared: _Shared | None):
        """Every board released in `shared` that this socket has not been shown."""
        if shared is None:
            await self.refuse(_("This broadcast has ended."), CLOSE_NOT_FOUND)
            return
        for line in shared.snapshot["boards"]:
            if line["released"] and line["number"] not in self.shown:
                self.shown.add(line["number"])
                await self.send(text_data=shared.released_text(line))
        self.schedule_next(shared.snapshot.get("next_release_at"))
