"""BBO's LIN file in its two-room vugraph shape: `read_lin` (text → `VugraphMatch`) and
`write_lin` (`VugraphMatch` → text), so that reading what was written gives the same data.

What a vugraph LIN file is (read from the 21 real files of ../shared/lin and their README;
data-bridge's `fileLIN.cpp` was looked at for the shape, nothing copied): one stream of
`tag|value|` pairs, the line breaks meaning nothing. Tags, case ignored:

- `vg` title,segment,scoring,first,last,team1,carry1,team2,carry2 (once, first)
- `rs` the claimed results o1,c1,o2,c2,… from the first board ("4HE+1", "3NWx-2", "P")
- `pn` eight names: the open room S,W,N,E then the closed room S,W,N,E
- `qx` o or c and the board number ("o1", "c12"): a room of a board starts here
- `md` the dealer digit (1 = S, 2 = W, 3 = N, 4 = E) then the hands S,W,N,E, each
  "S…H…D…C…"; the fourth may be left out (it is what the others are not dealt)
- `sv` vulnerability: o or 0 none, n NS, e EW, b both
- `mb` a call (p, d, r, 1c … 7n, either case; `!` marks it alerted); `an` the explanation
  of the call before it
- `pc` a card, in the order played; `mc` the declaring side's tricks in the whole board
- `nt` commentary; `pg`, `st`, `pf` page breaks and viewer noise (dropped)

How the reader decides where the format is silent: values are stripped (trailing spaces
in `pn`, blank `an| |` read as ""); a `vg` with more than nine fields has a comma in its
title (the last eight fields are fixed); a second `vg`, `rs` or `pn`, and any tag not listed
above, is kept in ``ignored``; an `an` with no call before it in its room is ignored; a
later `mc` in a room replaces an earlier one; `nt` before the first board is the match's.
What is wrong with the bridge (an unknown call, a card nobody holds, a deal of 12 cards) is
kept as written and left to `vugraph.replay`; only a file that cannot be read as a vugraph
match at all is refused here, with a `LinError` of kind "shape" saying where.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

from play import DECK, sort_hand
from scoring import SEATS, SUITS, Contract, ScoringError, tricks_from_result

from .errors import LinError
from .model import (
    CLOSED,
    LIN_SEATS,
    OPEN,
    Board,
    ClaimedResult,
    Hands,
    LinCall,
    Note,
    Room,
    VugraphMatch,
)

_DEALERS = {"1": "S", "2": "W", "3": "N", "4": "E"}
_DEALER_DIGITS = {seat: digit for digit, seat in _DEALERS.items()}
_VULNERABILITIES = {
    "o": "None",
    "0": "None",
    "-": "None",
    "none": "None",
    "n": "NS",
    "ns": "NS",
    "e": "EW",
    "ew": "EW",
    "b": "Both",
    "both": "Both",
    "all": "Both",
}
_SV = {"None": "o", "NS": "n", "EW": "e", "Both": "b"}
_ROOM_LETTERS = {"o": OPEN, "c": CLOSED}
_CALL_WORDS = {"P": "P", "PASS": "P", "D": "X", "X": "X", "DBL": "X"}
_CALL_WORDS.update({"R": "XX", "XX": "XX", "RDBL": "XX"})
_BID = re.compile(r"([1-7])(NT|N|C|D|H|S)")
_RESULT = re.compile(r"([1-7])(NT|N|C|D|H|S)([NESW])(XX|X)?(=|[+-]\d{1,2})?")
_PASSED = frozenset({"P", "PASS", "PASSED", "PASSEDOUT", "ALLPASS", "AP"})
_NOISE = frozenset({"pg", "st", "pf"})
_HEADER = ("vg", "rs", "pn")
_IN_ROOM = frozenset({"md", "sv", "mb", "an", "pc", "mc"})


# -- reading -------------------------------------------------------------------------


def read_lin(text: str) -> VugraphMatch:
    """The match a two-room vugraph LIN text describes; LinError("shape") if it is not one."""
    if not isinstance(text, str):
        raise LinError("shape", "LIN: a LIN file is text (decode it first: UTF-8).")
    reader = _Reader()
    for tag, value in _pairs(text.lstrip("\ufeff")):
        reader.take(tag, value)
    return reader.match()


def read_lin_bytes(data: bytes) -> VugraphMatch:
    """`read_lin` of a file's bytes: UTF-8 (as BBO writes), else Latin-1 (older files)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    return read_lin(text)


