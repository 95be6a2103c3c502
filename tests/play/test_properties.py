"""Property tests: random boards played to the end by ``play`` agree with endplay's own
deal and trick machinery (trick winners, tricks, declarer, score), and every action an
independent reading of the rules calls illegal is refused without changing anything.

The auction's legality is written here from RULES 9's wording; the cards' legality,
the tricks, the contract and declarer come from endplay (DDS's ``legal_moves``,
``Deal.play``, ``Contract.from_auction``); the score is checked both against
``scoring.contract_score`` and endplay's ``Contract.score``.
"""

from __future__ import annotations

import random

from endplay.types import Bid, Player, Vul
from endplay.types import Card as EndplayCard
from endplay.types import Contract as EndplayContract
from endplay.types import Deal as EndplayDeal
from endplay.types import Denom as EndplayDenom
from hypothesis import given, settings
from hypothesis import strategies as st

import scoring
from play import BoardState, Call, Card, Claim, ClaimResponse, IllegalAction
from tests import examples

SEATS = "NESW"
STRAIN_ORDER = ("C", "D", "H", "S", "NT")
ALL_BIDS = [f"{level}{strain}" for level in range(1, 8) for strain in STRAIN_ORDER]
ALL_CALLS = ["P", "X", "XX", *ALL_BIDS]
ALL_CARDS = [suit + rank for suit in "SHDC" for rank in "AKQJT98765432"]
VULNERABILITIES = ("None", "NS", "EW", "Both")
PENALTY_DOUBLING = {1: 0, 2: 1, 4: 2}  # endplay's Penalty values

# Boards are played by a seeded random.Random: many cheap choices per board, and a
# failing seed is reported as is (shrinking a seed means nothing, so nothing is lost).
seeds = st.integers(min_value=0, max_value=2**64 - 1)


# --- Independent references ---------------------------------------------------------


def seat_after(seat: str, steps: int) -> str:
    return SEATS[(SEATS.index(seat) + steps) % 4]


def same_side(a: str, b: str) -> bool:
    return (SEATS.index(a) - SEATS.index(b)) % 2 == 0


def spec_legal_calls(dealer: str, calls: list[str]) -> set[str]:
    """RULES 9, word for word: pass; a higher bid; double only of the opponents' last bid
    not yet doubled; redouble only of one's own side's bid doubled by the opponents."""
    caller = seat_after(dealer, len(calls))
    bids = [i for i, call in enumerate(calls) if call[0].isdigit()]
    if not bids:
        return {"P", *ALL_BIDS}
    last = calls[bids[-1]]
    bidder = seat_after(dealer, bids[-1])
    rank = (int(last[0]), STRAIN_ORDER.index(last[1:]))
    legal = {"P"} | {b for b in ALL_BIDS if (int(b[0]), STRAIN_ORDER.index(b[1:])) > rank}
    since = [call for call in calls[bids[-1] + 1 :] if call != "P"]
    if not same_side(caller, bidder) and not since:
        legal.add("X")
    if same_side(caller, bidder) and since == ["X"]:
        legal.add("XX")
    return legal


def spec_auction_over(calls: list[str]) -> bool:
    return len(calls) >= 4 and calls[-3:] == ["P", "P", "P"]


def card_text(card: EndplayCard) -> str:
    return "SHDC"[card.suit] + card.rank.abbr


def legal_cards(deal: EndplayDeal, trick: list[EndplayCard], *, dds: bool) -> set[str]:
    """The cards endplay's hand to play may play: from DDS's ``legal_moves`` (slow, so
    only now and then) or from the hand's holding in the suit led. ``trick`` is
    ``deal.curtrick``, which endplay builds anew each time it is read."""
    if dds:
        return {card_text(card) for card in deal.legal_moves()}
    hand = deal[deal.first.next(len(trick))]  # deal.curhand, without reading the trick again
    if trick and len(hand[trick[0].suit]):
        led = trick[0].suit
        return {"SHDC"[led] + rank.abbr for rank in hand[led]}
    return {card_text(card) for card in hand}


def random_pbn(rng: random.Random) -> str:
    deck = list(ALL_CARDS)
    rng.shuffle(deck)
    hands = []
    for seat in range(4):
        hand = deck[seat * 13 : (seat + 1) * 13]
        hands.append(
            ".".join("".join(c[1] for c in ALL_CARDS if c in hand and c[0] == s) for s in "SHDC")
        )
    first = rng.choice(SEATS)  # PBN deals may start with any seat
    start = SEATS.index(first)
    return first + ":" + " ".join(hands[(start + i) % 4] for i in range(4))


def pbn_hands(pbn: str) -> dict[str, set[str]]:
    first, rest = pbn.split(":")
    hands = {}
    for offset, hand in enumerate(rest.split()):
        seat = seat_after(first, offset)
        hands[seat] = {
            s + r for s, ranks in zip("SHDC", hand.split("."), strict=True) for r in ranks
        }
    return hands


# --- Playing random boards ----------------------------------------------------------


