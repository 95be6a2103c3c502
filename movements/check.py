"""The rules every movement the product uses passes (SPEC 10, RULES 10), checked on any
movement, generated or given.

`problems` lists every rule broken (each place once); `verify` raises the first, in the
order of `errors.RULES`: size, shape, then the seating rules. A movement of the wrong shape
is not checked further (its other "problems" would be noise).

- "pair_twice_in_round": a position at two tables of a round, or NS and EW at one.
- "board_replayed": a position plays a board twice.
- "repeat_meeting": two positions meet in two rounds (the phantom too: two byes against
  one phantom are two meetings). A Mitchell's "no EW pair meets an NS pair twice" is this.
- "unequal_plays": every board of the movement is played the same number of times, the
  phantom's tables counted as played (the phantom is excepted by being seated like a pair).
- "mitchell_direction": two winners (`directions` given): every table's NS position is an
  NS one and its EW position an EW one, every round (so no position changes direction and
  no NS pair meets an NS pair).
- "howell_incomplete": a complete Howell (by default: kind "howell" with pairs − 1 rounds)
  where some two positions never meet.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

from .errors import RULES, MovementError
from .model import Movement

KINDS = ("mitchell", "howell", "given")
_SIZES = {"mitchell": range(3, 31), "howell": range(2, 9)}


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _shape(m: Movement) -> Iterator[MovementError]:
    """Malformed movements: what `from_json` / `from_asc` refuse before any rule."""
    if m.kind not in KINDS:
        yield MovementError("shape", f"Unknown kind of movement: {m.kind!r}.")
        return
    if not isinstance(m.name, str):
        yield MovementError("shape", "The movement's name must be text.")
    for field in ("tables", "pairs", "boards_per_round"):
        if not _whole(getattr(m, field)) or getattr(m, field) < 1:
            yield MovementError("shape", f"The movement's {field} must be a whole number ≥ 1.")
            return
    if m.pairs < 2:
        yield MovementError("shape", "A movement needs at least 2 positions.", pairs=m.pairs)
        return
    if m.directions is not None:
        if len(m.directions) != m.pairs or any(d not in ("NS", "EW") for d in m.directions):
            yield MovementError(
                "shape", "Directions must give NS or EW for every position.", pairs=m.pairs
            )
            return
        if m.arrow_switch_rounds:
            yield MovementError(
                "shape", "An arrow-switched movement has one winner: no fixed directions."
            )
    if m.phantom is not None and (not _whole(m.phantom) or not 1 <= m.phantom <= m.pairs):
        yield MovementError(
            "shape", f"The phantom must be a position 1 … {m.pairs}.", position=m.phantom
        )
    if not isinstance(m.rounds, tuple) or not m.rounds:
        yield MovementError("shape", "A movement needs at least one round.")
        return
    switched = m.arrow_switch_rounds
    if not all(_whole(r) and 1 <= r <= len(m.rounds) for r in switched) or list(switched) != sorted(
        set(switched)
    ):
        yield MovementError(
            "shape", "Arrow-switch rounds must be distinct rounds of the movement, ascending."
        )
    for number, round_ in enumerate(m.rounds, start=1):
        if not round_:
            yield MovementError("shape", f"Round {number} has no tables.", round=number)
            continue
        last_table = 0
        for e in round_:
            where: dict[str, Any] = {"round": number, "table": e.table}
            if not _whole(e.table) or not 1 <= e.table <= m.tables:
                yield MovementError(
                    "shape", f"Round {number}: no table {e.table!r} (1 … {m.tables}).", **where
                )
                continue
            if e.table <= last_table:
                yield MovementError(
                    "shape",
                    f"Round {number}: tables must be listed once each, in order (table {e.table}).",
                    **where,
                )
            last_table = e.table
            for seat in (e.ns, e.ew):
                if not _whole(seat) or not 1 <= seat <= m.pairs:
                    yield MovementError(
                        "shape",
                        f"Round {number}, table {e.table}: no position {seat!r} (1 … {m.pairs}).",
                        position=seat,
                        **where,
                    )
            boards = e.boards
            if not isinstance(boards, tuple) or not all(_whole(b) and b >= 1 for b in boards):
                yield MovementError(
                    "shape",
                    f"Round {number}, table {e.table}: boards must be numbers from 1.",
                    **where,
                )
            elif len(boards) != m.boards_per_round or list(boards) != sorted(set(boards)):
                yield MovementError(
                    "shape",
                    f"Round {number}, table {e.table}: {m.boards_per_round} different boards "
                    f"in ascending order, not {list(boards)}.",
                    **where,
                )


def _size(m: Movement) -> Iterator[MovementError]:
    sizes = _SIZES.get(m.kind)
    if sizes is not None and _whole(m.tables) and m.tables not in sizes:
        yield MovementError(
            "size",
            f"A {m.kind} has {sizes.start} to {sizes.stop - 1} tables, not {m.tables}.",
            tables=m.tables,
        )


def _seating(m: Movement, complete: bool | None) -> Iterator[MovementError]:
    played: dict[int, set[int]] = {p: set() for p in range(1, m.pairs + 1)}
    met: dict[frozenset[int], int] = {}
    plays: Counter[int] = Counter()
    for number, round_ in enumerate(m.rounds, start=1):
        seated: dict[int, int] = {}
        for e in round_:
            for seat in (e.ns, e.ew):
                if seat in seated or (seat == e.ns == e.ew and seat not in seated):
                    yield MovementError(
                        "pair_twice_in_round",
                        f"Round {number}: position {seat} is seated twice "
                        f"(tables {seated.get(seat, e.table)} and {e.table}).",
                        round=number,
                        table=e.table,
                        position=seat,
                    )
                    if e.ns == e.ew:
                        break
                seated[seat] = e.table
            if e.ns == e.ew:
                continue
            for seat in (e.ns, e.ew):
                for board in e.boards:
                    if board in played[seat]:
                        yield MovementError(
                            "board_replayed",
                            f"Round {number}, table {e.table}: position {seat} plays "
                            f"board {board} again.",
                            round=number,
                            table=e.table,
                            position=seat,
                            board=board,
                        )
                    played[seat].add(board)
            plays.update(e.boards)
            key = frozenset((e.ns, e.ew))
            if key in met:
                yield MovementError(
                    "repeat_meeting",
                    f"Round {number}, table {e.table}: positions {e.ns} and {e.ew} met "
                    f"already in round {met[key]}.",
                    round=number,
                    table=e.table,
                    position=e.ns,
                    opponent=e.ew,
                    first_round=met[key],
                )
            else:
                met[key] = number
    if plays and len(set(plays.values())) > 1:
        usual = Counter(plays.values()).most_common(1)[0][0]
        for board in sorted(plays):
            if plays[board] != usual:
                yield MovementError(
                    "unequal_plays",
                    f"Board {board} is played {plays[board]} times, the others {usual}.",
                    board=board,
                    plays=plays[board],
                    usual=usual,
                )
    if m.directions is not None:
        for number, round_ in enumerate(m.rounds, start=1):
            for e in round_:
                for seat, direction in ((e.ns, "NS"), (e.ew, "EW")):
                    if m.directions[seat - 1] != direction:
                        yield MovementError(
                            "mitchell_direction",
                            f"Round {number}, table {e.table}: position {seat} is "
                            f"{m.directions[seat - 1]} but sits {direction}.",
                            round=number,
                            table=e.table,
                            position=seat,
                        )
    if complete is None:
        complete = m.kind == "howell" and len(m.rounds) == m.pairs - 1
    if complete:
        for a in range(1, m.pairs + 1):
            for b in range(a + 1, m.pairs + 1):
                if frozenset((a, b)) not in met:
                    yield MovementError(
                        "howell_incomplete",
                        f"Positions {a} and {b} never meet.",
                        position=a,
                        opponent=b,
                    )


def shape_problems(m: Movement) -> list[MovementError]:
    return list(_shape(m))


def problems(movement: Movement, *, complete: bool | None = None) -> list[MovementError]:
    """Every rule `movement` breaks, in the order of `errors.RULES` (empty: it passes).
    `complete`: check that every two positions meet (default: a Howell of pairs − 1
    rounds)."""
    found = list(_size(movement)) + list(_shape(movement))
    if any(p.rule == "shape" for p in found):
        return found
    found += _seating(movement, complete)
    order = {rule: i for i, rule in enumerate(RULES)}
    return sorted(found, key=lambda p: order[p.rule])  # stable: in place order per rule


def verify(movement: Movement, *, complete: bool | None = None) -> None:
    """Raise MovementError with the first rule `movement` breaks; None if it passes."""
    found = problems(movement, complete=complete)
    if found:
        raise found[0]
