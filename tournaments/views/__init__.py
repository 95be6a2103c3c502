"""Players' and public pages: thin views over selectors and services."""

from .accounts import PasswordResetView, profile, signup
from .paper import score_card, seating_sheet
from .play import play_table, play_table_program
from .public import board, healthz, home, pair, results, standings_fragment, tournament
from .registration import cancel_pair, confirm_pair, propose_pair, withdraw_pair
from .table import table, table_by_id, table_updates

__all__ = [
    "PasswordResetView",
    "board",
    "cancel_pair",
    "confirm_pair",
    "healthz",
    "home",
    "pair",
    "play_table",
    "play_table_program",
    "profile",
    "propose_pair",
    "results",
    "score_card",
    "seating_sheet",
    "signup",
    "standings_fragment",
    "table",
    "table_by_id",
    "table_updates",
    "tournament",
    "withdraw_pair",
]