def snapshot(state: BoardState) -> tuple:
    return (
        len(state.actions),
        [len(hand) for hand in state.hands],
        state.turn,
        state.pending_claim,
        len(state.claim_accepted_by),
    )


def refused_unchanged(state: BoardState, action) -> None:
    """The action is refused, and the state is as it was."""
    before = snapshot(state)
    try:
        state.apply(action)
    except IllegalAction:
        assert snapshot(state) == before
        assert not state.allows(action)
        return
    raise AssertionError(f"{action!r} was accepted at {state.actions!r}")


def outcome_agrees(state: BoardState, action, legal: bool) -> BoardState:
    """Apply ``action`` if the reference says it is legal; else check it is refused."""
    if not legal:
        refused_unchanged(state, action)
        return state
    after = state.apply(action)
    assert after.actions == (*state.actions, action)
    return after


def bid_the_auction(rng: random.Random, state: BoardState) -> tuple[BoardState, list[str]]:
    calls: list[str] = []
    while not spec_auction_over(calls):
        assert not state.is_auction_over
        legal = spec_legal_calls(state.dealer, calls)
        assert set(state.legal_calls()) == legal
        caller = seat_after(state.dealer, len(calls))
        assert state.turn == state.actor == caller

        # A random call from a random seat: accepted exactly when the reference allows it.
        seat, call = rng.choice(SEATS), rng.choice(ALL_CALLS)
        if seat != caller or call not in legal:
            refused_unchanged(state, Call(seat, call))

        if {"X", "XX"} & legal and rng.random() < 0.15:
            call = rng.choice(sorted({"X", "XX"} & legal))
        elif rng.random() < min(0.9, 0.4 + 0.04 * len(calls)):
            call = "P"
        else:
            higher = [bid for bid in ALL_BIDS if bid in legal]
            call = rng.choice(higher[:8]) if higher else "P"
        alert = "transfer" if rng.random() < 0.05 else None
        state = state.apply(Call(caller, call, alert))
        calls.append(call)
    assert state.is_auction_over and state.legal_calls() == ()
    return state, calls


def check_contract(state: BoardState, calls: list[str]) -> EndplayContract:
    """Contract and declarer against endplay's ``Contract.from_auction``."""
    theirs = EndplayContract.from_auction(Player.find(state.dealer), [Bid(c) for c in calls])
    if theirs.is_passout():
        assert state.passed_out and state.contract is None and state.declarer is None
        return theirs
    assert not state.passed_out
    assert state.contract.level == theirs.level
    assert state.contract.strain == ("S", "H", "D", "C", "NT")[theirs.denom]
    assert state.contract.doubling == PENALTY_DOUBLING[theirs.penalty]
    assert state.declarer == theirs.declarer.abbr
    assert state.dummy == theirs.declarer.partner.abbr
    return theirs


def answer_a_claim(rng: random.Random, state: BoardState, claim: Claim) -> BoardState:
    """Both opponents answer in a random order; the first rejection ends the claim."""
    opponents = [seat for seat in SEATS if not same_side(seat, claim.seat)]
    rng.shuffle(opponents)
    refused_unchanged(
        state, ClaimResponse(rng.choice([claim.seat, seat_after(claim.seat, 2)]), True)
    )
    refused_unchanged(state, Card(state.actor, rng.choice(ALL_CARDS)))
    refused_unchanged(state, Claim(rng.choice(opponents), 0))
    for seat in opponents:
        accept = rng.random() < 0.75
        state = state.apply(ClaimResponse(seat, accept))
        if not accept:
            assert state.pending_claim is None and not state.is_over
            return state
        if seat == opponents[0]:
            refused_unchanged(state, ClaimResponse(seat, True))
            assert state.claim_answers_awaited == {opponents[1]}
    assert state.is_over and state.accepted_claim == claim
    return state


def play_the_cards(rng: random.Random, state: BoardState, pbn: str) -> tuple[BoardState, int]:
    """Play random legal cards, with now and then a claim, in step with endplay's deal.
    Answers the board and the tricks endplay counts for declarer's side in play."""
    deal = EndplayDeal.from_pbn(pbn)
    strain = state.contract.strain
    deal.trump = EndplayDenom.nt if strain == "NT" else EndplayDenom.find(strain)
    deal.first = Player.find(state.declarer).lho
    declarer_side_won = 0
    claim_rate = rng.choice([0.0, 0.02, 0.1])
    while not state.is_over:
        trick = deal.curtrick
        player = deal.first.next(len(trick))  # deal.curplayer
        hand = player.abbr
        assert state.turn == hand
        actor = state.declarer if hand == state.dummy else hand
        assert state.actor == actor
        legal = legal_cards(deal, trick, dds=rng.random() < 0.2)
        assert set(state.legal_cards()) == legal
        if not trick:
            assert set(state.hand_of(hand)) == {card_text(card) for card in deal[player]}

        seat, card = rng.choice(SEATS), rng.choice([*ALL_CARDS, *state.hand_of(hand)])
        outcome_agrees(state, Card(seat, card), seat == actor and card in legal)
        refused_unchanged(state, Call(rng.choice(SEATS), rng.choice(ALL_CALLS)))
        refused_unchanged(state, ClaimResponse(rng.choice(SEATS), rng.random() < 0.5))

        if rng.random() < claim_rate:
            remaining = 13 - len(state.tricks)
            claim = Claim(rng.choice(SEATS), rng.randint(0, remaining + 1))
            claim_ok = (
                claim.seat != state.dummy
                and claim.tricks <= remaining
                and state.opening_lead is not None
            )
            after = outcome_agrees(state, claim, claim_ok)
            if claim_ok:
                state = answer_a_claim(rng, after, claim)
                continue

        card = rng.choice(sorted(legal))
        state = state.apply(Card(actor, card))
        deal.play(EndplayCard(card))
        if not deal.curtrick:  # endplay completed the trick: its winner is on lead
            trick = state.tricks[-1]
            assert trick.winner == deal.first.abbr
            assert len(trick.cards) == 4
            declarer_side_won += same_side(trick.winner, state.declarer)
            assert state.dummy_visible
    return state, declarer_side_won


