"""Checks shared by every way in: model fields (admin, full_clean), forms and services.

One definition of what a name may hold and of a tournament's limits, so that the
admin, the API, the sign-up page and scripts refuse the same input with the same
message. Imports no model: `models.py` uses these as field validators, and the
services import the limits from here (`services.setup` re-exports them).
"""

from __future__ import annotations

import unicodedata
from datetime import timedelta
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

# --- tournament limits ------------------------------------------------------------------

MAX_ROUNDS = 50
MAX_BOARDS_PER_ROUND = 36
# A round shorter than a minute cannot be played; the clock and the pages count minutes.
MIN_ROUND_MINUTES = 1
MAX_ROUND_MINUTES = 600
MAX_GAP_MINUTES = 24 * 60


def _whole_range(value: int, what: str, low: int, high: int) -> None:
    if value is None or not low <= value <= high:
        raise ValidationError(
            _("%(what)s must be a whole number from %(low)s to %(high)s.")
            % {"what": what, "low": low, "high": high},
            code="out_of_range",
        )


def validate_rounds(value: int) -> None:
    _whole_range(value, _("The number of rounds"), 1, MAX_ROUNDS)


def validate_boards_per_round(value: int) -> None:
    _whole_range(value, _("The number of boards per round"), 1, MAX_BOARDS_PER_ROUND)


def validate_round_length(value: timedelta) -> None:
    low, high = timedelta(minutes=MIN_ROUND_MINUTES), timedelta(minutes=MAX_ROUND_MINUTES)
    if value is None or not low <= value <= high:
        raise ValidationError(
            _("%(what)s must be from %(low)s to %(high)s minutes.")
            % {"what": _("The round length"), "low": MIN_ROUND_MINUTES, "high": MAX_ROUND_MINUTES},
            code="out_of_range",
        )


def validate_gap_length(value: timedelta) -> None:
    if value is None or not timedelta(0) <= value <= timedelta(minutes=MAX_GAP_MINUTES):
        raise ValidationError(
            _("%(what)s must be from %(low)s to %(high)s minutes.")
            % {"what": _("The gap between rounds"), "low": 0, "high": MAX_GAP_MINUTES},
            code="out_of_range",
        )


def validate_completion_threshold(value: Decimal | float) -> None:
    """A percentage 1–100 (RULES 6); a fraction such as 0.7 is refused, because 0.7 % and
    70 % are both plausible readings and a wrong guess ranks the field. 0 is refused: it
    would let a pair that never played complete."""
    if value is not None and 0 < value < 1:
        number = float(value)
        raise ValidationError(
            _(
                "The completion threshold is a percentage from 1 to 100: write %(pct)s for "
                "%(pct)s %%, not %(value)s."
            )
            % {"pct": f"{number * 100:g}", "value": f"{number:g}"},
            code="fraction",
        )
    if value is None or not 1 <= value <= 100:
        raise ValidationError(
            _("The completion threshold is a percentage from 1 to 100, e.g. 70."),
            code="out_of_range",
        )


# --- names and free text ----------------------------------------------------------------

# Characters that change the order in which text is shown: embeddings, overrides and
# isolates, the implicit marks, and the deprecated format controls beside them. In a
# name they can make "Ann – Bob" read as another pair, and in an export they are noise.
REORDERING = frozenset([0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x2070)])
# The line breaks a one-line name may not hold besides the C0/C1 controls.
LINE_SEPARATORS = frozenset([0x2028, 0x2029])
# Whitespace a multi-line text (a description) keeps.
MULTILINE_WHITESPACE = frozenset("\t\n\r")


def _unusable(char: str) -> bool:
    """A control character, a lone surrogate or a noncharacter: none is text, and XML 1.0
    cannot carry them (an export of them would fail or be unreadable)."""
    code = ord(char)
    category = unicodedata.category(char)
    return category in ("Cc", "Cs") or (code & 0xFFFE) == 0xFFFE or 0xFDD0 <= code <= 0xFDEF


def hostile_character(value: str, *, multiline: bool = False) -> tuple[str, str] | None:
    """The first character a name (or, multiline, a description) may not hold, and why:
    ("control", char) or ("reordering", char); None when the text is fine."""
    for char in value:
        if multiline and char in MULTILINE_WHITESPACE:
            continue
        code = ord(char)
        if _unusable(char) or (not multiline and code in LINE_SEPARATORS):
            return "control", char
        if code in REORDERING:
            return "reordering", char
    return None


def _code_point(char: str) -> str:
    return f"U+{ord(char):04X}"


def _refuse(found: tuple[str, str] | None, what: str, messages: dict[str, str]) -> None:
    """Raise the refusal of `hostile_character`'s finding (nothing when it found none):
    the message for its kind, the code `<what>_<kind>`."""
    if found is None:
        return
    kind, char = found
    raise ValidationError(messages[kind] % {"char": _code_point(char)}, code=f"{what}_{kind}")


def validate_name(value: str) -> None:
    """A one-line name (a player's display name, a username, a tournament's name)."""
    control = _("A name may not contain control characters or line breaks (%(char)s).")
    reordering = _(
        "A name may not contain characters that change the direction of text (%(char)s)."
    )
    _refuse(hostile_character(value or ""), "name", {"control": control, "reordering": reordering})


def validate_description(value: str) -> None:
    """Free text over several lines: line breaks and tabs are fine, the rest as a name."""
    control = _("The description may not contain control characters (%(char)s).")
    reordering = _(
        "The description may not contain characters that change the direction of text (%(char)s)."
    )
    found = hostile_character(value or "", multiline=True)
    _refuse(found, "description", {"control": control, "reordering": reordering})


def typed_text(value: str, *, max_length: int, multiline: bool = False) -> str:
    """The one check of free text a person types and others read: an alert, a dispute
    note, a director's reason (names and descriptions: `validate_name`,
    `validate_description`). Trimmed (one line: every run of white space one space) and
    cut to `max_length`; refused with a `ValidationError` if it holds a control or
    reordering character, which would reach the opponents' screens and the public pages
    as sent (U+202E turns "4♠ natural" around, BEL rings)."""
    text = str(value or "")
    # An alert typed over two lines is one line of text; tabs and breaks are folded
    # before the check, so only what is never text is refused.
    text = text.strip() if multiline else " ".join(text.split())
    control = _("The text may not contain control characters (%(char)s).")
    reordering = _(
        "The text may not contain characters that change the direction of text (%(char)s)."
    )
    found = hostile_character(text, multiline=multiline)
    _refuse(found, "text", {"control": control, "reordering": reordering})
    return text[:max_length]


def printable(value) -> str:
    """Stored text made safe for a one-line field of a file, whatever it holds: legacy
    rows were written before `validate_name` existed. Whitespace runs (line breaks,
    tabs) become one space, reordering characters are dropped, and any other character
    no file can carry becomes U+FFFD, so that a reader sees something was there."""
    text = " ".join(str(value).split())
    if hostile_character(text) is None:
        return text
    out = []
    for char in text:
        code = ord(char)
        if code in REORDERING:
            continue
        out.append("\ufffd" if _unusable(char) or code in LINE_SEPARATORS else char)
    return "".join(out)
