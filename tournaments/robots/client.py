"""One robot in one seat: a WebSocket client of the live table server (no database).

It opens board after board of its table's round (docs/PLAY_PROTOCOL.md: one socket per
seat and board), keeps the view with the highest ``seq``, and when its seat is to act
(or to answer a claim) sends `simulation.robot`'s action after a pause drawn from
``pace``. A refused action comes back with the current view, from which it plays on.
While the tournament is paused (the `round` message, or a view saying ``paused``) it
waits, holding its seat, however long the pause; when the `round` message says the clock
runs again it opens the board again, and the snapshot resumes the play.
"""

from __future__ import annotations

import asyncio
import json
import random
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from simulation.robot import Plan, ViewBoard, next_action

# How a seat's run ended.
DONE, CLOSED, GAVE_UP, REFUSED = "done", "closed", "gave_up", "refused"
# While the tournament is paused, how often a robot opens its board again to look
# (besides the `round` message that says the clock runs again).
PAUSE_RECHECK_SECONDS = 30.0


@dataclass(frozen=True)
class BoardJob:
    number: int
    deal: str  # PBN: the robot knows all four hands
    plan: Plan


@dataclass(frozen=True)
class SeatJob:
    table_id: int
    seat: str
    token: str
    boards: tuple[BoardJob, ...]
    # A robot standing in for a person who lost their connection (the club, RULES 13):
    # its sockets say so (`STAND_IN_HEADER`), so they are not taken for the person's own.
    stand_in: bool = False


@dataclass(frozen=True)
class Pace:
    """Seconds a robot waits before each action: uniform in [low, high]."""

    low: float = 0.0
    high: float = 0.0

    def delay(self, rng: random.Random) -> float:
        return rng.uniform(self.low, self.high) if self.high > 0 else 0.0


# An observer hears (event, seat, data, monotonic time): "sent" (the action), "message"
# (each message received). The benchmark records both.
Observer = Callable[[str, str, dict, float], None]


@dataclass
class _Board:
    # The board state of the view held, kept from view to view (and shared by the
    # table's robots): a decision applies only the calls and cards added since the last
    # one at the table (a full replay is ~1 ms).
    view_board: ViewBoard
    view: dict | None = None
    seq: int = -1
    sent: set[int] = field(default_factory=set)
    claimed_at: set[int] = field(default_factory=set)
    errors: int = 0
    # The action decided when `decided_on` (the view held then) came: sent as it is if
    # that view is still the one held when the pause is over.
    decided: dict | None = None
    decided_on: dict | None = None
    paused: bool = False  # the tournament is paused: wait for the `round` that resumes it


def board_url(base: str, table_id: int, number: int) -> str:
    return f"{base}/ws/tables/{table_id}/boards/{number}/"


# The header a stand-in robot's sockets carry: the server then does not count them as
# the player's connection (`services.presence`), so the player's return is seen.
STAND_IN_HEADER = "X-Bridge-Robot"


def auth_headers(token: str, *, stand_in: bool = False) -> dict[str, str]:
    # The key goes in a header, never in the URL: servers and proxies log URLs.
    headers = {"Authorization": f"Bearer {token}"}
    if stand_in:
        headers[STAND_IN_HEADER] = "stand-in"
    return headers


async def play_seat(
    job: SeatJob,
    *,
    base: str,
    pace: Pace = Pace(),
    rng: random.Random | None = None,
    claim_after: int | None = None,
    observer: Observer | None = None,
    timeout: float = 600.0,
    double_dummy: bool = False,
) -> str:
    """Play `job`'s boards in order; DONE when all are over at the table, CLOSED at the
    bell, GAVE_UP when someone else acted from this seat, REFUSED if the server would
    not let this seat in (the close code's 44xx). With `double_dummy` the cards are the
    solver's (`tournaments.double_dummy.best_cards`, in a worker thread)."""
    rng = rng or random.Random()
    for board in job.boards:
        failures = 0
        while True:
            try:
                outcome = await _play_board(
                    job, board, base, pace, rng, claim_after, observer, timeout, double_dummy
                )
            except ConnectionClosed as closed:
                code = closed.rcvd.code if closed.rcvd else None
                if code is not None and 4400 <= code < 4500:
                    return REFUSED
                failures += 1
                await asyncio.sleep(0.5)
            except OSError:
                failures += 1
                await asyncio.sleep(1)
            else:
                if outcome != _RESUMED:
                    break
                # The clock runs again: the board afresh (not a failure, however many pauses).
            if failures >= 5:  # a dropped connection: reconnect, the snapshot resumes
                return REFUSED
        if outcome != DONE:
            return outcome
    return DONE