@given(seeds, st.sampled_from(VULNERABILITIES))
@settings(deadline=None, max_examples=examples(1000))
def test_random_boards_agree_with_endplay_and_score_by_scoring(seed, vulnerability):
    rng = random.Random(seed)
    pbn = random_pbn(rng)
    dealer = rng.choice(SEATS)
    state = BoardState.start(pbn, dealer, vulnerability)
    assert {seat: set(state.hand_of(seat)) for seat in SEATS} == pbn_hands(pbn)

    state, calls = bid_the_auction(rng, state)
    theirs = check_contract(state, calls)
    if state.passed_out:
        assert state.is_over and state.result().ns_score == 0
        refused_unchanged(state, Card(rng.choice(SEATS), rng.choice(ALL_CARDS)))
        return
    assert state.turn == Player.find(state.declarer).lho.abbr
    assert not state.dummy_visible

    state, declarer_side_won = play_the_cards(rng, state, pbn)

    played = len(state.tricks)
    claim = state.accepted_claim
    if claim is None:
        assert played == 13
        declarer_tricks = declarer_side_won
    else:
        remaining = 13 - played
        claimer_gets = claim.tricks
        declarer_tricks = declarer_side_won + (
            claimer_gets if same_side(claim.seat, state.declarer) else remaining - claimer_gets
        )
    won = state.tricks_won
    assert won["NS"] + won["EW"] == 13

    result = state.result()
    assert (result.contract, result.declarer, result.tricks) == (
        state.contract,
        state.declarer,
        declarer_tricks,
    )
    assert result.lead == state.opening_lead == state.actions[len(calls)].card
    assert result.ns_score == scoring.contract_score(
        state.contract, state.declarer, declarer_tricks, vulnerability
    )
    theirs.result = declarer_tricks - theirs.level - 6
    declarer_view = theirs.score(Vul.find(vulnerability.lower()))
    assert result.ns_score == (declarer_view if state.declarer in "NS" else -declarer_view)

    # Replaying the stored actions rebuilds the same board; nothing more is accepted.
    assert BoardState.replay(pbn, dealer, vulnerability, state.actions) == state
    refused_unchanged(state, Card(rng.choice(SEATS), rng.choice(ALL_CARDS)))
    refused_unchanged(state, Claim(rng.choice(SEATS), 0))


@given(seeds)
@settings(deadline=None, max_examples=examples(300))
def test_any_action_is_either_recorded_or_refused_without_change(seed):
    """Any action at all, from any seat, at any moment of a board: either the new state
    has it as its last action, or it is refused and the board is unchanged."""
    rng = random.Random(seed)
    pbn, dealer = random_pbn(rng), rng.choice(SEATS)
    state = BoardState.start(pbn, dealer, "None")
    for _ in range(400):
        if state.is_over:
            break
        kind = rng.choices(range(4), weights=(35, 50, 5, 10))[0]
        seat = state.actor if rng.random() < 0.5 else rng.choice(SEATS)
        if kind == 0:
            action = Call(
                seat,
                rng.choice(state.legal_calls() or ALL_CALLS)
                if rng.random() < 0.7
                else rng.choice(ALL_CALLS),
            )
        elif kind == 1:
            action = Card(
                seat,
                rng.choice(state.legal_cards() or ALL_CARDS)
                if rng.random() < 0.7
                else rng.choice(ALL_CARDS),
            )
        elif kind == 2:
            action = Claim(seat, rng.randint(0, 14))
        else:
            action = ClaimResponse(seat, rng.random() < 0.6)
        before = snapshot(state)
        try:
            after = state.apply(action)
        except IllegalAction as refusal:
            assert snapshot(state) == before
            assert refusal.message  # a template the application can translate
            continue
        assert after.actions == (*state.actions, action)
        state = after
    assert BoardState.replay(pbn, dealer, "None", state.actions) == state
