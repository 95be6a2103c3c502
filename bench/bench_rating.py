"""Benchmark of the Rate (SPEC 13, issue 29): does it see skill, and is the weekly close fast?

    .venv/bin/python bench/bench_rating.py [--players 480] [--weeks 12] [--seed 29]

Pure (no database). Four parts, each printed as a table and recorded for `make bench`'s
summary (with the rating settings used, so a figure can be recomputed):

(a) **Skill recognition.** A simulated club: every player has a hidden skill s ~ N(0, 1).
    Each week has 9 sessions; a player comes to each with probability 0.8, the players who
    came are shuffled into tables of four (so partners and opponents change every session)
    and each table plays 4 boards: about 29 boards a player a week. A board's result for
    NS, in IMPs against the field's datum, is drawn from the four skills:
    round(0.75 × (s_N + s_S − s_E − s_W) + 5 × ε), ε ~ N(0, 1) — a player one standard
    deviation better is worth 0.75 IMP a board, and the luck of a board has a standard
    deviation of 5 IMPs (both assumptions, stated so they can be argued with). The
    Rates are closed by `rating.close_week` with SPEC 13's settings, from a club of new
    players (R = 50, C = 30). Week by week: Spearman's rank correlation between Rate and
    hidden skill, beside the naive index, mean IMPs per board over every board so far
    (the strongest naive figure: it forgets nothing), and the week's own mean IMPs
    (上周平均分, one week's boards). Then the mean over 5 more clubs (one club's ρ moves by
    about ±0.01 with its luck), a clearly labelled VARIANT that is not SPEC's formula (1/30
    per IMP instead of 1/15: fewer boards clamped to a whole board), and a club whose
    tables are made of neighbours in skill (strong players meet strong opponents, where
    mean IMPs undersells them and the Rate's weighting by the opponents' Rates matters).
(b) **One bad week.** A player established over those weeks plays week 13 as a player two
    standard deviations below their skill; the same week played normally (same draws) is
    the comparison, and the Rate is followed through two normal weeks after.
(c) **A weak partner.** A strong player (skill ≈ +1.5) plays all of week 13 with a weak
    partner (skill ≈ −1.5) against the rest of the club; beside it, the same player's
    week with an average partner, and the partner's own Rate.
(d) **Scale.** The weekly close of 20,000 players and 1,000,000 board results (random
    tables, IMPs and 0.1 % disconnections), best of 3 and the worst, with the peak memory
    the close allocates (tracemalloc, which counts numpy's buffers) and the process's
    maximum resident size.
"""

from __future__ import annotations

import argparse
import gc
import resource
import sys
import time
import tracemalloc
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from common import print_table, record  # noqa: E402  (bench/common.py)

from rating import (  # noqa: E402
    DEFAULT_PARAMETERS,
    RatingParameters,
    WeekBoards,
    close_week,
    new_players,
)

SESSIONS = 9
ATTENDANCE = 0.8
BOARDS_PER_SESSION = 4
IMPS_PER_SKILL = 0.75
LUCK_IMPS = 5.0

#: more clubs, to tell the Rate's lead or lag from one club's luck
OTHER_CLUBS = 5
#: the sorted club's tables: neighbours in skill + SORTED_BY × N(0, 1)
SORTED_BY = 0.5
#: a labelled variant (not SPEC 13's formula): 1/30 per IMP instead of 1/15
VARIANT_MULTIPLIER = 1 / 30

SPEARMAN_GOAL = 0.9
SCALE_PLAYERS = 20_000
SCALE_BOARDS = 1_000_000
SCALE_TARGET_S = 30.0

try:  # scipy is not a dependency; its figure, when installed, checks ours
    from scipy.stats import spearmanr as _scipy_spearman
except ImportError:  # pragma: no cover - depends on the machine
    _scipy_spearman = None


