"""Shared pieces of the database benchmarks: Django set-up, a field built in bulk,
results entered in bulk, and the figures each benchmark records for the summary.

The benchmarks need a PostgreSQL in DATABASE_URL; `make bench` (scripts/bench.sh)
starts a throwaway cluster, migrates it and runs them one after another.
"""

from __future__ import annotations

import json
import os
import random
import re
import statistics
import sys
import time
import warnings
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def setup_django() -> None:
    """Django with production-like settings (DEBUG off) on the benchmark database."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")
    os.environ.setdefault("DEBUG", "false")
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    if not os.environ.get("DATABASE_URL", "").startswith("postgres"):
        sys.exit("bench: DATABASE_URL must point at PostgreSQL (make bench starts one)")
    import django

    # WhiteNoise warns that collectstatic never ran; the benchmarks serve no static files.
    warnings.filterwarnings("ignore", message="No directory at")
    django.setup()


def record(bench: str, **figures) -> None:
    """Append this benchmark's figures to $BENCH_OUT/results.jsonl for the summary."""
    out = os.environ.get("BENCH_OUT")
    if not out:
        return
    with open(Path(out) / "results.jsonl", "a", encoding="utf-8") as f:
        f.write(json.dumps({"bench": bench, **figures}, default=str) + "\n")


@contextmanager
def stopwatch():
    """`with stopwatch() as t: …` then t() is the elapsed seconds."""
    began = time.perf_counter()
    ended: list[float] = []
    yield lambda: (ended[0] if ended else time.perf_counter()) - began
    ended.append(time.perf_counter())


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def build_field(
    *,
    pairs: int,
    rounds: int,
    boards_per_round: int,
    scoring_method: str = "IMP",
    start_at: datetime,
    round_length: timedelta = timedelta(minutes=20),
    name: str = "Benchmark",
):
    """A scheduled tournament with `pairs` registered pairs, created in bulk.

    Registering thousands of pairs through `register_pair` one by one measures nothing
    the benchmarks are about; the rows are the same ones the service would write.
    """
    from tournaments.models import Tournament
    from tournaments.services.bulk_registration import ensure_players, register_pairs_in_bulk

    players = ensure_players([f"bench{i + 1:05d}" for i in range(pairs * 2)])
    tournament = Tournament.objects.create(
        name=f"{name} ({pairs} pairs)",
        registration_opens_at=start_at - timedelta(days=1),
        start_at=start_at,
        rounds=rounds,
        boards_per_round=boards_per_round,
        round_length=round_length,
        gap_length=timedelta(0),
        scoring_method=scoring_method,
    )
    register_pairs_in_bulk(tournament=tournament, players=players, at=start_at - timedelta(hours=1))
    return tournament


