"""A robot at a table: which call or card to make now, from the board and the deal.

Pure Python, no Django (a pure core like `play`). A robot is labelled as one and may use
what no person at the table knows: all four hands. It bids toward a planned contract
(`plan_of`: a contract near the double-dummy par with the noise of `simulation.model`,
or `heuristic_plan`, from points and fits alone, where speed matters) and plays cards by
a cheap rule of thumb, or double dummy when the caller gives it the solver's cards
(`tournaments.double_dummy.best_cards`, the one locked solver: the demo does).

    Plan(contract, declarer, lead)            what the table is going to bid
    plan_of(facts, rng) -> Plan               from the deal's double-dummy tricks
    heuristic_plan(deal_hands, vulnerability) -> Plan   points and fits, no solver
    state_from_view(deal, view) -> BoardState  the board a protocol view shows
    ViewBoard(deal).state(view) -> BoardState  the same, kept from view to view of one
                                              board: only what a view adds is applied
    choose_call(state, seat, plan) -> str     a legal call for `seat` (the one to call)
    choose_card(state, best=None) -> str      a legal card for the hand to play
    claim_size(state, seat) -> int            the tricks seat's side claims
    next_action(state, seat, plan, claim=None, claim_after=None, best=None)
        -> dict | None                        the protocol action, or None: not to act

Every action chosen is legal (`tests/simulation/test_robot.py` checks it on random deals):
a call is taken from `state.legal_calls()`, a card from `state.legal_cards()`.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import play
from scoring import RANKS, SEATS, SUITS, partner_of, side_of

from .model import DealFacts, plausible_result

_HCP = {"A": 4, "K": 3, "Q": 2, "J": 1}


@dataclass(frozen=True)
class Plan:
    """The contract the robots of a table steer to: "PASS", or e.g. "4S", "3NTX"."""

    contract: str = "PASS"
    declarer: str = ""
    lead: str = ""

    @property
    def bid(self) -> str | None:
        """The final bid ("4S", "3NT") without the doubling; None when passed out."""
        return None if self.contract == "PASS" else self.contract.rstrip("X")

    @property
    def doubling(self) -> int:
        return len(self.contract) - len(self.contract.rstrip("X"))


def plan_of(facts: DealFacts, rng: random.Random) -> Plan:
    """A plausible contract for the deal (`simulation.model`), as the robots bid it."""
    found = plausible_result(facts, rng)
    if found.contract == "PASS":
        return Plan()
    return Plan(contract=found.contract, declarer=found.declarer, lead=found.lead)


def hcp(cards: Sequence[str] | frozenset[str]) -> int:
    return sum(_HCP.get(card[1], 0) for card in cards)


def heuristic_plan(hands: Mapping[str, Sequence[str] | frozenset[str]]) -> Plan:
    """A contract from points and fits alone (no solver): the side with more points
    plays its longest fit (a major first), or no trumps without an eight-card fit, at the
    level its points reach. Deterministic."""
    points = {seat: hcp(hands[seat]) for seat in SEATS}
    sides = {"NS": ("N", "S"), "EW": ("E", "W")}
    side = max(sides, key=lambda s: (sum(points[p] for p in sides[s]), s == "NS"))
    total = sum(points[p] for p in sides[side])
    if total < 20:
        return Plan()
    first, second = sides[side]
    lengths = {
        suit: sum(1 for p in (first, second) for card in hands[p] if card[0] == suit)
        for suit in SUITS
    }
    fit = max(("S", "H", "D", "C"), key=lambda suit: (lengths[suit], suit in "SH"))
    strain = fit if lengths[fit] >= 8 else "NT"
    level = (
        1
        if total < 23
        else 2
        if total < 25
        else {"NT": 3, "S": 4, "H": 4, "D": 5, "C": 5}[strain]
        if total < 33
        else 6
    )
    if strain in "DC" and 25 <= total < 29:
        level = 3  # a minor partscore rather than a thin five-level game
    declarer = max((first, second), key=lambda p: (_length(hands[p], strain), points[p]))
    return Plan(contract=f"{level}{strain}", declarer=declarer)


def _length(hand, strain: str) -> int:
    return 0 if strain == "NT" else sum(1 for card in hand if card[0] == strain)


def state_from_view(deal: str | Mapping, view: Mapping) -> play.BoardState:
    """The board a view shows (its calls and cards replayed on the deal). A pending or
    rejected claim is not in it: the view's ``claim`` says who must answer."""
    state = play.BoardState.start(deal, view["dealer"], view["vulnerability"])
    return _apply_entries(state, view["auction"], view["play"])