def ranks(values: np.ndarray) -> np.ndarray:
    """Ranks 1 … n, ties sharing the mean of the ranks they span."""
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    # Start of each run of equal values, and each value's run.
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    ends = np.r_[starts[1:], len(values)]
    mean_rank = (starts + ends + 1) / 2.0  # ranks starts+1 … ends, averaged
    run = np.repeat(np.arange(len(starts)), ends - starts)
    out = np.empty(len(values))
    out[order] = mean_rank[run]
    return out


def spearman(a: np.ndarray, b: np.ndarray) -> float:
    """Spearman's ρ over the players for whom both figures exist: Pearson's r of the ranks."""
    keep = np.isfinite(a) & np.isfinite(b)
    ra, rb = ranks(a[keep]), ranks(b[keep])
    rho = float(np.corrcoef(ra, rb)[0, 1])
    if _scipy_spearman is not None:
        assert abs(rho - _scipy_spearman(a[keep], b[keep])[0]) < 1e-9
    return rho


# --- the simulated club ------------------------------------------------------------------


@dataclass
class Week:
    players: np.ndarray  # (boards, 4) N, E, S, W
    imps: np.ndarray  # NS's IMPs


def play_week(
    skills: np.ndarray,
    rng: np.random.Generator,
    *,
    fixed_pair: tuple[int, int] | None = None,
    sorted_by: float | None = None,
) -> Week:
    """A week of sessions: random tables of four (partners N–S and E–W), 4 boards each.

    ``fixed_pair`` (a, b) sit together as NS at every session, against two others.
    ``sorted_by``: tables are not random but made of neighbours in the order of skill +
    ``sorted_by`` × N(0, 1) (a club whose strong players sit with strong players), seats
    at each table random.
    """
    count = len(skills)
    tables = []
    for _session in range(SESSIONS):
        present = np.flatnonzero(rng.random(count) < ATTENDANCE)
        if fixed_pair is not None:
            present = present[~np.isin(present, fixed_pair)]
        present = rng.permutation(present)
        if sorted_by is not None:
            present = present[
                np.argsort(skills[present] + sorted_by * rng.standard_normal(len(present)))
            ]
        if fixed_pair is not None:
            a, b = fixed_pair
            # The pair at NS against the first two of the shuffled others.
            tables.append(np.array([[a, present[0], b, present[1]]]))
            present = present[2:]
        usable = len(present) - len(present) % 4
        session = present[:usable].reshape(-1, 4)
        if sorted_by is not None:  # neighbours in skill order, seated at random
            session = rng.permuted(session, axis=1)
        tables.append(session)
    seated = np.repeat(np.concatenate(tables), BOARDS_PER_SESSION, axis=0)
    return Week(players=seated, imps=draw_imps(seated, skills, rng))


