"""The JSON form of a movement (what `Tournament.movement` stores and the API takes):

    {"kind": "mitchell" | "howell" | "given", "name": str, "tables": int, "pairs": int,
     "boards_per_round": int, "directions": ["NS" | "EW", …] | null, "phantom": int | null,
     "arrow_switch_rounds": [int, …],
     "rounds": [[{"table": int, "ns": int, "ew": int, "boards": [int, …]}, …], …]}

`directions`, `phantom` and `arrow_switch_rounds` may be left out (null, null, []).
`from_json` checks the shape (types, ranges, counts), not the seating rules: `verify` does.
"""

from __future__ import annotations

from typing import Any, cast

from .check import KINDS, shape_problems
from .errors import MovementError
from .model import Direction, Encounter, Kind, Movement

_KEYS = {
    "kind",
    "name",
    "tables",
    "pairs",
    "boards_per_round",
    "directions",
    "phantom",
    "arrow_switch_rounds",
    "rounds",
}
_REQUIRED = ("kind", "name", "tables", "pairs", "boards_per_round", "rounds")
_ENCOUNTER_KEYS = {"table", "ns", "ew", "boards"}


def to_json(m: Movement) -> dict[str, Any]:
    return {
        "kind": m.kind,
        "name": m.name,
        "tables": m.tables,
        "pairs": m.pairs,
        "boards_per_round": m.boards_per_round,
        "directions": list(m.directions) if m.directions is not None else None,
        "phantom": m.phantom,
        "arrow_switch_rounds": list(m.arrow_switch_rounds),
        "rounds": [
            [{"table": e.table, "ns": e.ns, "ew": e.ew, "boards": list(e.boards)} for e in r]
            for r in m.rounds
        ],
    }


def _int(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise MovementError("shape", f"{what} must be a whole number, not {value!r}.")
    return value


def from_json(data: object) -> Movement:
    """The movement `data` describes; MovementError("shape") if it is malformed."""
    if not isinstance(data, dict):
        raise MovementError("shape", "A movement must be a JSON object.")
    unknown = sorted(str(k) for k in set(data) - _KEYS)
    if unknown:
        raise MovementError("shape", f"Unknown fields in the movement: {', '.join(unknown)}.")
    missing = [k for k in _REQUIRED if k not in data]
    if missing:
        raise MovementError("shape", f"Missing fields in the movement: {', '.join(missing)}.")
    kind = data["kind"]
    if kind not in KINDS:
        raise MovementError("shape", f"Unknown kind of movement: {kind!r}.")
    name = data["name"]
    if not isinstance(name, str):
        raise MovementError("shape", "The movement's name must be text.")
    directions = data.get("directions")
    if directions is not None and (
        not isinstance(directions, list) or any(d not in ("NS", "EW") for d in directions)
    ):
        raise MovementError("shape", 'Directions must be a list of "NS" and "EW".')
    phantom = data.get("phantom")
    if phantom is not None:
        phantom = _int(phantom, "The phantom")
    switched = data.get("arrow_switch_rounds", [])
    if not isinstance(switched, list):
        raise MovementError("shape", "Arrow-switch rounds must be a list of round numbers.")
    rounds_data = data["rounds"]
    if not isinstance(rounds_data, list):
        raise MovementError("shape", "Rounds must be a list of rounds.")
    rounds: list[tuple[Encounter, ...]] = []
    for number, round_data in enumerate(rounds_data, start=1):
        if not isinstance(round_data, list):
            raise MovementError("shape", f"Round {number} must be a list of tables.", round=number)
        encounters = []
        for e in round_data:
            if not isinstance(e, dict) or set(e) != _ENCOUNTER_KEYS:
                raise MovementError(
                    "shape",
                    f'Round {number}: each table is {{"table", "ns", "ew", "boards"}}.',
                    round=number,
                )
            boards = e["boards"]
            if not isinstance(boards, list):
                raise MovementError(
                    "shape", f"Round {number}: boards must be a list.", round=number
                )
            encounters.append(
                Encounter(
                    table=_int(e["table"], f"Round {number}: a table"),
                    ns=_int(e["ns"], f"Round {number}: a position"),
                    ew=_int(e["ew"], f"Round {number}: a position"),
                    boards=tuple(_int(b, f"Round {number}: a board") for b in boards),
                )
            )
        rounds.append(tuple(encounters))
    movement = Movement(
        kind=cast(Kind, kind),
        name=name,
        tables=_int(data["tables"], "Tables"),
        pairs=_int(data["pairs"], "Pairs"),
        boards_per_round=_int(data["boards_per_round"], "Boards per round"),
        rounds=tuple(rounds),
        directions=tuple(cast(list[Direction], directions)) if directions is not None else None,
        phantom=phantom,
        arrow_switch_rounds=tuple(_int(r, "An arrow-switch round") for r in switched),
    )
    malformed = shape_problems(movement)
    if malformed:
        raise malformed[0]
    return movement
