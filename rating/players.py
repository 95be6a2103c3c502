"""A player's place in the Rate's state: a newcomer's start, who is on the Rate list, and
how a Rate is shown (SPEC 13)."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .errors import RatingError, gettext_noop
from .parameters import DEFAULT_PARAMETERS, RatingParameters

_TENTH = Decimal("0.1")


def new_players(
    count: int, params: RatingParameters = DEFAULT_PARAMETERS
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(Rates, carried weights) of ``count`` new players: R = 50, C = 30 — a 30-board
    prior, so a first week cannot throw a Rate far."""
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        raise RatingError(
            gettext_noop("the number of new players must be a whole number ≥ 0, got %(value)s"),
            value=repr(count),
        )
    return np.full(count, params.start_rate), np.full(count, params.prior_weight)


def listed(weights: ArrayLike, params: RatingParameters = DEFAULT_PARAMETERS) -> NDArray[np.bool_]:
    """Who is on the Rate list: players carrying a weight C of at least 50 boards.

    SPEC 13 lists "players with at least 50 boards carried"; the boards a Rate carries are
    its weight C (the prior's 30 included, since it is counted in boards and fades like
    them). So a newcomer needs 23 boards in the first week (0.9 × 30 + 23 = 50), a regular
    at 20 boards a week carries about 200 and, stopping, leaves the list after 13 idle
    weeks as the weight fades.
    """
    carried = np.asarray(weights, dtype=np.float64)
    if not np.isfinite(carried).all():
        raise RatingError(gettext_noop("the carried weights must be finite numbers"))
    # A weight is a sum of floats faded by 0.9 (not exact in binary) week after week, so
    # one that is 50 on paper may be a hair below it: that still counts.
    return carried >= params.listed_weight - 1e-9


def shown_rate(rate: float) -> Decimal:
    """A Rate as shown, to one decimal, a half rounded up: 57.25 → 57.3.

    The float's shortest decimal form is rounded (what a person reading 57.25 expects),
    not its binary value (57.249999…).
    """
    return Decimal(repr(float(rate))).quantize(_TENTH, rounding=ROUND_HALF_UP)