class ViewBoard:
    """`state_from_view` for the successive views of one board, at the cost of what
    each view adds; one may serve the four seats of a table (their views tell one
    story: a robot knows all four hands anyway).

    It keeps the state of the furthest view seen (its calls and cards: the chain). A
    view that extends the chain (the same dealer and vulnerability, the chain's calls —
    alerts aside — and cards, then more) has only its new calls and cards applied; a
    view the chain already passed (a seat a message behind) is answered from the last
    few states answered, else replayed aside, the chain kept. Anything else — another
    board, calls after cards, an action the state refuses — rebuilds the chain from the
    start, as `state_from_view`. So `state(view)` always equals `state_from_view(deal,
    view)` (tests/simulation checks it on random boards). A claim is not in the state,
    as in `state_from_view`: a pending, accepted or rejected claim changes no call or
    card.
    """

    KEPT = 4  # states answered kept besides the chain's, for a seat a message behind

    def __init__(self, deal: str | Mapping) -> None:
        self.deal = deal
        self.replays = 0  # the times a state was rebuilt from the start
        self._key: tuple[str, str] | None = None  # the (dealer, vulnerability) of _start
        self._start: play.BoardState | None = None
        self._state: play.BoardState | None = None  # the chain's state
        self._auction: list = []  # the view entries the chain holds
        self._play: list = []
        self._answered: dict[tuple[int, int], play.BoardState] = {}  # (calls, cards) ->

    def state(self, view: Mapping) -> play.BoardState:
        """The board `view` shows."""
        state = self._state
        auction, cards = view["auction"], view["play"]
        calls, played = len(auction), len(cards)
        held_calls, held_cards = len(self._auction), len(self._play)
        if state is None or self._key != (view["dealer"], view["vulnerability"]):
            return self._rebuild(view)
        if calls == held_calls and played == held_cards:
            if _same_calls(auction, self._auction) and cards == self._play:
                return state
        elif (
            calls >= held_calls
            and played >= held_cards
            and (calls == held_calls or not held_cards)  # no call after a card
            and _same_calls(auction[:held_calls], self._auction)
            and cards[:held_cards] == self._play
        ):
            try:
                state = _apply_entries(state, auction[held_calls:], cards[held_cards:])
            except play.IllegalAction:
                return self._rebuild(view)
            self._keep(state, auction, cards)
            return state
        elif (
            calls <= held_calls
            and played <= held_cards
            and (calls == held_calls or not played)
            and _same_calls(auction, self._auction[:calls])
            and cards == self._play[:played]
        ):
            # A view the chain passed: its state is one of the chain's.
            earlier = self._answered.get((calls, played))
            if earlier is None:
                self.replays += 1
                earlier = _apply_entries(self._begin(view), auction, cards)
                self._remember(calls, played, earlier)
            return earlier
        return self._rebuild(view)

    def _begin(self, view: Mapping) -> play.BoardState:
        key = (view["dealer"], view["vulnerability"])
        start = self._start
        if start is None or self._key != key:
            start = play.BoardState.start(self.deal, *key)
            self._key, self._start = key, start
        return start

    def _rebuild(self, view: Mapping) -> play.BoardState:
        self._state = None
        self._answered.clear()
        self.replays += 1
        state = _apply_entries(self._begin(view), view["auction"], view["play"])
        self._keep(state, view["auction"], view["play"])
        return state

    def _keep(self, state: play.BoardState, auction: Sequence, cards: Sequence) -> None:
        self._state, self._auction, self._play = state, list(auction), list(cards)
        self._remember(len(auction), len(cards), state)

    def _remember(self, calls: int, played: int, state: play.BoardState) -> None:
        answered = self._answered
        answered[calls, played] = state
        if len(answered) > self.KEPT:
            del answered[next(iter(answered))]  # the oldest