def draw_imps(seated: np.ndarray, skills: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    s = skills[seated]
    edge = s[:, 0] + s[:, 2] - s[:, 1] - s[:, 3]
    return np.round(IMPS_PER_SKILL * edge + LUCK_IMPS * rng.standard_normal(len(seated)))


def imps_per_player(week: Week, count: int) -> tuple[np.ndarray, np.ndarray]:
    """(sum of own side's IMPs, boards) per player for the week."""
    signed = np.stack([week.imps, -week.imps, week.imps, -week.imps], axis=1)
    total = np.bincount(week.players.ravel(), weights=signed.ravel(), minlength=count)
    boards = np.bincount(week.players.ravel(), minlength=count)
    return total, boards


@dataclass
class Club:
    skills: np.ndarray
    rates: np.ndarray
    weights: np.ndarray
    imps: np.ndarray  # every board so far, own side's IMPs summed
    boards: np.ndarray
    week_rates: np.ndarray | None = None  # the last week's W
    week_imps: np.ndarray | None = None  # the last week's mean IMPs per board

    def close(self, week: Week, params: RatingParameters) -> np.ndarray:
        """Closes the week; returns the week's own mean IMPs per board (NaN: no board)."""
        closed = close_week(
            WeekBoards.from_imps(week.players, week.imps, params=params),
            self.rates,
            self.weights,
            params,
        )
        self.rates, self.weights = closed.rates, closed.weights
        self.week_rates = closed.week_rates
        total, boards = imps_per_player(week, len(self.skills))
        self.imps = self.imps + total
        self.boards = self.boards + boards
        with np.errstate(invalid="ignore", divide="ignore"):
            self.week_imps = total / boards
        return self.week_imps

    def naive(self) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return self.imps / self.boards

    def copy(self) -> Club:
        return Club(
            self.skills,
            self.rates.copy(),
            self.weights.copy(),
            self.imps.copy(),
            self.boards.copy(),
        )


def new_club(count: int, rng: np.random.Generator, params: RatingParameters) -> Club:
    rates, weights = new_players(count, params)
    return Club(rng.standard_normal(count), rates, weights, np.zeros(count), np.zeros(count))


def recognition(
    club: Club,
    weeks: int,
    rng: np.random.Generator,
    params: RatingParameters,
    sorted_by: float | None = None,
) -> list[dict]:
    rows = []
    for number in range(1, weeks + 1):
        week = play_week(club.skills, rng, sorted_by=sorted_by)
        week_mean = club.close(week, params)
        rows.append(
            {
                "week": number,
                "boards": len(week.players),
                "boards_per_player": round(float(np.mean(club.boards)) / number, 1),
                "rate": round(spearman(club.rates, club.skills), 3),
                "naive": round(spearman(club.naive(), club.skills), 3),
                "week_only": round(spearman(week_mean, club.skills), 3),
            }
        )
    return rows


# --- (b) one bad week, (c) a weak partner ------------------------------------------------


def week_with(
    club: Club,
    seed: int,
    params: RatingParameters,
    *,
    skills: np.ndarray | None = None,
    fixed_pair: tuple[int, int] | None = None,
) -> Club:
    """The club after one more week from ``seed``, optionally with one player's skill
    changed for the week or two players sat together all week."""
    rng = np.random.default_rng(seed)
    after = club.copy()
    week = play_week(club.skills, rng, fixed_pair=fixed_pair)
    # The same tables and the same luck whichever skills play them.
    played = club.skills if skills is None else skills
    week.imps = draw_imps(week.players, played, np.random.default_rng(seed + 1))
    after.close(week, params)
    return after


def bad_week(club: Club, seed: int, params: RatingParameters) -> dict:
    # An established good player: the one whose skill is nearest +1.
    player = int(np.argmin(np.abs(club.skills - 1.0)))
    normal = week_with(club, seed, params)
    worse = club.skills.copy()
    worse[player] -= 2.0
    bad = week_with(club, seed, params, skills=worse)
    hopeless = club.skills.copy()
    hopeless[player] -= 100.0  # every board lost by far more than 7.5 IMPs: X = 0, W = 0
    worst = week_with(club, seed, params, skills=hopeless)
    gaps = []
    for trial in range(1, 21):
        other = seed + 7 * trial
        gaps.append(
            week_with(club, other, params, skills=worse).rates[player]
            - week_with(club, other, params).rates[player]
        )
    followed = [bad]
    for extra in (1, 2):
        followed.append(week_with(followed[-1], seed + 10 * extra, params))
    return {
        "player_skill": round(float(club.skills[player]), 2),
        "weight_before": round(float(club.weights[player]), 1),
        "before": round(float(club.rates[player]), 1),
        "after_normal_week": round(float(normal.rates[player]), 1),
        "after_bad_week": round(float(bad.rates[player]), 1),
        "bad_week_w": round(float(bad.week_rates[player]), 1),
        "after_worst_week": round(float(worst.rates[player]), 1),
        "worst_week_w": round(float(worst.week_rates[player]), 1),
        "mean_bad_minus_normal_20_weeks": round(float(np.mean(gaps)), 2),
        "one_week_later": round(float(followed[1].rates[player]), 1),
        "two_weeks_later": round(float(followed[2].rates[player]), 1),
    }


def weak_partner(club: Club, seed: int, params: RatingParameters, trials: int = 20) -> dict:
    """The good player's Rate and naive index after a week with the weak partner and after
    the same week (same tables otherwise, same luck) with an average partner; the first
    week's figures, and the mean change over ``trials`` different weeks."""
    good = int(np.argmin(np.abs(club.skills - 1.5)))
    weak = int(np.argmin(np.abs(club.skills + 1.5)))
    average = int(np.argmin(np.abs(club.skills)))
    changes: dict[str, list[float]] = {key: [] for key in ("rw", "ra", "nw", "na", "iw", "ia")}
    first: dict[str, Club] = {}
    for trial in range(trials):
        with_weak = week_with(club, seed + 7 * trial, params, fixed_pair=(good, weak))
        with_average = week_with(club, seed + 7 * trial, params, fixed_pair=(good, average))
        if trial == 0:
            first = {"weak": with_weak, "average": with_average}
        changes["rw"].append(with_weak.rates[good] - club.rates[good])
        changes["ra"].append(with_average.rates[good] - club.rates[good])
        changes["nw"].append(with_weak.naive()[good] - club.naive()[good])
        changes["na"].append(with_average.naive()[good] - club.naive()[good])
        changes["iw"].append(with_weak.week_imps[good])
        changes["ia"].append(with_average.week_imps[good])
    mean = {key: round(float(np.mean(values)), 2) for key, values in changes.items()}
    return {
        "good_skill": round(float(club.skills[good]), 2),
        "weak_skill": round(float(club.skills[weak]), 2),
        "good_before": round(float(club.rates[good]), 1),
        "good_after_weak_partner": round(float(first["weak"].rates[good]), 1),
        "good_after_average_partner": round(float(first["average"].rates[good]), 1),
        "weak_before": round(float(club.rates[weak]), 1),
        "weak_after": round(float(first["weak"].rates[weak]), 1),
        "naive_before": round(float(club.naive()[good]), 2),
        "trials": trials,
        "mean_rate_change_weak": mean["rw"],
        "mean_rate_change_average": mean["ra"],
        "mean_naive_change_weak": mean["nw"],
        "mean_naive_change_average": mean["na"],
        "mean_week_imps_weak": mean["iw"],
        "mean_week_imps_average": mean["ia"],
    }


# --- (d) scale ----------------------------------------------------------------------------


def scale(seed: int, params: RatingParameters, repeat: int = 3) -> dict:
    rng = np.random.default_rng(seed)
    sessions = SCALE_BOARDS // (SCALE_PLAYERS // 4 * BOARDS_PER_SESSION)
    seated = np.concatenate(
        [rng.permutation(SCALE_PLAYERS).reshape(-1, 4) for _ in range(sessions)]
    )
    players = np.repeat(seated, BOARDS_PER_SESSION, axis=0).astype(np.int32)
    imps = rng.integers(-15, 16, size=len(players))
    lost = rng.random(players.shape) < 0.001
    rates = 50 + 10 * rng.standard_normal(SCALE_PLAYERS).clip(-4, 4)
    weights = rng.uniform(30, 300, SCALE_PLAYERS)
    times = []
    peak = 0
    for _ in range(repeat):
        gc.collect()
        tracemalloc.start()
        began = time.perf_counter()
        boards = WeekBoards.from_imps(players, imps, lost, params=params)
        closed = close_week(boards, rates, weights, params)
        times.append(time.perf_counter() - began)
        peak = max(peak, tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
        del boards, closed
    return {
        "players": SCALE_PLAYERS,
        "boards": len(players),
        "best_s": round(min(times), 3),
        "worst_s": round(max(times), 3),
        "peak_mb": round(peak / 2**20, 1),
        "max_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--players", type=int, default=480)
    parser.add_argument("--weeks", type=int, default=12)
    parser.add_argument("--seed", type=int, default=29)
    args = parser.parse_args()
    params = DEFAULT_PARAMETERS
    print(f"rating settings: {params.as_dict()}")
    print(
        f"club: {args.players} players, skill ~ N(0, 1); {SESSIONS} sessions a week, "
        f"attendance {ATTENDANCE}, {BOARDS_PER_SESSION} boards a table; board IMPs = "
        f"round({IMPS_PER_SKILL} × skill edge + {LUCK_IMPS} × N(0, 1)); seed {args.seed}"
    )

    rng = np.random.default_rng(args.seed)
    club = new_club(args.players, rng, params)
    rows = recognition(club, args.weeks, rng, params)
    print("\n(a) Spearman's ρ with the hidden skill, week by week")
    print_table(
        ["week", "boards", "boards/player/week", "Rate", "naive (all boards)", "naive (the week)"],
        [
            [
                r["week"],
                f"{r['boards']:,}",
                r["boards_per_player"],
                f"{r['rate']:.3f}",
                f"{r['naive']:.3f}",
                f"{r['week_only']:.3f}",
            ]
            for r in rows
        ],
    )
    clubs = [
        recognition(
            new_club(args.players, np.random.default_rng(seed), params),
            args.weeks,
            np.random.default_rng(seed),
            params,
        )
        for seed in range(args.seed + 1, args.seed + 1 + OTHER_CLUBS)
    ]
    # Not SPEC's formula, labelled as such: the same clubs with a gentler IMP multiplier,
    # so fewer boards are clamped to a whole board won or lost.
    variant = RatingParameters(imp_multiplier=VARIANT_MULTIPLIER)
    variant_clubs = [
        recognition(
            new_club(args.players, np.random.default_rng(seed), variant),
            args.weeks,
            np.random.default_rng(seed),
            variant,
        )
        for seed in range(args.seed + 1, args.seed + 1 + OTHER_CLUBS)
    ]
    sorted_rng = np.random.default_rng(args.seed + 500)
    sorted_rows = recognition(
        new_club(args.players, sorted_rng, params), args.weeks, sorted_rng, params, SORTED_BY
    )
    print(
        f"\n(a) the same, mean ρ over {OTHER_CLUBS} other clubs (seeds {args.seed + 1}–"
        f"{args.seed + OTHER_CLUBS}); and a club whose tables are made of neighbours in skill "
        f"(skill + {SORTED_BY} × N(0, 1), strong with strong — not the issue's random club)"
    )
    print_table(
        [
            "week",
            "Rate",
            "naive (all boards)",
            "VARIANT, not SPEC: Rate with 1/30 per IMP",
            "sorted club: Rate",
            "sorted club: naive",
        ],
        [
            [
                number,
                f"{np.mean([c[number - 1]['rate'] for c in clubs]):.3f}",
                f"{np.mean([c[number - 1]['naive'] for c in clubs]):.3f}",
                f"{np.mean([c[number - 1]['rate'] for c in variant_clubs]):.3f}",
                f"{sorted_rows[number - 1]['rate']:.3f}",
                f"{sorted_rows[number - 1]['naive']:.3f}",
            ]
            for number in range(1, args.weeks + 1)
        ],
    )
    last = rows[-1]
    goal = last["rate"] >= SPEARMAN_GOAL
    ahead = all(r["rate"] > r["naive"] for r in rows)
    print(
        f"target: Rate ρ ≥ {SPEARMAN_GOAL} by week {args.weeks}: {last['rate']:.3f} "
        f"({'met' if goal else 'MISSED'}); ahead of the naive index (all boards) every week: "
        f"{'met' if ahead else 'MISSED'} "
        f"(ahead in {sum(r['rate'] > r['naive'] for r in rows)} of {len(rows)} weeks)"
    )

    bad = bad_week(club, args.seed + 1000, params)
    print(
        f"\n(b) one bad week (week {args.weeks + 1}): a player of skill {bad['player_skill']} "
        f"carrying C = {bad['weight_before']} plays the week 2 standard deviations worse"
    )
    print_table(
        ["", "Rate"],
        [
            ["before", bad["before"]],
            ["after the same week played normally", bad["after_normal_week"]],
            [f"after the bad week (its W = {bad['bad_week_w']})", bad["after_bad_week"]],
            [
                f"after the worst possible week (every board lost, W = {bad['worst_week_w']})",
                bad["after_worst_week"],
            ],
            ["one normal week after the bad week", bad["one_week_later"]],
            ["two normal weeks after the bad week", bad["two_weeks_later"]],
            [
                "bad week − normal week, mean of 20 other weeks",
                f"{bad['mean_bad_minus_normal_20_weeks']:+.2f}",
            ],
        ],
    )

    weak = weak_partner(club, args.seed + 2000, params)
    print(
        f"\n(c) a good player (skill {weak['good_skill']}) plays week {args.weeks + 1} with a "
        f"weak partner (skill {weak['weak_skill']}) at every session; beside it the same week "
        "with an average partner (skill ≈ 0)"
    )
    print_table(
        ["", "weak partner", "average partner"],
        [
            ["good player's Rate before", weak["good_before"], weak["good_before"]],
            [
                "Rate after (this week)",
                weak["good_after_weak_partner"],
                weak["good_after_average_partner"],
            ],
            [
                f"Rate change, mean of {weak['trials']} weeks",
                f"{weak['mean_rate_change_weak']:+.2f}",
                f"{weak['mean_rate_change_average']:+.2f}",
            ],
            [
                f"own mean IMPs that week, mean of {weak['trials']}",
                f"{weak['mean_week_imps_weak']:+.2f}",
                f"{weak['mean_week_imps_average']:+.2f}",
            ],
            [
                f"naive index (all boards, {weak['naive_before']:+.2f} before) change",
                f"{weak['mean_naive_change_weak']:+.2f}",
                f"{weak['mean_naive_change_average']:+.2f}",
            ],
            ["the weak partner's Rate", f"{weak['weak_before']} → {weak['weak_after']}", ""],
        ],
    )

    big = scale(args.seed + 3000, params)
    ok = big["worst_s"] < SCALE_TARGET_S
    print(
        f"\n(d) weekly close of {big['players']:,} players and {big['boards']:,} board results: "
        f"best {big['best_s']} s, worst {big['worst_s']} s of 3; peak allocated "
        f"{big['peak_mb']} MB (tracemalloc), max RSS {big['max_rss_mb']} MB"
    )
    print(f"target: < {SCALE_TARGET_S:.0f} s: {'met' if ok else 'MISSED'}")

    record(
        "rating",
        parameters=params.as_dict(),
        club={
            "players": args.players,
            "seed": args.seed,
            "sessions": SESSIONS,
            "attendance": ATTENDANCE,
            "boards_per_session": BOARDS_PER_SESSION,
            "imps_per_skill": IMPS_PER_SKILL,
            "luck_imps": LUCK_IMPS,
        },
        weeks=rows,
        other_clubs_mean={
            "rate": [
                round(float(np.mean([c[w]["rate"] for c in clubs])), 3) for w in range(args.weeks)
            ],
            "naive": [
                round(float(np.mean([c[w]["naive"] for c in clubs])), 3) for w in range(args.weeks)
            ],
        },
        variant_not_spec={
            "imp_multiplier": VARIANT_MULTIPLIER,
            "rate": [
                round(float(np.mean([c[w]["rate"] for c in variant_clubs])), 3)
                for w in range(args.weeks)
            ],
        },
        sorted_club={"sorted_by": SORTED_BY, "weeks": sorted_rows},
        goal_met=goal,
        ahead_every_week=ahead,
        bad_week=bad,
        weak_partner=weak,
        scale=big,
    )


if __name__ == "__main__":
    main()
