"""Movements for pairs events (SPEC 10, RULES 10): Mitchell and Howell, generated and
checked, read and written as `.ASC` files and JSON (pure Python, no Django).

- `model`: a movement as data (`Movement`, `Encounter`).
- `generate`: `mitchell`, `howell`, `for_pairs` (the phantom for an odd number of pairs).
- `check`: `verify` / `problems`, the rules with their codes (`errors.RULES`).
- `balance`: `balance` (how often each two positions are compared; Schiereck's Qf).
- `jsonform`: `to_json` / `from_json`; `ascform`: `to_asc` / `from_asc` (the `.ASC` file).
- `travellers`: `from_travellers` (a movement read from who played which board against whom).
"""

from .ascform import from_asc, to_asc
from .balance import Balance, balance
from .check import problems, verify
from .errors import RULES, MovementError
from .generate import for_pairs, howell, mitchell
from .jsonform import from_json, to_json
from .model import Direction, Encounter, Kind, Movement
from .travellers import from_travellers

__all__ = [
    "RULES",
    "Balance",
    "Direction",
    "Encounter",
    "Kind",
    "Movement",
    "MovementError",
    "balance",
    "for_pairs",
    "from_asc",
    "from_json",
    "from_travellers",
    "howell",
    "mitchell",
    "problems",
    "to_asc",
    "to_json",
    "verify",
]
