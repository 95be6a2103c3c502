"""A movement read back from who played which board against whom (the travellers of a
USEBIO file, or any scorer's results): so a real event can be re-run through the product.

`from_travellers(lines)`: each line is (board number, NS pair, EW pair) as the scorer wrote
them: "3NS" / "3EW" in a Mitchell (pair numbers per direction), "3" in a Howell.

- The boards two pairs played against each other are one table's board set in one round.
- A Mitchell: positions 1 … T are 1NS … TNS, T + 1 … 2T are 1EW … TEW (T the highest pair
  number); NS pair k sits at table k. A Howell: position k is pair k; tables are numbered
  within a round by their boards.
- One position missing (an odd number of pairs) is the phantom (pairs numbered 1 … n with n
  odd: n + 1): each pair with one meeting fewer than the others meets it (its bye); if all
  pairs have as many meetings, each had one bye (a complete Howell's phantom).
- The meetings are split into rounds so that no position plays twice in a round. A
  Mitchell whose sets move down one table a round, or whose EW pairs move up one, gets
  its own rounds back (odd, skip and relay-and-share Mitchells). Else a search (meeting
  by meeting, the most constrained first, position 1's meetings fixing the order of the
  rounds) looks first for rounds in which no board set is at two tables at once, then
  (when each set's meetings can form a round of their own, as in any complete Howell and
  the shared-set Howells) for rounds in which each set is played everywhere, then for any
  rounds; each try is cut off after a fixed number of steps. The rounds are numbered by
  the boards position 1 plays.
- A phantom's table gets, for each bye, a set the pair never played, so that every set
  is played the same number of times (a bipartite matching).

The result passes `verify`; a set of lines no movement explains raises MovementError.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable

from .check import problems
from .errors import MovementError
from .model import Direction, Encounter, Kind, Movement

_MITCHELL = re.compile(r"^(\d+)\s*(NS|EW)$", re.IGNORECASE)
_STEP_LIMIT = 30_000  # per way of dividing tried (a few seconds at worst)


def _positions(labels: set[str]) -> tuple[dict[str, int], int, bool]:
    """Label → position, the number of positions, and whether the labels are a Mitchell's."""
    if labels and all(_MITCHELL.match(label) for label in labels):
        parsed = {label: _MITCHELL.match(label) for label in labels}
        tables = max(int(m.group(1)) for m in parsed.values() if m)
        out = {}
        for label, m in parsed.items():
            assert m is not None
            number, direction = int(m.group(1)), m.group(2).upper()
            if number < 1:
                raise MovementError("shape", f"Travellers: no pair {label!r}.")
            out[label] = number if direction == "NS" else tables + number
        return out, 2 * tables, True
    if labels and all(label.isdigit() and int(label) >= 1 for label in labels):
        out = {label: int(label) for label in labels}
        return out, max(out.values()), False
    odd = sorted(label for label in labels if not (label.isdigit() or _MITCHELL.match(label)))
    raise MovementError(
        "shape",
        "Travellers: pair numbers are all like 3NS / 3EW (a Mitchell) or all numbers "
        f"(a Howell){': not ' + ', '.join(map(repr, odd[:3])) if odd else ''}.",
    )