def _pairs(text: str) -> list[tuple[str, str]]:
    pieces = text.split("|")
    pairs = [(pieces[i].strip().lower(), pieces[i + 1]) for i in range(0, len(pieces) - 1, 2)]
    if len(pieces) % 2 == 1 and pieces[-1].strip():
        pairs.append((pieces[-1].strip().lower(), ""))  # a last tag with no value
    return pairs


@dataclass
class _RoomBuilder:
    board: int
    name: str
    hands: Hands | None = None
    dealer: str | None = None
    vulnerability: str | None = None
    calls: list[LinCall] = field(default_factory=list)
    cards: list[str] = field(default_factory=list)
    claim: int | None = None
    notes: list[Note] = field(default_factory=list)

    def room(self) -> Room:
        return Room(
            name=self.name,
            hands=self.hands,
            dealer=self.dealer,
            vulnerability=self.vulnerability,
            calls=tuple(self.calls),
            cards=tuple(self.cards),
            claim=self.claim,
            notes=tuple(self.notes),
        )


class _Reader:
    def __init__(self) -> None:
        self.header: dict[str, str] = {}
        self.rooms: dict[tuple[int, str], _RoomBuilder] = {}
        self.order: list[int] = []  # board numbers in the order they first appear
        self.current: _RoomBuilder | None = None
        self.notes: list[str] = []
        self.ignored: list[tuple[str, str]] = []

    def take(self, tag: str, value: str) -> None:
        if tag in _NOISE or (tag == "" and not value.strip()):
            return
        if tag in _HEADER:
            if tag in self.header:
                self.ignored.append((tag, value))
            else:
                self.header[tag] = value
        elif tag == "qx":
            self._start(value)
        elif tag == "nt":
            if self.current is None:
                self.notes.append(value.strip())
            else:
                at = len(self.current.calls) + len(self.current.cards)
                self.current.notes.append(Note(at, value.strip()))
        elif tag in _IN_ROOM:
            if self.current is None and "vg" not in self.header:
                raise _not_vugraph()
            if self.current is None:
                raise LinError(
                    "shape",
                    f"LIN: {tag}|{value.strip()}| comes before the first qx: a vugraph file "
                    "names each room's board (qx|o1|) before its deal, calls and cards.",
                    tag=tag,
                )
            self._room_tag(self.current, tag, value)
        else:
            self.ignored.append((tag, value))

    def _start(self, value: str) -> None:
        token = value.split(",")[0].strip().lower()
        room = _ROOM_LETTERS.get(token[:1])
        if room is None or not token[1:].isdigit() or int(token[1:]) < 1:
            raise LinError(
                "shape",
                f"LIN: qx|{value.strip()}| is not a room and board: write o or c and the "
                "board number, e.g. qx|o1| or qx|c12|.",
                tag="qx",
            )
        number = int(token[1:])
        if (number, room) in self.rooms:
            raise LinError(
                "shape",
                f"LIN: board {number}, {room} room appears twice (a second qx|{token}|).",
                board=number,
                room=room,
            )
        if number not in self.order:
            self.order.append(number)
        self.current = self.rooms[(number, room)] = _RoomBuilder(number, room)

    def _room_tag(self, room: _RoomBuilder, tag: str, value: str) -> None:
        text = value.strip()
        if tag == "md":
            room.dealer, room.hands = _deal(text)
        elif tag == "sv":
            room.vulnerability = _VULNERABILITIES.get(text.lower()) if text else None
            if text and room.vulnerability is None:
                self.ignored.append((tag, value))
        elif tag == "mb":
            room.calls.append(_call(text))
        elif tag == "an":
            if room.calls:
                last = room.calls[-1]
                room.calls[-1] = LinCall(last.call, last.alerted, text)
            else:
                self.ignored.append((tag, value))
        elif tag == "pc":
            room.cards.append(_card(text))
        elif tag == "mc":
            if text.isdigit():
                room.claim = int(text)
            else:
                self.ignored.append((tag, value))

    def match(self) -> VugraphMatch:
        if "vg" not in self.header:
            raise _not_vugraph()
        raw = self.header["vg"].split(",")
        if len(raw) > 9:  # a comma in the title: the last eight fields are fixed
            raw = [",".join(raw[: len(raw) - 8]), *raw[len(raw) - 8 :]]
        fields = [f.strip() for f in raw]
        fields += [""] * (9 - len(fields))
        title, segment, scoring, first, last, team1, carry1, team2, carry2 = fields
        numbers = sorted(self.order)
        boards = tuple(
            Board(
                number,
                _built(self.rooms.get((number, OPEN))),
                _built(self.rooms.get((number, CLOSED))),
            )
            for number in self.order
        )
        return VugraphMatch(
            title=title,
            segment=segment,
            scoring=scoring,
            first_board=_board_number(first, "first", numbers[0] if numbers else 1),
            last_board=_board_number(last, "last", numbers[-1] if numbers else 1),
            teams=(team1, team2),
            carry_over=(_carry(carry1, team1), _carry(carry2, team2)),
            players=tuple(name.strip() for name in self.header["pn"].split(","))
            if "pn" in self.header
            else (),
            results=tuple(read_result(entry) for entry in self.header.get("rs", "").split(","))
            if self.header.get("rs", "").strip()
            else (),
            boards=boards,
            notes=tuple(self.notes),
            ignored=tuple(self.ignored),
        )


