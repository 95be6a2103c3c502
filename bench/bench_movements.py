"""Benchmark of the movements core (not a test: prints figures).

    .venv/bin/python bench/bench_movements.py [--repeat 7]

For a 30-table Mitchell (30 rounds, 2 boards a round), the same with an arrow-switch, and
an 8-table complete Howell (15 rounds, 3 boards a round): milliseconds to generate,
verify, compute the balance, and round-trip through JSON and the `.ASC` file; and reading
a movement back from its travellers (the 8-table Howell's and the 30-table Mitchell's).
Each figure is the best of `--repeat` calls (the core is pure and deterministic), garbage
collected before each. The product does these once per tournament, before round 1.
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from common import record  # noqa: E402  (bench/common.py: figures for make bench's summary)

import movements as M  # noqa: E402


def best_ms(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        began = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - began)
    return round(best * 1000, 2)


def travellers(m: M.Movement) -> list[tuple[str, str, str]]:
    return [
        (str(b), m.label(e.ns), m.label(e.ew))
        for r in m.rounds
        for e in r
        if m.phantom not in (e.ns, e.ew)
        for b in e.boards
    ]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    cases = {
        "mitchell_30": lambda: M.mitchell(30, 2),
        "mitchell_30_arrow": lambda: M.mitchell(30, 2, arrow_switch=True),
        "howell_8": lambda: M.howell(8, 3),
    }
    figures: dict[str, float] = {}
    print(f"{'movement':<20} {'generate':>9} {'verify':>8} {'balance':>8} {'json':>7} {'asc':>7}")
    for name, make in cases.items():
        m = make()
        M.verify(m)
        row = {
            "generate": best_ms(make, args.repeat),
            "verify": best_ms(lambda m=m: M.verify(m), args.repeat),
            "balance": best_ms(lambda m=m: M.balance(m), args.repeat),
            "json": best_ms(lambda m=m: M.from_json(M.to_json(m)), args.repeat),
            "asc": best_ms(lambda m=m: M.from_asc(M.to_asc(m)), args.repeat),
        }
        print(
            f"{name:<20} {row['generate']:>7} ms {row['verify']:>5} ms {row['balance']:>5} ms"
            f" {row['json']:>4} ms {row['asc']:>4} ms   (Qf {M.balance(m).figure:.1f})"
        )
        figures.update({f"{name}_{k}_ms": v for k, v in row.items()})
    for name, m in (("mitchell_30", M.mitchell(30, 2)), ("howell_8", M.howell(8, 3))):
        lines = travellers(m)
        ms = best_ms(lambda lines=lines: M.from_travellers(lines), max(1, args.repeat // 2))
        print(f"from_travellers {name}: {ms} ms ({len(lines)} traveller lines)")
        figures[f"{name}_from_travellers_ms"] = ms
    record("movements", **figures)


if __name__ == "__main__":
    main()