def from_travellers(lines: Iterable[tuple[str, str, str]]) -> Movement:
    rows = []
    for line in lines:
        try:
            board_text, ns_label, ew_label = (str(x).strip() for x in line)
        except ValueError:
            raise MovementError("shape", "Travellers: each line is (board, NS, EW).") from None
        if not board_text.isdigit() or int(board_text) < 1:
            raise MovementError("shape", f"Travellers: not a board number: {board_text!r}.")
        rows.append((int(board_text), ns_label.upper(), ew_label.upper()))
    if not rows:
        raise MovementError("shape", "Travellers: no lines.")
    position, pairs, mitchell = _positions({x for _, ns, ew in rows for x in (ns, ew)})

    # Meetings: the two positions, who sat NS, the boards.
    meetings: dict[frozenset[int], tuple[int, int, set[int]]] = {}
    for board, ns_label, ew_label in rows:
        ns, ew = position[ns_label], position[ew_label]
        if ns == ew:
            raise MovementError("shape", f"Travellers: board {board}: {ns_label} against itself.")
        key = frozenset((ns, ew))
        seated = meetings.setdefault(key, (ns, ew, set()))
        if (seated[0], seated[1]) != (ns, ew):
            raise MovementError(
                "shape",
                f"Travellers: {ns_label} and {ew_label} met in both directions.",
                board=board,
            )
        if board in seated[2]:
            raise MovementError(
                "board_replayed",
                f"Travellers: board {board} between {ns_label} and {ew_label} twice.",
                board=board,
            )
        seated[2].add(board)
    sizes = {len(b) for _, _, b in meetings.values()}
    if len(sizes) != 1:
        raise MovementError(
            "shape",
            "Travellers: two pairs do not always play the same number of boards together "
            f"({', '.join(map(str, sorted(sizes)))}).",
        )
    boards_per_round = sizes.pop()
    encounters = [(ns, ew, tuple(sorted(b))) for ns, ew, b in meetings.values()]

    # The phantom: one position no line names.
    present = {p for ns, ew, _ in encounters for p in (ns, ew)}
    missing = sorted(set(range(1, pairs + 1)) - present)
    if len(missing) > 1:
        raise MovementError(
            "shape",
            f"Travellers: {len(missing)} pair numbers never play; a movement has at most one "
            "phantom.",
        )
    phantom = missing[0] if missing else None
    if phantom is None and len(present) % 2 == 1:
        pairs += 1  # an odd number of pairs numbered 1 … n: the phantom is n + 1
        phantom = pairs
    degree: dict[int, int] = defaultdict(int)
    for ns, ew, _ in encounters:
        degree[ns] += 1
        degree[ew] += 1
    rounds = max(degree.values())
    if phantom is not None and len({degree[p] for p in present}) == 1:
        # Nobody short of a round: every pair had one bye (a complete Howell's phantom).
        real = len(present)
        if real < 3 or (real * rounds) % (real - 1) or real * rounds // (real - 1) != rounds + 1:
            raise MovementError(
                "shape", "Travellers: a pair number is missing but nobody has a bye."
            )
        rounds += 1
    if phantom is not None:
        byes = []
        for p in sorted(present):
            if degree[p] == rounds:
                continue
            if degree[p] != rounds - 1:
                raise MovementError(
                    "shape",
                    f"Travellers: position {p} plays {degree[p]} rounds, the others {rounds}.",
                    position=p,
                )
            byes.append(p)
        for p, boards in zip(byes, _bye_sets(encounters, byes), strict=True):
            ns, ew = (p, phantom) if not mitchell or p <= pairs // 2 else (phantom, p)
            encounters.append((ns, ew, boards))
            degree[p] += 1
            degree[phantom] += 1
    if any(degree[p] != rounds for p in range(1, pairs + 1)):
        raise MovementError(
            "shape", "Travellers: the pairs do not all play the same number of rounds."
        )

    colour = None
    if mitchell:
        colour = _mitchell_rounds(encounters, rounds, by_boards=True) or _mitchell_rounds(
            encounters, rounds, by_boards=False
        )
    colour = colour or _rounds_of(encounters, rounds, pairs)
    by_round: list[list[tuple[int, int, tuple[int, ...]]]] = [[] for _ in range(rounds)]
    for e, r in zip(encounters, colour, strict=True):
        by_round[r].append(e)

    def first_board_of_one(round_: list[tuple[int, int, tuple[int, ...]]]) -> int:
        return min(b[0] for ns, ew, b in round_ if 1 in (ns, ew))

    by_round.sort(key=first_board_of_one)
    tables = pairs // 2
    movement_rounds = []
    for round_ in by_round:
        placed: list[tuple[int, int, int, tuple[int, ...]]]
        if mitchell:
            placed = sorted((min(ns, ew), ns, ew, b) for ns, ew, b in round_)
        else:
            in_order = sorted(round_, key=lambda e: e[2])
            placed = [(i + 1, ns, ew, b) for i, (ns, ew, b) in enumerate(in_order)]
        movement_rounds.append(tuple(Encounter(*table) for table in placed))

    directions: tuple[Direction, ...] | None = None
    kind: Kind = "given"
    if mitchell:
        if all(ns <= tables < ew for ns, ew, _ in encounters):
            directions = tuple(_direction(p <= tables) for p in range(1, pairs + 1))
        if 3 <= tables <= 30:
            kind = "mitchell"
    elif 2 <= tables <= 8 and rounds == pairs - 1:
        kind = "howell"
    movement = Movement(
        kind=kind,
        name=f"{'Mitchell' if mitchell else 'Howell'} of {tables} tables, {rounds} rounds "
        "(from the travellers)",
        tables=tables,
        pairs=pairs,
        boards_per_round=boards_per_round,
        rounds=tuple(movement_rounds),
        directions=directions,
        phantom=phantom,
    )
    found = problems(movement)
    if found:
        raise found[0]
    return movement


