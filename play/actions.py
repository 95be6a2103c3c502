"""What players do at a table: calls (with an optional alert), cards, claims and the
opponents' answers to a claim. Each record checks its own form when it is made; whether
it is allowed now is the board's business (``BoardState.apply``).
"""

from dataclasses import dataclass

from scoring import SEATS, STRAINS

from .cards import DECK
from .errors import IllegalAction
from .errors import gettext_noop as _

PASS, DOUBLE, REDOUBLE = "P", "X", "XX"
BIDS = tuple(f"{level}{strain}" for level in range(1, 8) for strain in STRAINS)
"""Every bid from lowest to highest: 1C, 1D, 1H, 1S, 1NT, 2C, … 7NT."""
BID_INDEX = {bid: index for index, bid in enumerate(BIDS)}
"""A bid's place in ``BIDS``: a dict, as the auction compares bids at every call."""
_CALLS = frozenset((PASS, DOUBLE, REDOUBLE, *BIDS))


def _seat(seat: object) -> str:
    canonical = seat.strip().upper() if isinstance(seat, str) else None
    if canonical not in SEATS:
        raise IllegalAction(_("unknown seat %(seat)r: use N, E, S or W"), seat=seat)
    return canonical


def _set(record: object, name: str, value: object) -> None:
    object.__setattr__(record, name, value)  # canonical spelling on a frozen record


def _canonical(value: object, spellings: frozenset[str]) -> bool:
    """Whether ``value`` is already spelt as the record keeps it: then the record keeps it
    as it is. Replays make a record of every stored action, nearly all of them so."""
    return type(value) is str and value in spellings


_SEATS = frozenset(SEATS)


@dataclass(frozen=True)
class Call:
    """A call: ``P``, ``X``, ``XX`` or a bid ``1C`` … ``7NT`` ("7N" is read as 7NT).

    ``alert`` is the caller's explanation of their own call, shown to the opponents only.
    """

    seat: str
    call: str
    alert: str | None = None

    def __post_init__(self):
        if not _canonical(self.seat, _SEATS):
            _set(self, "seat", _seat(self.seat))
        if not _canonical(self.call, _CALLS):
            self._spell_call()
        if self.alert is not None and not isinstance(self.alert, str):
            raise IllegalAction(_("an alert must be text"))

    def _spell_call(self) -> None:
        text = self.call.strip().upper() if isinstance(self.call, str) else None
        if text is not None:
            text = PASS if text == "PASS" else text
            if text[-1:] == "N":
                text += "T"
        if text not in _CALLS:
            raise IllegalAction(
                _("unknown call %(call)r: use P, X, XX or a bid from 1C to 7NT"), call=self.call
            )
        _set(self, "call", text)

    @property
    def is_bid(self) -> bool:
        return self.call in BID_INDEX


@dataclass(frozen=True)
class Card:
    """A card played by ``seat``, the player who acts: declarer plays dummy's cards."""

    seat: str
    card: str

    def __post_init__(self):
        if not _canonical(self.seat, _SEATS):
            _set(self, "seat", _seat(self.seat))
        if not _canonical(self.card, DECK):
            self._spell_card()

    def _spell_card(self) -> None:
        text = self.card.strip().upper() if isinstance(self.card, str) else None
        if text is not None and text[1:] == "10":
            text = text[0] + "T"
        if text not in DECK:
            raise IllegalAction(
                _("unknown card %(card)r: write the suit letter then the rank, e.g. SA, HT, D2"),
                card=self.card,
            )
        _set(self, "card", text)


@dataclass(frozen=True)
class Claim:
    """``seat`` says their side will take ``tricks`` of the tricks still to play; a
    concession is a claim of fewer (0 concedes them all). ``statement`` is the line of
    play the claimer gives with it (Law 68C), "" if none; the application checks its
    length and characters, as it does an alert's."""

    seat: str
    tricks: int
    statement: str = ""

    def __post_init__(self):
        _set(self, "seat", _seat(self.seat))
        if isinstance(self.tricks, bool) or not isinstance(self.tricks, int) or self.tricks < 0:
            raise IllegalAction(
                _("a claim must be a whole number of tricks, 0 or more; got %(tricks)r"),
                tricks=self.tricks,
            )
        if self.statement is None:
            _set(self, "statement", "")
        elif not isinstance(self.statement, str):
            raise IllegalAction(_("a claim's statement must be text"))


@dataclass(frozen=True)
class ClaimResponse:
    """An opponent of the claimer accepts or rejects the claim waiting for an answer."""

    seat: str
    accept: bool

    def __post_init__(self):
        _set(self, "seat", _seat(self.seat))
        if not isinstance(self.accept, bool):
            raise IllegalAction(_("an answer to a claim is accept or reject"))


Action = Call | Card | Claim | ClaimResponse
