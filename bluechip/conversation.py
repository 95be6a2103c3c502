"""One seat's conversation with a program, as the table manager holds it: which requests
wait for an answer, what the program has been told of the board, and what to say next.

It does no input or output and knows no clock: the gateway hands it each line the
program sends (`hear`) and each new state of the board (`update`, a `Record`: the board
as that seat may see it), and writes out the lines it answers. The protocol's order is
kept here: every ``ready for …`` is answered in the order it came, a call or card only
once the board has it; the program's own calls and cards are not told back to it; ``…
to lead`` goes to the player on lead (to declarer, ``Dummy to lead``, when dummy leads)
once it has been told the trick's last card; the ``Timing`` line follows every board,
passed out or played to its end.

A board that ends for the program otherwise (a claim accepted, our robot acting for it)
is aborted: nothing more is said of it, and the next board's ``Start of board`` (the
protocol's way of starting over) follows when the table reaches it.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from . import messages as say
from .messages import MadeCall, Message, PlayedCard, Ready, ReadyForCall, ReadyForCard

PARTNER = {"N": "S", "S": "N", "E": "W", "W": "E"}

# Phases: seated (before the teams), between (boards), starting ("Start of board" said,
# "ready for deal" awaited), board (in play, in step with the table), aborted (the board
# ended for the program), over ("End of session" said).
SEATED, BETWEEN, STARTING, BOARD, ABORTED, OVER = (
    "seated", "between", "starting", "board", "aborted", "over",
)  # fmt: skip


@dataclass(frozen=True)
class Record:
    """One board as the program's seat may see it now (what a person in that seat sees)."""

    number: int
    dealer: str
    vulnerability: str
    hand: tuple[str, ...]  # the seat's cards as dealt
    calls: tuple[tuple[str, str, str], ...]  # (seat, call, alert the seat may read or "")
    cards: tuple[tuple[str, str], ...]  # (the hand it came from, card), in order
    declarer: str | None
    dummy: tuple[str, ...] | None  # dummy's cards as dealt, once the seat may see them
    turn: str | None  # whose call, or which hand plays (dummy's seat when dummy plays)
    over: bool
    passed_out: bool

    @property
    def dummy_seat(self) -> str | None:
        return PARTNER[self.declarer] if self.declarer else None