def _bye_sets(
    encounters: list[tuple[int, int, tuple[int, ...]]], byes: list[int]
) -> list[tuple[int, ...]]:
    """The board set at each bye's (phantom's) table: one the pair never played, each set
    once at most (the phantom plays no board twice either), so that every set ends up
    played the same number of times, the phantom's tables counted. A bipartite matching
    (augmenting paths) of the byes to the sets short of one play."""
    plays: dict[tuple[int, ...], int] = defaultdict(int)
    played: dict[int, set[tuple[int, ...]]] = defaultdict(set)
    for ns, ew, b in encounters:
        plays[b] += 1
        played[ns].add(b)
        played[ew].add(b)
    sets = sorted(plays)
    total = sum(plays.values()) + len(byes)
    target = total // len(sets)
    short = [b for b in sets if plays[b] < target]
    if total % len(sets) or len(short) != len(byes) or any(plays[b] < target - 1 for b in sets):
        raise MovementError(
            "unequal_plays", "Travellers: the boards are not all played the same number of times."
        )
    holder: dict[tuple[int, ...], int] = {}  # set -> the bye (index) that takes it

    def augment(i: int, seen: set[tuple[int, ...]]) -> bool:
        for b in short:
            if b in played[byes[i]] or b in seen:
                continue
            seen.add(b)
            if b not in holder or augment(holder[b], seen):
                holder[b] = i
                return True
        return False

    for i in range(len(byes)):
        if not augment(i, set()):
            raise MovementError(
                "board_replayed",
                f"Travellers: no board set is left for position {byes[i]}'s bye.",
                position=byes[i],
            )
    taken = {i: b for b, i in holder.items()}
    return [taken[i] for i in range(len(byes))]


def _direction(north_south: bool) -> Direction:
    return "NS" if north_south else "EW"