async def _play_board(
    job, board, base, pace, rng, claim_after, observer, timeout, double_dummy
) -> str:
    loop = asyncio.get_running_loop()
    state = _new_board(job, board)
    act_at: float | None = None
    give_up_by = loop.time() + timeout
    # No compression (views are a few hundred bytes of JSON: deflating them costs the
    # server and the robot more CPU than the bytes are worth) and no pings of its own
    # (the server pings every socket; a robot that stops answering is dropped by it).
    async with connect(
        board_url(base, job.table_id, board.number),
        additional_headers=auth_headers(job.token, stand_in=job.stand_in),
        compression=None,
        ping_interval=None,
    ) as ws:
        while True:
            wait = None if act_at is None else max(0.0, act_at - loop.time())
            if wait is None:
                # Paused: no action and no giving up, however long the director takes;
                # the board is looked at again now and then, should the `round` that
                # resumes it be lost.
                paused_for = PAUSE_RECHECK_SECONDS * rng.uniform(0.75, 1.25)
                wait = paused_for if state.paused else max(0.0, give_up_by - loop.time())
            try:
                # Not asyncio.wait_for: before Python 3.12 it wraps each recv in a task
                # of its own, twice the CPU of a message (bench/bench_robots.py).
                async with asyncio.timeout(wait):
                    raw = await ws.recv()
            except TimeoutError:
                if act_at is None and state.paused:
                    return _RESUMED  # still paused? The snapshot says.
                if act_at is None:
                    return CLOSED  # nothing heard for `timeout`: stop waiting
                act_at = None
                await _send(ws, job, board, state, claim_after, observer, double_dummy)
                continue
            # `timeout` is a silence: a board that goes on (other seats acting, at
            # whatever pace) keeps the robot there, however long it lasts.
            give_up_by = loop.time() + timeout
            message = json.loads(raw)
            if observer is not None:
                observer("message", job.seat, message, time.monotonic())
            step = _receive(job, board, state, message, claim_after)
            if step == _IGNORE:
                continue
            if step == _WAIT:
                act_at = None
                continue
            if step == _RESUMED:
                return _RESUMED  # opened again by `play_seat`: the snapshot holds the board
            if step != _ACT:
                return step  # the board is over for this seat: DONE, CLOSED or GAVE_UP
            delay = pace.delay(rng) if state.errors < 3 else 1.0
            act_at = loop.time() + delay
            if state.errors >= 3:
                state.errors = 0


# What one message asks of the seat, besides an outcome: nothing (a message that changes
# nothing: the pause before an action, if any, runs on), wait (not this seat's turn), act.
_IGNORE, _WAIT, _ACT = "ignore", "wait", "act"
# The pause is over: the board is opened again (the views held were the pause's).
_RESUMED = "resumed"


# The robots of a table (in one process, on one event loop) keep one board state per
# board between them: each call or card is applied once per table, not once per seat.
_view_boards: weakref.WeakValueDictionary[tuple, ViewBoard] = weakref.WeakValueDictionary()


def _new_board(job: SeatJob, board: BoardJob) -> _Board:
    key = (threading.get_ident(), job.table_id, board.number, board.deal)
    view_board = _view_boards.get(key)
    if view_board is None:
        view_board = _view_boards[key] = ViewBoard(board.deal)
    return _Board(view_board=view_board)


