"""Benchmark: field scoring of one board, whole-array numpy against naive Python.

Run: .venv/bin/python bench/bench_scoring.py

For boards of 100, 1,000 and 5,000 results (random but realistic NS scores: multiples
of 10 clustered around the usual contracts, so ties are common) it times
``scoring.score_board`` for MP, cross-IMP and XIMP, best of several runs, and a naive
Python version of each, written as the rules word it (every result against every other
one: O(n²); XIMP's naive version is a Python sort and loop). The naive versions are
run once at n = 5,000 because they take seconds there.
"""

import random
import sys
import time
from bisect import bisect_right
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from scoring import IMP_THRESHOLDS, score_board  # noqa: E402

SIZES = (100, 1_000, 5_000)
FAST_RUNS = 9
TARGET_MS = 20.0
TARGET_SPEEDUP = 100.0

# A few contracts make most results on a real board; the rest spread out.
TYPICAL = (-200, -100, -50, 110, 140, 170, 400, 420, 430, 450, 460, 620, 650, 1430)


def realistic_scores(n: int, rng: random.Random) -> list[int]:
    scores = []
    for _ in range(n):
        if rng.random() < 0.7:
            scores.append(rng.choice(TYPICAL))
        else:
            scores.append(max(-7600, min(7600, round(rng.gauss(200, 900) / 10) * 10)))
    return scores


def naive_imps(difference: int) -> int:
    won = bisect_right(IMP_THRESHOLDS, abs(difference))
    return won if difference >= 0 else -won


def naive_mp(scores: list[int]) -> list[float]:
    n = len(scores)
    out = []
    for i, mine in enumerate(scores):
        mp = 0
        for j, theirs in enumerate(scores):
            if i != j:
                mp += 2 if mine > theirs else 1 if mine == theirs else 0
        out.append(mp * 100 / (2 * (n - 1)))
    return out


def naive_cross_imps(scores: list[int]) -> list[float]:
    n = len(scores)
    return [
        sum(naive_imps(mine - theirs) for j, theirs in enumerate(scores) if j != i) / (n - 1)
        for i, mine in enumerate(scores)
    ]


def naive_ximp(scores: list[int]) -> list[int]:
    n = len(scores)
    k = 0 if n <= 2 else max(1, n // 10)
    kept = sorted(scores)[k : n - k]
    datum = 10 * round(Fraction(sum(kept), 10 * len(kept)))
    return [naive_imps(score - datum) for score in scores]


METHODS = (("MP", naive_mp), ("IMP", naive_cross_imps), ("XIMP", naive_ximp))


def best_ms(function, runs: int) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - start)
    return best * 1000


def main() -> None:
    rng = random.Random(2024)
    score_board("MP", [0, 10])  # first call pays numpy's one-off set-up
    print("Field scoring of one board: scoring.score_board against naive Python")
    print(f"(fast: best of {FAST_RUNS} runs; naive: best of 3, once at n = 5,000)\n")
    print(f"{'results':>8}  {'method':<6} {'fast ms':>9} {'naive ms':>10} {'speed-up':>9}")
    totals = {}
    for n in SIZES:
        scores = realistic_scores(n, rng)
        fast_total = naive_total = 0.0
        for method, naive in METHODS:
            fast = best_ms(lambda m=method, s=scores: score_board(m, s), FAST_RUNS)
            slow = best_ms(lambda f=naive, s=scores: f(s), 1 if n >= 5_000 else 3)
            fast_total += fast
            naive_total += slow
            print(f"{n:>8,}  {method:<6} {fast:>9.3f} {slow:>10.1f} {slow / fast:>8.0f}×")
        totals[n] = (fast_total, naive_total)
        print()

    # The fast methods share work between equal scores; all-distinct scores are their
    # worst case, so show it too (no bridge board looks like this).
    distinct = rng.sample(range(-7600, 7601), max(SIZES))
    worst = {m: best_ms(lambda m=m: score_board(m, distinct), FAST_RUNS) for m, _ in METHODS}
    print(f"Worst case, {max(SIZES):,} distinct scores (fast only):")
    print("  " + "   ".join(f"{m} {ms:.3f} ms" for m, ms in worst.items()))
    print(f"  all three {sum(worst.values()):.3f} ms\n")

    fast, slow = totals[max(SIZES)]
    speedup = slow / fast
    print(f"All three methods at n = {max(SIZES):,}:")
    verdict = "met" if fast <= TARGET_MS else "MISSED"
    print(f"  fast  {fast:9.3f} ms   target ≤ {TARGET_MS:.0f} ms: {verdict}")
    verdict = "met" if speedup >= TARGET_SPEEDUP else "MISSED"
    target = f"target ≥ {TARGET_SPEEDUP:.0f}×"
    print(f"  naive {slow:9.1f} ms   speed-up {speedup:,.0f}×, {target}: {verdict}")


if __name__ == "__main__":
    main()
