"""The live table server: one WebSocket per seat and board (RULES 9, docs/PLAY_PROTOCOL.md).

`ws/tables/<table_id>/boards/<n>/`, or with the table named as the HTTP API names it,
`ws/tournaments/<id>/rounds/<r>/tables/<t>/boards/<n>/` — a seat, an organiser
watching, or (after the round closed) anyone. The consumer stays thin: the snapshot is
`table_play.board_view` built for THIS connection's user on the server, every action goes
through `table_play.act`, and after an action the table's group carries the new views
built once by `act` (`announcements.views_stored`); each socket sends on only the one its user
may see — their seat's as the message names the seats, an organiser's watching view, or
none (then it asks `board_view`, which refuses whoever may not watch).

Per connection, the messages carrying a view have strictly increasing `seq` (the number
of the last action they announce): the reply to the seat's own action and the group's
event of that same action are one message, an event the snapshot already contains
is not sent again, and an event that overtook an earlier action's (two server processes
publish independently) waits for it, at most `REORDER_WAIT_SECONDS`: every action
reaches every socket once, in order.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import random
import time
from datetime import datetime

from channels.consumer import get_handler_name
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings
from django.core.cache import cache
from django.utils import timezone
from django.utils.translation import gettext as _

from .. import limits, visibility
from ..errors import NotAllowed, NotFound, ServiceError
from ..push.channel import table_group
from ..selectors import replays, table_server
from ..selectors.board_views import KIBITZER, WATCHER, board_json
from ..services import presence, table_play
from . import bell_tally
from .auth import AUTH_REFUSAL, CREDENTIAL, credential_refusal, socket_address
from .pool import table_db

logger = logging.getLogger(__name__)

# Close codes (4000–4999 are the application's): the number says why, an "error"
# message sent just before says it in words.
CLOSE_UNAUTHENTICATED = 4401  # a token refused, a key in the URL, a login that ended
CLOSE_NOT_ALLOWED = 4403  # may not watch this board (yet)
CLOSE_NOT_FOUND = 4404  # no such table or board
CLOSE_TOO_MANY = 4429  # over the write limits, or too many anonymous sockets from an address
CLOSE_TOO_BIG = 1009  # WebSocket's own "message too big"

# How long an anonymous socket's place in its address's count lives in the cache after
# the address last opened one: a server process that died without giving its places back
# frees them after this, at the latest.
ANONYMOUS_COUNT_SECONDS = 3600

# How long an organiser's right to watch a board before its round closes is trusted
# before it is read again: a director taken out of the directors' group, or whose
# account was closed, stops receiving the hands within this time (RULES 9).
WATCHER_RECHECK_SECONDS = 10.0
# How long a table's event waits for an earlier action's event that another server
# process has not published yet (`BoardConsumer.table_views`): each socket gets every
# action once and in order; past this, a missing one is given up (the next view holds it).
REORDER_WAIT_SECONDS = 0.5


def recheck_seconds() -> float:
    """How long a socket's credential (its login's session, or its API token) is trusted
    before it is read again (`SOCKET_RECHECK_SECONDS`)."""
    return float(getattr(settings, "SOCKET_RECHECK_SECONDS", 10.0))


def max_message_chars() -> int:
    return int(getattr(settings, "SOCKET_MAX_MESSAGE_CHARS", 4096))


class MessageBucket:
    """One client's pace in this server process, kept in memory: at most `burst` messages
    (and socket openings) at once, refilled at the per-user write rate. A client over it
    is closed before its message costs the server anything (no cache, no database): a
    flood of eight sockets otherwise has 120 refused actions each served before the
    shared count stops them (about 10 ms each of a busy server), which is what slows the
    other tables down. A person at a table, or a robot, acts at most once a second or so
    and never empties it. One per user (all their sockets in the process), or per
    address for sockets without a login (`bucket_of`)."""

    def __init__(self, burst: int, per_second: float):
        self.burst, self.per_second = burst, per_second
        self.level = float(burst)
        self.at = time.monotonic()

    @classmethod
    def from_settings(cls) -> MessageBucket | None:
        rate = limits.parse_rate(getattr(settings, "API_WRITE_RATE_PER_USER", None))
        burst = int(getattr(settings, "SOCKET_MESSAGE_BURST", 10))
        if rate is None or burst <= 0:
            return None
        count, period = rate
        return cls(burst, count / period)

    def charge(self, messages: float) -> None:
        """Take `messages` more (below empty: the next message waits for the refill)."""
        self.level -= messages

    def take(self) -> float | None:
        """None if a message may go now (and counts it), else the seconds until one may."""
        now = time.monotonic()
        self.level = min(self.burst, self.level + (now - self.at) * self.per_second)
        self.at = now
        if self.level >= 1:
            self.level -= 1
            return None
        return (1 - self.level) / self.per_second


# What a refused or unreadable message costs a client's bucket, in messages: a person's
# action is seldom refused (a claim answered from another device, a stale view), a
# flood's always is, and each costs the server a view read again besides the refusal.
REFUSED_MESSAGE_COST = 3

# The buckets of this process's clients, by ("user", id) or ("address", address); a
# bucket left full is forgotten when the dict is pruned (`bucket_of`).
_buckets: dict[tuple, MessageBucket] = {}
PRUNE_BUCKETS_AT = 10_000


def bucket_of(user_id, address: str) -> MessageBucket | None:
    fresh = MessageBucket.from_settings()
    if fresh is None:
        return None
    key = ("user", user_id) if user_id is not None else ("address", address)
    bucket = _buckets.get(key)
    if bucket is None or (bucket.burst, bucket.per_second) != (fresh.burst, fresh.per_second):
        if len(_buckets) >= PRUNE_BUCKETS_AT:
            now = time.monotonic()
            for old_key, old in list(_buckets.items()):
                if old.level + (now - old.at) * old.per_second >= old.burst:
                    del _buckets[old_key]
        bucket = _buckets[key] = fresh
    return bucket


def write_limit_wait(user_id, address: str) -> float | None:
    """Count one socket message (or opening) against the API's write limits, with the API
    writes' own scopes (`limits.API_WRITE_LIMITS`): HTTP and the sockets share one budget
    per user and one per address. None while within them, else the seconds to wait."""
    waits = []
    if user_id is not None:
        waits.append(limits.hit("api-write-user", user_id, settings.API_WRITE_RATE_PER_USER))
    waits.append(limits.hit("api-write-address", address, settings.API_WRITE_RATE_PER_ADDRESS))
    found = [wait for wait in waits if wait is not None]
    return max(found) if found else None


@table_db
def _count_write(user_id, address: str) -> float | None:
    return write_limit_wait(user_id, address)


@table_db
def _take_message(
    *, table, board_number, user, address, credential, recheck, action, not_understood, afresh,
    kibitz=False,
) -> tuple:  # fmt: skip
    """One client message in one trip to the pool (the cache, Redis in production, is
    not called from the event loop, and a refused action costs one trip, not three):
    counted against the write limits, the credential read again if due, then acted on.

    ("limit", wait) | ("credential", why) | ("view", view) — accepted |
    ("error", why, view, user) — refused or not understood, with the view to play on
    from (`afresh`: for the user read again) | ("gone", ServiceError) — that view refused.
    """
    user_id = user.pk if getattr(user, "is_authenticated", False) else None
    wait = write_limit_wait(user_id, address)
    if wait is not None:
        return ("limit", wait)
    if recheck:
        refusal = credential_refusal(credential, user_id)
        if refusal is not None:
            return ("credential", refusal)
    reason = not_understood
    if action is not None:
        try:
            return ("view", table_play.act(table=table, board_number=board_number, user=user,
                                         action=action))  # fmt: skip
        except ServiceError as error:
            reason = str(error)
    if afresh:
        user = table_server.user_afresh(user)
    try:
        view = table_play.board_view(
            table=table, board_number=board_number, user=user, kibitz=kibitz
        )
    except ServiceError as error:
        return ("gone", error)
    return ("error", reason, view, user)


@table_db
def _credential_refusal(credential, user_id):
    return credential_refusal(credential, user_id)


@table_db
def _present(channel: str, table_id: int, seat, user_id) -> None:
    # Who is connected is for the director's eyes: failing to say so never ends a socket.
    try:
        presence.connected(channel=channel, table_id=table_id, seat=seat, user_id=user_id)
    except Exception:
        logger.warning("sockets: could not record a connection", exc_info=True)


@table_db
def _absent(channel: str) -> None:
    try:
        presence.disconnected(channel=channel)
    except Exception:
        logger.warning("sockets: could not record a disconnection", exc_info=True)


def _anonymous_key(address: str) -> str:
    return "sockets:anonymous:" + hashlib.sha1(address.encode()).hexdigest()[:20]


@table_db
def _take_anonymous_place(address: str) -> bool:
    """Count one more anonymous socket from `address`; False (nothing counted) past
    ANONYMOUS_SOCKETS_PER_ADDRESS. Shared by every server process through the cache; a
    cache that cannot count lets the socket in (a limit must not take the site down)."""
    cap = getattr(settings, "ANONYMOUS_SOCKETS_PER_ADDRESS", None)
    if not cap:
        return True
    key = _anonymous_key(address)
    try:
        cache.add(key, 0, ANONYMOUS_COUNT_SECONDS)
        count = cache.incr(key)
        cache.touch(key, ANONYMOUS_COUNT_SECONDS)
        if count > cap:
            cache.decr(key)
            return False
    except Exception:
        logger.warning("sockets: could not count anonymous sockets", exc_info=True)
    return True


async def anonymous_place_refusal(address: str) -> str | None:
    """None when one more anonymous socket from `address` is counted; else why not."""
    if await _take_anonymous_place(address):
        return None
    return _("Too many connections from your address without a login: close some.")


@table_db
def _give_back_anonymous_place(address: str) -> None:
    key = _anonymous_key(address)
    try:
        if cache.decr(key) < 0:  # the count expired meanwhile and started again
            cache.set(key, 0, ANONYMOUS_COUNT_SECONDS)
    except ValueError:
        pass  # expired: nothing left to give back
    except Exception:
        logger.warning("sockets: could not count anonymous sockets", exc_info=True)


def round_clock_status(event) -> str:
    """The round's state for the clock of a `round` message: "running" once it has
    started, else "scheduled" (a closed round is told by `round_closed`, never here;
    `announcements.round_changed` tells only rounds not closed)."""
    starts_at = event.get("starts_at")
    try:
        started = starts_at is None or datetime.fromisoformat(starts_at) <= timezone.now()
    except ValueError:
        started = True
    return "running" if started else "scheduled"


def _close_code(error: ServiceError) -> int:
    if isinstance(error, NotFound):
        return CLOSE_NOT_FOUND
    if isinstance(error, NotAllowed):
        return CLOSE_NOT_ALLOWED
    return CLOSE_NOT_ALLOWED


def _view_seq(view: dict) -> int:
    """The number of the last action a view contains (next_seq - 1)."""
    return int(view["next_seq"]) - 1


@table_db
def _load_table(route: dict):
    if "table_id" in route:
        return table_server.table_for_socket(table_id=route["table_id"])
    return table_server.table_for_socket(
        tournament_id=route["tournament_id"],
        round_number=route["number"],
        table_number=route["table"],
    )


@table_db
def _board_view(*, table, board_number: int, user, kibitz: bool = False) -> dict:
    return table_play.board_view(table=table, board_number=board_number, user=user, kibitz=kibitz)


@table_db
def _board_snapshot(
    *, table, board_number: int, user, kibitz: bool = False
) -> tuple[dict, dict, dict | None, dict | None]:
    return table_play.board_snapshot(
        table=table, board_number=board_number, user=user, kibitz=kibitz
    )


@table_db
def _board_view_afresh(
    *, table, board_number: int, user, kibitz: bool = False
) -> tuple[dict, object]:
    user = table_server.user_afresh(user)
    view = table_play.board_view(table=table, board_number=board_number, user=user, kibitz=kibitz)
    return view, user


def live_kibitzer_text(view_text: str) -> str:
    """An organiser's watching view (JSON text) as a kibitzer watching live is sent it:
    the same hands, marked as a kibitzer's. `kibitzer` is the view's last key
    (`board_views._view`) and any text inside the view is escaped, so its last
    `"kibitzer": false` is the key's."""
    before, found, after = view_text.rpartition('"kibitzer": false')
    return before + '"kibitzer": true' + after if found else view_text


