"""One seat's conversation, driven by a board played through `play`: every request
answered in order, the program's own moves never told back, the lead and the Timing
line said unasked, a board aborted by the next "Start of board"."""

from __future__ import annotations

import play
from bluechip import Conversation, Record, read
from bluechip.conversation import ABORTED, BETWEEN, PARTNER

PBN = "N:AKQJ.AKQ.AKQ.AKQ T987.JT9.JT9.JT9 6543.876.876.876 2.5432.5432.5432"
DEAL = dict(zip("NESW", play.parse_deal(PBN), strict=True))


def record(state: play.BoardState, seat: str, number: int = 1) -> Record:
    declarer = state.declarer
    dummy = PARTNER[declarer] if declarer else None
    shown = dummy is not None and state.dummy_visible and seat != dummy
    cards = tuple(zip(_hands_played(state), (c.card for c in _cards(state)), strict=True))
    return Record(
        number=number,
        dealer=state.dealer,
        vulnerability="None",
        hand=tuple(DEAL[seat]),
        calls=tuple((c.seat, c.call, c.alert or "") for c in _calls(state)),
        cards=cards,
        declarer=declarer,
        dummy=tuple(DEAL[dummy]) if shown else None,
        turn=None if state.is_over else state.turn,
        over=state.is_over,
        passed_out=state.passed_out,
    )


def _calls(state):
    return [a for a in state.actions if isinstance(a, play.Call)]


def _cards(state):
    return [a for a in state.actions if isinstance(a, play.Card)]


def _hands_played(state):
    replay = play.BoardState.start(DEAL, state.dealer, "None")
    hands = []
    for action in state.actions:
        if isinstance(action, play.Card):
            hands.append(replay.turn)
        replay = replay.apply(action)
    return hands


def converse(conversation, line):
    lines, move = conversation.hear(read(line))
    return lines, move


def test_north_declares_a_board_from_teams_to_timing():
    talk = Conversation(seat="N", teams=("Ns", "Ew"), timing=lambda: "Timing - x")
    assert converse(talk, "North ready for teams") == (['Teams : N/S : "Ns" E/W : "Ew"'], None)
    assert converse(talk, "North ready to start") == ([], None)
    state = play.BoardState.start(DEAL, "N", "None")
    assert talk.begin(record(state, "N")) == ["Start of board"]
    assert converse(talk, "North ready for deal")[0] == [
        "Board number 1. Dealer North. Neither vulnerable."
    ]
    assert converse(talk, "North ready for cards")[0] == [
        "North's cards : S A K Q J. H A K Q. D A K Q. C A K Q."
    ]
    assert talk.awaits_program()
    lines, move = converse(talk, "NORTH BIDS 7NT")
    assert lines == [] and move is not None and move.call == "7NT"
    state = state.apply(play.Call("N", "7NT"))
    assert talk.update(record(state, "N")) == []
    assert not talk.awaits_program()
    # Asked before the table has East's call: answered once it has.
    assert converse(talk, "North ready for East's bid") == ([], None)
    for seat in "ESW":
        state = state.apply(play.Call(seat, "P"))
        lines = talk.update(record(state, "N"))
        if seat == "E":
            assert lines == ["East passes"]
        else:
            assert lines == []
            assert converse(talk, f"North ready for {dict(S='South', W='West')[seat]}'s bid")[
                0
            ] == [f"{dict(S='South', W='West')[seat]} passes"]
    # East leads: North asks for the lead, then for dummy.
    assert converse(talk, "North ready for East's card to trick 1") == ([], None)
    state = state.apply(play.Card("E", "ST"))
    assert talk.update(record(state, "N")) == ["East plays TS"]
    assert converse(talk, "North ready for dummy")[0] == [
        "Dummy's cards : S 6 5 4 3. H 8 7 6. D 8 7 6. C 8 7 6."
    ]
    assert talk.awaits_program()  # dummy (South) to play: declarer's turn
    lines, move = converse(talk, "South plays 3S")
    assert move is not None and move.seat == "S" and move.card == "S3"
    # The whole board on: North wins every trick and leads; the last line is Timing.
    said: list[str] = []
    while not state.is_over:
        seat = state.turn
        card = state.legal_cards()[0]
        actor = state.actor
        state = state.apply(play.Card(actor, card))
        said += talk.update(record(state, "N"))
        if seat in ("E", "W") and not state.is_over:
            pass
        # North asks for the defenders' cards as they come.
        if not state.is_over and state.turn in ("E", "W"):
            name = {"E": "East", "W": "West"}[state.turn]
            trick = len(_cards(state)) // 4 + 1
            said += converse(talk, f"North ready for {name}'s card to trick {trick}")[0]
    assert said.count("North to lead") >= 11
    assert said[-1] == "Timing - x"
    assert talk.phase == BETWEEN


def test_a_passed_out_board_ends_with_timing_and_a_claim_aborts_the_board():
    talk = Conversation(seat="E", teams=("a", "b"), timing=lambda: "Timing - y")
    converse(talk, "East ready for teams")
    state = play.BoardState.start(DEAL, "N", "None")
    talk.begin(record(state, "E"))
    converse(talk, "East ready for deal")
    converse(talk, "East ready for cards")
    assert converse(talk, "East ready for North's bid") == ([], None)
    state = state.apply(play.Call("N", "P"))
    assert talk.update(record(state, "E")) == ["North passes"]
    _lines, move = converse(talk, "East passes")
    assert move is not None
    state = state.apply(play.Call("E", "P"))
    assert talk.update(record(state, "E")) == []
    converse(talk, "East ready for South's bid")
    state = state.apply(play.Call("S", "P"))
    assert talk.update(record(state, "E")) == ["South passes"]
    converse(talk, "East ready for West's bid")
    state = state.apply(play.Call("W", "P"))
    assert talk.update(record(state, "E")) == ["West passes", "Timing - y"]
    # A stale line after the board is ignored; the next board starts over.
    assert converse(talk, "East passes") == ([], None)
    assert talk.begin(record(play.BoardState.start(DEAL, "E", "None"), "E", 2)) == [
        "Start of board"
    ]
    assert converse(talk, "East ready for North's bid") == ([], None)  # stale: ignored
    assert converse(talk, "East ready for deal")[0] == [
        "Board number 2. Dealer East. Neither vulnerable."
    ]
    talk.abort()
    assert talk.phase == ABORTED
    assert talk.end() == ["End of session"]
