"""The live table server: one WebSocket per seat and board (RULES 9, docs/PLAY_PROTOCOL.md).

`ws/tables/<table_id>/boards/<n>/`, or with the table named as the HTTP API names it,
`ws/tournaments/<id>/rounds/<r>/tables/<t>/boards/<n>/` — a seat, an organiser
watching, or (after the round closed) anyone. The consumer stays thin: the snapshot is
`services.board_view` built for THIS connection's user on the server, every action goes
through `services.act`, and after an action the table's group carries the new views
built once by `act` (`events.views_stored`); each socket sends on only the one its user
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
import time

from channels.consumer import get_handler_name
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.utils.translation import gettext as _

from ..errors import NotAllowed, NotFound, ServiceError
from . import live_reads, replays, services
from .db import table_db
from .views import WATCHER
from .ws_auth import TOKEN_REFUSAL

# Close codes (4000–4999 are the application's): the number says why, an "error"
# message sent just before says it in words.
CLOSE_UNAUTHENTICATED = 4401  # a token was presented and refused
CLOSE_NOT_ALLOWED = 4403  # may not watch this board (yet)
CLOSE_NOT_FOUND = 4404  # no such table or board

# How long an organiser's right to watch a board before its round closes is trusted
# before it is read again: a director taken out of the directors' group, or whose
# account was closed, stops receiving the hands within this time (RULES 9).
WATCHER_RECHECK_SECONDS = 10.0
# How long a table's event waits for an earlier action's event that another server
# process has not published yet (`BoardConsumer.table_views`): each socket gets every
# action once and in order; past this, a missing one is given up (the next view holds it).
REORDER_WAIT_SECONDS = 0.5


def table_group(table_id: int) -> str:
    """The Channels group of a table's sockets (part A's `events` sends to it)."""
    return f"table-{table_id}"


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
        return live_reads.table_for_socket(table_id=route["table_id"])
    return live_reads.table_for_socket(
        tournament_id=route["tournament_id"],
        round_number=route["number"],
        table_number=route["table"],
    )


@table_db
def _board_view(*, table, board_number: int, user) -> dict:
    return services.board_view(table=table, board_number=board_number, user=user)


@table_db
def _board_view_afresh(*, table, board_number: int, user) -> tuple[dict, object]:
    user = live_reads.user_afresh(user)
    return services.board_view(table=table, board_number=board_number, user=user), user


@table_db
def _act(*, table, board_number: int, user, action: dict) -> dict:
    return services.act(table=table, board_number=board_number, user=user, action=action)


@table_db
def _next_seat(*, user, closed_round_id: int) -> dict | None:
    return live_reads.next_seat(user=user, closed_round_id=closed_round_id)


class BoardConsumer(AsyncJsonWebsocketConsumer):
    """One board at one table, for one user (seat, organiser or watcher)."""

    table = None
    watching = False  # True once the snapshot was sent: only then do events flow
    sees_all = False  # not seated: an organiser watching (or anyone once the round closed)
    last_seq: int | None = None
    watch_checked_at = 0.0  # time.monotonic() when the right to watch was last read
    held_release: asyncio.TimerHandle | None = None

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
        # Accepted first, so the refusal can be told in words and with a close code
        # (a handshake refused before acceptance is only an HTTP 403).
        await self.accept()
        refusal = self.scope.get(TOKEN_REFUSAL)
        if refusal is not None:
            await self.refuse(refusal, CLOSE_UNAUTHENTICATED)
            return
        self.table = await _load_table(route)
        if self.table is None:
            await self.refuse(_("No such table."), CLOSE_NOT_FOUND)
            return
        self.table_id = self.table.pk
        # Joined before the snapshot is read: an action stored in between arrives as an
        # event after it (and is dropped if the snapshot already has it), never lost.
        await self.channel_layer.group_add(table_group(self.table_id), self.channel_name)
        try:
            view = await self.current_view()
        except ServiceError as error:
            await self.leave()
            await self.refuse(str(error), _close_code(error))
            return
        self.watching = True
        self.sees_all = view["seat"] is None
        self.watch_checked_at = time.monotonic()
        await self.send_view("snapshot", view)

    async def disconnect(self, code):
        await self.leave()

    def drop_held(self) -> None:
        if self.held_release is not None:
            self.held_release.cancel()
            self.held_release = None
        self.held = {}

    async def leave(self):
        self.drop_held()
        if self.table is not None:
            await self.channel_layer.group_discard(table_group(self.table_id), self.channel_name)
        self.watching = False

    async def refuse(self, message: str, code: int):
        await self.send_json({"type": "error", "error": str(message)})
        await self.close(code=code)

    async def current_view(self, *, afresh: bool = False) -> dict:
        """The board as the service shows it to this socket's user now; `afresh`: with
        the user (and their permissions) read again first."""
        if not afresh:
            return await _board_view(
                table=self.table, board_number=self.board_number, user=self.user
            )
        view, self.scope["user"] = await _board_view_afresh(
            table=self.table, board_number=self.board_number, user=self.user
        )
        self.watch_checked_at = time.monotonic()
        return view

    def takes(self, kind: str, seq: int) -> bool:
        # A view is labelled with the last action it holds, and a connection never gets
        # a state it already has: an event overtaken by a later view (another process
        # answered first) is dropped here, so seq strictly increases per connection.
        if kind != "snapshot" and self.last_seq is not None and seq <= self.last_seq:
            return False
        self.last_seq = seq
        return True

    async def send_view(self, kind: str, view: dict):
        seq = _view_seq(view)
        if self.takes(kind, seq):
            await self.send_json(
                {"type": kind, "board": self.board_number, "seq": seq, "view": view}
            )

    async def send_view_text(self, seq: int, view_text: str):
        """A "view" message around a view already encoded (`events.views_stored`): the
        same text `send_view` would send."""
        if self.takes("view", seq):
            await self.send(
                text_data=f'{{"type": "view", "board": {self.board_number}, "seq": {seq}, '
                f'"view": {view_text}}}'
            )

    # From the client -------------------------------------------------------------

    async def receive_json(self, content, **kwargs):
        if not self.watching:
            return
        if not isinstance(content, dict) or content.get("type") != "action":
            await self.send_error(_('Unknown message: send {"type": "action", …}.'))
            return
        action = {key: value for key, value in content.items() if key not in ("type", "action")}
        action["type"] = content.get("action")
        try:
            view = await _act(
                table=self.table, board_number=self.board_number, user=self.user, action=action
            )
        except ServiceError as error:
            await self.send_error(str(error))
            return
        await self.send_view("view", view)

    async def decode_json(self, text_data):
        try:
            return await super().decode_json(text_data)
        except ValueError:
            return None

    async def send_error(self, message: str):
        """A refusal, to this client only, with the state it should now play from."""
        try:
            view = await self.current_view(afresh=self.sees_all)
        except ServiceError as error:
            await self.leave()
            await self.refuse(str(error), _close_code(error))
            return
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
            await self.leave()
            await self.refuse(str(error), _close_code(error))
            return
        await self.send_view("view", view)

    def own_view(self, event) -> str | None:
        """The view of `event` this connection's user may see (its JSON text), or None."""
        user_id = getattr(self.user, "pk", None)
        views = event["views"]
        for seat, player in event["seats"].items():
            if player == user_id:
                return views.get(seat)
        if not self.sees_all:
            return None
        if time.monotonic() - self.watch_checked_at >= WATCHER_RECHECK_SECONDS:
            return None  # the right to watch is read again first
        return views.get(WATCHER)

    async def round_closed(self, event):
        """The bell: the board is cut off if unfinished; say so, and where to sit next."""
        if not self.watching:
            return
        self.drop_held()  # the view below holds the board as the bell left it
        round_id = event.get("round_id") or self.table.round_id
        next_seat = await _next_seat(user=self.user, closed_round_id=round_id)
        try:
            view = await self.current_view()
        except ServiceError:
            view = None
        await self.send_json(
            {
                "type": "round_closed",
                "board": self.board_number,
                "round": self.table.round.number,
                "next": next_seat,
                "view": view,
            }
        )

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
                "starts_at": event.get("starts_at"),
                "ends_at": event["ends_at"],
                "paused": bool(event.get("paused")),
            }
        )
