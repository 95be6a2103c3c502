"""One board at one table, from the first call to the last trick (RULES 9).

A ``BoardState`` is immutable: ``apply`` answers a new state or raises ``IllegalAction``,
so a refused action changes nothing, and replaying the stored actions rebuilds the
state exactly (a player who reconnects sees the same board).
"""

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, fields
from typing import Any, Generic, TypeVar, cast, overload

from scoring import SEATS, Contract, ScoringError, contract_score, partner_of, seat_offset, side_of
from scoring import validate_vulnerability as _vulnerability

from .actions import (
    BID_INDEX,
    BIDS,
    DOUBLE,
    PASS,
    REDOUBLE,
    Action,
    Call,
    Card,
    Claim,
    ClaimResponse,
)
from .cards import Hands, parse_deal, rank_order, sort_hand
from .errors import DealError, IllegalAction
from .errors import gettext_noop as _

_SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
_SEAT_INDEX = {seat: index for index, seat in enumerate(SEATS)}
_ALL_SEATS = frozenset(SEATS)

T = TypeVar("T")


class _cached(Generic[T]):
    """``functools.cached_property`` without its lock: Python 3.11's takes one lock for
    the whole class on every first computation, which was most of a replay's time. The
    values are functions of an immutable state, so two threads computing one agree."""

    def __init__(self, compute: Callable[[Any], T]) -> None:
        self.compute = compute
        self.name = compute.__name__
        self.__doc__ = compute.__doc__

    @overload
    def __get__(self, state: None, owner: type) -> "_cached[T]": ...

    @overload
    def __get__(self, state: object, owner: type | None = None) -> T: ...

    def __get__(self, state: object, owner: type | None = None) -> "T | _cached[T]":
        if state is None:
            return self
        value = state.__dict__[self.name] = self.compute(state)
        return value


# What the auction settles for the rest of the board: once it is over, each new state
# takes these from the one before instead of reading the calls again.
_AUCTION_FACTS = ("_last_bid", "is_auction_over", "passed_out", "contract", "declarer", "dummy")


@dataclass(frozen=True)
class Trick:
    """Cards in the order played, starting with ``leader``'s; ``winner`` once complete."""

    leader: str
    cards: tuple[str, ...] = ()
    winner: str | None = None

    @property
    def plays(self) -> tuple[tuple[str, str], ...]:
        """(seat, card) pairs: whose hand each card came from."""
        return tuple((seat_offset(self.leader, i), card) for i, card in enumerate(self.cards))


@dataclass(frozen=True)
class Result:
    """A finished board as scoring takes it; a passed-out board has no contract."""

    contract: Contract | None
    declarer: str | None
    tricks: int
    lead: str | None
    ns_score: int


@dataclass(frozen=True)
class ClaimOutcome:
    """A pending claim's sums: the claimer's side's tricks ``won`` so far and ``total``
    with the claim, declarer's tricks, and the contract made (with ``overtricks``) or
    down ``undertricks``."""

    won: int
    total: int
    declarer_tricks: int
    made: bool
    overtricks: int
    undertricks: int


def trick_winner(leader: str, cards: tuple[str, ...], strain: str) -> str:
    """The highest trump wins, else the highest card of the suit led (Law 44)."""
    led = cards[0][0]
    best, best_power = 0, (led == strain, True, rank_order(cards[0]))
    for index in range(1, len(cards)):
        card = cards[index]
        power = (card[0] == strain, card[0] == led, rank_order(card))
        if power > best_power:  # the first of equals wins, as max() would have it
            best, best_power = index, power
    return seat_offset(leader, best)