def _not_vugraph() -> LinError:
    return LinError(
        "shape",
        "LIN: no vg line: this is not a two-room vugraph file (a single-table LIN file, or "
        "not LIN at all).",
    )


def _built(builder: _RoomBuilder | None) -> Room | None:
    return None if builder is None else builder.room()


def _board_number(text: str, which: str, default: int) -> int:
    if not text:
        return default
    if not text.isdigit() or int(text) < 1:
        raise LinError(
            "shape", f"LIN: vg's {which} board must be a board number, not {text!r}.", tag="vg"
        )
    return int(text)


def _carry(text: str, team: str) -> Decimal:
    if not text:
        return Decimal(0)
    try:
        carry = Decimal(text)
    except InvalidOperation:
        carry = None
    if carry is None or not carry.is_finite():
        raise LinError(
            "shape",
            f"LIN: vg's carry-over for {team or 'a team'} must be a number of IMPs, not {text!r}.",
            tag="vg",
        )
    return carry


def _call(text: str) -> LinCall:
    alerted = "!" in text
    spelt = text.replace("!", "").strip().upper()
    bid = _BID.fullmatch(spelt)
    if bid:
        strain = bid.group(2)
        call = bid.group(1) + ("NT" if strain in ("N", "NT") else strain)
    else:
        call = _CALL_WORDS.get(spelt, spelt)
    return LinCall(call, alerted, None)


def _card(text: str) -> str:
    card = text.strip().upper()
    if card[1:] == "10":
        card = card[0] + "T"
    return card


def _hand(text: str) -> tuple[str, ...]:
    """A hand "SAKQHT9D…C…" (suits in any order, either case, "10" for T) as cards; a
    character before the first suit letter is kept as a card that is not one."""
    cards: list[str] = []
    suit = ""
    body = text.upper().replace("10", "T")
    for char in body:
        if char in SUITS:
            suit = char
        elif not char.isspace():
            cards.append(suit + char if suit else char)
    return tuple(sort_hand(cards))


def _deal(text: str) -> tuple[str | None, Hands | None]:
    dealer = _DEALERS.get(text[:1])
    body = text[1:] if text[:1].isdigit() else text
    listed = [_hand(part) for part in body.split(",")][:4]
    if not any(listed):
        return dealer, None
    listed += [()] * (4 - len(listed))
    held = [card for hand in listed for card in hand]
    missing = [i for i, hand in enumerate(listed) if not hand]
    if len(missing) == 1 and len(held) == 39 and set(held) <= DECK and len(set(held)) == 39:
        listed[missing[0]] = tuple(sort_hand(DECK - set(held)))
    by_seat = dict(zip(LIN_SEATS, listed, strict=True))
    hands = (by_seat["N"], by_seat["E"], by_seat["S"], by_seat["W"])
    return dealer, hands


def read_result(text: str) -> ClaimedResult | None:
    """One `rs` entry ("4HE+1", "3NWx-2", "6DSx-1", "4SW", "P", "PASS"); None when empty.
    An entry that cannot be read is kept as text, with no contract (``readable`` False)."""
    entry = text.strip()
    compact = "".join(entry.split()).upper()
    if not compact:
        return None
    if compact in _PASSED:
        return ClaimedResult(entry, passed_out=True)
    found = _RESULT.fullmatch(compact)
    if found is None:
        return ClaimedResult(entry)
    level, strain, declarer, doubling, outcome = found.groups()
    contract = Contract(
        int(level), "NT" if strain in ("N", "NT") else strain, {None: 0, "X": 1, "XX": 2}[doubling]
    )
    tricks = None
    if outcome is not None:
        try:
            tricks = tricks_from_result(contract, outcome)
        except ScoringError:
            return ClaimedResult(entry)  # -9 and the like: not a result
    return ClaimedResult(entry, contract, declarer, tricks)


