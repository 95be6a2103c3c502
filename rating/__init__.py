"""The weekly skill rating, Rate (牌技指数, SPEC 13), pure Python and numpy, no Django.

- `parameters`: the settings (`RatingParameters`: λ = 0.9, prior weight C0 = 30, starting
  Rate 50, IMP multiplier 1/15, the list's 50 boards), stored with each week's figures.
- `week`: a week's board results as arrays (`WeekBoards`: the four players N, E, S, W,
  NS's fraction X from IMPs or MP, disconnections per seat), each board's pseudo-ratings
  (`pseudo_ratings`) and the week's close (`close_week` → `WeekClose`: new Rates, carried
  weights, the week's W and boards per player).
- `players`: a newcomer's Rate and weight (`new_players`), who is on the Rate list
  (`listed`), a Rate as shown (`shown_rate`, one decimal).

Every refusal is a `RatingError` (a `scoring.ScoringError`) with a message fit to show.
"""

from .errors import RatingError
from .parameters import DEFAULT_PARAMETERS, RatingParameters
from .players import listed, new_players, shown_rate
from .week import (
    EAST,
    NORTH,
    SEATS,
    SOUTH,
    WEST,
    WeekBoards,
    WeekClose,
    close_week,
    imps_to_fraction,
    percentage_to_fraction,
    pseudo_ratings,
)

__all__ = [
    "DEFAULT_PARAMETERS",
    "EAST",
    "NORTH",
    "SEATS",
    "SOUTH",
    "WEST",
    "RatingError",
    "RatingParameters",
    "WeekBoards",
    "WeekClose",
    "close_week",
    "imps_to_fraction",
    "listed",
    "new_players",
    "percentage_to_fraction",
    "pseudo_ratings",
    "shown_rate",
]