def _same_calls(these: Sequence[Mapping], those: Sequence[Mapping]) -> bool:
    """Whether two views' auctions hold the same calls, their alerts aside (each seat
    sees only some alerts; the state holds none)."""
    return these == those or [(e["seat"], e["call"]) for e in these] == [
        (e["seat"], e["call"]) for e in those
    ]


def _apply_entries(
    state: play.BoardState, auction: Sequence[Mapping], cards: Sequence[Mapping]
) -> play.BoardState:
    """`state` after a view's calls then cards (each card from the hand that holds it:
    declarer plays dummy's)."""
    for entry in auction:
        state = state.apply(play.Call(entry["seat"], entry["call"]))
    for entry in cards:
        seat = entry["seat"]
        actor = state.declarer if seat == state.dummy and state.declarer else seat
        state = state.apply(play.Card(actor, entry["card"]))
    return state


# -- the auction ----------------------------------------------------------------------


def choose_call(state: play.BoardState, seat: str, plan: Plan) -> str:
    """The call of `seat` (the seat to call): declarer names the planned strain at the
    cheapest level, partner then raises to the planned level, an opponent doubles a
    contract planned doubled (and declarer's side redoubles one planned redoubled);
    everything else passes. Whatever the others did, the call is legal."""
    legal = state.legal_calls()
    assert legal and state.turn == seat, "choose_call asked of a seat not to call"
    bid = plan.bid
    wanted = play.PASS
    last = next((call for call in reversed(state.calls) if call.is_bid), None)
    ours = side_of(seat) == side_of(plan.declarer) if plan.declarer else False
    if bid is not None and ours:
        strain = bid[1:]
        named = any(
            call.is_bid and call.call[1:] == strain and side_of(call.seat) == side_of(seat)
            for call in state.calls
        )
        if seat == plan.declarer and not named:
            wanted = next((b for b in legal if b[1:] == strain and b in play.BIDS), play.PASS)
            if wanted != play.PASS and play.BIDS.index(wanted) > play.BIDS.index(bid):
                wanted = play.PASS  # the opponents bid past our plan: let them play
        elif named and (last is None or last.call != bid) and bid in legal:
            wanted = bid
        elif plan.doubling == 2 and play.REDOUBLE in legal and last and last.call == bid:
            wanted = play.REDOUBLE
    elif bid is not None and plan.doubling >= 1 and last is not None and last.call == bid:
        wanted = play.DOUBLE if play.DOUBLE in legal else play.PASS
    return wanted if wanted in legal else play.PASS


# -- the play -------------------------------------------------------------------------


def _power(card: str, led: str, strain: str) -> tuple[bool, bool, int]:
    return card[0] == strain, card[0] == led, 12 - RANKS.index(card[1])


