"""The Blue Chip Bridge table-manager protocol (version 18), SPEC 14: pure Python, no
Django. The gateway (`tournaments.bluechip`) does the input and output and the table's
part; this package is the protocol.

Lines (`messages`)
    read(line) -> Connect | Ready | ReadyForCall | ReadyForCard | MadeCall | PlayedCard |
        Unknown                     case-insensitive; our calls ("1NT", "P") and cards ("CT")
    seated, teams, START_OF_BOARD, board, cards, dummy_cards, call, card, to_lead,
    timing, END_OF_SESSION          the table manager's lines (printable ASCII)
One seat's conversation (`conversation`)
    Conversation(seat=, teams=, timing=)   hear(message) -> (lines, move or None);
        begin(record) "Start of board"; update(record) -> lines; abort(); end();
        awaits_program() (its think time runs); in_step
    Record: the board as the seat may see it (its hand, calls with the alerts it may
        read, cards, dummy's hand once shown, whose turn, over, passed out)
"""

from . import messages
from .conversation import Conversation, Record
from .messages import (
    Connect,
    MadeCall,
    PlayedCard,
    Ready,
    ReadyForCall,
    ReadyForCard,
    Unknown,
    read,
)

__all__ = [
    "Connect", "Conversation", "MadeCall", "PlayedCard", "Ready", "ReadyForCall",
    "ReadyForCard", "Record", "Unknown", "messages", "read",
]  # fmt: skip
