"""The `.ASC` movement file (the "movementfile standard" version 1.0 of pjms.nl, the format
the NBB's programs and the movement checker BALANS read), so an organiser can bring a
movement from the club scorer used today.

What the standard says (http://www.pjms.nl/movementfile_standard.html, read in the
library's stored copy; its list of separators did not survive there, so the reader of
pjms.nl's own movement checker BALANS, `readmove.c`, was read for it: any character that
is neither a letter nor a digit separates, and `#` starts a comment):

- The first line is the header, five numbers: contestants (pairs), tables, rounds, board
  groups, and Individual (0 for pairs, 1 for an individual movement).
- Then, per round (one line each, in the order table 1, table 2, …), one set
  {NS pair, EW pair, board group} per table. Pairs are numbered from 1; board groups are
  capital letters from A, or numbers from 1, one or the other throughout a file.
- An unused table is written 0 0 0 (a movement may have more tables than it needs).
- After a `#` the rest of the line is comment; empty lines are comment; no comment before
  the header.

How it maps onto a `Movement`: board group g is board set g, boards
(g − 1)·bpr + 1 … g·bpr (`boards_per_round`, not in the file, default 1); an unused
table is left out of its round; an odd number of contestants gets a phantom, the position
after the last, which takes the place of a 0 facing a pair (a bye). A file says nothing of
directions: a movement in which every pair keeps one direction and NS only meets EW is
read as a two-winner one (the tournament's `winners` setting decides); else one winner.

`to_asc` writes the standard form (letters when there are at most 26 groups) and, in
comment lines beginning `#:` (which other programs ignore), what the standard cannot say:
the name, the kind, boards per round, directions, the phantom, the arrow-switched rounds
and each group's boards; `from_asc` reads them back, so our files round-trip exactly.
"""

from __future__ import annotations

import re
import string
from typing import cast

from .check import KINDS, shape_problems
from .errors import MovementError
from .model import Direction, Encounter, Kind, Movement

_TOKEN = re.compile(r"[A-Za-z]+|\d+")


def _group_names(count: int) -> list[str]:
    if count <= 26:
        return list(string.ascii_uppercase[:count])
    return [str(g) for g in range(1, count + 1)]


def to_asc(m: Movement) -> str:
    sets: list[tuple[int, ...]] = sorted({e.boards for r in m.rounds for e in r})
    names = _group_names(len(sets))
    group = {boards: names[i] for i, boards in enumerate(sets)}
    width = len(str(m.pairs))
    lines = [f"{m.pairs} {m.tables} {m.round_count} {len(sets)} 0"]
    lines.append(f"#: name={m.name}")
    lines.append(f"#: kind={m.kind}")
    lines.append(f"#: boards_per_round={m.boards_per_round}")
    if m.directions is not None:
        lines.append(f"#: directions={' '.join(m.directions)}")
    if m.phantom is not None:
        lines.append(f"#: phantom={m.phantom}")
    if m.arrow_switch_rounds:
        lines.append(f"#: arrow_switch_rounds={' '.join(map(str, m.arrow_switch_rounds))}")
    for boards in sets:
        lines.append(f"#: set {group[boards]}={' '.join(map(str, boards))}")
    for number, round_ in enumerate(m.rounds, start=1):
        at = {e.table: e for e in round_}
        cells = []
        for table in range(1, m.tables + 1):
            e = at.get(table)
            if e is None:
                cells.append(f"{0:>{width}}-{0:>{width}} 0")
            else:
                cells.append(f"{e.ns:>{width}}-{e.ew:>{width}} {group[e.boards]}")
        lines.append("  ".join(cells) + f"  # round {number}")
    return "\n".join(lines) + "\n"


def _number(token: str, what: str) -> int:
    if not token.isdigit():
        raise MovementError("shape", f".ASC: {what} must be a number, not {token!r}.")
    return int(token)


