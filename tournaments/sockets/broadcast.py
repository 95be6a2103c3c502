"""A broadcast's spectators (RULES 12, Vugraph): `ws/broadcasts/<id>/`, anyone may open it,
anonymous too — except a player of the event while it runs (closed with 4403).

What a spectator is sent is `selectors.broadcasts.snapshot`, the same for every spectator,
so each server process reads it at most once a second per broadcast and every socket of
the process shares it (`_Snapshots`): two thousand spectators cost the database what one
does, and a busy broadcast never queues behind the players' tables for a read. The group's
messages carry no card: how far a room has come, and when a board may be shown; each
socket shows it at that time from the shared snapshot.

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
        self.text = json.dumps(snapshot, separators=(",", ":"))
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
        self.locks: dict[int, asyncio.Lock] = {}

    async def get(self, broadcast_id: int, *, not_before: datetime | None = None) -> _Shared | None:
        """A snapshot read at `not_before` or later and at most SNAPSHOT_SECONDS old."""
        lock = self.locks.setdefault(broadcast_id, asyncio.Lock())
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


class BroadcastConsumer(AsyncJsonWebsocketConsumer):
    broadcast_id = 0
    joined = False
    counted = False
    anonymous_place = False
    closing = False
    address = ""
    ticker: asyncio.Task | None = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.release_timers: dict[int, asyncio.TimerHandle] = {}
        self.spectators = -1
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
        await self.channel_layer.group_add(broadcast_group(self.broadcast_id), self.channel_name)
        self.joined = True
        self.counted = True
        self.spectators = await _count(self.broadcast_id, +1)
        if not await self.send_snapshot():
            return
        self.ticker = asyncio.ensure_future(self.tick())

    async def disconnect(self, code):
        await self.leave()

    async def leave(self):
        for timer in self.release_timers.values():
            timer.cancel()
        self.release_timers = {}
        if self.ticker is not None and self.ticker is not asyncio.current_task():
            self.ticker.cancel()
        self.ticker = None
        if self.joined:
            self.joined = False
            await self.channel_layer.group_discard(
                broadcast_group(self.broadcast_id), self.channel_name
            )
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

    async def send_snapshot(self, *, not_before: datetime | None = None) -> bool:
        shared = await SNAPSHOTS.get(self.broadcast_id, not_before=not_before)
        if shared is None:
            await self.refuse(_("This broadcast has ended."), CLOSE_NOT_FOUND)
            return False
        await self.send(
            text_data=f'{{"type":"snapshot","spectators":{int(self.spectators)},'
            f'"broadcast":{shared.text}}}'
        )
        self.shown = {line["number"] for line in shared.snapshot["boards"] if line["released"]}
        self.schedule_release(shared.snapshot.get("next_release_at"))
        return True

    def schedule_release(self, when: str | None, board: int = 0) -> None:
        """Show what is due at `when` (an ISO time) then: a board, or a snapshot's next."""
        at = parse_datetime(when) if when else None
        if at is None:
            return
        if board in self.release_timers:
            self.release_timers[board].cancel()
        wait = max(0.0, (at - timezone.now()).total_seconds())
        loop = asyncio.get_running_loop()
        self.release_timers[board] = loop.call_later(
            wait,
            lambda: asyncio.ensure_future(self.release(board, at)),
        )

    async def release(self, board: int, at: datetime):
        """Show every board released by `at` that this socket has not been shown."""
        self.release_timers.pop(board, None)
        if self.closing:
            return
        shared = await SNAPSHOTS.get(self.broadcast_id, not_before=at)
        if shared is None:
            await self.refuse(_("This broadcast has ended."), CLOSE_NOT_FOUND)
            return
        for line in shared.snapshot["boards"]:
            if line["released"] and line["number"] not in self.shown:
                self.shown.add(line["number"])
                await self.send(text_data=shared.released_text(line))
        self.schedule_release(shared.snapshot.get("next_release_at"))

    async def tick(self):
        """The spectators' number when it changed, and a fresh snapshot now and then."""
        resync_at = time.monotonic() + RESYNC_SECONDS * random.uniform(0.75, 1.0)
        while not self.closing:
            await asyncio.sleep(SPECTATORS_SECONDS * random.uniform(0.75, 1.25))
            count = await _count(self.broadcast_id, 0)
            if count != self.spectators:
                self.spectators = count
                await self.send_json({"type": "spectators", "count": count})
            if time.monotonic() >= resync_at:
                resync_at = time.monotonic() + RESYNC_SECONDS
                if not await self.send_snapshot():
                    return

    # The group's messages (`announcements`) ----------------------------------------

    async def broadcast_progress(self, event):
        await self.send_json(
            {
                "type": "progress",
                "table_id": event["table_id"],
                "board": event["board"],
                "progress": event["progress"],
            }
        )

    async def broadcast_release(self, event):
        self.schedule_release(event["release_at"], int(event["board"]))

    async def broadcast_comment(self, event):
        await self.send_json({"type": "comment", "comment": event["comment"]})

    async def broadcast_reload(self, event):
        # Every socket of the process asks for a snapshot read after the same moment,
        # so they share one read.
        await self.send_snapshot(not_before=parse_datetime(event["at"]))
