"""A simulated table's result on a deal, from the deal's double-dummy tricks and noise:
pure Python, no Django (a pure core like `scoring`, `pairing` and `play`).

    DealFacts(tricks, hands, hcp, vulnerability)   what a table knows of a board
    TableResult(contract, declarer, tricks, lead)  what it enters
    plausible_result(facts, rng) -> TableResult    one table's result

The services that play simulated events through the real result service are in
`tournaments.services.simulator`; the demo's players in `tournaments.demo`.
"""

from .model import GAME_LEVEL, TRICK_NOISE, DealFacts, TableResult, Tricks, plausible_result

__all__ = ["GAME_LEVEL", "TRICK_NOISE", "DealFacts", "TableResult", "Tricks", "plausible_result"]
