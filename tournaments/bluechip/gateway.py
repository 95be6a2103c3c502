"""The gateway: one TCP connection per seat, each a `bluechip.Conversation` between a
program and the table it plays at (docs/PLAY_PROTOCOL.md, "Programs: the Blue Chip
gateway").

A connection is let in only from an allowed address; its first line binds it to a seat
(`services.programs.bind`: the ticket is the team name). From then on the connection
plays the seat as its player would: the program's calls and cards go through
`table_play.act`, what it is told comes from the seat's own `table_play.board_view`, so
it hears its own hand and dummy's, the calls with the alerts that seat may read, and
nothing more. What the protocol does not say is decided here:

- the think-time limit (the reservation's, 60 s by default): past it our robot makes the
  call or card (`simulation.robot`, the solver's card), the reservation counts it for
  the table's page, and the board is aborted for the program (our robot plays the seat's
  rest of it; the program starts again at the next board's ``Start of board``); a call or
  card the table refuses is dealt with alike;
- a person's claim the seat must answer is answered for the program, double dummy: it is
  accepted when no line of play gives the program's side more, else rejected;
- a board that ends by a claim, or is cut off by the bell, is aborted for the program;
- a connection that drops is a disconnection (`services.programs.dropped`).

The connection re-reads the table at once after an action made through this gateway and
every `poll` seconds otherwise (a person's action through the site reaches it then).
Database work runs in worker threads, each call closing its connection after.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from channels.layers import get_channel_layer
from django.db import close_old_connections, connections

import bluechip
from bluechip import messages as say
from bluechip.conversation import ABORTED, BETWEEN, BOARD, PARTNER, SEATED, STARTING
from scoring import SEATS
from simulation.robot import ViewBoard, heuristic_plan, next_action

from .. import double_dummy
from ..errors import ServiceError
from ..models import Board, Pair, pair_names, player_name
from ..push.channel import table_group
from ..services import programs, table_play

logger = logging.getLogger("tournaments.bluechip")

LOOPBACK = ("127.0.0.0/8", "::1/128")
HANDSHAKE_SECONDS = 30.0
MAX_LINE = 1024  # the longest line the protocol sends is an alert; more is not a program


def _in_thread(function: Callable, /, *args, **kwargs):
    close_old_connections()
    try:
        return function(*args, **kwargs)
    finally:
        connections.close_all()


async def db(function: Callable, /, *args, **kwargs):
    return await asyncio.to_thread(_in_thread, function, *args, **kwargs)


@dataclass(frozen=True)
class Options:
    host: str = "127.0.0.1"
    port: int = 2000
    allow: tuple[str, ...] = LOOPBACK  # networks a program may connect from
    poll: float = 0.5


class Gateway:
    """The TCP server; `serve` runs it until `stop` is set."""

    def __init__(self, options: Options = Options()):
        self.options = options
        self.networks = [ipaddress.ip_network(net, strict=False) for net in options.allow]
        self._tables: dict[int, set[asyncio.Event]] = {}
        self.connections: set[Seat] = set()
        self.port: int | None = None  # the port bound (the options' 0: any free one)

    def allows(self, address: str) -> bool:
        try:
            ip = ipaddress.ip_address(address.split("%")[0])
        except ValueError:
            return False
        if ip.version == 6 and ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped
        return any(ip in net for net in self.networks)

    def watch(self, table_id: int, event: asyncio.Event) -> None:
        self._tables.setdefault(table_id, set()).add(event)

    def unwatch(self, table_id: int, event: asyncio.Event) -> None:
        self._tables.get(table_id, set()).discard(event)

    def wake(self, table_id: int) -> None:
        """An action was stored at the table: its seats here look again now."""
        for event in self._tables.get(table_id, ()):
            event.set()

    async def serve(self, stop: asyncio.Event, ready: Callable[[int], object] | None = None):
        server = await asyncio.start_server(
            self._connection, self.options.host, self.options.port, limit=MAX_LINE * 4
        )
        self.port = server.sockets[0].getsockname()[1]
        logger.info("Blue Chip gateway on %s:%s", self.options.host, self.port)
        if ready is not None:
            ready(self.port)
        async with server:
            await stop.wait()
            server.close()
            for seat in list(self.connections):
                seat.close()
            await server.wait_closed()

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        peer = writer.get_extra_info("peername")
        address = peer[0] if peer else ""
        seat = Seat(self, reader, writer, address)
        self.connections.add(seat)
        try:
            if not self.allows(address):
                await seat.send(f"Error: {address} may not connect to this table manager.")
                return
            await seat.run()
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        except Exception:
            logger.exception("Blue Chip connection from %s failed", address)
        finally:
            self.connections.discard(seat)
            await seat.finish()


@dataclass
class _Times:
    """Each side's thinking as the gateway saw the table's actions arrive."""

    board: dict[str, float] = field(default_factory=lambda: {"NS": 0.0, "EW": 0.0})
    total: dict[str, float] = field(default_factory=lambda: {"NS": 0.0, "EW": 0.0})
    seen: int = 0
    since: float = field(default_factory=time.monotonic)

    def saw(self, view: dict) -> None:
        count = len(view["auction"]) + len(view["play"])
        now = time.monotonic()
        if count > self.seen:
            last = view["play"][-1]["seat"] if view["play"] else view["auction"][-1]["seat"]
            side = "NS" if last in "NS" else "EW"
            self.board[side] += now - self.since
            self.total[side] += now - self.since
            self.seen, self.since = count, now

    def new_board(self) -> None:
        self.board = {"NS": 0.0, "EW": 0.0}
        self.seen, self.since = 0, time.monotonic()

    def line(self) -> str:
        return say.timing(self.board["NS"], self.total["NS"], self.board["EW"], self.total["EW"])


class Seat:
    """One program's connection."""

    def __init__(self, gateway: Gateway, reader, writer, address: str):
        self.gateway, self.reader, self.writer, self.address = gateway, reader, writer, address
        self.binding: programs.Binding | None = None
        self.lines: asyncio.Queue[str | None] = asyncio.Queue()
        self.wake = asyncio.Event()
        self.times = _Times()
        self.talk: bluechip.Conversation | None = None
        self.numbers: list[int] = []
        self.turn_since: float | None = None  # when the program's think time began
        self.deals: dict[int, str] = {}
        self._reading: asyncio.Task | None = None
        self._listening: asyncio.Task | None = None

    async def send(self, line: str) -> None:
        self.writer.write(line.encode("ascii", "replace") + b"\r\n")
        await self.writer.drain()

    def close(self) -> None:
        self.lines.put_nowait(None)

    async def finish(self) -> None:
        for task in (self._reading, self._listening):
            if task is not None:
                task.cancel()
        with contextlib.suppress(Exception):
            self.writer.close()
            await self.writer.wait_closed()
        if self.binding is not None:
            self.gateway.unwatch(self.binding.table.pk, self.wake)
            with contextlib.suppress(Exception):
                await db(programs.dropped, binding=self.binding)

    async def _read_lines(self) -> None:
        try:
            while True:
                raw = await self.reader.readline()
                if not raw:
                    break
                self.lines.put_nowait(raw.decode("ascii", "replace"))
        except (ConnectionError, ValueError):  # ValueError: a line over the limit
            pass
        finally:
            self.lines.put_nowait(None)

    async def _listen(self, table_id: int) -> None:
        """Each action stored at the table (the site's, another gateway's) wakes the seat:
        the table's group on the channel layer, as the table's sockets hear it."""
        layer = get_channel_layer()
        if layer is None:
            return  # no channel layer: the poll alone
        name = await layer.new_channel("bluechip.")
        await layer.group_add(table_group(table_id), name)
        try:
            while True:
                await layer.receive(name)
                self.wake.set()
        finally:
            with contextlib.suppress(Exception):
                await layer.group_discard(table_group(table_id), name)

    async def run(self) -> None:
        raw = await asyncio.wait_for(self.reader.readline(), HANDSHAKE_SECONDS)
        hello = bluechip.read(raw.decode("ascii", "replace"))
        if not isinstance(hello, bluechip.Connect) or hello.version != say.PROTOCOL_VERSION:
            await self.send("Error: connect with protocol version 18.")
            return
        try:
            self.binding = await db(
                programs.bind,
                ticket=hello.team,
                seat=hello.seat,
                address=self.address,
                connection=uuid.uuid4().hex,
            )
        except ServiceError as error:
            await self.send(say.ascii_text(f"Error: {error}"))
            self.binding = None
            return
        binding = self.binding
        teams, self.numbers = await db(_teams_and_boards, binding.table)
        self.talk = bluechip.Conversation(seat=binding.seat, teams=teams, timing=self.times.line)
        self.gateway.watch(binding.table.pk, self.wake)
        self._reading = asyncio.create_task(self._read_lines())
        self._listening = asyncio.create_task(self._listen(binding.table.pk))
        await self.send(say.seated(binding.seat, hello.team))
        await self._play()

    async def _play(self) -> None:
        talk, binding = self.talk, self.binding
        assert talk is not None and binding is not None
        line_task: asyncio.Task | None = None
        while True:
            done = await self._step()
            if done:
                for line in talk.end():
                    await self.send(line)
                return
            timeout = self.gateway.options.poll
            if self.turn_since is not None:
                left = self.turn_since + binding.think_seconds - time.monotonic()
                timeout = max(0.0, min(timeout, left))
            if line_task is None:
                line_task = asyncio.ensure_future(self.lines.get())
            waker = asyncio.ensure_future(self.wake.wait())
            await asyncio.wait({line_task, waker}, timeout=timeout, return_when="FIRST_COMPLETED")
            waker.cancel()
            self.wake.clear()
            while line_task is not None and line_task.done():
                line = line_task.result()
                line_task = None
                if line is None:
                    return  # the program left: a disconnection (`finish`)
                await self._hear(line)
                if not self.lines.empty():
                    line_task = asyncio.ensure_future(self.lines.get())
                    await asyncio.sleep(0)

    async def _hear(self, line: str) -> None:
        talk, binding = self.talk, self.binding
        assert talk is not None and binding is not None
        lines, move = talk.hear(bluechip.read(line))
        for answer in lines:
            await self.send(answer)
        if move is None or talk.record is None:
            return
        number = talk.record.number
        if isinstance(move, bluechip.MadeCall):
            action = {"type": "call", "call": move.call}
            if move.alert:
                action["alert"] = move.alert
        else:
            action = {"type": "card", "card": move.card}
        thought = time.monotonic() - (self.turn_since or time.monotonic())
        try:
            await db(_act, binding, number, action)
        except ServiceError as error:
            logger.info("program at table %s seat %s: %s refused: %s",
                        binding.table.pk, binding.seat, action, error)  # fmt: skip
            talk.abort()  # the table's board and the program's differ now
            await self._robot(number, why="refused")
            return
        self.turn_since = None
        await db(programs.thought, binding=binding, seconds=thought)
        self.gateway.wake(binding.table.pk)

    async def _step(self) -> bool:
        """Look at the table, say what can be said, act for the seat where the program
        does not; True when the session is over for the program."""
        talk, binding = self.talk, self.binding
        assert talk is not None and binding is not None
        first = talk.record.number if talk.record is not None else self.numbers[0]
        looked = await db(_look, binding, self.numbers, first)
        if looked.closed:
            talk.abort()
            return True
        for number, view in looked.views.items():
            if talk.record is not None and number == talk.record.number:
                self.times.saw(view)
                for line in talk.update(_record(view, number, binding.seat)):
                    await self.send(line)
        if talk.phase in (BETWEEN, ABORTED):
            if looked.current is None:
                return True  # every board is over at the table
            view = looked.views[looked.current]
            fresh = talk.record is None or looked.current != talk.record.number
            # A board the seat has acted in is not the program's (our robot plays it
            # for the seat): the protocol cannot tell it its own calls.
            if fresh and not _acted_in(view, binding.seat):
                self.times.new_board()
                for line in talk.begin(_record(view, looked.current, binding.seat)):
                    await self.send(line)
        if looked.current is None:
            return talk.phase in (BETWEEN, ABORTED)
        view = looked.views[looked.current]
        claim = view.get("claim")
        if claim and binding.seat in claim.get("awaiting", ()):
            await self._answer_claim(looked.current, view)
            return False
        if not _to_act(view, binding.seat):
            self.turn_since = None
            return False
        # Before the teams the program is still shaking hands: its think time runs.
        in_step = talk.phase == SEATED or (
            talk.phase in (STARTING, BOARD)
            and talk.record is not None
            and talk.record.number == looked.current
        )
        if not in_step:
            await self._robot(looked.current, why="absent")
            return False
        if self.turn_since is None:
            self.turn_since = time.monotonic()
        elif time.monotonic() - self.turn_since >= binding.think_seconds:
            talk.abort()
            await self._robot(looked.current, why="late")
        return False

    async def _robot(self, number: int, *, why: str) -> None:
        binding = self.binding
        assert binding is not None
        self.turn_since = None
        try:
            action = await db(_robot_acts, binding, number)
        except ServiceError as error:
            logger.info("robot for table %s seat %s: %s", binding.table.pk, binding.seat, error)
            return
        if action is not None:
            logger.info("table %s seat %s board %s: our robot's %s (%s)", binding.table.pk,
                        binding.seat, number, action, why)  # fmt: skip
            if why != "absent":
                await db(programs.replaced, binding=binding, board=number, action=action, why=why)
            self.gateway.wake(binding.table.pk)

    async def _answer_claim(self, number: int, view: dict) -> None:
        binding = self.binding
        assert binding is not None
        try:
            await db(_answer_claim, binding, number, view)
        except ServiceError as error:
            logger.info("claim at table %s: %s", binding.table.pk, error)
            return
        self.gateway.wake(binding.table.pk)