def choose_card(state: play.BoardState, best: Sequence[str] | None = None) -> str:
    """A card for the hand to play. With `best` (the cards that keep the double-dummy
    number of tricks, from the solver) the lowest of them; otherwise second hand low,
    third and fourth hand win as cheaply as they can unless partner already wins, and a
    lead is the top of a sequence or a low card of the longest suit (trumps last)."""
    legal = state.legal_cards()
    assert legal, "choose_card asked when no card can be played"
    if best:
        good = [card for card in legal if card in best]
        if good:
            return min(good, key=lambda card: (RANKS.index(card[1]) * -1, card[0]))
    contract = state.contract
    strain = contract.strain if contract is not None else "NT"
    trick = state.current_trick
    lowest = min(legal, key=lambda card: (card[0] == strain, 12 - RANKS.index(card[1])))
    if trick is None or not trick.cards:
        return _lead(legal, strain)
    led = trick.cards[0][0]
    winning_index = max(range(len(trick.cards)), key=lambda i: _power(trick.cards[i], led, strain))
    winning = trick.cards[winning_index]
    partner_wins = len(trick.cards) - winning_index == 2  # the card two before ours
    if partner_wins or len(trick.cards) == 1:
        return lowest  # partner has it, or second hand low
    beating = [c for c in legal if _power(c, led, strain) > _power(winning, led, strain)]
    if beating:
        return min(beating, key=lambda card: _power(card, led, strain))
    return lowest


def _lead(legal: Sequence[str], strain: str) -> str:
    by_suit: dict[str, list[str]] = {}
    for card in legal:  # legal is sorted from the top within each suit
        by_suit.setdefault(card[0], []).append(card)
    suits = [s for s in by_suit if s != strain] or list(by_suit)
    suit = max(suits, key=lambda s: (len(by_suit[s]), -SUITS.index(s)))
    cards = by_suit[suit]
    top = cards[0]
    if len(cards) >= 2 and RANKS.index(cards[1][1]) == RANKS.index(top[1]) + 1:
        return top  # top of a sequence
    if top[1] == "A":
        return top
    return cards[min(3, len(cards) - 1)]  # fourth best, or the lowest of a short suit


def claim_size(state: play.BoardState, seat: str | None = None) -> int:
    """The tricks `seat`'s side (declarer's by default) claims of those left: its sure
    winners, the cards of each suit above every card the opponents hold in it, at most
    what remains. Trumps count like any suit: a modest claim, which robots accept."""
    claimer = seat or state.declarer
    assert claimer is not None
    ours = set(state.hand_of(claimer)) | set(state.hand_of(partner_of(claimer)))
    theirs = set(state.hand_of(SEATS[(SEATS.index(claimer) + 1) % 4])) | set(
        state.hand_of(SEATS[(SEATS.index(claimer) + 3) % 4])
    )
    winners = 0
    for suit in SUITS:
        mine = sorted((c for c in ours if c[0] == suit), key=lambda c: RANKS.index(c[1]))
        others = [c for c in theirs if c[0] == suit]
        top_other = min((RANKS.index(c[1]) for c in others), default=99)
        winners += sum(1 for c in mine if RANKS.index(c[1]) < top_other)
    remaining = 13 - len(state.tricks)
    return max(0, min(remaining, winners))


def next_action(
    state: play.BoardState,
    seat: str,
    plan: Plan,
    *,
    claim: Mapping | None = None,
    claim_after: int | None = None,
    best: Sequence[str] | None = None,
) -> dict | None:
    """The protocol action (without ``seq``) `seat`'s robot takes now, or None.

    `claim` is the view's pending claim: a robot accepts it when asked to answer.
    `claim_after`: the player on lead (declarer, or a defender) claims their side's
    sure winners when about to lead after that many tricks, which shortens a board
    (robots accept claims).
    """
    if state.is_over:
        return None
    if claim:
        if seat in claim.get("awaiting", ()):
            return {"type": "accept"}
        return None
    if not state.is_auction_over:
        if state.turn != seat:
            return None
        return {"type": "call", "call": choose_call(state, seat, plan)}
    if state.actor != seat:
        return None
    trick = state.current_trick
    if (
        claim_after is not None
        and len(state.tricks) >= claim_after
        and trick is not None
        and not trick.cards
        and state.opening_lead is not None
    ):
        return {"type": "claim", "tricks": claim_size(state, seat)}
    if not state.tricks and trick is not None and not trick.cards:
        legal = state.legal_cards()
        if plan.lead in legal:
            return {"type": "card", "card": plan.lead}
    return {"type": "card", "card": choose_card(state, best)}
