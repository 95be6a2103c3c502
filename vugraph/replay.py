"""A vugraph match replayed through the rules of play: each room's auction and play is
applied to a `play.BoardState`, its result scored by Law 77 (`scoring`, through
``BoardState.result``), compared with the file's `rs`, and each board both rooms completed
is IMPed for team1 (`teams.match.board_imps`; team1 sits NS in the open room).

How LIN is mapped onto the rules of play:

- calls are made in turn from the dealer (`md`'s digit; without one, the board number's
  standard dealer; without `sv`, its standard vulnerability);
- a card is played by whoever holds it, declarer for dummy (LIN does not say who plays,
  so a card from the wrong hand is refused as the play would refuse that player);
- `mc|N` says the declaring side takes N tricks in the whole board: declarer claims
  N − (tricks its side has won so far) of the rest and both defenders accept, so the
  board ends as an accepted claim does at the system's tables. An `mc` on a board already
  over must say what the play gave (0 on a passed-out board);
- the `rs` entry agrees when its contract, declarer and tricks are the replay's (or both
  are passed out); an entry naming the contract only ("4SW") or empty confirms nothing.

Each room's outcome is its replayed result, or a refusal (`LinError`) with the board, the
room and the reason. A stub board (no deal) outside the `vg` range is left out of the
match, as BBO's placeholder it is; inside the range it is refused like a missing room.

Policy: ``STRICT`` raises the first refusal (boards in the file's order, the open room
first); ``LENIENT`` imports everything and marks the refused rooms; the IMPs and the match
score count the boards both rooms completed and agreed with `rs` where it says.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from play import (
    DECK,
    BoardState,
    Call,
    Card,
    Claim,
    ClaimResponse,
    IllegalAction,
    PlayError,
    Result,
)
from scoring import SEATS, board_dealer, board_vulnerability, partner_of, seat_offset, side_of
from teams.match import board_imps

from .errors import LinError
from .lin import read_lin, result_text
from .model import CLOSED, OPEN, ROOMS, Board, ClaimedResult, Room, VugraphMatch

STRICT, LENIENT = "strict", "lenient"
POLICIES = (STRICT, LENIENT)


@dataclass(frozen=True)
class RoomOutcome:
    """One room of one board replayed. ``result`` is the replay's when the auction and play
    are legal and the board is over (even if ``problem`` then says it contradicts `rs`);
    ``claimed`` the `rs` entry; ``agrees`` whether they agree (None: `rs` says nothing
    to compare); ``problem`` why the room is refused, None when it is accepted."""

    board: int
    room: str
    result: Result | None
    claimed: ClaimedResult | None
    agrees: bool | None
    problem: LinError | None

    @property
    def accepted(self) -> bool:
        return self.problem is None

    @property
    def replayed(self) -> bool:
        """The auction and play are legal and finish the board (claim included)."""
        return self.result is not None


@dataclass(frozen=True)
class BoardOutcome:
    """A board's two rooms; ``imps`` to team1 (negative: to team2) when both are accepted."""

    number: int
    open: RoomOutcome
    closed: RoomOutcome
    imps: int | None

    def room(self, name: str) -> RoomOutcome:
        return self.open if name == OPEN else self.closed


@dataclass(frozen=True)
class MatchOutcome:
    """A match replayed. ``boards`` in the file's order, without the stub boards outside
    `vg`'s range (``stubs_left_out``); ``absent`` the boards of `vg`'s range the file does
    not have in either room."""

    match: VugraphMatch
    policy: str
    boards: tuple[BoardOutcome, ...]
    stubs_left_out: tuple[int, ...]
    absent: tuple[int, ...]

    @property
    def rooms(self) -> tuple[RoomOutcome, ...]:
        return tuple(board.room(name) for board in self.boards for name in ROOMS)

    @property
    def problems(self) -> tuple[LinError, ...]:
        return tuple(room.problem for room in self.rooms if room.problem is not None)

    @property
    def scored(self) -> tuple[BoardOutcome, ...]:
        """The boards both rooms completed: the ones the match score counts."""
        return tuple(board for board in self.boards if board.imps is not None)

    @property
    def imps(self) -> tuple[int, int]:
        """IMPs won on the scored boards by team1 and by team2."""
        won = [board.imps for board in self.scored if board.imps is not None]
        return sum(i for i in won if i > 0), -sum(i for i in won if i < 0)

    @property
    def score(self) -> tuple[Decimal, Decimal]:
        """Each team's match score: its carry-over plus the IMPs it won here."""
        first, second = self.imps
        carry = self.match.carry_over
        return carry[0] + first, carry[1] + second


