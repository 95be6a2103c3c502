"""Swiss seating: who plays whom, who sits out, and who sits North-South.

Rules (RULES 4), in order of precedence for a round after the first:

1. **Order.** Active (not withdrawn) pairs are ranked by :func:`standings_order`: running
   score descending, then more boards completed, then lower registration_no (then pair_id,
   so the order is total and never depends on the input list's order).
2. **Bye** (odd field). Only pairs with the fewest byes among the active pairs are
   eligible, so nobody gets a second bye while an active pair has none. The lowest-placed
   eligible pair takes it, unless removing it makes a rematch unavoidable (or, see 4, makes
   the next round unseatable without rematch) while removing another eligible pair does
   not: then the next eligible pair up is tried, and so on.
3. **No rematch.** If any rematch-free seating exists (for some eligible bye), one is
   used. Otherwise the seating with the fewest rematches is used (the lowest-placed
   eligible bye among those giving the fewest, then the least cost) and
   ``Seating.rematches`` says how many tables are rematches. That case is solved by a
   whole-field blossom matching (networkx, O(n^3)); it only arises when some pairs have
   met about half the field or more (Dirac), i.e. in small fields playing many rounds.
4. **Look-ahead.** Among rematch-free seatings the engine prefers one after which the
   next round can still be seated without rematch (same active field). Without it a small
   field can paint itself into a corner: with 6 pairs, seating round 3 as the three
   "rungs" of the triangular prism left by rounds 1-2 leaves two triangles, so round 4
   must have a rematch although a full round robin was possible. It only matters for
   small fields playing many rounds: when every pair has met fewer than about half the
   field, Dirac's theorem guarantees the next round is seatable whatever this round does
   and the check is skipped. When needed, rematch-free seatings are enumerated in
   increasing cost (at most ``LOOKAHEAD_MAX_CANDIDATES``, fields of at most
   ``LOOKAHEAD_MAX_PAIRS``) and the first that keeps the next round seatable is taken;
   failing that, the cheapest rematch-free seating is used.
5. **Closest to top-down.** Among the seatings allowed above, the one of least *cost*
   (below) is chosen, exactly: windows around the conflicting tables are solved exactly
   and certified globally optimal by lower bounds (see :mod:`pairing.matching`), with no
   whole-field matching. Plain top-down order (1 v 2, 3 v 4, ...) is returned untouched
   whenever it has no rematch (and, in the rare case of rule 4, keeps the next round
   seatable). Only pathological fields (a big field of nothing but draws, round after
   round) exceed the work limits; they stay rematch-free, and the log says which tables
   were not proven optimal.

**Cost.** Positions are 0-based places in the seating order with the bye removed; the
cost of a seating is the sum over its tables of the squared difference of the two pairs'
positions. Top-down costs exactly the number of tables; moving one pair down one table
(``(0, 2), (1, 3)`` instead of ``(0, 1), (2, 3)``) costs 6 more. Why this cost:

* *Ranks, not scores*: it does not depend on the scoring method (IMP totals, MP
  percentages) or on the gaps between scores, is an exact integer (no float ties in the
  matching), and still separates seatings when many pairs are tied on score, which a
  score-difference cost would rate as equal (then "closest to top-down" means nothing).
* *Squared, not absolute*: with absolute differences ``(0, 3), (1, 2)`` and
  ``(0, 2), (1, 3)`` cost the same and one pair may be sent arbitrarily far down at no
  extra cost against several small moves; squaring is convex, so it prefers several
  one-place shifts to one long jump, which is what players see as fair.
* It gives a strong lower bound for a connected block of tables (see
  :mod:`pairing.matching`), which is what lets the engine optimise exactly on small windows
  around the conflicts instead of running a whole-field blossom matching.

**Directions.** At each table the pair with the lower ``ns_count - ew_count`` (it has sat
East-West more) sits North-South; on a tie the higher-placed pair sits North-South.
Tables are numbered by the position of their higher-placed pair: table 1 is the top.

**Round 1** (:func:`seat_first_round`): registration order (or a seeded random draw),
strictly top-down; in an odd field the last pair in that order has the bye.

Everything is deterministic: the same set of pairs gives the same Seating whatever the
order of the input list, and randomness is only used for a seeded round-1 draw.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence

import networkx as nx

from scoring import standing_key

from .matching import (
    Edge,
    Met,
    blossom_min_cost,
    k_best_rematch_free,
    matching_cost,
    min_cost_rematch_free,
    top_down,
)
from .state import PairState, Seating, Table

#: the look-ahead of rule 4 is only attempted for fields of at most this many pairs
LOOKAHEAD_MAX_PAIRS = 32
#: rematch-free seatings tried, cheapest first, to keep the next round seatable
LOOKAHEAD_MAX_CANDIDATES = 24


def standings_order(pairs: Iterable[PairState]) -> list[PairState]:
    """Pairs ranked for seating by `scoring.standing_key` (score descending, then more
    boards completed, then earlier registration), then lower pair_id."""
    return sorted(
        pairs,
        key=lambda p: (*standing_key(p.score, p.boards_completed, p.registration_no), p.pair_id),
    )


def seat_first_round(
    pairs: Sequence[PairState],
    *,
    random_draw: bool = False,
    seed: int | random.Random | None = None,
) -> Seating:
    """Round 1: registration order (1 v 2 at table 1 with 1 North-South, 3 v 4, ...), or a
    random draw when ``random_draw`` is set. The draw is reproducible: ``seed`` (an int or
    a ``random.Random``) is required with it, so the director can record and replay it.
    In an odd field the last pair in the order has the bye."""
    order = sorted(_active(pairs), key=lambda p: (p.registration_no, p.pair_id))
    if random_draw:
        if seed is None:
            raise ValueError("a random draw needs a seed (int or random.Random)")
        rng = seed if isinstance(seed, random.Random) else random.Random(seed)
        rng.shuffle(order)
    bye = order.pop() if len(order) % 2 else None
    return _build(order, top_down(len(order)), bye)


def seat_round(pairs: Sequence[PairState]) -> Seating:
    """Seat a round after the first by the Swiss rule (see the module docstring)."""
    order = standings_order(_active(pairs))
    if not order:
        return Seating((), None, 0, 0.0)
    if len(order) % 2 == 0:
        candidates: list[PairState | None] = [None]
    else:
        fewest = min(p.byes for p in order)
        candidates = [p for p in reversed(order) if p.byes == fewest]

    look_ahead = _next_round_at_risk(order)
    fallback: tuple[list[PairState], list[Edge], PairState | None] | None = None
    for bye in candidates:
        seq = order if bye is None else [p for p in order if p is not bye]
        met, conflicts = _field(seq)
        edges = min_cost_rematch_free(len(seq), met, conflicts)
        if edges is None:
            continue
        if not look_ahead:
            return _build(seq, edges, bye, rematches=0)

        def keeps_next_round(candidate: list[Edge], seq=seq, bye=bye) -> bool:
            return _next_round_seatable(order, seq, candidate, bye)

        if keeps_next_round(edges):
            return _build(seq, edges, bye, rematches=0)
        if len(seq) <= LOOKAHEAD_MAX_PAIRS:
            better = k_best_rematch_free(
                len(seq), met, edges, keeps_next_round, max_candidates=LOOKAHEAD_MAX_CANDIDATES
            )
            if better is not None:
                return _build(seq, better, bye, rematches=0)
        if fallback is None:
            fallback = (seq, edges, bye)
    if fallback is not None:
        return _build(*fallback, rematches=0)

    # No rematch-free seating for any eligible bye: fewest rematches, then lowest cost.
    best: tuple[int, list[PairState], list[Edge], PairState | None] | None = None
    for bye in candidates:
        seq = [p for p in order if p is not bye]
        found = blossom_min_cost(range(len(seq)), _field(seq)[0], allow_rematch=True)
        assert found is not None  # every edge is allowed: a perfect matching exists
        if best is None or found[1] < best[0]:
            best = (found[1], seq, found[0], bye)
    assert best is not None
    return _build(best[1], best[2], best[3], rematches=best[0])


def _active(pairs: Iterable[PairState]) -> list[PairState]:
    pairs = list(pairs)
    ids = [p.pair_id for p in pairs]
    if len(set(ids)) != len(ids):
        twice = next(i for i, count in Counter(ids).items() if count > 1)
        raise ValueError(f"pair_id {twice} appears twice")
    return [p for p in pairs if not p.withdrawn]


def _field(seq: Sequence[PairState]) -> tuple[Met, list[int]]:
    """``met(i, j)`` for positions in seq, and the top-down tables that are rematches."""
    ids = [p.pair_id for p in seq]
    opponents = [p.opponents for p in seq]

    def met(i: int, j: int) -> bool:
        return ids[j] in opponents[i] or ids[i] in opponents[j]

    conflicts = [
        t
        for t, (a, b, seen_a, seen_b) in enumerate(
            zip(ids[::2], ids[1::2], opponents[::2], opponents[1::2], strict=False)
        )
        if b in seen_a or a in seen_b
    ]
    return met, conflicts


def _build(
    seq: Sequence[PairState],
    edges: list[Edge],
    bye: PairState | None,
    *,
    rematches: int | None = None,
) -> Seating:
    """The Seating of ``edges`` (positions in seq): directions, table numbers, counts."""
    if rematches is None:
        met = _field(seq)[0]
        rematches = sum(met(i, j) for i, j in edges)
    tables: list[Table] = []
    for number, (i, j) in enumerate(sorted(edges), start=1):
        high, low = seq[i], seq[j]
        if low.ns_count - low.ew_count < high.ns_count - high.ew_count:
            tables.append(Table(number, low.pair_id, high.pair_id))
        else:
            tables.append(Table(number, high.pair_id, low.pair_id))
    bye_id = None if bye is None else bye.pair_id
    return Seating(tuple(tables), bye_id, rematches, float(matching_cost(edges)))


def _next_round_at_risk(order: Sequence[PairState]) -> bool:
    """Whether the look-ahead (rule 4) can matter. False when Dirac's theorem guarantees
    that the next round (same field) has a rematch-free seating whatever this round does
    (after this round every pair can still meet at least half of the pairs seated next
    round), and when no seating of this round can leave the next one seatable."""
    n = len(order)
    if n <= 2:
        return False

    def enough(met_count: int) -> bool:
        if n % 2:  # one more opponent gone, and the next bye is not seated
            return 2 * (n - 3 - met_count) >= n - 1
        return 2 * (n - 2 - met_count) >= n

    if enough(max(map(len, [p.opponents for p in order]))):
        return False
    ids = {p.pair_id for p in order}
    met_counts = [len(p.opponents & ids) for p in order]
    if all(enough(m) for m in met_counts):
        return False
    # Hopeless anyway (no point searching): a pair with at most one possible opponent left
    # has none next round once seated now; an odd field can leave only one of them out.
    cornered = sum(1 for m in met_counts if n - 1 - m <= 1)
    return cornered < (3 if n % 2 else 1)


def _next_round_seatable(
    order: Sequence[PairState],
    seq: Sequence[PairState],
    edges: Iterable[Edge],
    bye: PairState | None,
) -> bool:
    """Whether, after playing ``edges`` (positions in ``seq``) this round with ``bye``
    sitting out, the same field could be seated next round without any rematch (with the
    next bye among the pairs then having the fewest byes)."""
    partner: dict[int, int] = {}
    for i, j in edges:
        partner[seq[i].pair_id] = seq[j].pair_id
        partner[seq[j].pair_id] = seq[i].pair_id
    n = len(order)
    ids = [p.pair_id for p in order]
    graph = nx.Graph()
    graph.add_nodes_from(range(n))
    for a in range(n):
        for b in range(a + 1, n):
            if partner.get(ids[a]) == ids[b]:
                continue
            if ids[b] in order[a].opponents or ids[a] in order[b].opponents:
                continue
            graph.add_edge(a, b)
    if n % 2:
        byes = [p.byes + (p is bye) for p in order]
        fewest = min(byes)
        graph.add_edges_from((n, a) for a in range(n) if byes[a] == fewest)
    return 2 * len(nx.max_weight_matching(graph, maxcardinality=True)) == graph.number_of_nodes()
