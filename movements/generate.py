"""The movements the product generates (SPEC 10, RULES 10).

Mitchell, T tables (3 … 30): NS pair t stays at table t; EW pair e starts at table e and
moves up one table a round; the board sets start at the table of their number and move
down one table a round, so set s is played at table t in round r when
s ≡ t + r − 1 (mod T).

- Odd T: T rounds; each EW pair meets each NS pair once and plays each set once.
- Even T, `even="skip"`: after T/2 rounds the EW pairs skip a table (move up two), so no
  EW pair meets a set again; T − 1 rounds (a T-th would repeat a meeting).
- Even T, `even="relay"`: a relay stand (a bye stand) between tables T/2 and T/2 + 1, and
  tables 1 and T share a set; the sets travel 1 → shared, 2, …, T/2, relay, T/2 + 1, …,
  T − 1 (down one place a round), and the EW pairs move as in an odd Mitchell; T rounds,
  all of them (cut short, the shared set would be played more often than the relay's).
- Arrow-switch: in about one round in eight (at least one: the last, then spread evenly)
  every table swaps NS and EW, so the two fields merge and the Mitchell has one winner.

Howell, T tables (2 … 8), 2T pairs: a cyclic Howell (see `_Howell`): pair 2T stays at
table 1 and meets pair r in round r; the others move round a ring of 2T − 1 places, and the
2T − 1 board sets rotate with them so that every pair plays every set once and no set is at
two tables in a round. The seats' directions are chosen for the best balance: Schiereck's
Qf (see `balance`) is 100 for 2, 4, 6 and 8 tables, 83 for 5 and 91 for 7. For 2 and 3
tables no such rotation of sets exists (every 1-factorisation of K4 and K6 is the circle's,
and an exhaustive search finds none); as in the published 2- and 3-table Howells the tables
share a set each round: set r in round r (Qf 100 and 60, the best any board order gives
for 3 tables). A partial Howell seats the first `rounds` rounds of the complete one; its
tables share one set a round (set r in round r: played online, copies cost nothing; face to
face the set is duplicated or shared), since the complete Howell's rotation cut short
plays some sets more often than others, and no rotation of `rounds` sets exists for most
sizes (an exhaustive search found none for 2 to 4 tables).

An odd number of pairs (`for_pairs`): the last position is the phantom (a Mitchell's TEW;
a Howell's stationary pair 2T, so table 1 is the bye table).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from .errors import MovementError
from .model import Direction, Encounter, Movement

MITCHELL_TABLES = range(3, 31)
HOWELL_TABLES = range(2, 9)


@dataclass(frozen=True)
class _Howell:
    """A cyclic Howell of T tables on the ring Z_(2T − 1), the stationary pair 2T aside.

    In round r (0-based) table 1 seats pair 2T against ring place r, and table i + 1 the
    ring places r + a_i and r + b_i, where the differences ±(a_i − b_i) cover every nonzero
    residue once (a "starter"), so every two pairs meet exactly once. Table i + 1 plays
    board set r + offsets[i] (mod 2T − 1): the offsets make {offsets[0]} ∪
    {offsets[i] − a_i, offsets[i] − b_i} a complete residue system, so each pair plays each
    set once, and are distinct, so no set is at two tables at once; `offsets` None: all
    tables share set r. `flip[i]`: table i + 1 seats its pairs the other way round
    (chosen for the best balance, by trying every choice)."""

    starter: tuple[tuple[int, int], ...]
    offsets: tuple[int, ...] | None
    flip: tuple[bool, ...]


def _patterned(tables: int) -> tuple[tuple[int, int], ...]:
    ring = 2 * tables - 1
    return tuple((i, ring - i) for i in range(1, tables))


_HOWELLS: dict[int, _Howell] = {
    2: _Howell(_patterned(2), None, (False, False)),
    3: _Howell(_patterned(3), None, (False, False, False)),
    4: _Howell(_patterned(4), (0, 2, 4, 1), (False, False, False, True)),
    5: _Howell(((1, 2), (3, 7), (4, 6), (5, 8)), (0, 5, 4, 2, 7), (False,) * 3 + (True, False)),
    6: _Howell(_patterned(6), (0, 3, 5, 9, 1, 4), (False, False, True, False, False, False)),
    7: _Howell(_patterned(7), (0, 3, 5, 9, 1, 6, 2), (False,) * 4 + (True, False, False)),
    8: _Howell(_patterned(8), (0, 2, 7, 11, 6, 1, 13, 5), (False, True) * 4),
}


def _set(number: int, boards_per_round: int) -> tuple[int, ...]:
    """Board set `number` (1-based) as its board numbers."""
    first = (number - 1) * boards_per_round + 1
    return tuple(range(first, first + boards_per_round))


def _check_boards_per_round(boards_per_round: int) -> None:
    if isinstance(boards_per_round, bool) or not isinstance(boards_per_round, int):
        raise MovementError("shape", "Boards per round must be a whole number.")
    if boards_per_round < 1:
        raise MovementError(
            "shape", "Boards per round must be at least 1.", boards_per_round=boards_per_round
        )


def _direction(north_south: bool) -> Direction:
    return "NS" if north_south else "EW"


def _rounds_wanted(rounds: int | None, full: int, what: str) -> int:
    if rounds is None:
        return full
    if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1:
        raise MovementError("size", "The number of rounds must be a whole number, at least 1.")
    if rounds > full:
        raise MovementError(
            "size", f"A {what} has {full} rounds, not {rounds}.", rounds=rounds, available=full
        )
    return rounds


def arrow_switch_rounds(rounds: int) -> tuple[int, ...]:
    """The rounds switched in an arrow-switch Mitchell of `rounds` rounds: about one in
    eight, at least one, the last of each stretch (so the last round is always one)."""
    count = max(1, round(rounds / 8))
    return tuple(math.ceil((k + 1) * rounds / count) for k in range(count))


def mitchell(
    tables: int,
    boards_per_round: int,
    *,
    rounds: int | None = None,
    arrow_switch: bool = False,
    even: Literal["skip", "relay"] = "skip",
) -> Movement:
    """A Mitchell of `tables` tables (3 … 30), see the module's docstring."""
    if isinstance(tables, bool) or not isinstance(tables, int) or tables not in MITCHELL_TABLES:
        raise MovementError("size", f"A Mitchell has 3 to 30 tables, not {tables}.", tables=tables)
    if even not in ("skip", "relay"):
        raise MovementError("shape", f"An even Mitchell is a skip or a relay, not {even!r}.")
    _check_boards_per_round(boards_per_round)
    t_count = tables
    odd = t_count % 2 == 1
    skip = not odd and even == "skip"
    full = t_count - 1 if skip else t_count
    variant = "" if odd else f", {even}"
    count = _rounds_wanted(rounds, full, f"Mitchell of {t_count} tables{variant}")
    if not odd and not skip and count < full:
        # Cut short, the shared set is played twice as often as the relay's (unequal plays).
        raise MovementError(
            "size",
            f"A relay-and-share Mitchell of {t_count} tables is played in full "
            f"({full} rounds), not {count}; a skip Mitchell can be cut short.",
            rounds=count,
            available=full,
        )

    if odd or skip:
        ring = list(range(t_count))  # table t (0-based) is board place t
    else:
        half = t_count // 2
        # Places 0 … T − 1: 0 the shared place (tables 1 and T), the relay at place T/2.
        ring = [0] + list(range(1, half)) + list(range(half + 1, t_count)) + [0]
    places = t_count

    switched = arrow_switch_rounds(count) if arrow_switch else ()
    all_rounds: list[tuple[Encounter, ...]] = []
    for r in range(count):
        moved = r + (1 if skip and r >= t_count // 2 else 0)  # tables each EW pair has moved
        encounters = []
        for t in range(t_count):
            ns = t + 1
            ew = t_count + (t - moved) % t_count + 1
            board_set = (ring[t] + r) % places + 1
            if r + 1 in switched:
                ns, ew = ew, ns
            encounters.append(Encounter(t + 1, ns, ew, _set(board_set, boards_per_round)))
        all_rounds.append(tuple(encounters))

    fields = tuple(_direction(p <= t_count) for p in range(1, 2 * t_count + 1))
    directions = None if arrow_switch else fields
    name = f"Mitchell {t_count} tables"
    if not odd:
        name += " (skip)" if skip else " (relay and share)"
    if arrow_switch:
        name += ", arrow-switch"
    if count < full:
        name += f" ({count} of {full} rounds)"
    return Movement(
        kind="mitchell",
        name=name,
        tables=t_count,
        pairs=2 * t_count,
        boards_per_round=boards_per_round,
        rounds=tuple(all_rounds),
        directions=directions,
        arrow_switch_rounds=switched,
    )


def howell(tables: int, boards_per_round: int, *, rounds: int | None = None) -> Movement:
    """A Howell of `tables` tables (2 … 8): complete (2T − 1 rounds) or its first `rounds`."""
    if isinstance(tables, bool) or not isinstance(tables, int) or tables not in HOWELL_TABLES:
        raise MovementError("size", f"A Howell has 2 to 8 tables, not {tables}.", tables=tables)
    _check_boards_per_round(boards_per_round)
    t_count = tables
    ring = 2 * t_count - 1
    count = _rounds_wanted(rounds, ring, f"Howell of {t_count} tables")
    plan = _HOWELLS[t_count]
    all_rounds: list[tuple[Encounter, ...]] = []
    for r in range(count):
        encounters = []
        for i in range(t_count):
            if i == 0:
                ns, ew = 2 * t_count, r + 1
            else:
                a, b = plan.starter[i - 1]
                ns, ew = (r + a) % ring + 1, (r + b) % ring + 1
            if plan.flip[i]:
                ns, ew = ew, ns
            if plan.offsets and count == ring:
                board_set = (r + plan.offsets[i]) % ring + 1
            else:
                board_set = r + 1  # the tables share the round's set (see the docstring)
            encounters.append(Encounter(i + 1, ns, ew, _set(board_set, boards_per_round)))
        all_rounds.append(tuple(encounters))
    name = f"Howell {t_count} tables ({count} rounds)"
    if count < ring:
        name = f"Howell {t_count} tables ({count} of {ring} rounds)"
    return Movement(
        kind="howell",
        name=name,
        tables=t_count,
        pairs=2 * t_count,
        boards_per_round=boards_per_round,
        rounds=tuple(all_rounds),
    )


def for_pairs(
    pairs: int,
    *,
    kind: str,
    boards_per_round: int,
    rounds: int | None = None,
    arrow_switch: bool = False,
    even: Literal["skip", "relay"] = "skip",
) -> Movement:
    """The movement of `kind` ("mitchell" | "howell") for `pairs` pairs: ceil(pairs / 2)
    tables, the last position the phantom when `pairs` is odd; `rounds` None is the full
    movement, fewer its first `rounds` (MovementError "size" if it has fewer)."""
    if isinstance(pairs, bool) or not isinstance(pairs, int) or pairs < 1:
        raise MovementError("size", f"Not a number of pairs: {pairs!r}.", pairs=pairs)
    tables = (pairs + 1) // 2
    if kind == "mitchell":
        if tables not in MITCHELL_TABLES:
            raise MovementError(
                "size", f"A Mitchell is for 5 to 60 pairs, not {pairs}.", pairs=pairs
            )
        movement = mitchell(
            tables, boards_per_round, rounds=rounds, arrow_switch=arrow_switch, even=even
        )
    elif kind == "howell":
        if tables not in HOWELL_TABLES:
            raise MovementError("size", f"A Howell is for 3 to 16 pairs, not {pairs}.", pairs=pairs)
        movement = howell(tables, boards_per_round, rounds=rounds)
    else:
        raise MovementError("shape", f"No such movement: {kind!r}.", kind=kind)
    if pairs % 2 == 1:
        return Movement(
            kind=movement.kind,
            name=f"{movement.name}, {pairs} pairs",
            tables=movement.tables,
            pairs=movement.pairs,
            boards_per_round=movement.boards_per_round,
            rounds=movement.rounds,
            directions=movement.directions,
            phantom=movement.pairs,
            arrow_switch_rounds=movement.arrow_switch_rounds,
        )
    return movement
