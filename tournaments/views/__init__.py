"""Players' and public pages: thin views over selectors and services."""

from .accounts import profile, signup
from .play import play_table
from .public import board, healthz, home, pair, results, standings_fragment, tournament
from .registration import cancel_pair, confirm_pair, propose_pair, withdraw_pair
from .table import table, table_updates

__all__ = [
    "board",
    "cancel_pair",
    "confirm_pair",
    "healthz",
    "home",
    "pair",
    "play_table",
    "profile",
    "propose_pair",
    "results",
    "signup",
    "standings_fragment",
    "table",
    "table_updates",
    "tournament",
    "withdraw_pair",
]