class Conversation:
    def __init__(self, *, seat: str, teams: tuple[str, str], timing: Callable[[], str]):
        self.seat = seat
        self.teams = teams
        self.timing = timing  # the Timing line, asked when a board ends
        self.phase = SEATED
        self.pending: deque[Message] = deque()
        self.record: Record | None = None
        self.told_calls = 0
        self.told_cards = 0
        self.hand_told = False
        self.leads: set[int] = set()  # tricks whose "to lead" was said

    # What the program says.
    def hear(self, message: Message) -> tuple[list[str], MadeCall | PlayedCard | None]:
        """The lines to answer `message` with now, and the call or card it makes for
        the seat (None: none, or one the program may not make now: ignored)."""
        if self.phase == OVER:
            return [], None
        if isinstance(message, Ready) and message.what == "start":
            return [], None  # "Start of board" follows when the table reaches the board
        if self.phase == STARTING:
            # After "Start of board" only "ready for deal" counts: the rest is an aborted
            # board's, still on its way.
            if isinstance(message, Ready) and message.what == "deal":
                self.phase = BOARD
                self.pending.append(message)
                return self._pump(), None
            return [], None
        if isinstance(message, Ready) and message.what == "teams":
            if self.phase == SEATED:
                self.phase = BETWEEN
            return [say.teams(*self.teams)], None
        if self.phase != BOARD:
            return [], None
        if isinstance(message, MadeCall | PlayedCard):
            return [], message if self._may_make(message) else None
        if isinstance(message, Ready | ReadyForCall | ReadyForCard):
            self.pending.append(message)
            return self._pump(), None
        return [], None

    def _may_make(self, move: MadeCall | PlayedCard) -> bool:
        record = self.record
        if record is None or record.over or not self.hand_told:
            return False
        if isinstance(move, MadeCall):
            return move.seat == self.seat and record.declarer is None
        return record.declarer is not None and self._mine(move.seat)

    def _mine(self, hand: str) -> bool:
        """Whether the program plays the cards of `hand`: its own, unless it is dummy;
        dummy's too when it is declarer."""
        assert self.record is not None
        dummy = self.record.dummy_seat
        return (hand == self.seat and self.seat != dummy) or (
            hand == dummy and self.seat == self.record.declarer
        )

    # What the table does.
    def begin(self, record: Record) -> list[str]:
        """The table has reached `record`'s board: "Start of board", if the program is
        between boards (or its board was aborted)."""
        if self.phase not in (BETWEEN, ABORTED):
            return []
        self.phase, self.record = STARTING, record
        self.pending.clear()
        self.told_calls = self.told_cards = 0
        self.hand_told = False
        self.leads = set()
        return [say.START_OF_BOARD]

    def update(self, record: Record) -> list[str]:
        """The board as it stands now; the lines that can be said now."""
        if self.record is None or record.number != self.record.number:
            return []
        self.record = record
        return self._pump() if self.phase == BOARD else []

    def abort(self) -> None:
        """The board ends for the program here (our robot plays the seat's rest of it)."""
        if self.phase in (STARTING, BOARD):
            self.phase = ABORTED

    def end(self) -> list[str]:
        if self.phase == OVER:
            return []
        self.phase = OVER
        return [say.END_OF_SESSION]

    @property
    def in_step(self) -> bool:
        """The program plays this board: the seat's calls and cards are its."""
        return self.phase in (STARTING, BOARD)

    def awaits_program(self) -> bool:
        """The program has been told everything and it is its turn: its think time runs."""
        record = self.record
        if self.phase != BOARD or record is None or record.over or not self.hand_told:
            return False
        if self.told_calls < len(record.calls) or self.told_cards < len(record.cards):
            return False
        if record.declarer is None:
            return record.turn == self.seat and not record.passed_out
        if record.turn is None or not self._mine(record.turn):
            return False
        if len(record.cards) % 4 == 0:
            return len(record.cards) // 4 in self.leads
        return True

    def _pump(self) -> list[str]:
        record = self.record
        assert record is not None
        out: list[str] = []
        while True:
            self._skip_own_moves()
            if not self.pending:
                break
            line = self._answer(self.pending[0], record)
            if line is None:
                break
            self.pending.popleft()
            out.append(line)
        if self.told_calls == len(record.calls) and self.told_cards == len(record.cards):
            out += self._unasked(record)
        return out

    def _skip_own_moves(self) -> None:
        """The program's own calls and cards are not told back to it."""
        record = self.record
        assert record is not None
        while self.told_calls < len(record.calls) and record.calls[self.told_calls][0] == self.seat:
            self.told_calls += 1
        if self.told_calls < len(record.calls):
            return
        while self.told_cards < len(record.cards) and self._mine(record.cards[self.told_cards][0]):
            self.told_cards += 1

    def _answer(self, request: Message, record: Record) -> str | None:
        if isinstance(request, Ready):
            if request.what == "deal":
                return say.board(record.number, record.dealer, record.vulnerability)
            if request.what == "cards":
                self.hand_told = True
                return say.cards(self.seat, record.hand)
            if request.what == "dummy":
                if record.dummy is None or not record.cards:
                    return None
                return say.dummy_cards(record.dummy)
            return ""  # nothing to say to anything else: dropped below
        if isinstance(request, ReadyForCall):
            if self.told_calls >= len(record.calls):
                return None
            seat, made, alert = record.calls[self.told_calls]
            self.told_calls += 1
            return say.call(seat, made, alert)
        if isinstance(request, ReadyForCard):
            if self.told_calls < len(record.calls) or self.told_cards >= len(record.cards):
                return None
            hand, card = record.cards[self.told_cards]
            self.told_cards += 1
            return say.card(hand, card)
        return ""

    def _unasked(self, record: Record) -> list[str]:
        """What the table manager says unasked once the program knows the board so far:
        the lead, or the board's end."""
        if record.over:
            if record.passed_out or len(record.cards) == 52:
                self.phase = BETWEEN
                return [self.timing()]
            self.phase = ABORTED  # a claim ended it: the next "Start of board" says so
            return []
        played = len(record.cards)
        if record.declarer is None or played % 4 or played // 4 in self.leads or not self.hand_told:
            return []
        leader = record.turn
        if leader == self.seat and self.seat != record.dummy_seat:
            self.leads.add(played // 4)
            return [say.to_lead(self.seat)]
        if leader == record.dummy_seat and self.seat == record.declarer:
            self.leads.add(played // 4)
            return [say.to_lead(None)]
        return []
