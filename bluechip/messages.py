"""The Blue Chip Bridge table-manager protocol, version 18: its lines, read and written.

Every line is plain ASCII ending in CRLF. The programs write them in any case (WBridge5
writes ``WEST PASSES``), so they are read case-insensitively; the table manager writes
them in the case the protocol's examples use, which is what the programs' own parsers
compare with (BEN checks ``East`` exactly).

Our notation inside: seats ``N E S W``, calls ``P X XX 1C … 7NT``, cards suit then rank
(``SA``, ``CT``: `play`'s). The protocol's: seat names, ``passes``/``bids 1C``, cards rank
then suit (``AS``, ``TC``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from anyascii import anyascii

SEAT_NAMES = {"N": "North", "E": "East", "S": "South", "W": "West"}
SEAT_OF_NAME = {name.lower(): seat for seat, name in SEAT_NAMES.items()}
PROTOCOL_VERSION = 18
# Our vulnerability (the board's) -> the protocol's words before "vulnerable".
VULNERABILITY = {"None": "Neither", "NS": "N/S", "EW": "E/W", "Both": "Both"}
SUITS = "SHDC"
RANKS = "AKQJT98765432"
# The protocol is #32-#127 plus CR LF: anything else in a text we pass on is replaced.
_PRINTABLE = re.compile(r"[^\x20-\x7e]")


# What a program says.
@dataclass(frozen=True)
class Connect:
    team: str  # the team name: our ticket
    seat: str | None  # None: ANYPL, the seat the ticket reserved
    version: int


@dataclass(frozen=True)
class Ready:
    """``<seat> ready for teams|deal|cards|dummy`` and ``<seat> ready to start``."""

    seat: str
    what: str  # "teams", "start", "deal", "cards", "dummy"


@dataclass(frozen=True)
class ReadyForCall:
    seat: str
    other: str  # whose call it waits for


@dataclass(frozen=True)
class ReadyForCard:
    seat: str
    other: str  # whose card: a seat, or "dummy"
    trick: int


@dataclass(frozen=True)
class MadeCall:
    seat: str
    call: str  # ours: "P", "X", "XX", "1C" … "7NT"
    alert: str  # the explanation after "Alert.", "" if none


@dataclass(frozen=True)
class PlayedCard:
    seat: str  # whose hand: dummy's seat when declarer plays dummy's card
    card: str  # ours: "CT"


@dataclass(frozen=True)
class Unknown:
    line: str


Message = Connect | Ready | ReadyForCall | ReadyForCard | MadeCall | PlayedCard | Unknown

_SEAT = r"(north|east|south|west)"
_CONNECT = re.compile(
    r'^connecting\s+"(?P<team>[^"]*)"\s+as\s+(?P<seat>north|east|south|west|anypl)'
    r"\s+using\s+protocol\s+version\s+(?P<version>\d+)\b",
    re.IGNORECASE,
)
_READY = re.compile(
    rf"^{_SEAT}\s+ready\s+(?:for\s+(?P<what>teams|deal|cards|dummy)|to\s+(?P<start>start))\s*\.?$",
    re.IGNORECASE,
)
_READY_CALL = re.compile(rf"^{_SEAT}\s+ready\s+for\s+{_SEAT}'s\s+bid\s*\.?$", re.IGNORECASE)
_READY_CARD = re.compile(
    rf"^{_SEAT}\s+ready\s+for\s+(?P<other>north|east|south|west|dummy)'s\s+card"
    r"\s+to\s+trick\s+(?P<trick>\d+)\s*\.?$",
    re.IGNORECASE,
)
_CALL = re.compile(
    rf"^{_SEAT}\s+(?:(?P<word>passes|doubles|redoubles)|bids\s+(?P<bid>[1-7]\s*(?:nt|n|s|h|d|c)))"
    r"\s*\.?(?:\s+(?P<kind>alert|infos)\.\s*(?P<text>.*))?$",
    re.IGNORECASE,
)
_CARD = re.compile(
    rf"^{_SEAT}\s+plays\s+(?P<rank>10|[2-9tjqka])(?P<suit>[shdc])\s*\.?(?:\s.*)?$", re.IGNORECASE
)
_WORDS = {"passes": "P", "doubles": "X", "redoubles": "XX"}


def read(line: str) -> Message:
    """One line from a program, CRLF and spaces around stripped."""
    text = line.strip()
    if match := _CONNECT.match(text):
        seat = match["seat"].lower()
        return Connect(
            team=match["team"],
            seat=None if seat == "anypl" else SEAT_OF_NAME[seat],
            version=int(match["version"]),
        )
    if match := _READY.match(text):
        return Ready(
            SEAT_OF_NAME[match[1].lower()], "start" if match["start"] else match["what"].lower()
        )
    if match := _READY_CALL.match(text):
        return ReadyForCall(SEAT_OF_NAME[match[1].lower()], SEAT_OF_NAME[match[2].lower()])
    if match := _READY_CARD.match(text):
        other = match["other"].lower()
        return ReadyForCard(
            SEAT_OF_NAME[match[1].lower()],
            "dummy" if other == "dummy" else SEAT_OF_NAME[other],
            int(match["trick"]),
        )
    if match := _CALL.match(text):
        if match["word"]:
            call = _WORDS[match["word"].lower()]
        else:
            bid = match["bid"].replace(" ", "").upper()
            call = bid[0] + ("NT" if bid[1:] in ("N", "NT") else bid[1:])
        # "Infos." is BEN's explanation of a call it does not alert: not an alert.
        alert = (match["text"] or "").strip() if (match["kind"] or "").lower() == "alert" else ""
        return MadeCall(SEAT_OF_NAME[match[1].lower()], call, alert)
    if match := _CARD.match(text):
        rank = "T" if match["rank"] == "10" else match["rank"].upper()
        return PlayedCard(SEAT_OF_NAME[match[1].lower()], match["suit"].upper() + rank)
    return Unknown(text)


# What the table manager says.
def ascii_text(text: str, *, limit: int = 200) -> str:
    """A text the protocol can carry: printable ASCII on one line, no double quotes (they
    delimit team names), at most `limit` characters. Other letters are spelt in ASCII
    (a Chinese name in pinyin, 张三 → ZhangSan: the program and its operator see who they
    play, not "??"); what has no spelling becomes "?"."""
    # Spelt first, then one line: a spelling may itself bring spaces (an ideographic one).
    return _PRINTABLE.sub("?", " ".join(anyascii(text).split())).replace('"', "'")[:limit]


def seated(seat: str, team: str) -> str:
    return f'{SEAT_NAMES[seat]} ("{ascii_text(team)}") seated'


def teams(ns: str, ew: str) -> str:
    # BEN reads `N/S : "…" E/W : "…"` with a name of at least one character.
    return f'Teams : N/S : "{ascii_text(ns) or "N/S"}" E/W : "{ascii_text(ew) or "E/W"}"'


START_OF_BOARD = "Start of board"
END_OF_SESSION = "End of session"


def board(number: int, dealer: str, vulnerability: str) -> str:
    return (
        f"Board number {number}. Dealer {SEAT_NAMES[dealer]}."
        f" {VULNERABILITY[vulnerability]} vulnerable."
    )


def hand(cards) -> str:
    """``S A K 5. H -. D J T 9 8. C 3.``: each suit from the ace down, "-" when void."""
    parts = []
    for suit in SUITS:
        ranks = sorted((c[1] for c in cards if c[0] == suit), key=RANKS.index)
        parts.append(f"{suit} {' '.join(ranks) if ranks else '-'}.")
    return " ".join(parts)


def cards(seat: str, held) -> str:
    return f"{SEAT_NAMES[seat]}'s cards : {hand(held)}"


def dummy_cards(held) -> str:
    return f"Dummy's cards : {hand(held)}"


def call(seat: str, made: str, alert: str = "") -> str:
    if made in ("P", "X", "XX"):
        words = {"P": "passes", "X": "doubles", "XX": "redoubles"}[made]
    else:
        words = f"bids {made}"
    line = f"{SEAT_NAMES[seat]} {words}"
    return f"{line} Alert. {ascii_text(alert)}" if alert else line


def card(seat: str, played: str) -> str:
    return f"{SEAT_NAMES[seat]} plays {played[1]}{played[0]}"


def to_lead(seat: str | None) -> str:
    """``North to lead``; None: ``Dummy to lead`` (to declarer, who leads from dummy)."""
    return f"{SEAT_NAMES[seat] if seat else 'Dummy'} to lead"


def _clock(seconds: float, *, hours: bool) -> str:
    whole = max(0, int(seconds))
    if hours:
        return f"{whole // 3600}:{whole // 60 % 60:02d}:{whole % 60:02d}"
    return f"{whole // 60}:{whole % 60:02d}"


def timing(ns_board: float, ns_total: float, ew_board: float, ew_total: float) -> str:
    """The line after every board: each side's thinking, this board and the session."""
    return (
        f"Timing - N/S : this board  [{_clock(ns_board, hours=False)}],"
        f"  total  [{_clock(ns_total, hours=True)}]."
        f"  E/W : this board  [{_clock(ew_board, hours=False)}],"
        f"  total  [{_clock(ew_total, hours=True)}]."
    )
