"""The bridge vocabulary (seats, sides, suits, ranks) and a board's dealer and
vulnerability by its number (RULES 2).

Board numbers run on across rounds, and the standard cycle of 16 boards repeats, so a
board's dealer and vulnerability depend only on its number.
"""

from numbers import Integral

from .errors import ScoringError

SEATS = ("N", "E", "S", "W")  # clockwise
SIDES = ("NS", "EW")
SUITS = ("S", "H", "D", "C")  # PBN order within a hand, highest first
RANKS = "AKQJT98765432"  # highest first
VULNERABILITIES = ("None", "NS", "EW", "Both")


def side_of(seat: str) -> str:
    """The side a seat ("N", "E", "S", "W") belongs to: "NS" or "EW"."""
    return "NS" if seat in ("N", "S") else "EW"


def seat_offset(seat: str, steps: int) -> str:
    """The seat ``steps`` places clockwise from ``seat`` (1 = left-hand opponent)."""
    return SEATS[(SEATS.index(seat) + steps) % 4]


def partner_of(seat: str) -> str:
    return seat_offset(seat, 2)


# Index i is board ((n - 1) mod 16) + 1 == i + 1: the standard duplicate cycle.
_VULNERABILITY_CYCLE = (
    "None", "NS", "EW", "Both",
    "NS", "EW", "Both", "None",
    "EW", "Both", "None", "NS",
    "Both", "None", "NS", "EW",
)  # fmt: skip

_VULNERABILITY_BY_KEY = {v.upper(): v for v in VULNERABILITIES}


def _board_index(board_number: int) -> int:
    if isinstance(board_number, bool) or not isinstance(board_number, Integral):
        raise ScoringError(f"board number must be a whole number, got {board_number!r}")
    if board_number < 1:
        raise ScoringError(f"board number must be 1 or more, got {board_number}")
    return int(board_number) - 1


def board_dealer(board_number: int) -> str:
    """Dealer of board ``board_number``: "N", "E", "S" or "W"."""
    return SEATS[_board_index(board_number) % 4]


def board_vulnerability(board_number: int) -> str:
    """Vulnerability of board ``board_number``: "None", "NS", "EW" or "Both"."""
    return _VULNERABILITY_CYCLE[_board_index(board_number) % 16]


def validate_vulnerability(vulnerability: str) -> str:
    """Canonical spelling of a board vulnerability ("None", "NS", "EW", "Both").

    Case is ignored because the value may come from a form or an import file.
    """
    if isinstance(vulnerability, str):
        canonical = _VULNERABILITY_BY_KEY.get(vulnerability.strip().upper())
        if canonical is not None:
            return canonical
    raise ScoringError(f"vulnerability must be one of None, NS, EW, Both; got {vulnerability!r}")


def side_is_vulnerable(vulnerability: str, seat: str) -> bool:
    """Whether the side of ``seat`` (a canonical "N"/"E"/"S"/"W") is vulnerable."""
    return validate_vulnerability(vulnerability) in ("Both", side_of(seat))
