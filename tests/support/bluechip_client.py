"""A Blue Chip Bridge program for the tests, written from the protocol document (version
18), not from our gateway: it connects with a team name, asks for everything in the
protocol's order, makes its scripted calls (then passes) and plays the lowest card that
follows suit, from its own hand or, as declarer, from dummy's. It keeps every line it
received. A ``Start of board`` in the middle of a board aborts it (the protocol's restart).
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, field

NAMES = {"N": "North", "E": "East", "S": "South", "W": "West"}
SEATS = "NESW"
RANKS = "23456789TJQKA"
PARTNER = {"N": "S", "S": "N", "E": "W", "W": "E"}


class Restart(Exception):
    pass


class SessionOver(Exception):
    pass


@dataclass
class Program:
    port: int
    team: str  # the ticket
    connect_as: str  # "North" … or "ANYPL"
    calls: list[str] = field(default_factory=list)  # its own calls in the session, then passes
    shout: bool = False  # writes in capitals, as WBridge5 does
    late_first_call: float = 0.0  # seconds it thinks before its first call of the session
    received: list[str] = field(default_factory=list)
    seat: str = ""
    hands_seen: list[tuple[str, set[str]]] = field(default_factory=list)  # (whose, cards)
    boards_ended: list[str] = field(default_factory=list)  # "timing", "aborted"

    async def run(self) -> None:
        self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        try:
            await self.say(
                f'Connecting "{self.team}" as {self.connect_as} using protocol version 18'
            )
            seated = await self.hear()
            match = re.match(r'^(North|East|South|West) \("(.*)"\) seated$', seated)
            assert match, seated
            self.seat = match[1][0]
            await self.say(f"{self.me} ready for teams")
            assert re.match(r'^Teams : N/S : "[^"]+" E/W : "[^"]+"$', await self.hear())
            await self.say(f"{self.me} ready to start")
            line = await self.hear()
            while True:
                if line == "End of session":
                    return
                assert line == "Start of board", line
                try:
                    await self.board()
                    self.boards_ended.append("timing")
                    line = await self.hear()
                except Restart as restart:
                    self.boards_ended.append("aborted")
                    line = restart.args[0]
        except ConnectionError as error:
            raise AssertionError((self.seat, self.received[-10:])) from error
        finally:
            self.writer.close()

    @property
    def me(self) -> str:
        return NAMES[self.seat]

    async def say(self, line: str) -> None:
        if self.shout and not line.startswith("Connecting"):
            line = line.upper()
        self.writer.write((line + "\r\n").encode())
        await self.writer.drain()

    async def hear(self, *, in_board: bool = False) -> str:
        raw = await asyncio.wait_for(self.reader.readline(), 60)
        if not raw:
            raise SessionOver(self.received[-3:])
        line = raw.decode().rstrip("\r\n")
        self.received.append(line)
        if in_board and line in ("Start of board", "End of session"):
            raise Restart(line)  # the board aborted (a claim, the bell, our robot)
        return line

    async def board(self) -> None:
        await self.say(f"{self.me} ready for deal")
        deal = await self.hear(in_board=True)
        match = re.match(r"^Board number (\d+)\. Dealer (\w+)\. (.+) vulnerable\.$", deal)
        assert match, deal
        dealer = match[2][0]
        await self.say(f"{self.me} ready for cards")
        mine = await self.hear(in_board=True)
        assert mine.startswith(f"{self.me}'s cards : "), mine
        hands = {self.seat: parse_hand(mine)}
        self.hands_seen.append((self.seat, set(hands[self.seat])))
        # The auction.
        auction: list[tuple[str, str]] = []
        turn = dealer
        while not auction_over(auction):
            if turn == self.seat:
                if self.late_first_call:  # its first call of the session only
                    await asyncio.sleep(self.late_first_call)
                    self.late_first_call = 0.0
                call = self.calls.pop(0) if self.calls else "P"
                words = {"P": "passes", "X": "doubles", "XX": "redoubles"}.get(call, f"bids {call}")
                await self.say(f"{self.me} {words}")
            else:
                await self.say(f"{self.me} ready for {NAMES[turn]}'s bid")
                line = await self.hear(in_board=True)
                call = read_call(line, NAMES[turn])
            auction.append((turn, call))
            turn = next_seat(turn)
        contract = final_contract(auction)
        if contract is None:
            assert (await self.hear(in_board=True)).startswith("Timing - N/S : this board")
            return
        strain, declarer = contract
        dummy = PARTNER[declarer]
        # The play.
        leader = next_seat(declarer)
        for trick_number in range(1, 14):
            trick: list[tuple[str, str]] = []
            for i in range(4):
                hand = SEATS[(SEATS.index(leader) + i) % 4]
                mine_to_play = (hand == self.seat and self.seat != dummy) or (
                    hand == dummy and self.seat == declarer
                )
                if mine_to_play:
                    if i == 0:
                        expected = "Dummy to lead" if hand == dummy else f"{self.me} to lead"
                        assert await self.hear(in_board=True) == expected
                    card = choose(hands[hand], trick[0][1][0] if trick else None)
                    hands[hand].remove(card)
                    await self.say(f"{NAMES[hand]} plays {card[1]}{card[0]}")
                else:
                    whose = "dummy" if hand == dummy else NAMES[hand]
                    await self.say(f"{self.me} ready for {whose}'s card to trick {trick_number}")
                    line = await self.hear(in_board=True)
                    match = re.match(rf"^{NAMES[hand]} plays ([2-9TJQKA])([SHDC])$", line)
                    assert match, (self.seat, line, hand, self.received[-8:])
                    card = match[2] + match[1]
                    if hand in hands:
                        hands[hand].remove(card)
                trick.append((hand, card))
                if trick_number == 1 and i == 0 and self.seat != dummy:
                    await self.say(f"{self.me} ready for dummy")
                    line = await self.hear(in_board=True)
                    assert line.startswith("Dummy's cards : "), line
                    hands[dummy] = parse_hand(line)
                    self.hands_seen.append((dummy, set(hands[dummy])))
            leader = winner(trick, strain)
        assert (await self.hear(in_board=True)).startswith("Timing - N/S : this board")


def parse_hand(line: str) -> list[str]:
    cards = []
    for part in line.split(" : ", 1)[1].split("."):
        words = part.split()
        if len(words) >= 2 and words[0] in "SHDC":
            cards += [words[0] + rank for rank in words[1:] if rank != "-"]
    return cards


def read_call(line: str, name: str) -> str:
    match = re.match(
        rf"^{name} (?:(passes)|(doubles)|(redoubles)|bids ([1-7](?:NT|[SHDC])))(?: Alert\. .*)?$",
        line,
    )
    assert match, (line, name)
    if match[1]:
        return "P"
    if match[2]:
        return "X"
    if match[3]:
        return "XX"
    return match[4]


def next_seat(seat: str) -> str:
    return SEATS[(SEATS.index(seat) + 1) % 4]


def auction_over(auction) -> bool:
    calls = [call for _seat, call in auction]
    if len(calls) == 4 and calls == ["P"] * 4:
        return True
    return len(calls) >= 4 and calls[-3:] == ["P"] * 3 and any(c[0].isdigit() for c in calls)


def final_contract(auction) -> tuple[str, str] | None:
    bids = [(seat, call) for seat, call in auction if call[0].isdigit()]
    if not bids:
        return None
    seat, bid = bids[-1]
    strain = bid[1:]
    side = {seat, PARTNER[seat]}
    declarer = next(s for s, c in auction if s in side and c[0].isdigit() and c[1:] == strain)
    return strain, declarer


def choose(cards: list[str], led: str | None) -> str:
    follow = [c for c in cards if c[0] == led] if led else []
    pool = follow or cards
    return min(pool, key=lambda c: RANKS.index(c[1]))


def winner(trick: list[tuple[str, str]], strain: str) -> str:
    led = trick[0][1][0]

    def power(card: str) -> tuple[int, int]:
        trump = 2 if card[0] == strain else 1 if card[0] == led else 0
        return trump, RANKS.index(card[1])

    return max(trick, key=lambda entry: power(entry[1]))[0]
