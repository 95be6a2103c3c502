"""Property tests: random matches of legal boards (a random deal, an auction of legal calls,
legal play to the end or to a claim, alerts, explanations, commentary) written as LIN and
read back are the same match and replay to the same results; a mutation (an illegal card,
an illegal call, a wrong `rs`, an impossible `mc`) is refused with the right board and room.

Boards are made by a seeded ``random.Random`` (as in tests/play): a failing seed is reported
as is. The results are checked against tests/vugraph/oracle.py, which shares no code with
`scoring` or `teams`."""

from __future__ import annotations

import dataclasses
import random
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from play import BIDS, DECK, BoardState, Call, Card, sort_hand
from scoring import SEATS, side_of
from tests import examples
from tests.vugraph.oracle import imps_for, ns_points
from vugraph import (
    ROOMS,
    STRICT,
    Board,
    LinCall,
    LinError,
    Note,
    Room,
    VugraphMatch,
    read_lin,
    read_result,
    replay,
    replay_match,
    result_text,
    write_lin,
)

seeds = st.integers(min_value=0, max_value=2**64 - 1)
ALL_CALLS = ("P", "X", "XX", *BIDS)
VULNERABILITIES = ("None", "NS", "EW", "Both")
TEXTS = ("", "weak", "5+ ♠, 10-12", "Lucenò 7°", "transfer to !H", "natural?", "中文 解释")
NAMES = ("Versace", "Lauria", "", "Zhuang ZJ", "O'Rourke", "Müller", "BAKKEREN.")


def random_room(rng: random.Random, name: str, hands, dealer: str, vulnerability: str) -> Room:
    """A legal room: calls until the auction ends, then cards to the end, or some cards
    and an `mc`; alerts, explanations and notes here and there."""
    state = BoardState.start(dict(zip(SEATS, hands, strict=True)), dealer, vulnerability)
    calls: list[LinCall] = []
    while not state.is_auction_over:
        legal = state.legal_calls()
        call = "P" if rng.random() < 0.6 or len(legal) == 1 else rng.choice(legal[1:8])
        explanation = rng.choice(TEXTS) if rng.random() < 0.15 else None
        calls.append(LinCall(call, rng.random() < 0.1, explanation))
        state = state.apply(Call(state.turn, call))
    cards: list[str] = []
    claim = None
    if state.passed_out:
        claim = 0 if rng.random() < 0.3 else None
    else:
        stop = 52 if rng.random() < 0.4 else rng.randint(1, 52)
        while not state.is_over and len(cards) < stop:
            card = rng.choice(state.legal_cards())
            state = state.apply(Card(state.actor, card))
            cards.append(card)
        won = state.tricks_won[side_of(state.declarer)]
        if not state.is_over:
            claim = rng.randint(won, won + 13 - len(state.tricks))
        elif rng.random() < 0.2:
            claim = won  # a redundant mc after the last trick, as real files have
    events = len(calls) + len(cards)
    notes = tuple(
        sorted(
            (Note(rng.randint(0, events), rng.choice(TEXTS[1:])) for _ in range(rng.randint(0, 2))),
            key=lambda note: note.at,
        )
    )
    return Room(name, hands, dealer, vulnerability, tuple(calls), tuple(cards), claim, notes)


def random_match(seed: int) -> VugraphMatch:
    rng = random.Random(seed)
    first = rng.randint(1, 40)
    boards = []
    for number in range(first, first + rng.randint(1, 4)):
        deck = sorted(DECK)
        rng.shuffle(deck)
        hands = tuple(tuple(sort_hand(deck[13 * i : 13 * i + 13])) for i in range(4))
        dealer, vulnerability = rng.choice(SEATS), rng.choice(VULNERABILITIES)
        rooms = [random_room(rng, name, hands, dealer, vulnerability) for name in ROOMS]
        boards.append(Board(number, rooms[0], rooms[1]))
    results = []
    for board in boards:
        for name in ROOMS:
            room = board.room(name)
            assert room is not None
            outcome = replay(room, board.number).result()
            entry = result_text(outcome.contract, outcome.declarer, outcome.tricks)
            results.append(None if rng.random() < 0.05 else entry)
    return VugraphMatch(
        title=rng.choice(["Bermuda Bowl, Final", "Olympiad", "中国桥牌 JPD Cup 2006"]),
        segment=rng.choice(["Round 13/17", "Segment 1", "7° Incontro"]),
        scoring="I",
        first_board=first,
        last_board=boards[-1].number,
        teams=(rng.choice(["Italy", "Lucenò"]), rng.choice(["USA", "Zhongjian"])),
        carry_over=(Decimal(rng.randint(0, 150)), Decimal(rng.choice(["0", "7.5", "44"]))),
        players=tuple(rng.choice(NAMES) for _ in range(8)),
        results=tuple(results),
        boards=tuple(boards),
        notes=tuple(rng.choice(TEXTS[1:]) for _ in range(rng.randint(0, 2))),
    )


@settings(deadline=None, max_examples=examples(200))
@given(seeds)
def test_written_then_read_is_the_same_match_and_the_same_results(seed):
    match = random_match(seed)
    text = write_lin(match)
    back = read_lin(text)
    assert back == match
    assert write_lin(back) == text
    outcome = replay_match(match)
    assert replay_match(back) == dataclasses.replace(outcome, match=back)
    # every generated room is legal and agrees with the rs written for it
    assert outcome.problems == ()
    for board in outcome.boards:
        for name in ROOMS:
            room = board.room(name)
            lin_room = match.board(board.number).room(name)
            result = room.result
            assert result is not None
            expected = ns_points(
                result.contract, result.declarer, result.tricks, lin_room.vulnerability
            )
            assert result.ns_score == expected
            assert room.agrees is (None if room.claimed is None else True)
            if lin_room.claim is not None and result.contract is not None:
                assert result.tricks == lin_room.claim  # mc: the declaring side's total
        difference = board.open.result.ns_score - board.closed.result.ns_score
        assert board.imps == imps_for(difference)
    won = [b.imps for b in outcome.boards]
    assert outcome.score == (
        match.carry_over[0] + sum(i for i in won if i > 0),
        match.carry_over[1] - sum(i for i in won if i < 0),
    )


