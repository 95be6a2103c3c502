"""The demo a newcomer watches after `make run`: an organiser, players, a live event that
plays itself (`seed`) and the simulated players who play it at a human pace
(`players`). Built on the services and the simulator; nothing in the services imports it.
"""

from .players import PlannedResult, plan_round, play_tick
from .seed import (
    DEMO_FINISHED_NAME,
    DEMO_NAME,
    DEMO_ORGANISER,
    DEMO_PASSWORD,
    DEMO_PLAYER_PASSWORD,
    DemoSetup,
    ensure_demo,
    ensure_finished_demo,
    ensure_organiser,
    ensure_players,
    is_stale,
    player_usernames,
)

__all__ = [
    "DEMO_FINISHED_NAME",
    "DEMO_NAME",
    "DEMO_ORGANISER",
    "DEMO_PASSWORD",
    "DEMO_PLAYER_PASSWORD",
    "DemoSetup",
    "PlannedResult",
    "ensure_demo",
    "ensure_finished_demo",
    "ensure_organiser",
    "ensure_players",
    "is_stale",
    "plan_round",
    "play_tick",
    "player_usernames",
]
