"""The windowed exact matching against whole-field blossom and brute force."""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from pairing import matching
from pairing.matching import (
    block_lower_bound,
    blossom_min_cost,
    k_best_rematch_free,
    matching_cost,
    min_cost_rematch_free,
    top_down,
)
from tests import examples


def perfect_matchings(items):
    if not items:
        yield []
        return
    first = items[0]
    for k in range(1, len(items)):
        for rest in perfect_matchings(items[1:k] + items[k + 1 :]):
            yield [(first, items[k]), *rest]


def forbidden_graph(n: int, seed: int, density: float, local: bool):
    """Random 'have met' relation: anywhere, or mostly between close positions (as in a
    Swiss, where pairs that met have close scores)."""
    rng = random.Random(seed)
    met = set()
    for i in range(n):
        for j in range(i + 1, n):
            p = density if not local else (min(1.0, 3 * density) if j - i <= 3 else density / 10)
            if rng.random() < p:
                met.add((i, j))
                met.add((j, i))  # both ways: the matchers ask a million times a run
    return lambda i, j: (i, j) in met


@settings(max_examples=examples(150), deadline=None)
@given(
    n=st.integers(1, 30).map(lambda k: 2 * k),
    seed=st.integers(0, 2**32 - 1),
    density=st.sampled_from((0.02, 0.1, 0.25, 0.5, 0.8)),
    local=st.booleans(),
)
def test_windowed_optimum_equals_whole_field_blossom(n, seed, density, local):
    met = forbidden_graph(n, seed, density, local)
    ours = min_cost_rematch_free(n, met)
    reference = blossom_min_cost(range(n), met)
    assert (ours is None) == (reference is None)
    if ours is None:
        return
    assert sorted(v for edge in ours for v in edge) == list(range(n))
    assert not any(met(i, j) for i, j in ours)
    assert matching_cost(ours) == matching_cost(reference[0])
    if not any(met(i, j) for i, j in top_down(n)):
        assert ours == top_down(n)


@settings(max_examples=examples(60), deadline=None)
@given(
    n=st.integers(1, 5).map(lambda k: 2 * k),
    seed=st.integers(0, 2**32 - 1),
    density=st.sampled_from((0.1, 0.3, 0.6)),
)
def test_windowed_optimum_and_rematch_minimum_by_brute_force(n, seed, density):
    met = forbidden_graph(n, seed, density, local=False)
    everything = list(perfect_matchings(list(range(n))))
    free = [m for m in everything if not any(met(i, j) for i, j in m)]
    ours = min_cost_rematch_free(n, met)
    if not free:
        assert ours is None
        edges, rematches = blossom_min_cost(range(n), met, allow_rematch=True)
        fewest = min(sum(met(i, j) for i, j in m) for m in everything)
        assert rematches == fewest == sum(met(i, j) for i, j in edges)
        best = min(matching_cost(m) for m in everything if sum(met(i, j) for i, j in m) == fewest)
        assert matching_cost(edges) == best
        return
    assert matching_cost(ours) == min(matching_cost(m) for m in free)


def test_block_lower_bound_is_a_lower_bound():
    """L(k) <= the least excess of a matching on k tables that crosses every boundary."""
    for k in range(1, 6):
        connected = [
            m
            for m in perfect_matchings(list(range(2 * k)))
            if all(any(i <= 2 * t + 1 < j for i, j in m) for t in range(k - 1))
        ]
        least = min(matching_cost(m) - k for m in connected)
        assert block_lower_bound(k) <= least
        if k <= 3:
            assert block_lower_bound(k) == least
    # increasing and superadditive, as the optimality proof needs
    for a in range(1, 40):
        assert block_lower_bound(a + 1) > block_lower_bound(a)
        for b in range(1, 40):
            assert block_lower_bound(a + b) >= block_lower_bound(a) + block_lower_bound(b)


def test_long_edges_fall_back_to_blossom(monkeypatch):
    """Position 0 has met positions 1..9: its partner is at least 10 places away, beyond the
    dynamic programme's band, and the window must still be solved exactly."""
    n = 24
    met = lambda i, j: min(i, j) == 0 and max(i, j) <= 9  # noqa: E731
    calls = []
    real = matching.blossom_min_cost
    monkeypatch.setattr(
        matching, "blossom_min_cost", lambda *a, **k: calls.append(a) or real(*a, **k)
    )
    ours = min_cost_rematch_free(n, met)
    assert calls
    assert matching_cost(ours) == matching_cost(real(range(n), met)[0])
    assert (0, 10) in ours


def test_infeasible_field():
    n = 6
    met = lambda i, j: 0 in (i, j)  # noqa: E731  (pair 0 has met everyone)
    assert min_cost_rematch_free(n, met) is None
    edges, rematches = blossom_min_cost(range(n), met, allow_rematch=True)
    assert rematches == 1 and (0, 1) in edges


@settings(max_examples=examples(40), deadline=None)
@given(
    n=st.integers(2, 4).map(lambda k: 2 * k),
    seed=st.integers(0, 2**32 - 1),
    density=st.sampled_from((0.0, 0.2, 0.4)),
)
def test_k_best_enumerates_in_cost_order(n, seed, density):
    met = forbidden_graph(n, seed, density, local=False)
    free = sorted(
        matching_cost(m)
        for m in perfect_matchings(list(range(n)))
        if not any(met(i, j) for i, j in m)
    )
    first = min_cost_rematch_free(n, met)
    if first is None:
        assert not free
        return
    seen = []
    found = k_best_rematch_free(
        n, met, first, lambda m: seen.append(matching_cost(m)) and False, max_candidates=1000
    )
    assert found is None
    assert seen == free