# The table's side: plain functions run in worker threads.
@dataclass(frozen=True)
class _Looked:
    views: dict[int, dict]  # the seat's views, from the conversation's board on
    current: int | None  # the board in play at the table (None: every board is over)
    closed: bool  # the round has closed


def _teams_and_boards(table) -> tuple[tuple[str, str], list[int]]:
    pairs = Pair.objects.select_related("player1__profile", "player2__profile").in_bulk(
        [table.ns_pair_id, table.ew_pair_id]
    )

    def name(pair_id) -> str:
        pair = pairs.get(pair_id)
        return pair_names(player_name(pair.player1), player_name(pair.player2)) if pair else ""

    numbers = list(
        Board.objects.filter(round_id=table.round_id)
        .order_by("number")
        .values_list("number", flat=True)
    )
    return (name(table.ns_pair_id), name(table.ew_pair_id)), numbers


def _look(binding: programs.Binding, numbers: list[int], first: int) -> _Looked:
    views: dict[int, dict] = {}
    closed = False
    current = None
    for number in numbers[numbers.index(first) :]:
        view, clock, _cut, _after = table_play.board_snapshot(
            table=binding.table, board_number=number, user=binding.user
        )
        closed = clock.get("status") == "closed"
        views[number] = view
        if closed:
            break
        if not view["over"]:
            current = number
            break
    return _Looked(views, current, closed)


