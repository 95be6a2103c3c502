"""Exact minimum-cost perfect matchings on a ranked field.

Positions ``0 .. n-1`` are the seating order (0 = top). Plain top-down order pairs
``(0, 1), (2, 3), ...``; *top-down table t* is the pair of positions ``(2t, 2t+1)``, and a
*conflict* is a top-down table whose two pairs have met. The cost of an edge ``(i, j)`` is
``(j - i) ** 2``; the *excess* of a matching is its cost minus its number of edges (how
far it is above plain top-down, which has excess 0). ``met(i, j)`` says whether the pairs
at positions i and j have met (a forbidden edge when rematches are to be avoided).

:func:`min_cost_rematch_free` returns an exact global minimum-cost rematch-free perfect
matching while only solving small *windows* (runs of top-down tables) around the
conflicts, top-down everywhere else. Two lower bounds make that exact:

*Blocks.* Split a perfect matching at the table boundaries no edge crosses: each piece is
a *block* of consecutive top-down tables. Inside a block of k >= 2 tables every table
boundary is crossed by an even number >= 2 of edges (parity), so its edge lengths sum to
at least ``3k - 2`` over k edges and, by convexity, its excess is at least
``L(k) = ceil((3k - 2)**2 / k) - k = 8k - 12 + ceil(4/k)`` (6, 14, 21, 29, ... for
k = 2, 3, 4, 5; increasing and superadditive). A conflict cannot be a block of its own,
and in an optimal matching every block of >= 2 tables holds a conflict (else top-down
would be cheaper there).

*Covers.* A block whose part inside a range has j tables costs at least
``6 * ceil(j / 2)``, so the blocks covering a set of conflicts cost at least 6 times the
least number of 2-table intervals covering them (found greedily).

*Window certificate.* For a window W with optimum excess C (rematch-free, inside W): a
block that covers a conflict of W and leaves W has inside W a run [top .. b] (or
[a .. bottom]) holding a conflict and costs at least ``L(b - top + 2)``; the conflicts of
W it leaves are covered by other blocks. If ``C <=`` the least such total over all b (and
a) -- ``_crossing_bound`` -- then W is *certified*. Windows are kept at least 2 tables
apart. Then, for any rematch-free matching M, charge each of its blocks to the windows
whose conflicts it covers (a block covering conflicts of several windows spans the
>= 2-table gaps between them, and L's superadditivity splits its cost into a share of at
least ``L(inside + 1)`` per window). A window none of whose conflicts is covered by a
block leaving it is charged at least C (those blocks, top-down elsewhere, are a
rematch-free matching of W); any other window is charged at least its crossing bound,
hence at least C. So M costs at least the sum of the windows' optima: solving each
certified window on its own is globally optimal. Uncertified windows are widened and
re-solved until certified (or the window is the whole field).

*Band certificate.* A window is solved by a dynamic programme over positions that only
uses edges of length <= D (``_band_dp``), D the narrowest band with a solution. A
matching of the window with a longer edge has a block of at least ``(D + 1) // 2 + 1``
tables around it costing at least ``max((D + 1)**2 - 1, L(k))``, plus covers for the
conflicts outside that block (``_long_edge_bound``); when that is >= the band optimum,
the band optimum is the window optimum. Otherwise D grows (the search pruned by the cost
already found) until the certificate holds; a window of at most
``BLOSSOM_MAX_POSITIONS`` positions whose search outgrows the work limits is solved by
networkx's blossom matching instead, exactly.

*Limits.* Only pathological windows -- wide *and* needing long edges, e.g. a big field
whose every result is a draw for many rounds, so that the order never changes and each
pair's past opponents are all its neighbours -- escape both certificates within the work
limits (``DP_MAX_STATES``, ``MAX_ESCALATIONS``). They get the optimum among matchings
with edges no longer than the band reached, or, when no short-edged matching exists,
chunks of the window solved one by one (``_chunked``); the result is still rematch-free,
and a warning is logged. Realistic events (random results, many ties) never hit this in
the tests and benchmarks.

An isolated conflict typically costs excess 6 (``(0, 2), (1, 3)`` instead of
``(0, 1), (2, 3)``) and is certified by a 3-table window, and a long run of conflicts
costs about 3 per table and is certified with a margin of 1, so a round of a large field
costs a few small dynamic programmes rather than a whole-field blossom.
"""