def result_text(
    contract: Contract | None, declarer: str | None, tricks: int | None
) -> ClaimedResult:
    """An `rs` entry for a result, as BBO writes it ("4HE+1", "3NWx-2", "P"); the entry
    names the contract only when ``tricks`` is None."""
    if contract is None or declarer is None:
        return ClaimedResult("P", passed_out=True)
    strain = "N" if contract.strain == "NT" else contract.strain
    text = f"{contract.level}{strain}{declarer}{('', 'x', 'xx')[contract.doubling]}"
    if tricks is not None:
        over = tricks - contract.tricks_needed
        text += "=" if over == 0 else f"{over:+d}"
    return ClaimedResult(text, contract, declarer, tricks)


# -- writing -------------------------------------------------------------------------


def write_lin(match: VugraphMatch) -> str:
    """The match as a two-room vugraph LIN text in the shape BBO's viewers read (`vg`,
    `rs`, `pn`, then per board and room `qx`, `md`, `sv`, `mb` with `an`, `pc` a trick a
    line, `mc`, each line ending `pg||`). LinError("shape") for what LIN cannot say: a `|`
    in any text, a comma in a field of `vg`, `rs` or `pn`."""
    carry = [_plain(value) for value in match.carry_over]
    vg = [
        match.title,
        match.segment,
        match.scoring,
        str(match.first_board),
        str(match.last_board),
        match.teams[0],
        carry[0],
        match.teams[1],
        carry[1],
    ]
    for index, value in enumerate(vg):
        _writable(value, "vg", comma=index > 0)
    results = ["" if entry is None else entry.text for entry in match.results]
    for value in results:
        _writable(value, "rs", comma=True)
    for value in match.players:
        _writable(value, "pn", comma=True)
    lines = [
        f"vg|{','.join(vg)}|",
        f"rs|{','.join(results)}|",
        f"pn|{','.join(match.players)}|pg||",
    ]
    lines += [f"nt|{_writable(note, 'nt')}|pg||" for note in match.notes]
    for board in match.boards:
        for room in (board.open, board.closed):
            if room is not None:
                lines += _room_lines(board.number, room)
    return "\n".join(lines) + "\n"


def _plain(value: Decimal) -> str:
    return str(value) if value != value.to_integral_value() else str(int(value))


def _writable(text: str, tag: str, *, comma: bool = False) -> str:
    if "|" in text or (comma and "," in text):
        marks = "| or ," if comma else "|"
        raise LinError(
            "shape", f"LIN: {tag} cannot hold {text!r}: LIN has no way to write {marks} in it."
        )
    return text


def _room_lines(number: int, room: Room) -> list[str]:
    letter = "o" if room.name == OPEN else "c"
    head = f"qx|{letter}{number}|"
    if room.hands is not None:
        digit = _DEALER_DIGITS.get(room.dealer or "", "")
        hands = dict(zip(SEATS, room.hands, strict=True))
        head += f"md|{digit}{','.join(_hand_text(hands[seat]) for seat in LIN_SEATS)}|"
    head += f"sv|{_SV.get(room.vulnerability or '', '')}|"
    lines: list[str] = []
    line = [head]
    notes = sorted(room.notes, key=lambda note: note.at)
    events = len(room.calls) + len(room.cards)

    def notes_at(at: int) -> None:
        nonlocal line
        while notes and (notes[0].at == at or (at == events and notes[0].at > at)):
            line.append(f"nt|{_writable(notes.pop(0).text, 'nt')}|pg||")
            lines.append("".join(line))
            line = []

    for index, call in enumerate(room.calls):
        notes_at(index)
        mark = "!" if call.alerted else ""
        line.append(f"mb|{_writable(_call_text(call.call), 'mb')}{mark}|")
        if call.explanation is not None:
            line.append(f"an|{_writable(call.explanation, 'an') or ' '}|")
    if room.calls and line:
        line.append("pg||")
        lines.append("".join(line))
        line = []
    for index, card in enumerate(room.cards):
        notes_at(len(room.calls) + index)
        line.append(f"pc|{_writable(_card_text(card), 'pc')}|")
        if (index + 1) % 4 == 0:
            line.append("pg||")
            lines.append("".join(line))
            line = []
    if room.claim is not None:
        line.append(f"mc|{room.claim}|")
    notes_at(events)
    if line:
        line.append("pg||")
        lines.append("".join(line))
    return lines


def _hand_text(cards: tuple[str, ...]) -> str:
    by_suit = {suit: "".join(card[1:] for card in cards if card[:1] == suit) for suit in SUITS}
    return "".join(suit + by_suit[suit] for suit in SUITS)


def _call_text(call: str) -> str:
    if call in ("P", "X", "XX"):
        return {"P": "p", "X": "d", "XX": "r"}[call]
    return call[:-1] if call.endswith("NT") else call


def _card_text(card: str) -> str:
    return card[:1].lower() + card[1:] if card in DECK else card