@dataclass(frozen=True)
class BoardState:
    """A board at a table: build it with ``start`` and ``apply``, or ``replay``."""

    dealer: str
    vulnerability: str
    deal: Hands  # the hands as dealt, in the order of SEATS
    hands: Hands  # the cards still held
    actions: tuple[Action, ...] = ()
    calls: tuple[Call, ...] = ()
    tricks: tuple[Trick, ...] = ()  # completed tricks
    current_trick: Trick | None = None  # None outside the play
    pending_claim: Claim | None = None
    claim_accepted_by: frozenset[str] = frozenset()
    accepted_claim: Claim | None = None

    # -- building -------------------------------------------------------------------

    @classmethod
    def start(
        cls, deal: "str | Mapping[str, Iterable[str]]", dealer: str, vulnerability: str
    ) -> "BoardState":
        """A board before the first call; ``deal`` is a PBN deal string ("N:AKQ.… …")."""
        if dealer not in SEATS:
            raise DealError(_("the dealer must be N, E, S or W; got %(dealer)r"), dealer=dealer)
        try:
            vulnerability = _vulnerability(vulnerability)
        except ScoringError:
            raise DealError(
                _("vulnerability must be None, NS, EW or Both; got %(vulnerability)r"),
                vulnerability=vulnerability,
            ) from None
        hands = parse_deal(deal)
        return cls(dealer=dealer, vulnerability=vulnerability, deal=hands, hands=hands)

    @classmethod
    def replay(
        cls,
        deal: "str | Mapping[str, Iterable[str]]",
        dealer: str,
        vulnerability: str,
        actions: Iterable[Action],
    ) -> "BoardState":
        """The state after ``actions``, each applied in turn (refusing the first illegal)."""
        state = cls.start(deal, dealer, vulnerability)
        for action in actions:
            state = state.apply(action)
        return state

    def apply(self, action: Action) -> "BoardState":
        """The board after ``action``; raises ``IllegalAction`` (saying why) if not allowed."""
        if self.is_over:
            raise IllegalAction(_("the board is over"))
        if isinstance(action, Call):
            after = self._call(action)
        elif isinstance(action, Card):
            after = self._play(action)
        elif isinstance(action, Claim):
            after = self._claim(action)
        elif isinstance(action, ClaimResponse):
            after = self._answer(action)
        else:
            raise IllegalAction(_("%(action)r is not a call, card or claim"), action=action)
        known = after.__dict__  # a new state that nobody else holds yet
        known["actions"] = (*self.actions, action)
        if self.is_auction_over:
            for fact in _AUCTION_FACTS:
                known[fact] = getattr(self, fact)
        return after

    def _with(self, **changes: Any) -> "BoardState":
        """``dataclasses.replace`` without its look at every field each time (it was a
        third of an action's cost). ``changes`` may also give what the new state is
        already known to be (a cached fact such as ``_last_bid``)."""
        new = object.__new__(type(self))
        own, values = self.__dict__, new.__dict__
        for name in _FIELDS:
            values[name] = own[name]
        values.update(changes)
        return new

    def allows(self, action: Action) -> bool:
        """Whether ``apply(action)`` would be accepted now."""
        try:
            self.apply(action)
        except IllegalAction:
            return False
        return True

    # -- the auction (Laws 17-21, RULES 9) ---------------------------------------------

    def _call(self, call: Call) -> "BoardState":
        if self.is_auction_over:
            raise IllegalAction(_("the auction is over"))
        if call.seat != self.turn:
            raise IllegalAction(_("not your turn: %(seat)s is to call"), seat=self.turn)
        bid, doubling = self._last_bid
        if call.is_bid and bid is not None and BID_INDEX[call.call] <= BID_INDEX[bid.call]:
            raise IllegalAction(
                _("insufficient bid: %(call)s is not higher than %(bid)s"),
                call=call.call,
                bid=bid.call,
            )
        if call.call == DOUBLE:
            # Law 19A: only the opponents' last bid, and only if not yet doubled.
            if bid is None:
                raise IllegalAction(_("nothing to double: no bid has been made"))
            if side_of(bid.seat) == side_of(call.seat):
                raise IllegalAction(_("you may double only the opponents' bid"))
            if doubling:
                raise IllegalAction(_("%(bid)s has already been doubled"), bid=bid.call)
        if call.call == REDOUBLE:
            # Law 19B: only one's own side's bid doubled by the opponents.
            if bid is None or doubling == 0:
                raise IllegalAction(_("nothing to redouble: the last bid is not doubled"))
            if side_of(bid.seat) != side_of(call.seat):
                raise IllegalAction(_("you may redouble only your own side's bid"))
            if doubling == 2:
                raise IllegalAction(_("%(bid)s has already been redoubled"), bid=bid.call)
        last: tuple[Call | None, int]
        if call.is_bid:
            last = (call, 0)
        elif call.call == PASS:
            last = (bid, doubling)
        else:
            last = (bid, 1 if call.call == DOUBLE else 2)
        after = self._with(calls=(*self.calls, call), _last_bid=last)
        if after.is_auction_over and not after.passed_out:
            # Law 41A: the player on declarer's left makes the opening lead.
            after = after._with(current_trick=Trick(seat_offset(after._declarer, 1)))
        return after

    @_cached
    def _last_bid(self) -> tuple[Call | None, int]:
        """The last bid so far and its doubling: 0, 1 (doubled) or 2 (redoubled)."""
        bid, doubling = None, 0
        for call in self.calls:
            if call.is_bid:
                bid, doubling = call, 0
            elif call.call != PASS:
                doubling = 1 if call.call == DOUBLE else 2
        return bid, doubling

    @_cached
    def is_auction_over(self) -> bool:
        """Three passes after a call other than pass, or four passes (Law 17E)."""
        return len(self.calls) >= 4 and all(call.call == PASS for call in self.calls[-3:])

    @_cached
    def passed_out(self) -> bool:
        return self.is_auction_over and self._last_bid[0] is None

    def legal_calls(self) -> tuple[str, ...]:
        """The calls the player to call may make, lowest bid first; () outside the auction."""
        if self.is_auction_over:
            return ()
        bid, doubling = self._last_bid
        if bid is None:
            return (PASS, *BIDS)
        ours = side_of(bid.seat) == side_of(self._turn)
        doubles = (DOUBLE,) if not ours and doubling == 0 else ()
        redoubles = (REDOUBLE,) if ours and doubling == 1 else ()
        return (PASS, *doubles, *redoubles, *BIDS[BID_INDEX[bid.call] + 1 :])

    @_cached
    def contract(self) -> Contract | None:
        """The final contract once the auction is over (None if passed out or still bidding)."""
        bid, doubling = self._last_bid
        if not self.is_auction_over or bid is None:
            return None
        return Contract(int(bid.call[0]), bid.call[1:], doubling)

    @_cached
    def declarer(self) -> str | None:
        """The player of the declaring side who first named the final strain (RULES 9)."""
        contract = self.contract
        bid = self._last_bid[0]
        if contract is None or bid is None:  # a contract has its bid: both or neither
            return None
        side = side_of(bid.seat)
        return next(
            call.seat
            for call in self.calls
            if call.is_bid and call.call[1:] == contract.strain and side_of(call.seat) == side
        )

    @_cached
    def dummy(self) -> str | None:
        return partner_of(self.declarer) if self.declarer else None

    # What is certain once the auction is over and not passed out (asked for only then).

    @property
    def _contract(self) -> Contract:
        assert self.contract is not None, "asked for the contract before there is one"
        return self.contract

    @property
    def _declarer(self) -> str:
        assert self.declarer is not None, "asked for declarer before there is one"
        return self.declarer

    @property
    def _trick(self) -> Trick:
        assert self.current_trick is not None, "asked for the trick outside the play"
        return self.current_trick

    @property
    def _turn(self) -> str:
        assert self.turn is not None, "asked whose turn it is after the board is over"
        return self.turn

    # -- the play (Laws 41-47, RULES 9) ------------------------------------------------

    @_cached
    def turn(self) -> str | None:
        """The seat to call, or whose hand plays next (dummy's seat when dummy plays)."""
        if self.is_over:
            return None
        if not self.is_auction_over:
            return seat_offset(self.dealer, len(self.calls))
        trick = self._trick
        return seat_offset(trick.leader, len(trick.cards))

    @_cached
    def actor(self) -> str | None:
        """The player who must act now: declarer plays dummy's cards (Law 45A)."""
        turn = self.turn
        return self.declarer if turn is not None and turn == self.dummy else turn

    def _play(self, card: Card) -> "BoardState":
        if not self.is_auction_over:
            raise IllegalAction(_("the auction is not over: no card can be played yet"))
        if self.pending_claim is not None:
            self._refuse_while_claim_waits()
        turn = self._turn
        if card.seat != self.actor:
            if card.seat == self.dummy == turn:
                raise IllegalAction(_("declarer plays dummy's cards"))
            raise IllegalAction(_("not your turn: %(seat)s is to play"), seat=turn)
        index = _SEAT_INDEX[turn]
        held = self.hands
        hand = held[index]
        if card.card not in hand:
            raise IllegalAction(_("%(card)s is not in %(seat)s's hand"), card=card.card, seat=turn)
        trick = self._trick
        if trick.cards:
            led = trick.cards[0][0]
            if card.card[0] != led and any(other[0] == led for other in hand):
                # Law 44C: a player must follow suit if able.
                raise IllegalAction(
                    _("you must follow suit: play a %(suit)s"), suit=_SUIT_SYMBOLS[led]
                )
        hands = cast(Hands, (*held[:index], hand - {card.card}, *held[index + 1 :]))
        cards = (*trick.cards, card.card)
        # Whose turn it is next and whether the board is over are known here (no claim
        # can be waiting or accepted while cards are played): the new state is told.
        if len(cards) < 4:
            return self._with(
                hands=hands,
                current_trick=Trick(trick.leader, cards),
                turn=SEATS[(index + 1) % 4],
                is_over=False,
            )
        # Law 44G: the winner of a trick leads to the next one.
        winner = trick_winner(trick.leader, cards, self._contract.strain)
        tricks = (*self.tricks, Trick(trick.leader, cards, winner))
        if len(tricks) < 13:
            return self._with(
                hands=hands, tricks=tricks, current_trick=Trick(winner), turn=winner, is_over=False
            )
        return self._with(hands=hands, tricks=tricks, current_trick=None, turn=None, is_over=True)

    def legal_cards(self) -> tuple[str, ...]:
        """The cards the hand to play may play now (follow suit if able); () if none."""
        if self.is_over or not self.is_auction_over or self.pending_claim:
            return ()
        hand = self.hands[_SEAT_INDEX[self._turn]]
        if self._trick.cards:
            led = self._trick.cards[0][0]
            following = [card for card in hand if card[0] == led]
            if following:
                return sort_hand(following)
        return sort_hand(hand)

    @_cached
    def opening_lead(self) -> str | None:
        trick = self.tricks[0] if self.tricks else self.current_trick
        return trick.cards[0] if trick is not None and trick.cards else None

    @property
    def dummy_visible(self) -> bool:
        """Dummy's hand is shown to all four after the opening lead (Law 41D)."""
        return self.opening_lead is not None

    def hand_of(self, seat: str) -> tuple[str, ...]:
        """The cards ``seat`` still holds, as a hand is shown."""
        return sort_hand(self.hands[SEATS.index(seat)])

    def visible_seats(self, seat: str) -> frozenset[str]:
        """Whose hands ``seat`` may see: their own, dummy after the lead, the claimer's
        while a claim waits for its answers (Law 68: the claimer faces his cards; hidden
        again once it is rejected), all four when over."""
        if self.is_over:
            return _ALL_SEATS
        seen = {seat}
        if self.dummy_visible:
            seen.add(cast(str, self.dummy))  # dummy is seen after the lead
        if self.pending_claim is not None:
            seen.add(self.pending_claim.seat)
        return frozenset(seen)

    # -- claims (Laws 68-69, RULES 9) -------------------------------------------------

    def _refuse_while_claim_waits(self) -> None:
        if self.pending_claim is not None:
            raise IllegalAction(
                _("a claim is waiting for an answer: play goes on only if it is rejected")
            )

    def _claim(self, claim: Claim) -> "BoardState":
        if not self.is_auction_over:
            raise IllegalAction(_("no claim during the auction"))
        self._refuse_while_claim_waits()
        if self.opening_lead is None:
            raise IllegalAction(_("claims are made during the play, after the opening lead"))
        if claim.seat == self.dummy:
            raise IllegalAction(_("dummy cannot claim: declarer or a defender may"))
        remaining = 13 - len(self.tricks)
        if claim.tricks > remaining:
            raise IllegalAction(
                _("only %(remaining)s tricks remain: you cannot claim %(tricks)s"),
                remaining=remaining,
                tricks=claim.tricks,
            )
        return self._with(pending_claim=claim, claim_accepted_by=frozenset())

    @property
    def claim_answers_awaited(self) -> frozenset[str]:
        """The opponents of the claimer who have still to accept the pending claim."""
        if self.pending_claim is None:
            return frozenset()
        claimer_side = side_of(self.pending_claim.seat)
        opponents = {seat for seat in SEATS if side_of(seat) != claimer_side}
        return frozenset(opponents - self.claim_accepted_by)

    def _answer(self, answer: ClaimResponse) -> "BoardState":
        claim = self.pending_claim
        if claim is None:
            raise IllegalAction(_("there is no claim to answer"))
        if side_of(answer.seat) == side_of(claim.seat):
            raise IllegalAction(_("your side made this claim: the opponents answer it"))
        if answer.seat in self.claim_accepted_by:
            raise IllegalAction(_("you have already accepted this claim"))
        if not answer.accept:
            # Online practice (RULES 9): either opponent rejecting the claim means play goes on.
            return self._with(pending_claim=None, claim_accepted_by=frozenset())
        accepted = self.claim_accepted_by | {answer.seat}
        if len(accepted) < 2:
            return self._with(claim_accepted_by=accepted)
        return self._with(pending_claim=None, claim_accepted_by=accepted, accepted_claim=claim)

    # -- the end ----------------------------------------------------------------------

    @_cached
    def is_over(self) -> bool:
        """Passed out, 13 tricks played, or a claim accepted by both opponents."""
        return self.passed_out or len(self.tricks) == 13 or self.accepted_claim is not None

    @property
    def tricks_won(self) -> dict[str, int]:
        """Tricks won by "NS" and "EW", counting an accepted claim's."""
        won = {"NS": 0, "EW": 0}
        for trick in self.tricks:
            won[side_of(cast(str, trick.winner))] += 1  # a completed trick has its winner
        claim = self.accepted_claim
        if claim is not None:
            remaining = 13 - len(self.tricks)
            claimer = side_of(claim.seat)
            other = "EW" if claimer == "NS" else "NS"
            won[claimer] += claim.tricks
            won[other] += remaining - claim.tricks
        return won

    def claim_outcome(self) -> "ClaimOutcome | None":
        """What the claim waiting for its answers would make of the board if accepted:
        the claimer's side's tricks so far and in all, and declarer's contract made by
        how many or down by how many (None without a pending claim)."""
        claim = self.pending_claim
        if claim is None:
            return None
        won = self.tricks_won
        side = side_of(claim.seat)
        declarer_side = side_of(self._declarer)
        remaining = 13 - len(self.tricks)
        declarer_tricks = won[declarer_side] + (
            claim.tricks if side == declarer_side else remaining - claim.tricks
        )
        needed = self._contract.level + 6
        return ClaimOutcome(
            won=won[side],
            total=won[side] + claim.tricks,
            declarer_tricks=declarer_tricks,
            made=declarer_tricks >= needed,
            overtricks=max(0, declarer_tricks - needed),
            undertricks=max(0, needed - declarer_tricks),
        )

    def result(self) -> Result:
        """The board's result and its NS score by ``scoring.contract_score`` (Law 77)."""
        if not self.is_over:
            raise IllegalAction(_("the board is not over yet"))
        if self.passed_out:
            return Result(None, None, 0, None, 0)
        tricks = self.tricks_won[side_of(self._declarer)]
        score = contract_score(self._contract, self._declarer, tricks, self.vulnerability)
        return Result(self.contract, self.declarer, tricks, self.opening_lead, score)


_FIELDS = tuple(field.name for field in fields(BoardState))