def import_lin(text: str, *, policy: str = LENIENT) -> MatchOutcome:
    """`read_lin` then `replay_match`."""
    return replay_match(read_lin(text), policy=policy)


def replay_match(match: VugraphMatch, *, policy: str = LENIENT) -> MatchOutcome:
    """Every board of ``match`` replayed (see the module docstring); STRICT raises the
    first refused room's `LinError`."""
    if policy not in POLICIES:
        raise ValueError(f"the policy is {STRICT!r} or {LENIENT!r}, not {policy!r}")
    outcomes: list[BoardOutcome] = []
    left_out: list[int] = []
    in_range = range(match.first_board, match.last_board + 1)
    for board in match.boards:
        if board.is_stub and board.number not in in_range:
            left_out.append(board.number)
            continue
        rooms = {name: replay_room(match, board, name) for name in ROOMS}
        if policy == STRICT:
            for name in ROOMS:
                problem = rooms[name].problem
                if problem is not None:
                    raise problem
        imps = None
        open_, closed = rooms[OPEN], rooms[CLOSED]
        if open_.accepted and closed.accepted and open_.result and closed.result:
            imps = board_imps(open_.result.ns_score, closed.result.ns_score)
        outcomes.append(BoardOutcome(board.number, open_, closed, imps))
    present = {board.number for board in match.boards}
    return MatchOutcome(
        match=match,
        policy=policy,
        boards=tuple(outcomes),
        stubs_left_out=tuple(left_out),
        absent=tuple(n for n in in_range if n not in present),
    )


def replay_room(match: VugraphMatch, board: Board, name: str) -> RoomOutcome:
    """One room of ``board`` replayed and compared with its `rs` entry."""
    claimed = match.claimed(board.number, name)
    room = board.room(name)
    if room is None:
        other = CLOSED if name == OPEN else OPEN
        missing = LinError(
            "missing_room",
            f"Board {board.number}, {name} room: not in the file (only the {other} room is).",
            board=board.number,
            room=name,
        )
        return RoomOutcome(board.number, name, None, claimed, None, missing)
    try:
        state = replay(room, board.number)
    except LinError as refused:
        return RoomOutcome(board.number, name, None, claimed, None, refused)
    result = state.result()
    agrees = _agrees(result, claimed)
    problem: LinError | None = None
    differs = _differs_from_open(board) if name == CLOSED else None
    if differs is not None:
        problem = LinError(
            "deal_differs",
            f"Board {board.number}, closed room: its {differs} is not the open room's, so "
            "the rooms cannot be compared.",
            board=board.number,
            room=name,
        )
    elif agrees is False and claimed is not None:
        played = result_text(result.contract, result.declarer, result.tricks)
        problem = LinError(
            "disagrees",
            f"Board {board.number}, {name} room: rs says {claimed.text} "
            f"({_tricks_said(claimed)}) but the auction and play give {played.text} "
            f"({_tricks_said(played)}).",
            board=board.number,
            room=name,
            claimed=claimed.text,
            played=played.text,
        )
    return RoomOutcome(board.number, name, result, claimed, agrees, problem)


def _tricks_said(result: ClaimedResult) -> str:
    if result.passed_out:
        return "passed out"
    return "tricks not given" if result.tricks is None else f"{result.tricks} tricks"


def _differs_from_open(board: Board) -> str | None:
    first, second = board.open, board.closed
    if first is None or second is None or first.is_stub or second.is_stub:
        return None
    if first.hands != second.hands:
        return "deal"
    if (first.dealer or board_dealer(board.number)) != (
        second.dealer or board_dealer(board.number)
    ):
        return "dealer"
    if _vulnerability(first, board.number) != _vulnerability(second, board.number):
        return "vulnerability"
    return None


def _vulnerability(room: Room, number: int) -> str:
    return room.vulnerability or board_vulnerability(number)


def _agrees(result: Result, claimed: ClaimedResult | None) -> bool | None:
    if claimed is None or not claimed.readable:
        return None
    if claimed.passed_out or result.contract is None:
        return claimed.passed_out and result.contract is None
    if (claimed.contract, claimed.declarer) != (result.contract, result.declarer):
        return False
    return None if claimed.tricks is None else claimed.tricks == result.tricks