def _to_act(view: dict, seat: str) -> bool:
    """Whether `seat` must act now: its call, its card, or dummy's when it declares."""
    if view["over"] or view.get("paused") or view.get("claim"):
        return False
    return bool(view["legal"]) and (
        view["turn"] == seat or (view["declarer"] == seat and view["turn"] == PARTNER[seat])
    )


def _acted_in(view: dict, seat: str) -> bool:
    """Whether `seat` has called or played at this board (its dummy's cards count when
    it declares)."""
    if any(call["seat"] == seat for call in view["auction"]):
        return True
    declarer = view["declarer"]
    hands = {seat} if declarer != seat else {seat, PARTNER[seat]}
    if declarer and PARTNER[declarer] == seat:
        hands = set()  # dummy plays nothing of its own
    return any(card["seat"] in hands for card in view["play"])


def _record(view: dict, number: int, seat: str) -> bluechip.Record:
    """The conversation's record of a board from the seat's view."""
    declarer = view["declarer"]
    dummy = PARTNER[declarer] if declarer else None
    played = [(entry["seat"], entry["card"]) for entry in view["play"]]

    def dealt(hand_seat: str) -> tuple[str, ...]:
        held = view["hands"].get(hand_seat, [])
        return (*held, *(card for who, card in played if who == hand_seat))

    result = view.get("result") or {}
    return bluechip.Record(
        number=number,
        dealer=view["dealer"],
        vulnerability=view["vulnerability"],
        hand=dealt(seat),
        calls=tuple((c["seat"], c["call"], c.get("alert") or "") for c in view["auction"]),
        cards=tuple(played),
        declarer=declarer,
        dummy=dealt(dummy) if dummy and dummy != seat and dummy in view["hands"] else None,
        turn=view["turn"],
        over=view["over"],
        passed_out=view["over"] and result.get("contract") == "PASS",
    )


