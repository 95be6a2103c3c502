"""Swiss seating engine for duplicate-bridge Swiss pairs (pure Python, no Django).

See :mod:`pairing.swiss` for the rules and the cost, and :mod:`pairing.matching` for the
exact windowed matching.
"""

from .state import PairState, Seating, Table
from .swiss import seat_first_round, seat_round, standings_order

__all__ = [
    "PairState",
    "Seating",
    "Table",
    "seat_first_round",
    "seat_round",
    "standings_order",
]