def _mitchell_rounds(
    encounters: list[tuple[int, int, tuple[int, ...]]], rounds: int, *, by_boards: bool
) -> list[int] | None:
    """A Mitchell's own rounds, if the travellers follow one. `by_boards`: set s is at NS
    pair t's table in round r when s = t + r − 1 (mod the number of sets, the sets numbered
    by their boards; a skip Mitchell's sets move so too: T sets, T − 1 rounds). Else by the
    EW pairs: EW pair e is at table t in round r when t = e + r − 1 (mod T; a relay-and-
    share Mitchell's EW pairs move so)."""
    tables = max(min(ns, ew) for ns, ew, _ in encounters)
    if by_boards:
        sets = sorted({b for _, _, b in encounters})
        index = {b: i for i, b in enumerate(sets)}
        offset = [(index[b] - min(ns, ew) + 1) % len(sets) for ns, ew, b in encounters]
    else:
        offset = [(min(ns, ew) - (max(ns, ew) - tables)) % tables for ns, ew, _ in encounters]
    used = sorted(set(offset))
    if len(used) != rounds:
        return None
    colour = [used.index(o) for o in offset]
    seen: set[tuple[int, int]] = set()
    for (ns, ew, _), r in zip(encounters, colour, strict=True):
        if (ns, r) in seen or (ew, r) in seen:
            return None
        seen.update(((ns, r), (ew, r)))
    return colour


def _rounds_of(
    encounters: list[tuple[int, int, tuple[int, ...]]], rounds: int, pairs: int
) -> list[int]:
    """A round for each meeting: no position twice in a round (every position plays each
    round, so each round is a perfect matching), and, if the data allow, no board set twice
    in a round; else the tables of a round share one set (the 2- and 3-table Howells)."""
    sets = sorted({b for _, _, b in encounters})
    plays = {s: sum(1 for _, _, b in encounters if b == s) for s in sets}
    modes = []
    if all(n <= rounds for n in plays.values()):
        modes.append("apart")
    if all(n == len(encounters) // rounds for n in plays.values()) and len(sets) == rounds:
        modes.append("together")
    modes.append("free")
    for mode in modes:
        found = _search(encounters, rounds, pairs, mode)
        if found is not None:
            return found
    raise MovementError("shape", "Travellers: no division of the meetings into rounds fits.")


def _search(
    encounters: list[tuple[int, int, tuple[int, ...]]], rounds: int, pairs: int, mode: str
) -> list[int] | None:
    busy = [[False] * rounds for _ in range(pairs + 1)]  # busy[position][round]
    set_round: dict[tuple[tuple[int, ...], int], bool] = {}
    set_at: dict[tuple[int, ...], int] = {}  # mode "together": the set's one round
    colour = [-1] * len(encounters)
    steps = 0

    def options(i: int) -> list[int]:
        ns, ew, b = encounters[i]
        out = []
        for r in range(rounds):
            if busy[ns][r] or busy[ew][r]:
                continue
            if mode == "apart" and set_round.get((b, r)):
                continue
            if mode == "together" and set_at.get(b, r) != r:
                continue
            out.append(r)
        return out

    def place(i: int, r: int, on: bool) -> None:
        ns, ew, b = encounters[i]
        busy[ns][r] = busy[ew][r] = on
        set_round[(b, r)] = on
        colour[i] = r if on else -1

    def rec(left: int) -> bool:
        nonlocal steps
        steps += 1
        if steps > _STEP_LIMIT:
            return False
        if left == 0:
            return True
        best, best_options = -1, list(range(rounds + 1))
        for i in range(len(encounters)):
            if colour[i] < 0:
                o = options(i)
                if len(o) < len(best_options):
                    best, best_options = i, o
                    if len(o) <= 1:
                        break
        if not best_options:
            return False
        b = encounters[best][2]
        for r in best_options:
            new_set = mode == "together" and b not in set_at
            if new_set:
                set_at[b] = r
            place(best, r, True)
            if rec(left - 1):
                return True
            place(best, r, False)
            if new_set:
                del set_at[b]
        return False

    # Rounds are interchangeable: put position 1's meetings in rounds 1, 2, … in turn.
    first = [i for i, (ns, ew, _) in enumerate(encounters) if 1 in (ns, ew)]
    for r, i in enumerate(sorted(first, key=lambda i: encounters[i][2])):
        if r not in options(i):
            return None
        if mode == "together":
            set_at.setdefault(encounters[i][2], r)
        place(i, r, True)
    return list(colour) if rec(len(encounters) - len(first)) else None