def _act(binding: programs.Binding, number: int, action: dict) -> dict:
    view = table_play.board_view(table=binding.table, board_number=number, user=binding.user)
    return table_play.act(
        table=binding.table,
        board_number=number,
        user=binding.user,
        action={**action, "seq": view["next_seq"]},
    )


def _state(binding: programs.Binding, number: int, view: dict):
    deal = Board.objects.filter(round_id=binding.table.round_id, number=number).values_list(
        "deal", flat=True
    )[0]
    return ViewBoard(deal).state(view)


def _robot_acts(binding: programs.Binding, number: int) -> dict | None:
    """Our robot's call or card for the seat now (None: nothing to do any more)."""
    view = table_play.board_view(table=binding.table, board_number=number, user=binding.user)
    if not _to_act(view, binding.seat):
        return None
    state = _state(binding, number, view)
    plan = heuristic_plan({seat: state.hand_of(seat) for seat in SEATS})
    best = None
    if state.is_auction_over and state.contract is not None and state.current_trick is not None:
        trick = state.current_trick
        hands = {seat: list(state.hand_of(seat)) for seat in SEATS}
        with contextlib.suppress(Exception):  # the solver helps; the rule of thumb will do
            best = double_dummy.best_cards(hands, state.contract.strain, trick.leader, trick.cards)
    action = next_action(state, binding.seat, plan, best=best)
    if action is None:
        return None
    table_play.act(
        table=binding.table,
        board_number=number,
        user=binding.user,
        action={**action, "seq": view["next_seq"]},
    )
    return action