def replay(room: Room, board: int) -> BoardState:
    """``room``'s board at its end: its calls, cards and `mc` applied to a `BoardState`.
    LinError (saying which call, card or claim, and why) if the rules refuse one or the
    board is not over at the end."""

    def refuse(kind: str, reason: str, **details: object) -> LinError:
        return _refusal(board, room.name, kind, reason, **details)

    if room.hands is None:
        raise refuse("stub", "no deal (an empty placeholder board).")
    dealer = room.dealer or board_dealer(board)
    try:
        state = BoardState.start(
            dict(zip(SEATS, room.hands, strict=True)), dealer, _vulnerability(room, board)
        )
    except PlayError as error:
        raise refuse("deal", f"the deal is refused: {error}.") from None
    for index, lin_call in enumerate(room.calls, start=1):
        seat = state.turn or dealer
        try:
            call = Call(seat, lin_call.call, lin_call.explanation)
            state = state.apply(call)
        except IllegalAction as error:
            raise refuse(
                "illegal_call",
                f"call {index} ({lin_call.call} by {seat}) is refused: {error}.",
                call=index,
                seat=seat,
                rule=str(error),
            ) from None
    for index, card in enumerate(room.cards):
        trick, place = index // 4 + 1, index % 4 + 1
        holder = next((s for s, hand in zip(SEATS, state.hands, strict=True) if card in hand), None)
        if holder is None:
            what = "is not a card" if card not in DECK else "is in nobody's hand (played already?)"
            raise refuse(
                "illegal_card",
                f"trick {trick}, card {place}: {card} {what}.",
                trick=trick,
                card=card,
            )
        actor = state.declarer if holder == state.dummy and state.declarer else holder
        try:
            state = state.apply(Card(actor, card))
        except IllegalAction as error:
            lead = "the opening lead " if index == 0 else ""
            raise refuse(
                "illegal_card",
                f"trick {trick}, card {place}: {lead}{card} from {holder}'s hand is refused: "
                f"{error}.",
                trick=trick,
                card=card,
                seat=holder,
                rule=str(error),
            ) from None
    if state.is_over:
        if room.claim is not None:
            won = 0 if state.passed_out else state.tricks_won[side_of(state.declarer or "N")]
            if room.claim != won:
                said = "passed out" if state.passed_out else f"gives declarer's side {won}"
                raise refuse(
                    "claim_contradicts",
                    f"mc|{room.claim}| after the board is over, but the play {said}"
                    + (" (mc must be 0)." if state.passed_out else "."),
                    claim=room.claim,
                )
        return state
    if room.claim is None:
        if not room.calls and not room.cards:
            reason = "nothing is recorded but the deal: no call, no card, no claim (mc)."
        elif not state.is_auction_over:
            reason = f"the auction stops after {len(room.calls)} calls, with no claim (mc)."
        elif not room.cards:
            reason = "the auction is over but no card is played and there is no claim (mc)."
        else:
            reason = (
                f"the play stops after {len(room.cards)} cards ({len(state.tricks)} tricks "
                "complete), with no claim (mc)."
            )
        raise refuse("unfinished", reason)
    return _claimed(state, room.claim, board, room.name)


def _refusal(board: int, room: str, kind: str, reason: str, **details: object) -> LinError:
    return LinError(
        kind, f"Board {board}, {room} room: {reason}", board=board, room=room, **details
    )


def _claimed(state: BoardState, claim: int, board: int, room: str) -> BoardState:
    """The board after `mc|claim`: declarer claims the rest of the declaring side's
    ``claim`` tricks and both defenders accept."""

    def refuse(kind: str, reason: str, **details: object) -> LinError:
        return _refusal(board, room, kind, reason, **details)

    if not state.is_auction_over or state.declarer is None:
        raise refuse(
            "illegal_claim",
            f"mc|{claim}| before the auction is over: there is no declarer to claim.",
            claim=claim,
        )
    declarer = state.declarer
    won = state.tricks_won[side_of(declarer)]
    remaining = 13 - len(state.tricks)
    if not won <= claim <= won + remaining:
        raise refuse(
            "illegal_claim",
            f"mc|{claim}| says declarer's side takes {claim} tricks in all, but it has won {won} "
            f"and {remaining} remain.",
            claim=claim,
        )
    try:
        state = state.apply(Claim(declarer, claim - won))
        for defender in (seat_offset(declarer, 1), partner_of(seat_offset(declarer, 1))):
            state = state.apply(ClaimResponse(defender, True))
    except IllegalAction as error:
        raise refuse(
            "illegal_claim", f"mc|{claim}| is refused: {error}.", claim=claim, rule=str(error)
        ) from None
    return state
