"""Contracts as players type them, and their score under Law 77 (RULES 5.1)."""

import re
import unicodedata
from dataclasses import dataclass
from numbers import Integral

from .board import side_is_vulnerable, validate_vulnerability
from .errors import ContractError
from .errors import gettext_noop as _  # marked here, translated where shown

STRAINS = ("C", "D", "H", "S", "NT")
_STRAIN_SYMBOLS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠", "NT": "NT"}
_DOUBLING_SUFFIX = ("", "X", "XX")

# Players paste suits from phones and word processors: accept the outline variants too.
_SUIT_TO_LETTER = str.maketrans(
    {"♣": "C", "♧": "C", "♦": "D", "♢": "D", "♥": "H", "♡": "H", "♠": "S", "♤": "S"}
)
_EMOJI_VARIATION = "\ufe0f"  # "♠️" is "♠" followed by this selector
_PASS_WORDS = frozenset({"P", "PASS", "PASSED", "PASSEDOUT", "PASSOUT", "ALLPASS"})

_SEATS = {"N": "N", "E": "E", "S": "S", "W": "W"}
_SEATS.update({"NORTH": "N", "EAST": "E", "SOUTH": "S", "WEST": "W"})

# "+1", "-2", with the typographic minus and en dash that phones and editors produce.
_RESULT = re.compile(r"=|([+\-−–])([0-9]{1,2})")

_TRICK_VALUE = {"C": 20, "D": 20, "H": 30, "S": 30, "NT": 30}


@dataclass(frozen=True)
class Contract:
    """A bid contract: ``level`` 1–7, ``strain`` C/D/H/S/NT, ``doubling`` 0, 1 (X) or 2 (XX)."""

    level: int
    strain: str
    doubling: int = 0

    def __post_init__(self):
        if isinstance(self.level, bool) or not isinstance(self.level, int):
            raise ContractError(_("level must be 1–7, got %(level)r"), level=self.level)
        if not 1 <= self.level <= 7:
            raise ContractError(_("level must be 1–7, got %(level)r"), level=self.level)
        if self.strain not in STRAINS:
            raise ContractError(
                _("unknown strain %(strain)r: use C, D, H, S or NT"), strain=self.strain
            )
        if self.doubling not in (0, 1, 2) or isinstance(self.doubling, bool):
            raise ContractError(
                _("bad doubling %(doubling)r: use 0, 1 (X) or 2 (XX)"), doubling=self.doubling
            )

    def __str__(self) -> str:
        return f"{self.level}{self.strain}{_DOUBLING_SUFFIX[self.doubling]}"

    def display(self) -> str:
        """The contract with suit symbols, e.g. "4♠X", "3NT"."""
        return f"{self.level}{_STRAIN_SYMBOLS[self.strain]}{_DOUBLING_SUFFIX[self.doubling]}"

    @property
    def tricks_needed(self) -> int:
        return self.level + 6


def parse_contract(text: "str | Contract | None") -> Contract | None:
    """Parse a contract as typed ("4S", "4♠x", "3nt", "7NTXX"); ``None`` for a pass-out.

    Spaces and case are ignored; ``N`` is accepted for NT. Raises ``ContractError``
    naming what is wrong.
    """
    if text is None or isinstance(text, Contract):
        return text
    if not isinstance(text, str):
        raise ContractError(
            _("a contract must be text such as 4S or 3NTX, got %(text)r"), text=text
        )
    # NFKC folds full-width digits and letters typed with Chinese input methods.
    compact = unicodedata.normalize("NFKC", text).replace(_EMOJI_VARIATION, "")
    compact = "".join(compact.split()).translate(_SUIT_TO_LETTER).upper()
    if not compact:
        raise ContractError(_("the contract is empty: enter e.g. 4S, 3NTX or PASS"))
    if compact in _PASS_WORDS:
        return None

    rest = compact.lstrip("0123456789")
    digits = compact[: len(compact) - len(rest)]
    if not digits:
        raise ContractError(_("contract %(text)r must start with its level, 1–7"), text=text)
    level = int(digits)
    if not 1 <= level <= 7:
        raise ContractError(
            _("level must be 1–7, got %(level)s in %(text)r"), level=level, text=text
        )

    if rest.startswith("NT"):
        strain, rest = "NT", rest[2:]
    elif rest[:1] in ("C", "D", "H", "S", "N"):
        strain, rest = ("NT" if rest[0] == "N" else rest[0]), rest[1:]
    else:
        token = rest.rstrip("X")
        if not token:
            raise ContractError(
                _("contract %(text)r has no strain: add C, D, H, S or NT"), text=text
            )
        raise ContractError(
            _("unknown strain %(strain)r in %(text)r: use C, D, H, S or NT"),
            strain=token,
            text=text,
        )

    if rest not in _DOUBLING_SUFFIX:
        raise ContractError(
            _("bad doubling %(doubling)r in %(text)r: use X for doubled or XX for redoubled"),
            doubling=rest,
            text=text,
        )
    return Contract(level, strain, _DOUBLING_SUFFIX.index(rest))