def claim_stands(*, remaining: int, claimed: int, program_side_most: int) -> bool:
    """A claim of `claimed` of the `remaining` tricks stands for a program whose side
    takes at most `program_side_most` of them, double dummy: no line gives it more."""
    return program_side_most <= remaining - claimed


def _answer_claim(binding: programs.Binding, number: int, view: dict) -> None:
    state = _state(binding, number, view)
    claim = view["claim"]
    trick = state.current_trick
    assert state.contract is not None and trick is not None
    hands = {seat: list(state.hand_of(seat)) for seat in SEATS}
    most = double_dummy.most_tricks(hands, state.contract.strain, trick.leader, trick.cards)
    remaining = 13 - len(state.tricks)
    to_play = state.turn
    ours = _side(to_play) == _side(binding.seat)
    program_side_most = most if ours else remaining - most
    stands = claim_stands(
        remaining=remaining, claimed=claim["tricks"], program_side_most=program_side_most
    )
    table_play.act(
        table=binding.table,
        board_number=number,
        user=binding.user,
        action={"type": "accept" if stands else "reject", "seq": view["next_seq"]},
    )


def _side(seat: str | None) -> str:
    return "NS" if seat in ("N", "S") else "EW"


def addresses(values: Iterable[str]) -> tuple[str, ...]:
    """The allowed networks as given (checked: a bad one is refused at the start)."""
    checked = []
    for value in values:
        ipaddress.ip_network(value, strict=False)
        checked.append(value)
    return tuple(checked)