def from_asc(text: str, *, boards_per_round: int = 1, name: str | None = None) -> Movement:
    """The movement an `.ASC` file describes; MovementError("shape") if it is malformed.
    `boards_per_round`: the boards of one group (the file does not say; `#:` lines of our
    own files do)."""
    if not isinstance(text, str):
        raise MovementError("shape", ".ASC: a movement file is text.")
    meta: dict[str, str] = {}
    set_boards: dict[str, tuple[int, ...]] = {}
    header: list[str] | None = None
    tokens: list[tuple[str, int]] = []  # (token, line number)
    for line_no, raw in enumerate(text.splitlines(), start=1):
        body, hash_, comment = raw.partition("#")
        if header is None:
            if not body.strip():
                if hash_:
                    raise MovementError(
                        "shape", ".ASC: no comment is allowed before the header.", line=line_no
                    )
                continue
            header = _TOKEN.findall(body)
        else:
            tokens.extend((t, line_no) for t in _TOKEN.findall(body))
        if hash_ and comment.startswith(":"):
            key, _, value = comment[1:].strip().partition("=")
            if key.startswith("set "):
                try:
                    set_boards[key[4:].strip()] = tuple(int(b) for b in value.split())
                except ValueError:
                    raise MovementError(
                        "shape", f".ASC line {line_no}: a set's boards are numbers."
                    ) from None
            else:
                meta[key.strip()] = value.strip()
    if header is None:
        raise MovementError("shape", ".ASC: the file is empty (no header).")
    flags = [t for t in header if not t.isdigit()]
    numbers = [t for t in header if t.isdigit()]
    if any(f not in ("g",) for f in flags):
        raise MovementError(
            "shape",
            f".ASC: the header has letters ({' '.join(flags)}); only a movement written out "
            "in full is read.",
        )
    if len(numbers) != 5:
        raise MovementError(
            "shape",
            ".ASC: the header is five numbers: pairs, tables, rounds, board groups, 0.",
        )
    contestants, tables, rounds, groups, individual = (int(n) for n in numbers)
    if individual != 0:
        raise MovementError("shape", ".ASC: an individual movement is not a pairs movement.")
    if contestants < 2 or tables < 1 or rounds < 1 or groups < 1:
        raise MovementError(
            "shape", ".ASC: the header needs at least 2 pairs, 1 table, 1 round, 1 group."
        )
    if "boards_per_round" in meta:
        boards_per_round = _number(meta["boards_per_round"], "boards per round")
    if len(tokens) != 3 * tables * rounds:
        raise MovementError(
            "shape",
            f".ASC: {rounds} rounds of {tables} tables need {3 * tables * rounds} entries "
            f"(NS pair, EW pair, board group), not {len(tokens)}.",
        )
    letters = None  # board groups as letters or as numbers, one or the other
    phantom: int | None = None
    pairs = contestants
    if "phantom" in meta:
        phantom = _number(meta["phantom"], "the phantom")
    elif contestants % 2 == 1:
        pairs, phantom = contestants + 1, contestants + 1
    all_rounds: list[tuple[Encounter, ...]] = []
    k = 0
    for number in range(1, rounds + 1):
        encounters = []
        for table in range(1, tables + 1):
            (ns_t, line_no), (ew_t, _), (group_t, _) = tokens[k : k + 3]
            k += 3
            where = f".ASC line {line_no}, round {number}, table {table}"
            ns = _number(ns_t, f"{where}: the NS pair")
            ew = _number(ew_t, f"{where}: the EW pair")
            if ns == ew == 0 and group_t == "0":
                continue  # an unused table
            if group_t.isdigit():
                if letters is True:
                    raise MovementError("shape", f"{where}: board groups are letters here.")
                letters, group = False, int(group_t)
            else:
                if letters is False or len(group_t) != 1 or not group_t.isupper():
                    raise MovementError(
                        "shape", f"{where}: not a board group: {group_t!r}.", round=number
                    )
                letters, group = True, ord(group_t) - ord("A") + 1
            if not 1 <= group <= groups:
                raise MovementError(
                    "shape",
                    f"{where}: board group {group_t} (the header says {groups}).",
                    round=number,
                    table=table,
                )
            if 0 in (ns, ew):
                if phantom is None or ns == ew:
                    raise MovementError(
                        "shape",
                        f"{where}: pair 0 (only an unused table is 0 0 0).",
                        round=number,
                        table=table,
                    )
                ns, ew = ns or phantom, ew or phantom
            boards = set_boards.get(group_t)
            if boards is None:
                first = (group - 1) * boards_per_round + 1
                boards = tuple(range(first, first + boards_per_round))
            encounters.append(Encounter(table, ns, ew, boards))
        all_rounds.append(tuple(encounters))
    kind = meta.get("kind", "given")
    if kind not in KINDS:
        raise MovementError("shape", f".ASC: unknown kind {kind!r}.")
    directions: tuple[Direction, ...] | None = None
    if "directions" in meta:
        given = meta["directions"].split()
        if any(d not in ("NS", "EW") for d in given):
            raise MovementError("shape", ".ASC: directions are NS and EW.")
        directions = tuple(cast(list[Direction], given))
    elif "kind" not in meta:
        directions = _fixed_directions(pairs, all_rounds)
    switched = tuple(
        _number(r, "an arrow-switch round") for r in meta.get("arrow_switch_rounds", "").split()
    )
    movement = Movement(
        kind=cast(Kind, kind),
        name=name or meta.get("name") or f"Movement of {contestants} pairs, {rounds} rounds",
        tables=tables,
        pairs=pairs,
        boards_per_round=boards_per_round,
        rounds=tuple(all_rounds),
        directions=directions,
        phantom=phantom,
        arrow_switch_rounds=switched,
    )
    malformed = shape_problems(movement)
    if malformed:
        raise malformed[0]
    return movement


def _fixed_directions(
    pairs: int, rounds: list[tuple[Encounter, ...]]
) -> tuple[Direction, ...] | None:
    """Each position's one direction, if every position keeps one all through; else None."""
    seen: dict[int, Direction] = {}
    for round_ in rounds:
        for e in round_:
            for seat, direction in ((e.ns, "NS"), (e.ew, "EW")):
                if seen.setdefault(seat, cast(Direction, direction)) != direction:
                    return None
    if set(seen) != set(range(1, pairs + 1)):
        return None  # out of range: the shape check says so
    return tuple(seen[p] for p in range(1, pairs + 1))
