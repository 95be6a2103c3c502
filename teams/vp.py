"""Victory points: the WBF 2013 continuous 20-VP scale (SPEC 11).

For a match of N boards the blitz is B = 15·√N and τ = (√5 − 1) / 2. The winner by M IMPs
gets ``min(20, 10 + 10·(1 − τ^(3M/B)) / (1 − τ³))`` rounded to two decimals, then
*corrected*: plain rounding sometimes makes one more IMP worth more VPs than the IMP before
(8 boards: 38 → 19.50, 39 → 19.62, 40 → 19.73, 41 → 19.85 gives +0.11 then +0.12), which
the scale forbids. Where that happens the earlier value is raised by 0.01 (40 → 19.74), and
the sweep is repeated until no step is larger than the one before. The loser gets 20 − VP,
a draw is 10 – 10.

Values are kept as whole hundredths of a VP, so sums and comparisons of VP totals are exact;
the public functions hand out ``Decimal`` with two places. The formula is evaluated in
34-digit decimal arithmetic, far from any doubt about which way a value rounds. Each board
count's table (margins 0 … ⌈B⌉; from B on every margin is 20.00) is computed once.

A knock-out match is scored in IMPs only (`teams.match.score_match(imp_only=True)`): no
conversion. A bye scores a setting, 12 VP by default (`bye_vps`).
"""

from __future__ import annotations

import decimal
from decimal import ROUND_HALF_UP, Decimal
from functools import lru_cache
from numbers import Integral

from .errors import TeamsError, gettext_noop

#: a match has 1 to 64 boards (SPEC 11); 8, 12 and 16 are the usual ones
MIN_BOARDS = 1
MAX_BOARDS = 64
#: the whole scale, in hundredths
FULL = 2000
DRAW = 1000
#: what a bye scores unless the event sets otherwise (SPEC 11)
DEFAULT_BYE_VP = Decimal("12.00")

_CENT = Decimal("0.01")
_CONTEXT = decimal.Context(prec=34, rounding=ROUND_HALF_UP)


def _whole(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise TeamsError(
            gettext_noop("%(name)s must be a whole number, got %(value)s"),
            name=name,
            value=repr(value),
        )
    return int(value)


def validate_boards(boards: object) -> int:
    """The number of boards a VP scale is for: a whole number from 1 to 64."""
    count = _whole(boards, "the number of boards")
    if not MIN_BOARDS <= count <= MAX_BOARDS:
        raise TeamsError(
            gettext_noop("a match has from %(low)s to %(high)s boards, got %(boards)s"),
            low=MIN_BOARDS,
            high=MAX_BOARDS,
            boards=count,
        )
    return count


def plain_table(boards: int) -> tuple[int, ...]:
    """The formula rounded to hundredths without the correction, margins 0 … ⌈B⌉ (for
    the tests and for anyone comparing with a scale printed by plain rounding)."""
    boards = validate_boards(boards)
    return _plain(boards)


@lru_cache(maxsize=MAX_BOARDS)
def _plain(boards: int) -> tuple[int, ...]:
    ctx = _CONTEXT
    tau = ctx.divide(ctx.subtract(ctx.sqrt(Decimal(5)), Decimal(1)), Decimal(2))
    blitz = ctx.multiply(Decimal(15), ctx.sqrt(Decimal(boards)))
    denominator = ctx.subtract(Decimal(1), ctx.power(tau, Decimal(3)))
    top = int(blitz.to_integral_value(rounding=decimal.ROUND_CEILING))
    cells = []
    for margin in range(top + 1):
        if margin >= blitz:
            cells.append(FULL)
            continue
        shrink = ctx.power(tau, ctx.divide(Decimal(3 * margin), blitz))
        value = ctx.add(
            Decimal(DRAW),
            ctx.divide(ctx.multiply(Decimal(DRAW), ctx.subtract(Decimal(1), shrink)), denominator),
        )
        cells.append(min(FULL, int(value.to_integral_value(rounding=ROUND_HALF_UP))))
    return tuple(cells)


@lru_cache(maxsize=MAX_BOARDS)
def _corrected(boards: int) -> tuple[int, ...]:
    cells = list(_plain(boards))
    changed = True
    while changed:  # each raise adds 0.01 below a cell that is at least 0.01 higher: it ends
        changed = False
        for m in range(1, len(cells) - 1):
            if cells[m + 1] - cells[m] > cells[m] - cells[m - 1]:
                cells[m] += 1
                changed = True
    return tuple(cells)


def vp_table(boards: int) -> tuple[int, ...]:
    """The winner's VPs in hundredths for margins 0 … ⌈B⌉ (the corrected scale); every
    larger margin is worth 2000 (20.00)."""
    return _corrected(validate_boards(boards))


def vp_hundredths(margin: int, boards: int) -> int:
    """VPs in hundredths (0 … 2000) for a signed IMP margin over a match of ``boards``:
    a winner by M gets the table's cell, a loser by M 2000 minus it."""
    margin = _whole(margin, "an IMP margin")
    table = vp_table(boards)
    size = abs(margin)
    won = table[size] if size < len(table) else FULL
    return won if margin >= 0 else FULL - won


def hundredths_to_vp(hundredths: int) -> Decimal:
    return (Decimal(hundredths) / 100).quantize(_CENT)


def victory_points(margin: int, boards: int) -> Decimal:
    """VPs (two decimals) for a signed IMP margin: ``victory_points(10, 8) == Decimal("13.78")``,
    ``victory_points(-10, 8) == Decimal("6.22")``."""
    return hundredths_to_vp(vp_hundredths(margin, boards))


def match_vps(margin: int, boards: int) -> tuple[Decimal, Decimal]:
    """(home, away) VPs for a match the home team won by ``margin`` IMPs (negative: lost);
    they sum to 20."""
    home = vp_hundredths(margin, boards)
    return hundredths_to_vp(home), hundredths_to_vp(FULL - home)


def bye_vps(setting: object = DEFAULT_BYE_VP) -> Decimal:
    """What a bye scores: the event's setting (default 12), from 0 to 20 in hundredths."""
    try:
        value = Decimal(str(setting)) if not isinstance(setting, (bool, Decimal)) else setting
    except decimal.InvalidOperation:
        value = None
    if (
        not isinstance(value, Decimal)
        or not value.is_finite()
        or not 0 <= value <= 20
        or value != value.quantize(_CENT)
    ):
        raise TeamsError(
            gettext_noop("a bye scores from 0 to 20 VP in hundredths, got %(value)s"),
            value=repr(setting),
        )
    return value.quantize(_CENT)