class BoardConsumer(AsyncJsonWebsocketConsumer):
    """One board at one table, for one user (seat, organiser or watcher)."""

    table = None
    watching = False  # True once the snapshot was sent: only then do events flow
    sees_all = False  # not seated: an organiser watching (or anyone once the round closed)
    kibitz = False  # opened as a kibitzer (the `…/kibitz/` URL): anyone may
    kibitzer = False  # watching as a kibitzer: live (with `sees_all`) or the progress only
    progress_only = False  # a kibitzer of a running round: the board's progress, no card
    last_seq: int | None = None
    watch_checked_at = 0.0  # time.monotonic() when the right to watch was last read
    held_release: asyncio.TimerHandle | None = None
    closing = False  # refused or closed by the server: the client's messages are ignored
    address = ""  # the client's address, by the HTTP side's rule (`socket_address`)
    anonymous_place = False  # holds a place in its address's count of anonymous sockets
    credential_checked_at = 0.0  # time.monotonic() when the credential was last read
    checker: asyncio.Task | None = None  # reads the credential again every so often
    bucket: MessageBucket | None = None  # its client's pace here (None: no write limit)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.held: dict[int, dict] = {}  # seq -> an event that overtook an earlier one

    @property
    def user(self):
        return self.scope["user"]

    async def dispatch(self, message):
        # Channels hops to its sync thread for `close_old_connections` before every
        # message; this consumer's database calls all run in the table server's pool
        # (`db.table_db`), which keeps its own connections, so the hop is skipped.
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def connect(self):
        route = self.scope["url_route"]["kwargs"]
        self.board_number = int(route["board"])
        self.kibitz = bool(route.get("kibitz"))
        # Accepted first, so the refusal can be told in words and with a close code
        # (a handshake refused before acceptance is only an HTTP 403).
        await self.accept()
        refusal = self.scope.get(AUTH_REFUSAL)
        if refusal is not None:
            await self.refuse(refusal, CLOSE_UNAUTHENTICATED)
            return
        self.address = socket_address(self.scope)
        self.bucket = bucket_of(self.user_id, self.address)
        # Opening a socket costs the server what a write does (the table, the view): it
        # counts as one, so a client over the limits cannot reopen its way around them.
        wait = self.bucket.take() if self.bucket is not None else None
        if wait is not None:
            await self.refuse(limits.too_many_requests_message(wait), CLOSE_TOO_MANY)
            return
        wait = await _count_write(self.user_id, self.address)
        if wait is not None:
            await self.refuse(limits.too_many_requests_message(wait), CLOSE_TOO_MANY)
            return
        if self.user_id is None:
            refusal = await anonymous_place_refusal(self.address)
            if refusal is not None:
                await self.refuse(refusal, CLOSE_TOO_MANY)
                return
            self.anonymous_place = True
        self.table = await _load_table(route)
        if self.table is None:
            await self.refuse(_("No such table."), CLOSE_NOT_FOUND)
            return
        self.table_id = self.table.pk
        # Joined before the snapshot is read: an action stored in between arrives as an
        # event after it (and is dropped if the snapshot already has it), never lost.
        await self.channel_layer.group_add(table_group(self.table_id), self.channel_name)
        try:
            view, clock, cut_off, after = await _board_snapshot(
                table=self.table, board_number=self.board_number, user=self.user,
                kibitz=self.kibitz,
            )  # fmt: skip
        except ServiceError as error:
            await self.refuse(str(error), _close_code(error), leave=True)
            return
        self.watching = True
        self.take_sight(view)
        self.watch_checked_at = self.credential_checked_at = time.monotonic()
        # Recorded before the snapshot goes out: once a player sees their table, the
        # console sees them connected. A stand-in robot's socket is not its player's
        # connection (`presence`).
        stand_in = presence.is_stand_in(self.scope.get("headers"))
        await _present(
            self.channel_name, self.table_id, view["seat"], None if stand_in else self.user_id
        )
        await self.send_view("snapshot", view, clock=clock, cut_off=cut_off, after=after)
        if self.scope.get(CREDENTIAL) is not None:
            self.checker = asyncio.ensure_future(self.keep_checking_credential())

    async def disconnect(self, code):
        await self.leave()
        await self.give_back_anonymous_place()
        if self.table is not None:
            await _absent(self.channel_name)

    @property
    def user_id(self):
        user = self.user
        return user.pk if getattr(user, "is_authenticated", False) else None

    async def give_back_anonymous_place(self):
        if self.anonymous_place:
            self.anonymous_place = False
            await _give_back_anonymous_place(self.address)

    def drop_held(self) -> None:
        if self.held_release is not None:
            self.held_release.cancel()
            self.held_release = None
        self.held = {}

    async def leave(self):
        self.drop_held()
        if self.checker is not None and self.checker is not asyncio.current_task():
            self.checker.cancel()
        self.checker = None
        if self.table is not None:
            await self.channel_layer.group_discard(table_group(self.table_id), self.channel_name)
        self.watching = False

    async def refuse(self, message: str, code: int, *, leave: bool = False):
        """Say why in words, close with `code`; once only (the credential's timer and a
        message may both find a reason)."""
        if self.closing:
            return
        self.closing = True
        if leave:
            await self.leave()
        # Before the close: a client that reconnects at once finds its place free.
        await self.give_back_anonymous_place()
        await self.send_json({"type": "error", "error": str(message)})
        await self.close(code=code)

    # The credential, read again -------------------------------------------------

    async def keep_checking_credential(self):
        """Every SOCKET_RECHECK_SECONDS, whether the login's session or the API token the
        socket was opened with still holds (logged out, revoked, expired, the account
        closed: closed with 4401). The first wait is drawn in the second half of the
        period, so the sockets opened together at a round's start are not read together."""
        period = recheck_seconds()
        await asyncio.sleep(period * random.uniform(0.5, 1.0))
        while self.watching:
            due = self.credential_checked_at + period - time.monotonic()
            if due > 0:
                await asyncio.sleep(due)
                continue
            refusal = await _credential_refusal(self.scope[CREDENTIAL], self.user_id)
            self.credential_checked_at = time.monotonic()
            if refusal is not None:
                await self.end_for_credential(refusal)
                return

    async def end_for_credential(self, refusal: str):
        await self.refuse(refusal, CLOSE_UNAUTHENTICATED, leave=True)

    def take_sight(self, view: dict) -> None:
        """What this socket sends on of the table's events, from the view the service
        just gave its user: a seat's; every hand (an organiser, the round closed, or a
        kibitzer when the organiser lets them watch live); or a kibitzer's progress."""
        self.progress_only = view.get("progress") is not None
        self.kibitzer = bool(view.get("kibitzer"))
        self.sees_all = view["seat"] is None and not self.progress_only

    async def current_view(self, *, afresh: bool = False) -> dict:
        """The board as the service shows it to this socket's user now; `afresh`: with
        the user (and their permissions) read again first."""
        if not afresh:
            view = await _board_view(
                table=self.table, board_number=self.board_number, user=self.user,
                kibitz=self.kibitz,
            )  # fmt: skip
        else:
            view, self.scope["user"] = await _board_view_afresh(
                table=self.table, board_number=self.board_number, user=self.user,
                kibitz=self.kibitz,
            )  # fmt: skip
            self.watch_checked_at = time.monotonic()
        if view["seat"] is None:
            self.take_sight(view)
        return view

    def takes(self, kind: str, seq: int) -> bool:
        # A view is labelled with the last action it holds, and a connection never gets
        # a state it already has: an event overtaken by a later view (another process
        # answered first) is dropped here, so seq strictly increases per connection.
        if kind != "snapshot" and self.last_seq is not None and seq <= self.last_seq:
            return False
        self.last_seq = seq
        return True

    async def send_view(
        self,
        kind: str,
        view: dict,
        *,
        clock: dict | None = None,
        cut_off: dict | None = None,
        after: dict | None = None,
    ):
        seq = _view_seq(view)
        if self.takes(kind, seq):
            message = {"type": kind, "board": self.board_number, "seq": seq, "view": view}
            if clock is not None:
                message["clock"] = clock  # the snapshot's: the round as the server has it
            if cut_off is not None:
                message["cut_off"] = cut_off  # after the bell: what it made of this board
            if after is not None:
                # After the bell: what `round_closed` says comes next, for a socket that
                # opened too late to hear it (it was moving to its next board then).
                user_id = self.user_id
                message["next"] = after["next"] if user_id is not None else None
                message["tournament_over"] = after["tournament_over"]
                message["results_url"] = after["results_url"]
            await self.send_json(message)

    async def send_view_text(self, seq: int, view_text: str):
        """A "view" message around a view already encoded (`announcements.views_stored`): the
        same text `send_view` would send."""
        if self.takes("view", seq):
            await self.send(
                text_data=f'{{"type": "view", "board": {self.board_number}, "seq": {seq}, '
                f'"view": {view_text}}}'
            )

    # From the client -------------------------------------------------------------

    async def websocket_receive(self, message):
        """Each client message, before it is read: size capped, counted against the write
        limits (over them: refused and closed with 4429 at once), the credential read
        again if due; a binary or unreadable message is answered with an error."""
        if self.closing or not self.watching:
            return
        text = message.get("text")
        if text is not None and len(text) > max_message_chars():
            # Read no further: a table's message is a few hundred characters.
            self.closing = True
            await self.leave()
            await self.send_json(
                {"type": "error", "board": self.board_number,
                 "error": _("Message too long: an action is a few hundred characters.")}
            )  # fmt: skip
            await self.close(code=CLOSE_TOO_BIG)
            return
        wait = self.bucket.take() if self.bucket is not None else None
        if wait is not None:
            await self.refuse(limits.too_many_requests_message(wait), CLOSE_TOO_MANY, leave=True)
            return
        credential = self.scope.get(CREDENTIAL)
        recheck = (
            credential is not None
            and time.monotonic() - self.credential_checked_at >= recheck_seconds()
        )
        action, not_understood = self.read_action(text)
        outcome = await _take_message(
            table=self.table,
            board_number=self.board_number,
            user=self.user,
            address=self.address,
            credential=credential,
            recheck=recheck,
            action=action,
            not_understood=not_understood,
            afresh=self.sees_all,
            kibitz=self.kibitz,
        )
        if recheck:
            self.credential_checked_at = time.monotonic()
        kind = outcome[0]
        if kind == "limit":
            await self.refuse(
                limits.too_many_requests_message(outcome[1]), CLOSE_TOO_MANY, leave=True
            )
        elif kind == "credential":
            await self.end_for_credential(outcome[1])
        elif kind == "view":
            await self.send_view("view", outcome[1])
        elif kind == "gone":  # may no longer watch: the view was refused
            await self.refuse(str(outcome[1]), _close_code(outcome[1]), leave=True)
        else:
            _kind, reason, view, user = outcome
            if self.sees_all:
                self.scope["user"] = user
                self.watch_checked_at = time.monotonic()
            if view["seat"] is None:
                self.take_sight(view)
            if self.bucket is not None:
                self.bucket.charge(REFUSED_MESSAGE_COST - 1)
            await self.send_refusal(reason, view)

    def read_action(self, text: str | None) -> tuple[dict | None, str | None]:
        """(the action a message asks for, None) or (None, why it was not understood)."""
        if text is None:
            return None, _('Send actions as JSON text, e.g. {"type": "action", …}.')
        try:
            content = json.loads(text)
        except (ValueError, RecursionError):  # not JSON, or nested deeper than Python reads
            content = None
        if not isinstance(content, dict) or content.get("type") != "action":
            return None, _('Unknown message: send {"type": "action", …}.')
        action = {key: value for key, value in content.items() if key not in ("type", "action")}
        action["type"] = content.get("action")
        return action, None

    async def send_refusal(self, message: str, view: dict):
        """A refusal, to this client only, with the state it should now play from."""
        seq = _view_seq(view)
        self.last_seq = seq if self.last_seq is None else max(self.last_seq, seq)
        await self.send_json(
            {"type": "error", "board": self.board_number, "error": str(message), "seq": seq,
             "view": view}
        )  # fmt: skip

    # From the table's group ------------------------------------------------------

    async def table_views(self, event):
        """Action `seq` of board `board` is stored: send THIS user's view of it, in the
        order of the actions."""
        if not self.watching or event.get("board") != self.board_number:
            return
        seq = int(event["seq"])
        if event.get("action") and event.get("board_id"):
            replays.follow(
                table_id=self.table_id,
                board_id=event["board_id"],
                row=replays.Row(*event["action"]),
            )
        if self.last_seq is not None and seq <= self.last_seq:
            return
        if self.last_seq is not None and seq > self.last_seq + 1:
            # An earlier action's event is still on its way: two server processes stored
            # them in quick succession and this one was published first (each publishes
            # after its own commit; a seat whose snapshot already held the earlier action
            # may act on it at once). Held until the earlier one arrives.
            self.hold(seq, event)
            return
        await self.deliver(seq, event)
        while self.last_seq is not None and self.last_seq + 1 in self.held:
            await self.deliver(self.last_seq + 1, self.held.pop(self.last_seq + 1))
        # A view sent meanwhile may hold later ones already (an organiser's, read afresh).
        last = self.last_seq
        self.held = {held: e for held, e in self.held.items() if last is None or held > last}
        if not self.held:
            self.drop_held()

    def hold(self, seq: int, event) -> None:
        if self.held_release is None:
            self.held_release = asyncio.get_running_loop().call_later(
                REORDER_WAIT_SECONDS, lambda: asyncio.ensure_future(self.release_held())
            )
        self.held[seq] = event

    async def release_held(self):
        """The earlier event did not come in time (its process could not publish it): what
        is held goes out in order, the gap and all (every view holds the whole board)."""
        self.held_release = None
        held, self.held = self.held, {}
        for seq in sorted(held):
            if self.watching and (self.last_seq is None or seq > self.last_seq):
                await self.deliver(seq, held[seq])

    async def deliver(self, seq: int, event):
        if not self.watching:
            return
        view_text = self.own_view(event)
        if view_text is not None:
            await self.send_view_text(seq, view_text)
            return
        # Not seated, and not watching as an organiser whose right was read lately: the
        # service decides (and refuses whoever may not watch yet).
        try:
            view = await self.current_view(afresh=self.sees_all)
        except ServiceError as error:
            await self.refuse(str(error), _close_code(error), leave=True)
            return
        await self.send_view("view", view)

    def own_view(self, event) -> str | None:
        """The view of `event` this connection's user may see (its JSON text), or None."""
        user_id = getattr(self.user, "pk", None)
        views = event["views"]
        for seat, player in event["seats"].items():
            if player == user_id:
                return views.get(seat)
        if self.progress_only:
            return views.get(KIBITZER)  # nothing of the cards: no right to read again
        if not self.sees_all:
            return None
        if time.monotonic() - self.watch_checked_at >= WATCHER_RECHECK_SECONDS:
            return None  # the right to watch is read again first
        text = views.get(WATCHER)
        return live_kibitzer_text(text) if text is not None and self.kibitzer else text

    async def round_closed(self, event):
        """The bell: the board is cut off if unfinished; say so, and where to sit next.

        Everything comes from the message (`table_server.bell_news`) and the board this
        process keeps: no read, so a thousand tables' sockets answer the bell at once.
        A kept board a few actions behind catches up from the rows the message carries;
        only one that cannot is read. How each socket answered is counted (`bell_tally`)."""
        if not self.watching:
            return
        self.drop_held()  # the view below holds the board as the bell left it
        user_id = getattr(self.user, "pk", None)
        seat = next((s for s, player in event["seats"].items() if player == user_id), None)
        view, how = self.closing_view(event, seat)
        bell_tally.count(event["round_id"], how)
        if view is None:
            try:
                view = await self.current_view()
            except ServiceError:
                view = None
        if view is not None:
            # The board as the bell left it: an action's event still on its way (stored
            # before the close) is in this view, and is not sent after it.
            seq = _view_seq(view)
            self.last_seq = seq if self.last_seq is None else max(self.last_seq, seq)
        await self.send_json(
            {
                "type": "round_closed",
                "board": self.board_number,
                "round": event["round"],
                "next": event["next"].get(str(user_id)) if user_id is not None else None,
                "view": view,
                "cut_off": self.cut_off(event),
                "tournament_over": bool(event.get("tournament_over")),
                "results_url": event.get("results_url"),
            }
        )

    def cut_off(self, event) -> dict | None:
        """What the bell made of this socket's board if it was not over: its result by
        the tournament's unplayed-board policy, said in the user's language."""
        result = (event.get("cut_off") or {}).get(str(self.board_number))
        if result is None:
            return None
        return table_server.cut_off(
            board_number=self.board_number, policy=event.get("policy"), result=result
        )

    def closing_view(self, event, seat: str | None) -> tuple[dict | None, str]:
        """(This user's view of the board as the bell left it, how it was had): from the
        board kept here ("kept"), or that board brought up to date with the last actions
        the bell carries ("carried"); (None, "read") when neither is the board as stored
        (then the service is asked)."""
        stored = event["boards"].get(str(self.board_number))
        if stored is None:
            return None, "read"
        board_id, count, last_id = stored
        stored_now = replays.Stored(count, last_id)
        at = {"table_id": self.table_id, "board_id": board_id, "stored": stored_now}
        how, state = "kept", replays.kept_state(**at)
        if state is None:
            rows = (event.get("last_rows") or {}).get(str(self.board_number), [])
            how, state = "carried", replays.caught_up(**at, rows=[replays.Row(*r) for r in rows])
        viewer = visibility.table_viewer(user=self.user, round=event["status"], seat=seat)
        if state is None or viewer is None:
            return None, "read"
        public = visibility.deal_public_status(event["status"])
        return board_json(state, viewer=viewer, seat=seat, public=public), how

    async def round_changed(self, event):
        """The round's bell moved (extension, resume, a late opening) or the director
        stopped the clock: tell the page when the round now ends, and whether the clock
        is stopped (docs/PLAY_PROTOCOL.md, `round`). No view: nothing was played."""
        if not self.watching:
            return
        await self.send_json(
            {
                "type": "round",
                "round": event.get("round"),
                "status": round_clock_status(event),
                "starts_at": event.get("starts_at"),
                "ends_at": event["ends_at"],
                "paused": bool(event.get("paused")),
                "now": timezone.now().isoformat(),
            }
        )