def _receive(job: SeatJob, board: BoardJob, state: _Board, message: dict, claim_after) -> str:
    """Take one message from the server into `state`: _IGNORE, _WAIT, _ACT, or how the
    board ended for this seat (DONE, CLOSED, GAVE_UP)."""
    kind = message.get("type")
    if kind == "round_closed":
        return CLOSED
    if kind == "round":
        if message.get("paused"):
            state.paused = True
            return _WAIT  # an action about to go would be refused: none goes
        view_paused = bool(state.view and state.view.get("paused"))
        if state.paused or view_paused:
            return _RESUMED
        return _IGNORE
    if kind == "error" and "view" not in message:
        return _IGNORE  # refused at the handshake: the close follows
    if kind == "error":
        state.errors += 1
        current = state.view["next_seq"] if state.view else 0
        if message["view"]["next_seq"] >= current:
            # Never older than the view already held (a view message for a
            # later action may have come first): no resend of a stored action.
            state.view = message["view"]
            state.seq = max(state.seq, message["view"]["next_seq"] - 1)
    elif kind in ("snapshot", "view"):
        if message["seq"] <= state.seq:
            return _IGNORE
        if (
            kind == "view"
            and message["seq"] not in state.sent
            and _acted_from(job.seat, state.view, message["view"])
        ):
            return GAVE_UP  # someone else acted from this seat: a person took it
        state.seq, state.view = message["seq"], message["view"]
    else:
        return _IGNORE
    view = state.view
    if view is None:
        return _IGNORE
    if view["over"]:
        return DONE
    if view.get("paused"):
        state.paused = True
    action = None if state.paused else _action(board, job.seat, view, state, claim_after)
    state.decided, state.decided_on = action, view
    return _WAIT if action is None else _ACT


def _acted_from(seat: str, before: dict | None, after: dict) -> bool:
    """Whether the call or card that turned `before` into `after` came from `seat`."""
    if before is None:
        return False
    if len(after["auction"]) > len(before["auction"]):
        return after["auction"][-1]["seat"] == seat
    if len(after["play"]) > len(before["play"]):
        played = after["play"][-1]["seat"]
        declarer = after["declarer"]
        dummy = {"N": "S", "S": "N", "E": "W", "W": "E"}.get(declarer or "")
        return (declarer if played == dummy else played) == seat
    return False


def _action(
    board: BoardJob, seat: str, view: dict, state: _Board, claim_after, best=None
) -> dict | None:
    claim = view.get("claim")
    if not view.get("legal") and not (claim and seat in claim.get("awaiting", ())):
        return None  # not this seat's turn: no need to rebuild the board
    board_state = state.view_board.state(view)
    tricks = len(board_state.tricks)
    may_claim = claim_after if tricks not in state.claimed_at else None
    return next_action(
        board_state, seat, board.plan, claim=view.get("claim"), claim_after=may_claim, best=best
    )


def _best_cards(board) -> list[str] | None:
    """The solver's cards for the hand to play on `board` (a `play.BoardState`; None if
    it fails: the rule of thumb)."""
    from tournaments import double_dummy

    try:
        trick = board.current_trick
        contract = board.contract
        if trick is None or contract is None:
            return None
        hands = {seat: list(board.hand_of(seat)) for seat in ("N", "E", "S", "W")}
        return double_dummy.best_cards(hands, contract.strain, trick.leader, trick.cards)
    except Exception:  # the solver is a help, never a reason to stop playing
        return None


def _decide(job: SeatJob, board: BoardJob, state: _Board, claim_after) -> dict | None:
    """The action to send now for the view held (None: none): the one decided when it
    came, or decided anew."""
    view = state.view
    if view is None or view["over"]:
        return None
    if state.decided_on is view:
        action = state.decided  # nothing came since: the same decision
    else:
        action = _action(board, job.seat, view, state, claim_after)
    state.decided = state.decided_on = None
    return action


async def _send(
    ws, job: SeatJob, board: BoardJob, state: _Board, claim_after, observer, double_dummy=False
) -> None:
    view = state.view
    action = _decide(job, board, state, claim_after)
    if view is None or action is None:
        return
    if double_dummy and action["type"] == "card" and len(view["legal"]) > 1:
        best = await asyncio.to_thread(_best_cards, state.view_board.state(view))
        if best:
            action = _action(board, job.seat, view, state, claim_after, best) or action
    seq = view["next_seq"]
    if action["type"] == "claim":
        state.claimed_at.add(len(view["play"]) // 4)
    message = {"type": "action", "seq": seq, "action": action.pop("type"), **action}
    state.sent.add(seq)
    if observer is not None:
        observer("sent", job.seat, message, time.monotonic())
    await ws.send(json.dumps(message))