def director():
    """The benchmarks' organiser: a staff account in the "Tournament directors" group
    (the data migration makes it), so organiser actions pass the same permission check
    a real director's do."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group

    from tournaments.services.permissions import DIRECTORS_GROUP

    user, _created = get_user_model().objects.get_or_create(
        username="bench-director", defaults={"is_staff": True}
    )
    user.groups.add(Group.objects.get(name=DIRECTORS_GROUP))
    return user


def bulk_results(*, round, rng: random.Random, unfinished: float = 0.05, now: datetime) -> int:
    """Plausible results for every table and board of `round`, written in bulk.

    The same double-dummy-based results the simulated tables enter, validated and scored
    by the same `score_entry` the result service uses; only the per-row service call
    (which the load test measures) is skipped.
    """
    from tournaments.models import Board, BoardResult, Table
    from tournaments.services.results import score_entry
    from tournaments.services.simulator import board_facts, plausible_entry

    boards = list(Board.objects.filter(round=round).order_by("number"))
    facts = board_facts(boards)
    rows = []
    for table_id, ns_player in Table.objects.filter(round=round).values_list(
        "id", "ns_pair__player1_id"
    ):
        for board in boards:
            if rng.random() < unfinished:
                continue
            fields = score_entry(plausible_entry(facts[board.id], rng), board.vulnerability)
            rows.append(
                BoardResult(
                    table_id=table_id,
                    board=board,
                    entered_by_id=ns_player,
                    entered_at=now,
                    **fields,
                )
            )
    BoardResult.objects.bulk_create(rows, batch_size=5000)
    return len(rows)


def bench_start(offset_days: int) -> datetime:
    """Far-apart simulated start times, so fields of one run never share a bell."""
    return datetime(2030, 1, 1, 10, 0, tzinfo=UTC) + timedelta(days=offset_days)


_NUMBER = re.compile(r"^[-+]?[\d.,]+\s*(%|×|ms|s|KB)?$")


def print_table(headers: list[str], rows: list[list]) -> None:
    """A plain-text table: numbers right-aligned, words left-aligned."""
    cells = [[str(c) for c in row] for row in [headers, *rows]]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    for n, row in enumerate(cells):
        line = "  ".join(
            c.rjust(w) if n and _NUMBER.match(c) else c.ljust(w)
            for c, w in zip(row, widths, strict=True)
        )
        print(line.rstrip())
        if n == 0:
            print("  ".join("-" * w for w in widths))


def summary(path: str) -> None:
    """The closing table of `make bench`, from the figures the benchmarks recorded."""
    entries = []
    if Path(path).exists():
        with open(path, encoding="utf-8") as f:
            entries = [json.loads(line) for line in f if line.strip()]
    kinds = {e["bench"] for e in entries}
    rows = []

    def add(area: str, what: str, figure: str, target: str = "", verdict: str = "") -> None:
        rows.append([area, what, figure, target, verdict])

    def met(ok: bool) -> str:
        return "met" if ok else "MISSED"

    for e in entries:
        kind = e.pop("bench")
        if kind == "round_close":
            large = e["tables"] >= 1000
            add(
                "round close (PostgreSQL)",
                f"{e['tables']} tables × {e['boards']} boards, round {e['round']}",
                f"{e['seconds']:.2f} s, {e['queries']} queries",
                "≤ 2 s" if large else "",
                met(e["seconds"] <= 2.0) if large else "",
            )
        elif kind == "round_close_ratio":
            same = e["queries_small"] == e["queries_large"]
            add(
                "round close (PostgreSQL)",
                f"{e.get('field_ratio', 10)}× the field",
                f"{e['time_ratio']}× the time; queries {e['queries_small']} → {e['queries_large']}",
                "queries constant",
                met(same),
            )
        elif kind == "movement_close":
            add(
                "round close, two-winner Mitchell",
                f"{e['tables']} tables × {e['boards']} boards, round {e['round']} of {e['rounds']}",
                f"{e['ms']} ms, {e['queries']} queries; the last round's "
                f"{e['final_ms']} ms, {e['final_queries']} queries",
            )
        elif kind == "team_close":
            for teams, seconds, queries in e["sizes"]:
                add(
                    "round close, Swiss teams",
                    f"{teams} teams ({teams} tables) × 8-board matches, round 5",
                    f"{seconds:.2f} s, {queries} queries",
                )
            add(
                "round close, Swiss teams",
                "queries at every field size",
                " → ".join(str(q) for q in e["queries"]),
                "queries constant",
                met(len(set(e["queries"])) == 1),
            )
            add(
                "pages, team event",
                "a 16-board match's score card",
                f"{e['card_median_ms']:.0f} ms, {e['card_queries']} queries",
            )
        elif kind == "pages":
            add(
                f"pages, 2,000 pairs ({e['stage']})",
                e["page"],
                f"{e['median_ms']:.0f} ms, {e['queries']} queries",
                "≤ 200 ms, ≤ 10 q",
                met(e["ok"]),
            )
        elif kind == "load":
            area = f"load: {e['scenario']}"
            figure = (
                f"{e['rps']:.0f} req/s, p50 {e['p50']:.0f} / p95 {e['p95']:.0f} / "
                f"p99 {e['p99']:.0f} ms, {e['failures']} failed of {e['requests']}"
            )
            is_put = e["name"] == "PUT result"
            add(
                area,
                e["name"],
                figure,
                "p99 ≤ 300 ms, 0 failed" if is_put else "",
                met(e["p99"] <= 300 and e["failures"] == 0) if is_put else "",
            )
        elif kind == "load_cpu":
            add(
                f"load: {e['scenario']}",
                "CPU per request (server, PostgreSQL, locust)",
                f"{e['gunicorn_ms']} + {e['postgres_ms']} + {e['locust_ms']} ms → about "
                f"{e['capacity_rps']} req/s on idle cores (load avg {e['load_average']})",
            )
        elif kind == "load_check":
            add(
                f"load: {e['scenario']}",
                "accepted results stored exactly once",
                f"{e['distinct_accepted']} accepted, {e['rows']} rows: {e['duplicates']} dup, "
                f"{e['missing']} lost, {e['never_sent']} extra, {e['mismatched']} differing",
                "all exactly once",
                met(e["ok"]),
            )
        elif kind == "broadcast_ratio":
            ratio = e["players_p99_ratio"]
            add(
                "broadcast (Vugraph)",
                "players' p99 with the spectators / without",
                f"{ratio:.2f}×",
                "≤ 1.20×",
                met(ratio <= 1.20),
            )
        elif kind == "pairing":
            for key, value in e.items():
                if key.startswith("worst_ms_"):
                    n = int(key.rsplit("_", 1)[1])
                    add(
                        "Swiss seating engine",
                        f"{n:,} pairs, slowest of the rounds",
                        f"{value} ms, {e.get(f'rematches_{n}')} rematches",
                        "≤ 100 ms" if n == 10_000 else "",
                        met(value <= 100) if n == 10_000 else "",
                    )
            if "blossom_speedup" in e:
                add(
                    "Swiss seating engine",
                    "speed-up over whole-field blossom",
                    f"{e['blossom_speedup']}×",
                    "≥ 30×",
                    met(e["blossom_speedup"] >= 30),
                )
        elif kind == "rating":
            last = e["weeks"][-1]
            many = e["clubs"]
            club = f"{e['club']['players']}-member club"
            add(
                "Rate (SPEC 13)",
                f"Spearman with hidden skill, week {last['week']}, {club}",
                f"{last['rate']:.3f} (naive mean IMPs {last['naive']:.3f}); mean of "
                f"{many['clubs']} clubs {many['rate'][-1]:.3f} ({many['naive'][-1]:.3f})",
                "≥ 0.9",
                met(min(last["rate"], many["rate"][-1]) >= 0.9),
            )
            add(
                "Rate (SPEC 13)",
                f"ahead of the naive index (mean lead of {many['clubs']} clubs > 2 SE)",
                f"{many['weeks_ahead']} of {len(many['lead'])} weeks (lead "
                f"{min(many['lead']):+.4f} to {max(many['lead']):+.4f}; "
                f"{many['clubs_ahead_every_week']} of {many['clubs']} clubs ahead every week)",
                "every week",
                met(many["weeks_ahead"] == len(many["lead"])),
            )
            bad, weak, big = e["bad_week"], e["weak_partner"], e["scale"]
            add(
                "Rate (SPEC 13)",
                "one bad week (−2 SD), established player",
                f"{bad['before']} → {bad['after_bad_week']} (a normal week: "
                f"{bad['after_normal_week']}; worst possible: {bad['after_worst_week']})",
            )
            add(
                "Rate (SPEC 13)",
                "good player, a week with a weak partner",
                f"{weak['good_before']} → {weak['good_after_weak_partner']} (average partner: "
                f"{weak['good_after_average_partner']}); mean change "
                f"{weak['mean_rate_change_weak']:+.2f} vs {weak['mean_rate_change_average']:+.2f}",
            )
            add(
                "Rate (SPEC 13)",
                f"weekly close, {big['players']:,} players × {big['boards']:,} boards",
                f"{big['worst_s']} s (best {big['best_s']} s), peak {big['peak_mb']} MB",
                "< 30 s",
                met(big["worst_s"] < 30),
            )
        else:
            figures = ", ".join(f"{k} {v}" for k, v in e.items())
            add(kind, "", figures)
    # A benchmark that records nothing still prints its verdicts: quote those lines.
    for log in sorted(Path(path).parent.glob("*.log")):
        if log.stem in kinds or log.stem in ("gunicorn", "locust"):
            continue
        for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
            if "target" in line:
                add(log.stem, "", " ".join(line.split()))
    if not rows:
        print("(no figures recorded)")
        return
    print_table(["area", "measurement", "figure", "target", ""], rows)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "summary":
        summary(sys.argv[2])
    else:
        sys.exit("usage: common.py summary results.jsonl")


# --- processes the benchmarks start and measure ----------------------------------------

_TICK = os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    """A TCP port on the loopback nobody listens on now."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _cpu_of(pid: int) -> tuple[int, float]:
    """(parent pid, CPU seconds of the process and its reaped children) from /proc."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    # After the command: state, ppid, …; utime, stime, cutime, cstime are fields 14–17.
    return int(fields[1]), sum(int(x) for x in fields[11:15]) / _TICK


def tree_cpu(root: int | None) -> float:
    """CPU seconds used so far by `root` and its direct children (gunicorn's workers, the
    postmaster's backends): a measure of the work done that CPU contention cannot inflate
    the way it inflates wall-clock latency."""
    if root is None:
        return 0.0
    total = 0.0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            parent, seconds = _cpu_of(int(entry))
        except (OSError, ValueError, IndexError):
            continue  # exited meanwhile
        if int(entry) == root or parent == root:
            total += seconds
    return total


def postmaster_pid() -> int | None:
    """The local PostgreSQL's postmaster, when DATABASE_URL points at a socket directory."""
    from django.db import connection

    settings = connection.settings_dict
    host = settings.get("HOST") or (settings.get("OPTIONS") or {}).get("host") or ""
    if not host.startswith("/"):
        return None
    try:
        return int(Path(host, "data", "postmaster.pid").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None
