"""Movements built by the textbook rules (not by `movements`' generators), and a
tournament seated by one as the movement format leaves it at round 1: the pages are
checked against a movement known independently of the code that makes them."""

from __future__ import annotations

import movements
from movements import Encounter, Movement


def mitchell(tables: int, boards_per_round: int, *, phantom: int | None = None) -> Movement:
    """The two-winner Mitchell for an odd number of tables: NS pairs stay, EW pairs move
    up one table a round, the board sets down one."""
    rounds = []
    for r in range(tables):
        encounters = []
        for t in range(1, tables + 1):
            ew = (t - 1 - r) % tables + 1  # EW pair j sits at table j + r
            board_set = (t - 1 + r) % tables  # the set at table t + 1 last round
            first = board_set * boards_per_round + 1
            encounters.append(
                Encounter(t, t, tables + ew, tuple(range(first, first + boards_per_round)))
            )
        rounds.append(tuple(encounters))
    return Movement(
        kind="mitchell",
        name=f"Mitchell {tables} tables",
        tables=tables,
        pairs=2 * tables,
        boards_per_round=boards_per_round,
        rounds=tuple(rounds),
        directions=("NS",) * tables + ("EW",) * tables,
        phantom=phantom,
    )


# The cyclic 4-table Howell: pair 8 stays at table 1 NS and meets pair k + 1 in round k + 1;
# at table i + 1 pair k + i meets pair k − i (mod 7). Board set k + OFFSET[i] goes to
# table i + 1, which gives no pair a set twice.
HOWELL_OFFSETS = (0, 2, 4, 1)


def howell4(boards_per_round: int, *, phantom: int | None = None) -> Movement:
    rounds = []
    for k in range(7):
        encounters = [
            Encounter(
                1, 8, k + 1, tuple(range(k * boards_per_round + 1, (k + 1) * boards_per_round + 1))
            )
        ]
        for i in (1, 2, 3):
            board_set = (k + HOWELL_OFFSETS[i]) % 7
            first = board_set * boards_per_round + 1
            encounters.append(
                Encounter(
                    i + 1,
                    (k + i) % 7 + 1,
                    (k - i) % 7 + 1,
                    tuple(range(first, first + boards_per_round)),
                )
            )
        rounds.append(tuple(encounters))
    return Movement(
        kind="howell",
        name="Howell 4 tables",
        tables=4,
        pairs=8,
        boards_per_round=boards_per_round,
        rounds=tuple(rounds),
        phantom=phantom,
    )


def event(make_tournament, register_pairs, *, movement: Movement, pairs: int, held: bool, **kw):
    """A movement tournament with `pairs` confirmed pairs and `movement` stored; `held`:
    the pairs hold its positions, as from round 1's start."""
    tournament = make_tournament(
        rounds=movement.round_count,
        boards_per_round=movement.boards_per_round,
        scoring_method="MP",
        **kw,
    )
    registered = register_pairs(tournament, pairs)
    store(tournament, movement, registered if held else None)
    return tournament, registered


def store(tournament, movement: Movement, holders=None) -> None:
    """`movement` stored on `tournament`; `holders` (pairs in registration order) take its
    positions in turn, the phantom's skipped, as the format does at round 1's start."""
    tournament.movement = movements.to_json(movement)
    tournament.save(update_fields=["movement"])
    free = [p for p in range(1, movement.pairs + 1) if p != movement.phantom]
    for position, pair in zip(free, holders or [], strict=False):
        pair.position = position
        if movement.directions is not None:
            pair.field = movement.directions[position - 1]
        pair.save(update_fields=["position", "field"])
