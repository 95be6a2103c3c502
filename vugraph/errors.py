"""Why a vugraph LIN file, or one room of one of its boards, is refused: a kind code, the
place (board, room, and where in the auction or play), and an English message.

Like `movements.MovementError`, the message is a plain English sentence with the place in
it; the same facts are kept apart in ``details`` for the API and the console.
"""

from __future__ import annotations

from typing import Any

# The kinds, roughly in the order a room is checked.
KINDS: tuple[str, ...] = (
    "shape",  # the file itself: no vg line, a board number that is not a number, …
    "missing_room",  # the board is in the file in one room only
    "stub",  # a board listed with no deal (an empty placeholder, `qx|o17|pg||sv||`)
    "deal",  # a deal that is not four hands of 13 different cards, or no dealer
    "deal_differs",  # the closed room's deal, dealer or vulnerability is not the open room's
    "illegal_call",  # a call the rules of play refuse (unknown, insufficient, out of turn)
    "illegal_card",  # a card the rules of play refuse (wrong hand, revoke, not held)
    "illegal_claim",  # an `mc` that cannot be: more tricks than remain, fewer than won
    "unfinished",  # the auction or play stops before the board is over, with no claim
    "claim_contradicts",  # an `mc` after the board is over that is not what the play gave
    "disagrees",  # the `rs` result is not the result the auction and play give
)


class LinError(ValueError):
    """A LIN file that cannot be read, or a room of it that cannot be accepted.

    ``kind`` is one of `KINDS`; ``board`` and ``room`` say where (None for the file as a
    whole); ``details`` the rest of the place (call, trick, card, …)."""

    def __init__(
        self,
        kind: str,
        message: str,
        *,
        board: int | None = None,
        room: str | None = None,
        **details: Any,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.board = board
        self.room = room
        self.details: dict[str, Any] = details

    def __repr__(self) -> str:
        return (
            f"LinError({self.kind!r}, {self.message!r}, board={self.board!r}, "
            f"room={self.room!r}, **{self.details!r})"
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LinError):
            return NotImplemented
        return (self.kind, self.message, self.board, self.room, self.details) == (
            other.kind,
            other.message,
            other.board,
            other.room,
            other.details,
        )

    def __hash__(self) -> int:
        return hash((self.kind, self.message, self.board, self.room))

    def as_dict(self) -> dict[str, Any]:
        """What the API returns for a refused file or room."""
        return {
            "kind": self.kind,
            "message": self.message,
            "board": self.board,
            "room": self.room,
            "details": dict(self.details),
        }
