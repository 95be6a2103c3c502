"""The protocol's lines, read case-insensitively and written as the programs parse them
(the shapes from the Blue Chip protocol document, version 18)."""

from __future__ import annotations

import pytest

from bluechip import messages as say
from bluechip.messages import (
    Connect,
    MadeCall,
    PlayedCard,
    Ready,
    ReadyForCall,
    ReadyForCard,
    Unknown,
    read,
)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (
            'Connecting "tkt-abc" as North using protocol version 18\r\n',
            Connect("tkt-abc", "N", 18),
        ),
        ('CONNECTING "WBridge5" AS ANYPL USING PROTOCOL VERSION 18', Connect("WBridge5", None, 18)),
        ('Connecting "x" as West using protocol version 18 GIB 1.0 a.conf', Connect("x", "W", 18)),
        ("North ready for teams", Ready("N", "teams")),
        ("WEST ready to start", Ready("W", "start")),
        ("east ready for deal", Ready("E", "deal")),
        ("South ready for cards", Ready("S", "cards")),
        ("South ready for dummy", Ready("S", "dummy")),
        ("WEST ready for  NORTH's bid", ReadyForCall("W", "N")),
        ("North ready for East's card to trick 12", ReadyForCard("N", "E", 12)),
        ("North ready for dummy's card to trick 1", ReadyForCard("N", "dummy", 1)),
        ("WEST PASSES", MadeCall("W", "P", "")),
        ("East doubles", MadeCall("E", "X", "")),
        ("East redoubles.", MadeCall("E", "XX", "")),
        ("north bids 1nt", MadeCall("N", "1NT", "")),
        ("North bids 3N", MadeCall("N", "3NT", "")),
        ("South bids 2C Alert. strong, 22+", MadeCall("S", "2C", "strong, 22+")),
        ("South bids 2C Infos. natural", MadeCall("S", "2C", "")),
        ("North plays TC", PlayedCard("N", "CT")),
        ("north plays 10c", PlayedCard("N", "CT")),
        ("WEST plays as", PlayedCard("W", "SA")),
        ("North plays AS. Forced", PlayedCard("N", "SA")),
        ("Hello there", Unknown("Hello there")),
        ("North bids 8C", Unknown("North bids 8C")),
    ],
)
def test_a_program_s_lines_are_read_whatever_their_case(line, message):
    assert read(line) == message


def test_the_table_manager_s_lines():
    assert say.seated("W", "tkt-1") == 'West ("tkt-1") seated'
    assert say.teams("Ada & Bo", 'Cy "C"') == 'Teams : N/S : "Ada & Bo" E/W : "Cy \'C\'"'
    assert say.teams("", "张三") == 'Teams : N/S : "N/S" E/W : "ZhangSan"'
    # Typographic quotes spelt in ASCII are still not the protocol's delimiter.
    assert say.seated("N", "“Zoë” 李\x07") == "North (\"'Zoe' Li?\") seated"
    assert say.board(7, "S", "Both") == "Board number 7. Dealer South. Both vulnerable."
    assert say.board(1, "N", "None") == "Board number 1. Dealer North. Neither vulnerable."
    assert say.board(2, "E", "NS") == "Board number 2. Dealer East. N/S vulnerable."
    hand = ["SA", "SK", "S5", "S4", "H7", "H3", "DJ", "DT", "D9", "D8", "D5", "D4", "C3"]
    assert say.cards("N", hand) == "North's cards : S A K 5 4. H 7 3. D J T 9 8 5 4. C 3."
    assert say.dummy_cards(["CA"]) == "Dummy's cards : S -. H -. D -. C A."
    assert say.call("E", "1NT", "15-17") == "East bids 1NT Alert. 15-17"
    assert say.call("E", "P") == "East passes"
    assert say.call("W", "XX") == "West redoubles"
    assert say.card("S", "CT") == "South plays TC"
    assert say.to_lead("W") == "West to lead"
    assert say.to_lead(None) == "Dummy to lead"
    assert say.timing(75, 683, 78, 3723) == (
        "Timing - N/S : this board  [1:15],  total  [0:11:23].  "
        "E/W : this board  [1:18],  total  [1:02:03]."
    )
