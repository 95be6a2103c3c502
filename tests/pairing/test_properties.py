"""Property tests of the Swiss seating engine over random fields.

Histories are made by running random rounds through the engine itself (random results,
ties, withdrawals, late entries, odd fields, arbitrary earlier byes); the checks below
recompute what the answer must be independently (networkx matchings, brute force over all
perfect matchings), not with the engine's own code.
"""

import random
from dataclasses import replace

import networkx as nx
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pairing import PairState, Seating, seat_first_round, seat_round, swiss
from pairing.simulate import new_field, play_round
from tests import examples

SETTINGS = settings(
    max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


# --- histories ---------------------------------------------------------------------------


def build_field(
    n: int,
    seed: int,
    rounds: int,
    spread: int,
    withdraw_p: float,
    late_p: float,
    odd_byes: bool,
) -> list[PairState]:
    """A field after ``rounds`` rounds seated by the engine with random results in
    [-spread, spread] (spread 0: every score tied), shuffled."""
    rng = random.Random(seed)
    pairs = new_field(n)
    if odd_byes:  # arbitrary earlier byes, e.g. carried over by the director
        pairs = [replace(p, byes=rng.choice((0, 0, 0, 1, 2))) for p in pairs]
    next_id = n + 1
    for r in range(rounds):
        if r and rng.random() < late_p:
            pairs.append(PairState(pair_id=next_id, registration_no=next_id))
            next_id += 1
        pairs = [
            replace(p, withdrawn=True) if not p.withdrawn and rng.random() < withdraw_p else p
            for p in pairs
        ]
        seating = seat_first_round(pairs) if r == 0 else seat_round(pairs)
        pairs = play_round(pairs, seating, rng, result=lambda g: float(g.randint(-spread, spread)))
    pairs = [
        replace(p, withdrawn=True) if not p.withdrawn and rng.random() < withdraw_p else p
        for p in pairs
    ]
    rng.shuffle(pairs)
    return pairs


def fields(max_n: int, max_rounds: int, *, min_n: int = 2, withdrawals: bool = True):
    return st.builds(
        build_field,
        n=st.integers(min_n, max_n),
        seed=st.integers(0, 2**32 - 1),
        rounds=st.integers(0, max_rounds),
        spread=st.sampled_from((0, 1, 3, 12)),
        withdraw_p=st.sampled_from((0.0, 0.05, 0.2)) if withdrawals else st.just(0.0),
        late_p=st.sampled_from((0.0, 0.3)),
        odd_byes=st.booleans(),
    )


def build_arbitrary_field(n: int, seed: int, density: float) -> list[PairState]:
    """Any symmetric 'have met' relation, denser between close scores, random tied scores:
    harder conflict patterns than real events produce."""
    rng = random.Random(seed)
    scores = sorted((float(rng.randint(0, n // 2)) for _ in range(n)), reverse=True)
    met: dict[int, set[int]] = {i: set() for i in range(1, n + 1)}
    for i in range(1, n + 1):
        for j in range(i + 1, n + 1):
            if rng.random() < (density if j - i <= 4 else density / 8):
                met[i].add(j)
                met[j].add(i)
    pairs = [
        PairState(pair_id=i, registration_no=i, score=scores[i - 1], opponents=frozenset(met[i]))
        for i in range(1, n + 1)
    ]
    rng.shuffle(pairs)
    return pairs


def arbitrary_fields(max_n: int):
    return st.builds(
        build_arbitrary_field,
        n=st.integers(2, max_n),
        seed=st.integers(0, 2**32 - 1),
        density=st.sampled_from((0.2, 0.5, 0.8)),
    )


general_fields = fields(40, 6)
#: small fields playing about as many rounds as pairs: rematches become unavoidable
dense_fields = fields(10, 12)


# --- independent reference computations --------------------------------------------------


def active_order(pairs: list[PairState]) -> list[PairState]:
    """RULES 4's order, computed directly from the rule."""
    live = [p for p in pairs if not p.withdrawn]
    return sorted(live, key=lambda p: (-p.score, -p.boards_completed, p.registration_no, p.pair_id))


def have_met(a: PairState, b: PairState) -> bool:
    return a.pair_id in b.opponents or b.pair_id in a.opponents


def eligible_byes(order: list[PairState]) -> list[PairState]:
    """Pairs allowed the bye, lowest-placed first."""
    if len(order) % 2 == 0:
        return []
    fewest = min(p.byes for p in order)
    return [p for p in reversed(order) if p.byes == fewest]


def min_rematches(seq: list[PairState]) -> int:
    """Fewest rematches over all perfect matchings of seq (networkx, unit weights)."""
    graph = nx.complete_graph(len(seq))
    for i, j in graph.edges:
        graph.edges[i, j]["weight"] = 0 if have_met(seq[i], seq[j]) else 1
    found = nx.max_weight_matching(graph, maxcardinality=True)
    return len(seq) // 2 - sum(graph.edges[e]["weight"] for e in found)


def perfect_matchings(items: list[int]):
    if not items:
        yield []
        return
    first = items[0]
    for k in range(1, len(items)):
        for rest in perfect_matchings(items[1:k] + items[k + 1 :]):
            yield [(first, items[k]), *rest]


def next_round_seatable(order: list[PairState], tables: list[tuple[int, int]], bye) -> bool:
    """Could the same field sit next round without rematch, after playing ``tables``
    (pair_id pairs) with ``bye`` (pair_id or None) sitting out?"""
    played = {frozenset(t) for t in tables}
    byes = [p.byes + (p.pair_id == bye) for p in order]
    graph = nx.Graph()
    graph.add_nodes_from(range(len(order)))
    for i, a in enumerate(order):
        for j in range(i + 1, len(order)):
            b = order[j]
            if frozenset((a.pair_id, b.pair_id)) not in played and not have_met(a, b):
                graph.add_edge(i, j)
    if len(order) % 2:
        graph.add_edges_from(("bye", i) for i in range(len(order)) if byes[i] == min(byes))
    found = nx.max_weight_matching(graph, maxcardinality=True)
    return 2 * len(found) == graph.number_of_nodes()


def seated_pairs(seating: Seating) -> list[tuple[int, int]]:
    return [(t.ns, t.ew) for t in seating.tables]


def positions(order: list[PairState], bye) -> dict[int, int]:
    seq = [p.pair_id for p in order if p.pair_id != bye]
    return {pid: k for k, pid in enumerate(seq)}


def cost_of(pos: dict[int, int], tables) -> int:
    return sum((pos[a] - pos[b]) ** 2 for a, b in tables)


# --- properties --------------------------------------------------------------------------


@SETTINGS
@given(general_fields)
def test_every_active_pair_seated_once_or_bye(pairs):
    seating = seat_round(pairs)
    order = active_order(pairs)
    seated = [pid for t in seating.tables for pid in (t.ns, t.ew)]
    everyone = seated + ([seating.bye] if seating.bye is not None else [])
    assert sorted(everyone) == sorted(p.pair_id for p in order)
    withdrawn = {p.pair_id for p in pairs if p.withdrawn}
    assert not withdrawn & set(everyone)
    assert (seating.bye is None) == (len(order) % 2 == 0)
    assert [t.number for t in seating.tables] == list(range(1, len(seating.tables) + 1))

    by_id = {p.pair_id: p for p in order}
    assert seating.rematches == sum(have_met(by_id[t.ns], by_id[t.ew]) for t in seating.tables)
    pos = positions(order, seating.bye)
    assert seating.cost == cost_of(pos, seated_pairs(seating))
    # table 1 is the top: tables in order of their higher-placed pair
    tops = [min(pos[t.ns], pos[t.ew]) for t in seating.tables]
    assert tops == sorted(tops)
    # directions: lower ns-ew sits NS; tie -> the higher-placed pair sits NS
    for t in seating.tables:
        ns, ew = by_id[t.ns], by_id[t.ew]
        bal_ns, bal_ew = ns.ns_count - ns.ew_count, ew.ns_count - ew.ew_count
        assert bal_ns < bal_ew or (bal_ns == bal_ew and pos[t.ns] < pos[t.ew])


@SETTINGS
@given(general_fields, st.randoms(use_true_random=False))
def test_deterministic_and_independent_of_input_order(pairs, rnd):
    first = seat_round(pairs)
    shuffled = list(pairs)
    rnd.shuffle(shuffled)
    assert seat_round(shuffled) == first
    assert seat_round(pairs) == first
    assert seat_first_round(shuffled) == seat_first_round(pairs)
    assert seat_first_round(shuffled, random_draw=True, seed=7) == seat_first_round(
        pairs, random_draw=True, seed=7
    )


@SETTINGS
@given(st.one_of(dense_fields, fields(24, 8), arbitrary_fields(16)))
def test_no_avoidable_rematch_and_fewest_rematches(pairs):
    """Rematches only when no eligible bye allows a rematch-free seating, and then as few
    as possible; the bye follows the rule."""
    seating = seat_round(pairs)
    order = active_order(pairs)
    if len(order) < 2:
        return
    if len(order) % 2 == 0:
        assert seating.rematches == min_rematches(order)
        return
    eligible = eligible_byes(order)
    assert seating.bye in {p.pair_id for p in eligible}
    fewest = {c.pair_id: min_rematches([p for p in order if p is not c]) for c in eligible}
    best = min(fewest.values())
    assert seating.rematches == best
    assert fewest[seating.bye] == best
    lowest_best = next(c.pair_id for c in eligible if fewest[c.pair_id] == best)
    if best > 0:
        assert seating.bye == lowest_best
    elif seating.bye != lowest_best:
        # the bye may only move up for the look-ahead (next round seatable): check that no
        # rematch-free seating with the lower bye keeps the next round seatable
        assert swiss._next_round_at_risk(order)
        if len(order) <= 9:
            seq = [p for p in order if p.pair_id != lowest_best]
            assert (
                not any(
                    next_round_seatable(order, tables, lowest_best)
                    for tables in rematch_free_seatings(seq)
                )
                or len(list(rematch_free_seatings(seq))) > swiss.LOOKAHEAD_MAX_CANDIDATES
            )


def rematch_free_seatings(seq: list[PairState]):
    for m in perfect_matchings(list(range(len(seq)))):
        if not any(have_met(seq[i], seq[j]) for i, j in m):
            yield [(seq[i].pair_id, seq[j].pair_id) for i, j in m]


@SETTINGS
@given(st.one_of(dense_fields, fields(10, 5), arbitrary_fields(10)))
def test_cost_optimal_among_rematch_free_seatings_exhaustive(pairs):
    """n <= 10: compare with every perfect matching. The engine must take the cheapest
    rematch-free seating, preferring (rule 4) the cheapest one that keeps the next round
    seatable."""
    seating = seat_round(pairs)
    order = active_order(pairs)
    if len(order) < 2 or seating.rematches:
        return
    seq = [p for p in order if p.pair_id != seating.bye]
    pos = positions(order, seating.bye)
    free = sorted(
        ((cost_of(pos, tables), tables) for tables in rematch_free_seatings(seq)),
        key=lambda ct: ct[0],
    )
    ours = seated_pairs(seating)
    assert seating.cost == cost_of(pos, ours)
    if not swiss._next_round_at_risk(order):
        assert seating.cost == free[0][0]
        return
    keeps = [c for c, tables in free if next_round_seatable(order, tables, seating.bye)]
    if next_round_seatable(order, ours, seating.bye):
        assert seating.cost == keeps[0]
    elif keeps:  # only the enumeration bound may explain missing it
        assert sum(1 for c, _ in free if c <= keeps[0]) > swiss.LOOKAHEAD_MAX_CANDIDATES
    else:
        assert seating.cost == free[0][0]


@SETTINGS
@given(st.one_of(fields(30, 6, min_n=11), arbitrary_fields(30)))
def test_cost_optimal_against_whole_field_blossom(pairs):
    """n <= 30: the windowed optimum equals networkx's whole-field minimum-weight perfect
    matching on the allowed graph (given the bye the engine chose)."""
    seating = seat_round(pairs)
    order = active_order(pairs)
    if seating.rematches:
        return
    seq = [p for p in order if p.pair_id != seating.bye]
    n = len(seq)
    graph = nx.Graph()
    for i in range(n):
        for j in range(i + 1, n):
            if not have_met(seq[i], seq[j]):
                graph.add_edge(i, j, weight=n * n - (j - i) ** 2)
    found = nx.max_weight_matching(graph, maxcardinality=True)
    assert len(found) == n // 2
    optimum = sum((i - j) ** 2 for i, j in found)
    if swiss._next_round_at_risk(order):
        assert seating.cost >= optimum
    else:
        assert seating.cost == optimum


@SETTINGS
@given(general_fields)
def test_plain_top_down_untouched_when_it_has_no_rematch(pairs):
    order = active_order(pairs)
    if len(order) < 2:
        return
    eligible = eligible_byes(order)
    bye = eligible[0].pair_id if eligible else None
    seq = [p for p in order if p.pair_id != bye]
    top_down = [(seq[k], seq[k + 1]) for k in range(0, len(seq), 2)]
    if any(have_met(a, b) for a, b in top_down):
        return
    pid_tables = [(a.pair_id, b.pair_id) for a, b in top_down]
    if not next_round_seatable(order, pid_tables, bye):
        return  # rule 4 may move away from a top-down that traps the next round
    seating = seat_round(pairs)
    assert seating.bye == bye
    assert [frozenset(t) for t in seated_pairs(seating)] == [frozenset(t) for t in pid_tables]
    assert seating.cost == len(pid_tables) and seating.rematches == 0


@settings(max_examples=examples(30), deadline=None)
@given(
    n=st.integers(3, 25).filter(lambda n: n % 2),
    seed=st.integers(0, 2**32 - 1),
    rounds=st.integers(2, 12),
)
def test_byes_go_to_pairs_with_fewest(n, seed, rounds):
    """Over an event, every bye goes to an active pair with the fewest byes so far, and
    (everyone starting from none) nobody gets a second before everyone has had one."""
    rng = random.Random(seed)
    pairs = new_field(n)
    for r in range(rounds):
        seating = seat_first_round(pairs) if r == 0 else seat_round(pairs)
        fewest = min(p.byes for p in pairs)
        assert next(p for p in pairs if p.pair_id == seating.bye).byes == fewest
        pairs = play_round(pairs, seating, rng)
        counts = [p.byes for p in pairs]
        assert max(counts) - min(counts) <= 1
