"""The robots' own CPU (issue 17.4): what one robot client spends per message it receives
and per decision, and what the play benchmark's observer (`bench_play.Watch`) spends per
message. No server, no socket, no database: the messages are those a table server sends.

`bench/bench_play.py` runs 4 robots per table in ONE Python process beside uvicorn on
the same cores, so every microsecond a robot spends on a message is taken from the
server. Here boards are played by four robots (`simulation.robot`, heuristic plans,
claims after 6 tricks, as the play benchmark plays them) with `play.BoardState`; after
each action every seat's message is built by the server's own
`tournaments.selectors.board_views.board_json` and serialized as the server sends it. Each seat's
stream (a snapshot, then a view per action) is then fed to the client's receive path
(`tournaments.robots.client`: parse, `_receive`, and at its turn the decision `_send`
makes) and to `Watch.observer`; every decision must be the action the board holds.

Reported, per received message: parsing, the client's receive (including the decision
it takes when its seat is to act), the observer, and for reference the two costs of
the transport the client pays besides: inflating a permessage-deflate frame (which the
websockets client negotiates by default, uvicorn too; and what deflating it costs the
server, per connection) and the wait for the next message (`asyncio.wait_for` against
`asyncio.timeout`). Per decision: the decision alone.

    .venv/bin/python bench/bench_robots.py [--boards 64] [--repeat 5]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time
import zlib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import play  # noqa: E402
from bench.bench_play import Watch  # noqa: E402
from bench.common import record  # noqa: E402
from scoring import RANKS, SEATS, SUITS  # noqa: E402
from simulation.robot import heuristic_plan, next_action  # noqa: E402
from tournaments.robots import client  # noqa: E402
from tournaments.selectors.board_views import board_json  # noqa: E402

CLAIM_AFTER = 6  # as bench_play


def pbn(hands: dict[str, list[str]]) -> str:
    def holding(cards):
        return ".".join(
            "".join(sorted((c[1] for c in cards if c[0] == suit), key=RANKS.index))
            for suit in SUITS
        )

    return "N:" + " ".join(holding(hands[seat]) for seat in SEATS)


def played_board(rng: random.Random, number: int):
    """A board four robots play to its end: (BoardJob, hands, states after each action,
    the action of each seq)."""
    deck = sorted(play.DECK)
    rng.shuffle(deck)
    hands = {seat: deck[13 * i : 13 * i + 13] for i, seat in enumerate(SEATS)}
    dealer, vulnerability = rng.choice(SEATS), rng.choice(("None", "NS", "EW", "Both"))
    plan = heuristic_plan(hands)
    job = client.BoardJob(number, pbn(hands), plan)
    state = play.BoardState.start(job.deal, dealer, vulnerability)
    states, actions = [state], [None]
    claimed = False
    while not state.is_over:
        view_claim = board_json(state, viewer=None, seat=None)["claim"]
        for seat in SEATS:
            action = next_action(
                state,
                seat,
                plan,
                claim=view_claim,
                claim_after=None if claimed else CLAIM_AFTER,
            )
            if action is not None:
                break
        else:
            raise AssertionError("nobody acts")
        kind = action["type"]
        if kind == "call":
            state = state.apply(play.Call(seat, action["call"]))
        elif kind == "card":
            state = state.apply(play.Card(seat, action["card"]))
        elif kind == "claim":
            state = state.apply(play.Claim(seat, action["tricks"]))
            claimed = True
        else:
            state = state.apply(play.ClaimResponse(seat, kind == "accept"))
        states.append(state)
        actions.append((seat, action))
    return job, hands, states, actions


def streams(number: int, states) -> dict[str, list[str]]:
    """What each seat's socket receives: a snapshot, then one view per action."""
    out: dict[str, list[str]] = {}
    for seat in SEATS:
        out[seat] = [
            json.dumps(
                {
                    "type": "snapshot" if seq == 0 else "view",
                    "board": number,
                    "seq": seq,
                    "view": board_json(state, viewer=seat, seat=seat),
                }
            )
            for seq, state in enumerate(states)
        ]
    return out