def _mutated(match: VugraphMatch, number: int, name: str, **changes) -> VugraphMatch:
    boards = []
    for board in match.boards:
        if board.number == number:
            room = board.room(name)
            assert room is not None
            room = dataclasses.replace(room, **changes)
            board = dataclasses.replace(board, **{name: room})
        boards.append(board)
    return dataclasses.replace(match, boards=tuple(boards))


def _refused_where(match: VugraphMatch, number: int, name: str, kind: str) -> LinError:
    """Read back from LIN, the mutated room is refused (and only it); strict raises it."""
    match = read_lin(write_lin(match))
    outcome = replay_match(match)
    assert [(p.board, p.room, p.kind) for p in outcome.problems] == [(number, name, kind)]
    board = next(b for b in outcome.boards if b.number == number)
    assert board.imps is None
    with pytest.raises(LinError) as refused:
        replay_match(match, policy=STRICT)
    assert refused.value == outcome.problems[0]
    return refused.value


def _pick_room(rng: random.Random, match: VugraphMatch, test) -> tuple[Board, Room] | None:
    rooms = [(b, r) for b in match.boards for r in (b.open, b.closed) if r and test(r)]
    return rng.choice(rooms) if rooms else None


@settings(deadline=None, max_examples=examples(150))
@given(seeds)
def test_an_illegal_card_is_refused_at_its_board_room_and_trick(seed):
    match, rng = random_match(seed), random.Random(seed + 1)
    picked = _pick_room(rng, match, lambda room: room.cards)
    if picked is None:
        return
    board, room = picked
    k = rng.randrange(len(room.cards))
    before = _replay_upto(room, len(room.calls), k)
    illegal = rng.choice(sorted(DECK - set(before.legal_cards())))
    cards = (*room.cards[:k], illegal, *room.cards[k + 1 :])
    mutated = _mutated(match, board.number, room.name, cards=cards)
    problem = _refused_where(mutated, board.number, room.name, "illegal_card")
    assert (problem.details["trick"], problem.details["card"]) == (k // 4 + 1, illegal)
    assert f"trick {k // 4 + 1}, card {k % 4 + 1}: " in problem.message


def _replay_upto(room: Room, calls: int, cards: int = 0) -> BoardState:
    """The room's board after its first ``calls`` calls and ``cards`` cards (a reference
    replay written here: whoever must act plays each card)."""
    hands = dict(zip(SEATS, room.hands, strict=True))
    state = BoardState.start(hands, room.dealer, room.vulnerability)
    for lin_call in room.calls[:calls]:
        state = state.apply(Call(state.turn, lin_call.call))
    for card in room.cards[:cards]:
        state = state.apply(Card(state.actor, card))
    return state


@settings(deadline=None, max_examples=examples(150))
@given(seeds)
def test_an_illegal_call_is_refused_at_its_board_room_and_place(seed):
    match, rng = random_match(seed), random.Random(seed + 2)
    board, room = _pick_room(rng, match, lambda room: room.calls)
    k = rng.randrange(len(room.calls))
    state = _replay_upto(room, k)
    illegal = rng.choice(sorted(set(ALL_CALLS) - set(state.legal_calls())))
    calls = (*room.calls[:k], LinCall(illegal), *room.calls[k + 1 :])
    problem = _refused_where(
        _mutated(match, board.number, room.name, calls=calls),
        board.number,
        room.name,
        "illegal_call",
    )
    assert problem.details["call"] == k + 1 and problem.details["seat"] == state.turn


@settings(deadline=None, max_examples=examples(150))
@given(seeds)
def test_a_wrong_rs_is_refused_at_its_board_and_room(seed):
    match, rng = random_match(seed), random.Random(seed + 3)
    index = rng.randrange(len(match.results))
    number, name = match.first_board + index // 2, ROOMS[index % 2]
    room = match.board(number).room(name)
    result = replay(room, number).result()
    if result.contract is None:
        wrong = read_result("1NN=")  # a passed-out board claimed as 1NT made
        assert wrong is not None
    else:
        tricks = result.tricks + (1 if result.tricks < 13 else -1)
        if rng.random() < 0.5:
            wrong = result_text(result.contract, result.declarer, tricks)
        else:  # the right tricks, the wrong declarer
            other = next(s for s in SEATS if s != result.declarer)
            wrong = result_text(result.contract, other, result.tricks)
    results = list(match.results)
    results[index] = wrong
    problem = _refused_where(
        dataclasses.replace(match, results=tuple(results)), number, name, "disagrees"
    )
    assert problem.details["claimed"] == wrong.text


@settings(deadline=None, max_examples=examples(100))
@given(seeds)
def test_an_impossible_claim_is_refused(seed):
    match, rng = random_match(seed), random.Random(seed + 4)
    picked = _pick_room(
        rng, match, lambda room: room.claim is not None and room.cards and len(room.cards) < 52
    )
    if picked is None:
        return
    board, room = picked
    state = _replay_upto(room, len(room.calls), len(room.cards))
    won = state.tricks_won[side_of(state.declarer)]
    claim = rng.choice([won + 14 - len(state.tricks), *([won - 1] if won else [])])
    mutated = _mutated(match, board.number, room.name, claim=claim)
    problem = _refused_where(mutated, board.number, room.name, "illegal_claim")
    assert problem.details["claim"] == claim