def validate_declarer(declarer: str) -> str:
    """Canonical declarer seat "N", "E", "S" or "W" (case and full names accepted)."""
    if isinstance(declarer, str):
        seat = _SEATS.get(declarer.strip().upper())
        if seat is not None:
            return seat
    raise ContractError(_("declarer must be N, E, S or W; got %(declarer)r"), declarer=declarer)


def validate_tricks(tricks: int) -> int:
    """Total tricks taken by declarer, a whole number 0–13."""
    if isinstance(tricks, bool) or not isinstance(tricks, Integral):
        raise ContractError(
            _("tricks must be a whole number from 0 to 13, got %(tricks)r"), tricks=tricks
        )
    if not 0 <= tricks <= 13:
        raise ContractError(_("tricks must be from 0 to 13, got %(tricks)s"), tricks=tricks)
    return int(tricks)


def tricks_from_result(contract: "str | Contract", result: str) -> int:
    """Declarer's total tricks from a result relative to the contract: "=", "+1", "-2"."""
    parsed = parse_contract(contract)
    if parsed is None:
        raise ContractError(_("a passed-out board has no result to enter"))
    match = _RESULT.fullmatch("".join(str(result).split())) if isinstance(result, str) else None
    if match is None:
        raise ContractError(
            _("result must be =, +N or -N (e.g. +1, -2); got %(result)r"), result=result
        )
    sign, count = match.groups()
    if sign is None:
        return parsed.tricks_needed
    if int(count) == 0:
        raise ContractError(
            _("result %(result)r: write = for a contract made exactly"), result=result
        )
    tricks = parsed.tricks_needed + (int(count) if sign == "+" else -int(count))
    if not 0 <= tricks <= 13:
        raise ContractError(
            _("%(contract)s%(result)s would be %(tricks)s tricks; declarer takes from 0 to 13"),
            contract=str(parsed),
            result=result,
            tricks=tricks,
        )
    return tricks


def declarer_score(contract: Contract, tricks: int, vulnerable: bool) -> int:
    """Score of the declaring side (Law 77): positive when made, negative when defeated."""
    doubling = contract.doubling
    over = tricks - contract.tricks_needed
    if over < 0:
        down = -over
        if doubling == 0:
            return -down * (100 if vulnerable else 50)
        if vulnerable:
            doubled = 200 + 300 * (down - 1)
        else:
            # Non-vulnerable doubled undertricks cost 100, 200, 200, then 300 each.
            doubled = 100 + 200 * min(down - 1, 2) + 300 * max(down - 3, 0)
        return -doubled * doubling

    per_trick = _TRICK_VALUE[contract.strain]
    first_trick_extra = 10 if contract.strain == "NT" else 0
    trick_score = (per_trick * contract.level + first_trick_extra) * 2**doubling

    score = trick_score
    if trick_score >= 100:
        score += 500 if vulnerable else 300
    else:
        score += 50
    if contract.level == 6:
        score += 750 if vulnerable else 500
    elif contract.level == 7:
        score += 1500 if vulnerable else 1000
    score += 50 * doubling  # the "insult" for making a doubled or redoubled contract
    if doubling == 0:
        score += over * per_trick
    else:
        score += over * (200 if vulnerable else 100) * doubling
    return score


def contract_score(
    contract: "str | Contract | None", declarer: str, tricks: int, vulnerability: str
) -> int:
    """NS score of a board result; ``vulnerability`` is the board's ("None"/"NS"/"EW"/"Both").

    A pass-out scores 0 whatever ``declarer`` and ``tricks`` say.
    """
    vulnerability = validate_vulnerability(vulnerability)
    parsed = parse_contract(contract)
    if parsed is None:
        return 0
    seat = validate_declarer(declarer)
    score = declarer_score(parsed, validate_tricks(tricks), side_is_vulnerable(vulnerability, seat))
    return score if seat in ("N", "S") else -score
