"""A two-room vugraph match as data: what a LIN file says, typed and immutable.

Nothing here judges the bridge: a call, card or deal is kept as the file spells it (made
canonical where it is recognisable), and `vugraph.replay` decides whether it is legal.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from scoring import SEATS, Contract

OPEN, CLOSED = "open", "closed"
ROOMS = (OPEN, CLOSED)
#: LIN's order of the seats in `md` (the hands) and `pn` (the names of each room)
LIN_SEATS = ("S", "W", "N", "E")

Hands = tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], tuple[str, ...]]
"""The four hands in the order of ``scoring.SEATS`` (N, E, S, W), each as a hand is shown
(``play.sort_hand``): cards "SA", "HT", "D2"."""


@dataclass(frozen=True)
class LinCall:
    """One `mb`: ``call`` as ``play.Call`` spells it (P, X, XX, 1C … 7NT; an unknown call
    is kept as written, upper-cased, and refused by the replay); ``alerted`` when the file
    marks it with `!`; ``explanation`` the `an` that follows it ("" for a blank one, None
    when there is none)."""

    call: str
    alerted: bool = False
    explanation: str | None = None


@dataclass(frozen=True)
class Note:
    """An `nt` commentary line, ``at`` the number of calls and cards of its room before it."""

    at: int
    text: str


@dataclass(frozen=True)
class Room:
    """One room's board as the file gives it.

    ``hands`` None when the room has no deal (a stub); ``dealer`` None when `md` has no
    dealer digit; ``vulnerability`` ("None", "NS", "EW", "Both") None when `sv` is empty.
    ``cards`` in the order played ("SA", …; declarer plays dummy's cards, the file does
    not say who played which). ``claim`` is the `mc`: the declaring side's tricks in the
    whole board, None when there is none."""

    name: str
    hands: Hands | None
    dealer: str | None
    vulnerability: str | None
    calls: tuple[LinCall, ...] = ()
    cards: tuple[str, ...] = ()
    claim: int | None = None
    notes: tuple[Note, ...] = ()

    @property
    def is_stub(self) -> bool:
        """A board listed with no deal: BBO's empty placeholder (`qx|o17|pg||sv||`)."""
        return self.hands is None

    def hand(self, seat: str) -> tuple[str, ...]:
        """The cards dealt to ``seat`` ("N", "E", "S", "W"); () without a deal."""
        return () if self.hands is None else self.hands[SEATS.index(seat)]


@dataclass(frozen=True)
class Board:
    """A board's two rooms; a room the file does not have is None."""

    number: int
    open: Room | None
    closed: Room | None

    def room(self, name: str) -> Room | None:
        return self.open if name == OPEN else self.closed

    @property
    def is_stub(self) -> bool:
        """Every room the file has of this board is a stub (no deal, nothing played)."""
        return all(room is None or room.is_stub for room in (self.open, self.closed))


@dataclass(frozen=True)
class ClaimedResult:
    """One `rs` entry: the result the file claims for a room ("4HE+1", "3NWx-2", "P").

    ``text`` as written; ``contract``, ``declarer``, ``tricks`` as read (``tricks`` None when
    the entry names the contract only, e.g. "4SW"); ``passed_out`` for P / PASS. An entry
    that cannot be read has no contract and is not passed out (``readable`` False)."""

    text: str
    contract: Contract | None = None
    declarer: str | None = None
    tricks: int | None = None
    passed_out: bool = False

    @property
    def readable(self) -> bool:
        return self.passed_out or self.contract is not None


@dataclass(frozen=True)
class VugraphMatch:
    """A two-room match from a vugraph LIN file.

    From `vg`: ``title``, ``segment``, ``scoring`` ("I" for IMPs), ``first_board`` /
    ``last_board``, ``teams`` (team1, team2) and their ``carry_over``. Team1 sits NS in the
    open room (and EW in the closed room). ``players``: the `pn` names, open room S, W, N,
    E then closed room S, W, N, E (as many as the file gives). ``results``: the `rs`
    entries in order o1, c1, o2, c2, … from ``first_board`` (None where empty).
    ``boards`` in the order of the file. ``notes``: `nt` lines before the first board.
    ``ignored``: tags the reader does not know, (tag, value), kept to be looked at; they
    are not data (not compared, not written)."""

    title: str
    segment: str
    scoring: str
    first_board: int
    last_board: int
    teams: tuple[str, str]
    carry_over: tuple[Decimal, Decimal]
    players: tuple[str, ...]
    results: tuple[ClaimedResult | None, ...]
    boards: tuple[Board, ...]
    notes: tuple[str, ...] = ()
    ignored: tuple[tuple[str, str], ...] = field(default=(), compare=False)

    def player(self, room: str, seat: str) -> str:
        """The name `pn` gives for ``seat`` in ``room`` ("" when it gives none)."""
        index = (0 if room == OPEN else 4) + LIN_SEATS.index(seat)
        return self.players[index] if index < len(self.players) else ""

    def claimed(self, board: int, room: str) -> ClaimedResult | None:
        """The `rs` entry for ``board`` in ``room`` (None when empty or absent)."""
        index = 2 * (board - self.first_board) + (0 if room == OPEN else 1)
        if 0 <= index < len(self.results):
            return self.results[index]
        return None

    def board(self, number: int) -> Board | None:
        return next((b for b in self.boards if b.number == number), None)