def feed(boards, claim_after=CLAIM_AFTER) -> dict[str, float]:
    """One pass of every seat's stream through the client and the observer, the four
    seats of a board taking each action's messages in turn (as their sockets deliver
    them): total nanoseconds per part, and the counts."""
    deals = {job.number: {s: set(hands[s]) for s in SEATS} for job, hands, _s, _a, _m in boards}
    watch = Watch(deals)
    observe = watch.observer(1)
    clock = time.perf_counter_ns
    parse = receive = decide = observed = acting = 0
    messages = decisions = 0
    kept: dict[int, object] = {}  # the robots' kept boards, to count their replays
    for job, _hands, states, actions, by_seat in boards:
        seats = {seat: client.SeatJob(1, seat, "", (job,)) for seat in SEATS}
        held = {seat: client._new_board(seats[seat], job) for seat in SEATS}
        for held_board in held.values():
            if hasattr(held_board, "view_board"):
                kept[id(held_board.view_board)] = held_board.view_board
        playing = set(SEATS)
        for index in range(len(states)):
            for seat in SEATS:
                if seat not in playing:
                    continue
                state, raw = held[seat], by_seat[seat][index]
                t0 = clock()
                message = json.loads(raw)
                t1 = clock()
                observe("message", seat, message, 0.0)
                t2 = clock()
                step = client._receive(seats[seat], job, state, message, claim_after)
                t3 = clock()
                parse += t1 - t0
                observed += t2 - t1
                receive += t3 - t2
                messages += 1
                if step == client.DONE:
                    playing.discard(seat)
                    continue
                assert step in (client._WAIT, client._ACT), step
                if step == client._WAIT:
                    continue
                # The decision `_send` takes when the pause is over, and its bookkeeping.
                view = state.view
                t4 = clock()
                if hasattr(client, "_decide"):
                    action = client._decide(seats[seat], job, state, claim_after)
                else:  # the code before 17.4's robots work: _send decided anew
                    action = client._action(job, seat, view, state, claim_after)
                decide += clock() - t4
                acting += t3 - t2
                decisions += 1
                _seat, expected = actions[view["next_seq"]]
                assert action == expected, (job.number, seat, action, expected)
                if action["type"] == "claim":
                    state.claimed_at.add(len(view["play"]) // 4)
                state.sent.add(view["next_seq"])
        assert not playing, f"board {job.number}: {playing} did not end"
    assert watch.leaks == 0
    return {
        "parse": parse,
        "receive": receive,
        "decide": decide,
        "observe": observed,
        "messages": messages,
        "decisions": decisions,
        "acting": acting,
        "waiting": receive - acting,
        "replays": sum(getattr(k, "replays", 0) for k in kept.values()),
    }


def deflate_ns(boards) -> tuple[int, int, int]:
    """Nanoseconds to deflate (the server, per connection) and inflate (the client)
    every seat's stream as permessage-deflate frames (the context kept from message to
    message, as websockets negotiates by default); and the frames."""
    total = squeezed = count = 0
    clock = time.perf_counter_ns
    for *_rest, by_seat in boards:
        for seat in SEATS:
            deflate = zlib.compressobj(6, zlib.DEFLATED, -15)
            inflate = zlib.decompressobj(-15)
            for raw in by_seat[seat]:
                t0 = clock()
                frame = deflate.compress(raw.encode()) + deflate.flush(zlib.Z_SYNC_FLUSH)
                squeezed += clock() - t0
                frame = frame[:-4]  # RFC 7692: the sender drops the flush's empty block
                t0 = clock()
                data = inflate.decompress(frame + b"\x00\x00\xff\xff")
                data.decode()
                total += clock() - t0
                count += 1
    return squeezed, total, count


def wait_ns(count: int) -> tuple[float, float]:
    """Nanoseconds per message the receive loop's wait costs with a message already
    there: `asyncio.wait_for(recv(), t)` (a task per call before Python 3.12) against
    `async with asyncio.timeout(t)`."""

    async def measure():
        queue: asyncio.Queue[int] = asyncio.Queue()
        clock = time.perf_counter_ns
        for i in range(count):
            queue.put_nowait(i)
        t0 = clock()
        for _ in range(count):
            await asyncio.wait_for(queue.get(), 5.0)
        t1 = clock()
        for i in range(count):
            queue.put_nowait(i)
        t2 = clock()
        for _ in range(count):
            async with asyncio.timeout(5.0):
                await queue.get()
        t3 = clock()
        return (t1 - t0) / count, (t3 - t2) / count

    return asyncio.run(measure())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=64)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=17)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    boards = []
    for number in range(1, args.boards + 1):
        job, hands, states, actions = played_board(rng, number)
        boards.append((job, hands, states, actions, streams(number, states)))
    runs = [feed(boards) for _ in range(args.repeat)]
    messages, decisions = runs[0]["messages"], runs[0]["decisions"]

    def per(part: str, count: int) -> float:
        return min(run[part] for run in runs) / count / 1000  # the best run: the least noise

    deflate, inflate, frames = min(deflate_ns(boards) for _ in range(args.repeat))
    wait_for, timeout = wait_ns(20_000)
    figures = {
        "boards": args.boards,
        "messages": messages,
        "decisions": decisions,
        "full_replays": runs[0]["replays"],
        "parse_us_per_message": round(per("parse", messages), 1),
        "receive_us_per_message": round(per("receive", messages), 1),
        "receive_us_when_to_act": round(per("acting", decisions), 1),
        "receive_us_otherwise": round(per("waiting", messages - decisions), 1),
        "send_decision_us": round(per("decide", decisions), 1),
        "client_us_per_message": round(
            per("parse", messages) + per("receive", messages) + per("decide", messages), 1
        ),
        "observer_us_per_message": round(per("observe", messages), 1),
        "inflate_us_per_message": round(inflate / frames / 1000, 1),
        "server_deflate_us_per_message": round(deflate / frames / 1000, 1),
        "wait_for_us_per_message": round(wait_for / 1000, 1),
        "timeout_us_per_message": round(timeout / 1000, 1),
        "mean_message_bytes": round(
            sum(len(raw) for *_r, by in boards for s in SEATS for raw in by[s]) / frames
        ),
    }
    record("robots", **figures)
    width = max(len(k) for k in figures)
    for key, value in figures.items():
        print(f"{key:<{width}}  {value}")


if __name__ == "__main__":
    main()