from __future__ import annotations

import bisect
import heapq
import logging
from collections.abc import Callable, Iterable, Sequence

import networkx as nx

logger = logging.getLogger(__name__)

Met = Callable[[int, int], bool]
Edge = tuple[int, int]

#: bands tried, narrowest first, while looking for any rematch-free matching of a window
FEASIBILITY_BANDS = (2, 3, 4, 6, 8, 12, 16, 24)
#: most states the banded search keeps at one position before giving up on a wider band
DP_MAX_STATES = 512
#: band widenings tried to certify a wide window before settling for its band optimum
MAX_ESCALATIONS = 2
#: positions x states a banded search of a wide window may cost (a few tenths of a second)
DP_MAX_WORK = 60_000
#: windows of at most this many positions fall back to networkx's blossom (O(n^3))
BLOSSOM_MAX_POSITIONS = 120
#: least excess of the blocks covering one 2-table interval of conflicts: L(2)
COVER_COST = 6
_UNBOUNDED = 1 << 60


def block_lower_bound(k: int) -> int:
    """L(k): least excess of a perfect matching on k >= 1 consecutive top-down tables
    that no table boundary splits (see the module docstring)."""
    return 8 * k - 12 + -(-4 // k)


def top_down(n: int) -> list[Edge]:
    return [(2 * t, 2 * t + 1) for t in range(n // 2)]


def matching_cost(edges: Iterable[Edge]) -> int:
    return sum((j - i) ** 2 for i, j in edges)


def _covers(flags: Sequence[bool]) -> tuple[list[int], list[int]]:
    """For conflict flags of a run of tables: ``prefix[a]`` / ``suffix[b]`` = least number of
    2-table intervals covering the conflicts among the first a tables / from table b on."""
    k = len(flags)
    prefix = [0] * (k + 1)
    count, reach = 0, -1
    for t in range(k):
        if flags[t] and t > reach:
            count, reach = count + 1, t + 1
        prefix[t + 1] = count
    suffix = [0] * (k + 1)
    count, reach = 0, k
    for t in range(k - 1, -1, -1):
        if flags[t] and t < reach:
            count, reach = count + 1, t - 1
        suffix[t] = count
    return prefix, suffix


def _crossing_bound(
    flags: Sequence[bool], prefix: list[int], suffix: list[int], *, top: bool, bottom: bool
) -> tuple[int, int]:
    """Least excess of the blocks covering a window's conflicts when one of them leaves the
    window through its top (first value) or its bottom edge (second value); _UNBOUNDED for
    an edge that is the field's own top or bottom."""
    k = len(flags)
    conflict_tables = [t for t in range(k) if flags[t]]
    through_top = through_bottom = _UNBOUNDED
    if top:
        through_top = min(
            block_lower_bound(b + 2) + COVER_COST * suffix[b + 1]
            for b in range(conflict_tables[0], k)
        )
    if bottom:
        through_bottom = min(
            block_lower_bound(k - a + 1) + COVER_COST * prefix[a]
            for a in range(0, conflict_tables[-1] + 1)
        )
    return through_top, through_bottom


def _long_edge_bound(prefix: list[int], suffix: list[int], band: int) -> int:
    """Least excess of a matching of the window (k tables) with an edge longer than band."""
    k = len(prefix) - 1
    own = (band + 1) ** 2 - 1
    length = (band + 1) // 2 + 1
    best = _UNBOUNDED
    while length <= k:
        block = max(own, block_lower_bound(length))
        rest = min(prefix[a] + suffix[a + length] for a in range(k - length + 1))
        best = min(best, block + COVER_COST * rest)
        if block_lower_bound(length) >= own:
            break  # longer blocks only cost more: L grows by >= 7 a table, covers save <= 6
        length += 1
    return best


class _TooManyStates(Exception):
    """A banded search outgrew ``DP_MAX_STATES``."""


def _band_dp(
    base: int,
    width: int,
    met: Met,
    band: int,
    budget: int | None = None,
    max_states: int | None = None,
) -> tuple[list[Edge], int] | None:
    """Minimum-cost rematch-free perfect matching of positions base .. base+width-1 using
    edges of length <= band only; None if there is none. Returns (edges, excess).

    State before position p: bitmask of still-unmatched earlier positions, bit i standing
    for position p-1-i (i < band). Ties keep the first state found (deterministic).
    With a ``budget`` (a total cost some matching is known to reach), states that cannot
    finish within it are dropped: each open position still costs at least the square of
    its distance to the next position, and the positions not yet seen at least 1 per pair.
    This keeps wide bands cheap when the budget is tight. ``max_states`` caps the number
    of states kept at one position (``_TooManyStates`` is raised beyond it).
    """
    top_bit = 1 << (band - 1)
    states: dict[int, int] = {0: 0}
    back: list[dict[int, tuple[int, int]]] = []
    floor: dict[int, int] = {}  # mask -> least cost of closing its open positions

    def fits(mask: int, cost: int, unseen: int) -> bool:
        if budget is None:
            return True
        least = floor.get(mask)
        if least is None:
            least = sum((i + 1) * (i + 1) for i in range(band) if mask >> i & 1)
            floor[mask] = least
        return cost + least + (unseen - mask.bit_count()) // 2 <= budget

    for k in range(width):
        p = base + k
        unseen = width - k - 1
        nxt: dict[int, int] = {}
        ptr: dict[int, tuple[int, int]] = {}
        for mask, cost in states.items():
            rest = mask
            while rest:  # match p with an open position q = p-1-i
                low = rest & -rest
                rest ^= low
                i = low.bit_length() - 1
                left = mask ^ low
                if left & top_bit or met(p - 1 - i, p):
                    continue
                new_mask = left << 1
                new_cost = cost + (i + 1) * (i + 1)
                if new_cost < nxt.get(new_mask, _UNBOUNDED) and fits(new_mask, new_cost, unseen):
                    nxt[new_mask] = new_cost
                    ptr[new_mask] = (mask, i)
            if not mask & top_bit:  # leave p open for a later position
                new_mask = (mask << 1) | 1
                if cost < nxt.get(new_mask, _UNBOUNDED) and fits(new_mask, cost, unseen):
                    nxt[new_mask] = cost
                    ptr[new_mask] = (mask, -1)
        if not nxt:
            return None
        if max_states is not None and len(nxt) > max_states:
            raise _TooManyStates
        states = nxt
        back.append(ptr)
    if 0 not in states:
        return None
    edges: list[Edge] = []
    mask = 0
    for k in range(width - 1, -1, -1):
        mask, i = back[k][mask]
        if i >= 0:
            p = base + k
            edges.append((p - 1 - i, p))
    edges.sort()
    return edges, states[0] - width // 2


def blossom_min_cost(
    positions: Sequence[int],
    met: Met,
    *,
    allow_rematch: bool = False,
    forbidden: frozenset[Edge] = frozenset(),
) -> tuple[list[Edge], int] | None:
    """Exact minimum-cost perfect matching of ``positions`` by networkx's blossom
    algorithm (O(n^3): for small fields and windows only).

    Without ``allow_rematch`` only edges between pairs that have not met are used and None
    is returned when no perfect matching exists. With it every edge is usable, and the
    matching minimises first the number of rematches, then the cost.
    Returns (edges, number of rematches).
    """
    pos = sorted(positions)
    half = len(pos) // 2
    if not pos:
        return [], 0
    span = pos[-1] - pos[0]
    k = span * span + 1  # > any edge cost, keeps every weight positive
    penalty = k * (half + 1)  # > any possible total of (k - cost) over a perfect matching
    graph = nx.Graph()
    graph.add_nodes_from(pos)
    for a, i in enumerate(pos):
        for j in pos[a + 1 :]:
            if (i, j) in forbidden:
                continue
            rematch = met(i, j)
            if rematch and not allow_rematch:
                continue
            graph.add_edge(i, j, weight=k - (j - i) ** 2 + (0 if rematch else penalty))
    found = nx.max_weight_matching(graph, maxcardinality=True)
    if len(found) != half:
        return None
    edges = sorted((min(u, v), max(u, v)) for u, v in found)
    return edges, sum(1 for i, j in edges if met(i, j))


Solution = tuple[list[Edge], int, bool]  # edges, excess, proven optimal


def _solve_window(first: int, last: int, met: Met, flags: Sequence[bool]) -> Solution | None:
    """Minimum-cost rematch-free matching of top-down tables first..last (conflict flags
    given per table) as (edges, excess, proven optimal), or None if there is none.

    Exact whenever the band certificate holds or the window is small enough for blossom.
    A pathological window -- wide and needing long edges, as in a big field whose results
    are all draws round after round -- gets the optimum among matchings whose edges are no
    longer than the band reached within the work limits (``DP_MAX_STATES``,
    ``DP_MAX_WORK``, ``MAX_ESCALATIONS``), or a chunked solution, and a warning in the log.
    """
    base, width = 2 * first, 2 * (last - first + 1)
    small = width <= BLOSSOM_MAX_POSITIONS

    def affordable(band: int) -> bool:
        return small or band <= 6 or width * min(1 << band, DP_MAX_STATES) <= DP_MAX_WORK

    found = None
    for band in FEASIBILITY_BANDS:
        band = min(band, width - 1)
        if not affordable(band):
            break
        try:
            found = _band_dp(base, width, met, band, max_states=DP_MAX_STATES)
        except _TooManyStates:
            break
        if found is None and band == width - 1:
            return None  # the band covered the whole window: none exists
        if found is not None:
            break
    if found is None:
        if small:
            return _blossom_window(base, width, met)
        return _chunked(first, last, met, flags)
    prefix, suffix = _covers(flags)
    escalations = 0
    while band < width - 1 and found[1] > _long_edge_bound(prefix, suffix, band):
        try:
            if not small and (escalations == MAX_ESCALATIONS or not affordable(band + 1)):
                raise _TooManyStates
            wider = _band_dp(
                base, width, met, band + 1, budget=found[1] + width // 2, max_states=DP_MAX_STATES
            )
            assert wider is not None  # the previous optimum fits the budget
            found = wider
            band += 1
            escalations += 1
        except _TooManyStates:
            if small:
                return _blossom_window(base, width, met)
            logger.warning(
                "pairing: tables %d-%d seated optimally only among edges of length <= %d",
                first + 1,
                last + 1,
                band,
            )
            return found[0], found[1], False
    return found[0], found[1], True


def _chunked(first: int, last: int, met: Met, flags: Sequence[bool]) -> Solution | None:
    """Fallback for a wide window without a short-edged solution: solve consecutive chunks
    of about ``BLOSSOM_MAX_POSITIONS // 4`` tables on their own (a chunk with no
    rematch-free matching is extended). Rematch-free, not proven optimal."""
    logger.warning("pairing: tables %d-%d seated chunk by chunk", first + 1, last + 1)
    size = BLOSSOM_MAX_POSITIONS // 4
    whole = (2 * first, 2 * (last - first + 1))
    edges: list[Edge] = []
    start = first
    while start <= last:
        end = start + size - 1
        while True:
            if last - end < size // 2:
                end = last  # no short last chunk
            if (start, end) == (first, last):
                return _blossom_window(*whole, met)  # last resort
            part = _solve_window(start, end, met, flags[start - first : end - first + 1])
            if part is not None or end == last:
                break
            end += size
        if part is None:
            return _blossom_window(*whole, met)  # last resort
        edges += part[0]
        start = end + 1
    return edges, matching_cost(edges) - (last - first + 1), False


def _blossom_window(base: int, width: int, met: Met) -> Solution | None:
    exact = blossom_min_cost(range(base, base + width), met)
    if exact is None:
        return None
    return exact[0], matching_cost(exact[0]) - width // 2, True


def _merge(windows: Iterable[Edge]) -> list[Edge]:
    """Merge windows (inclusive table ranges) that overlap or are less than 2 tables apart."""
    merged: list[list[int]] = []
    for s, e in sorted(windows):
        if merged and s <= merged[-1][1] + 2:
            merged[-1][1] = max(merged[-1][1], e)
        else:
            merged.append([s, e])
    return [(s, e) for s, e in merged]


def min_cost_rematch_free(
    n: int, met: Met, conflicts: list[int] | None = None
) -> list[Edge] | None:
    """Exact minimum-cost perfect matching of positions 0..n-1 (n even) that avoids every
    rematch, or None when none exists; plain top-down when it has no rematch.
    ``conflicts`` (the tables t with ``met(2t, 2t+1)``, ascending) may be passed when the
    caller has them. Optimality: see the module docstring."""
    tables = n // 2
    if conflicts is None:
        conflicts = [t for t in range(tables) if met(2 * t, 2 * t + 1)]
    if not conflicts:
        return top_down(n)
    last_table = tables - 1
    windows = _merge((max(0, c - 1), min(last_table, c + 1)) for c in conflicts)
    solved: dict[Edge, Solution | None] = {}
    final: set[Edge] = set()  # windows already certified (or given up on)
    while True:
        settled = True
        grown: list[Edge] = []
        for s, e in windows:
            if (s, e) in final:
                grown.append((s, e))
                continue
            inside = conflicts[bisect.bisect_left(conflicts, s) : bisect.bisect_right(conflicts, e)]
            flags = [False] * (e - s + 1)
            for c in inside:
                flags[c - s] = True
            if (s, e) not in solved:
                solved[(s, e)] = _solve_window(s, e, met, flags)
            found = solved[(s, e)]
            if found is None:
                if s == 0 and e == last_table:
                    return None
                width = e - s + 1  # no rematch-free matching inside: double the window
                grown.append((max(0, s - width), min(last_table, e + width)))
                settled = False
                continue
            if not found[2]:  # not proven optimal inside: widening would not prove more
                final.add((s, e))
                grown.append((s, e))
                continue
            prefix, suffix = _covers(flags)
            through_top, through_bottom = _crossing_bound(
                flags, prefix, suffix, top=s > 0, bottom=e < last_table
            )
            excess, step = found[1], (e - s + 1) // 2  # grow geometrically: few re-solves
            if excess <= min(through_top, through_bottom):
                final.add((s, e))
            if excess > through_top:
                s = max(0, s - max(1, step, -(-(excess - through_top) // 8)))
                settled = False
            if excess > through_bottom:
                e = min(last_table, e + max(1, step, -(-(excess - through_bottom) // 8)))
                settled = False
            grown.append((s, e))
        windows = _merge(grown)
        if settled:
            break
    plain = top_down(n)
    edges: list[Edge] = []
    next_table = 0
    for s, e in windows:
        edges += plain[next_table:s]
        found = solved[(s, e)]
        assert found is not None
        edges += found[0]
        next_table = e + 1
    edges += plain[next_table:]
    return edges


def k_best_rematch_free(
    n: int,
    met: Met,
    first: list[Edge],
    accept: Callable[[list[Edge]], bool],
    *,
    max_candidates: int,
) -> list[Edge] | None:
    """Rematch-free perfect matchings in increasing cost (Lawler's partition of the
    solution space: each child forces the parent's first edges and forbids the next one),
    starting from the optimum ``first``; returns the first one that ``accept`` accepts,
    or None after ``max_candidates`` matchings. Blossom-based: small fields only.
    """
    counter = 0
    heap: list[tuple[int, int, tuple[Edge, ...], frozenset[Edge], list[Edge]]] = [
        (matching_cost(first), counter, (), frozenset(), first)
    ]
    seen = 0
    while heap and seen < max_candidates:
        _, _, forced, forbidden, edges = heapq.heappop(heap)
        seen += 1
        if accept(edges):
            return edges
        forced_set = set(forced)
        free = [edge for edge in edges if edge not in forced_set]
        for k, edge in enumerate(free):
            keep = forced + tuple(free[:k])
            taken = {v for pair in keep for v in pair}
            rest = [v for v in range(n) if v not in taken]
            child_forbidden = forbidden | {edge}
            found = blossom_min_cost(rest, met, forbidden=child_forbidden)
            if found is None:
                continue
            child = sorted(list(keep) + found[0])
            counter += 1
            heapq.heappush(heap, (matching_cost(child), counter, keep, child_forbidden, child))
    return None
