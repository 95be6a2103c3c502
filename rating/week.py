"""The weekly close of the Rate (牌技指数, SPEC 13), vectorised with numpy.

Lehman's rating, as OKbridge ran it: each board gives the NS side a fraction X of the
board (IMPs: clamp(0.5 + IMPs/15, 0, 1); MP: the percentage / 100), EW get 1 − X. The
table's four Rates at the start of the week, summed (ΣR), are the "rating points" at stake,
and each side earns its fraction of them, shared between partners in proportion to their
Rates:

    R′_N = X · ΣR · R_N / (R_N + R_S)        R′_E = (1 − X) · ΣR · R_E / (R_E + R_W)

so a player whose side does exactly as the four Rates expect (X = (R_N + R_S) / ΣR) earns
their own Rate back, whoever the partner and the opponents are. The week's W is the mean of
a player's pseudo-ratings, and the fold

    R ← (λ·C·R + n·W) / (λ·C + n)        C ← λ·C + n

weighs it against the Rate carried (C boards' worth, faded by λ each week).

Decisions where SPEC is silent, each chosen so the formula keeps its meaning:

- **A disconnection** (SPEC 13's 断线扣分) gives that player a pseudo-rating of 0 on the
  board, and the board still counts among their n boards (a 0 in the mean, which is the
  penalty). The other three are rated on the board's result as usual; ΣR is still the
  four Rates.
- **No board this week** (n = 0): the fold as written gives R unchanged and C ← λ·C; W is
  reported as NaN (there is no mean of nothing) and the player's board count as 0.
- **Partners whose Rates sum to 0** (only possible when both Rates are 0): R_N / (R_N +
  R_S) is 0/0; the side's share is split equally, the limit as both Rates tend to the same
  value. When all four are 0, ΣR = 0 and everyone earns 0.
- **A Rate of 0** is allowed as input but is a trap the formula sets: while the partner's
  Rate is not 0, the player's share R_N / (R_N + R_S) is 0 on every board, so the Rate can
  only fall further towards nothing — it stays 0. With SPEC's prior (C0 > 0) a positive
  Rate never reaches 0: the fold keeps at least λ·C/(λ·C + n) of it. Negative Rates are
  refused (they would make shares negative).
- The order of a player's boards within the week does not matter: every board is rated
  with the Rates at the start of the week.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .errors import RatingError, gettext_noop
from .parameters import DEFAULT_PARAMETERS, RatingParameters

#: the seats' columns in a board's players and disconnected flags
NORTH, EAST, SOUTH, WEST = 0, 1, 2, 3
SEATS = (NORTH, EAST, SOUTH, WEST)

Floats = NDArray[np.float64]
Indices = NDArray[np.intp]
Flags = NDArray[np.bool_]


def _floats(values: ArrayLike, what: str) -> Floats:
    try:
        array = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise RatingError(gettext_noop("%(what)s must be numbers"), what=what) from error
    if not np.isfinite(array).all():
        raise RatingError(gettext_noop("%(what)s must be finite numbers"), what=what)
    return array


def _vector(values: ArrayLike, what: str) -> Floats:
    array = _floats(values, what)
    if array.ndim != 1:
        raise RatingError(
            gettext_noop("%(what)s must be one number per row, got shape %(shape)s"),
            what=what,
            shape=array.shape,
        )
    return array


def imps_to_fraction(imps: ArrayLike, params: RatingParameters = DEFAULT_PARAMETERS) -> Floats:
    """NS's fraction X of each board from NS's IMPs: clamp(0.5 + IMPs × 1/15, 0, 1).

    ``imps_to_fraction([0, 3, -3, 9]) == [0.5, 0.7, 0.3, 1.0]``; 7.5 IMPs or more is the
    whole board (Lehman's multiplier, 20/3 % per IMP).
    """
    values = _vector(imps, "the IMPs")
    return np.clip(0.5 + values * params.imp_multiplier, 0.0, 1.0)


def percentage_to_fraction(percentages: ArrayLike) -> Floats:
    """NS's fraction X of each board from NS's matchpoint percentage (0 – 100): X = % / 100."""
    values = _vector(percentages, "the percentages")
    if values.size and (values.min() < 0 or values.max() > 100):
        raise RatingError(gettext_noop("a board's percentage must be from 0 to 100"))
    return values / 100.0


@dataclass(frozen=True, eq=False)
class WeekBoards:
    """The week's board results: one row per board played at a table.

    - ``players``: (boards, 4) player indices (rows of the Rate arrays), seats N, E, S, W;
    - ``ns_fraction``: (boards,) NS's fraction X of the board, 0 – 1 (EW have 1 − X);
    - ``disconnected``: (boards, 4) whether the player in that seat disconnected on the
      board (all False when not given).

    Built from IMPs or percentages by `from_imps` / `from_percentages`; a week of both
    kinds converts each with `imps_to_fraction` / `percentage_to_fraction` and joins them.
    """

    players: Indices
    ns_fraction: Floats
    disconnected: Flags

    def __init__(
        self, players: ArrayLike, ns_fraction: ArrayLike, disconnected: ArrayLike | None = None
    ) -> None:
        seated = np.asarray(players)
        if seated.size == 0:
            seated = seated.reshape(0, 4)
        if seated.ndim != 2 or seated.shape[1] != 4:
            raise RatingError(
                gettext_noop("each board needs its four players (N, E, S, W), got shape %(shape)s"),
                shape=seated.shape,
            )
        if not np.issubdtype(seated.dtype, np.integer) and seated.size:
            raise RatingError(gettext_noop("players are given by whole-number indices"))
        seated = seated.astype(np.intp, copy=False)
        fraction = _vector(ns_fraction, "NS's fractions")
        if fraction.shape[0] != seated.shape[0]:
            raise RatingError(
                gettext_noop("%(boards)s boards but %(fractions)s fractions"),
                boards=seated.shape[0],
                fractions=fraction.shape[0],
            )
        if fraction.size and (fraction.min() < 0 or fraction.max() > 1):
            raise RatingError(gettext_noop("NS's fraction of a board must be from 0 to 1"))
        if disconnected is None:
            lost = np.zeros(seated.shape, dtype=np.bool_)
        else:
            lost = np.asarray(disconnected, dtype=np.bool_)
            if lost.shape != seated.shape:
                raise RatingError(
                    gettext_noop("disconnections must be one flag per seat and board")
                )
        # The same player in two seats of one board would be rated against themself.
        for first in range(4):
            for second in range(first + 1, 4):
                same = seated[:, first] == seated[:, second]
                if same.any():
                    row = int(np.argmax(same))
                    raise RatingError(
                        gettext_noop("board row %(row)s seats player %(player)s twice"),
                        row=row,
                        player=int(seated[row, first]),
                    )
        object.__setattr__(self, "players", seated)
        object.__setattr__(self, "ns_fraction", fraction)
        object.__setattr__(self, "disconnected", lost)

    @classmethod
    def from_imps(
        cls,
        players: ArrayLike,
        imps: ArrayLike,
        disconnected: ArrayLike | None = None,
        params: RatingParameters = DEFAULT_PARAMETERS,
    ) -> WeekBoards:
        """Boards scored in IMPs (duplicate or full-field IMP scoring), NS's IMPs each."""
        return cls(players, imps_to_fraction(imps, params), disconnected)

    @classmethod
    def from_percentages(
        cls, players: ArrayLike, percentages: ArrayLike, disconnected: ArrayLike | None = None
    ) -> WeekBoards:
        """Boards scored in MP (full-field), NS's percentage each."""
        return cls(players, percentage_to_fraction(percentages), disconnected)

    def __len__(self) -> int:
        return int(self.players.shape[0])


def _state(rates: ArrayLike, weights: ArrayLike) -> tuple[Floats, Floats]:
    start = _vector(rates, "the Rates")
    carried = _vector(weights, "the carried weights")
    if start.shape != carried.shape:
        raise RatingError(
            gettext_noop("%(rates)s Rates but %(weights)s carried weights"),
            rates=start.shape[0],
            weights=carried.shape[0],
        )
    if start.size and start.min() < 0:
        raise RatingError(gettext_noop("a Rate must not be negative"))
    if carried.size and carried.min() < 0:
        raise RatingError(gettext_noop("a carried weight must not be negative"))
    return start, carried


def _check_players(boards: WeekBoards, count: int) -> None:
    if len(boards) and (boards.players.min() < 0 or boards.players.max() >= count):
        raise RatingError(
            gettext_noop("a board names a player outside the %(count)s players rated"),
            count=count,
        )


def pseudo_ratings(boards: WeekBoards, rates: ArrayLike) -> Floats:
    """(boards, 4) each player's pseudo-rating on each board, seats N, E, S, W.

    R′ = side's fraction × ΣR × own Rate / side's Rates; 0 for a player who disconnected.
    """
    start = _vector(rates, "the Rates")
    if start.size and start.min() < 0:
        raise RatingError(gettext_noop("a Rate must not be negative"))
    _check_players(boards, start.shape[0])
    return _pseudo(boards, start)


def _pseudo(boards: WeekBoards, start: Floats) -> Floats:
    seat_rates = start[boards.players]  # (boards, 4): N, E, S, W
    total = seat_rates.sum(axis=1)
    x = boards.ns_fraction
    # Each seat's partnership total and the side's fraction, in seat order N, E, S, W.
    ns = seat_rates[:, NORTH] + seat_rates[:, SOUTH]
    ew = seat_rates[:, EAST] + seat_rates[:, WEST]
    side_total = np.stack([ns, ew, ns, ew], axis=1)
    side_fraction = np.stack([x, 1.0 - x, x, 1.0 - x], axis=1)
    # Own share of the partnership: R / (R + partner's R); half each when both are 0.
    share = np.full_like(seat_rates, 0.5)
    np.divide(seat_rates, side_total, out=share, where=side_total > 0)
    pseudo = side_fraction * total[:, None] * share
    pseudo[boards.disconnected] = 0.0
    return pseudo


@dataclass(frozen=True, eq=False)
class WeekClose:
    """The Rates after a week, one entry per player (the rows of the Rate arrays).

    - ``rates``: the new Rates R;
    - ``weights``: the new carried weights C (λ·C + n);
    - ``week_rates``: the week's W, the mean of the player's pseudo-ratings (NaN: no board);
    - ``boards``: n, the player's boards this week (a disconnected board counts);
    - ``parameters``: the settings used, to store with the week.
    """

    rates: Floats
    weights: Floats
    week_rates: Floats
    boards: NDArray[np.int64]
    parameters: RatingParameters


def close_week(
    boards: WeekBoards,
    rates: ArrayLike,
    weights: ArrayLike,
    params: RatingParameters = DEFAULT_PARAMETERS,
) -> WeekClose:
    """The week's close: every player's new Rate and carried weight from the week's boards
    and the Rates and weights at the start of the week (`new_players` gives a newcomer's).

    One pass over the boards (``np.bincount`` per player), so a week of a million board
    results closes in well under a second.
    """
    start, carried = _state(rates, weights)
    count = start.shape[0]
    _check_players(boards, count)
    pseudo = _pseudo(boards, start)
    flat_players = boards.players.ravel()
    earned = np.bincount(flat_players, weights=pseudo.ravel(), minlength=count)
    played = np.bincount(flat_players, minlength=count).astype(np.int64)
    kept = params.fade * carried
    weight = kept + played
    # (λC·R + n·W) / (λC + n) written as R + n·(W − R) / (λC + n): the same number, but a
    # player without a board keeps R exactly (no λC·R / λC rounding, even for a tiny C),
    # and a week as the Rates expect moves R by rounding error only.
    new_rates = start.copy()
    moved = played > 0  # λC + n > 0 here; a player without a board keeps R
    new_rates[moved] += (earned[moved] - played[moved] * start[moved]) / weight[moved]
    week_rates = np.full(count, np.nan)
    has_boards = played > 0
    week_rates[has_boards] = earned[has_boards] / played[has_boards]
    return WeekClose(
        rates=new_rates,
        weights=weight,
        week_rates=week_rates,
        boards=played,
        parameters=params,
    )
