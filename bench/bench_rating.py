"""Benchmark of the Rate (SPEC 13, issue 29): does it see skill, and is the weekly close fast?

    .venv/bin/python bench/bench_rating.py [--players 480] [--weeks 12] [--seed 29] [--clubs 20]

Pure (no database). Four parts, each printed as a table and recorded for `make bench`'s
summary (with the rating settings used, so a figure can be recomputed):

(a) **Skill recognition.** A simulated club of 480 members, each with a hidden skill
    s ~ N(0, 1). Each week has 9 sessions; a member comes to each with probability 0.8.
    SPEC 13's players "sit down with a partner or alone": half the members have a regular
    partner (partnerships formed among members of roughly the same standard: paired in the
    order of skill + N(0, 1)); a partnership comes as one, and plays together at half the
    sessions it comes to. Everyone else who came (and a partnership's two members on the
    other sessions) takes a partner at random; the pairs are shuffled into tables of two
    pairs, so opponents change every session. Each table plays 4 boards: about 29 boards a
    member a week. A board's result for NS in IMPs against the datum is
    round(0.75 × (s_N + s_S − s_E − s_W) + luck): a member one standard deviation better
    is worth 0.75 IMP a board (an assumption, stated so it can be argued with), and the
    luck is **drawn from real club boards**: the IMPs of every result against its board's
    datum (SPEC 5.3) in Compscore3's three USEBIO events (`../shared/usebio/`, 492
    results, standard deviation 4.8 IMPs, tails a little heavier than a normal curve's),
    each drawn with a random sign. The Rates are closed by `rating.close_week` with SPEC
    13's settings, from a club of new members (R = 50, C = 30). Week by week: Spearman's
    rank correlation between Rate and hidden skill, beside the naive index, mean IMPs per
    board over every board so far (the strongest naive figure: it forgets nothing), the
    week's own mean IMPs (上周平均分), and a ceiling no published index can reach: the
    Bayes-optimal estimate that knows the model (skills' prior, the 0.75, the luck's
    spread) and solves every board so far at once.

    One club's lead or lag moves by about ±0.005 with its luck, so the goal is judged on
    the mean over 20 more clubs (seeds 30–49) with its standard error: ahead in a week
    means the mean lead is more than two standard errors above 0. Three controls over the
    same 20 clubs show where the Rate cannot lead: partners drawn at random every session
    with the real luck; the same with a normal luck of 5 IMPs (this benchmark's first
    model); and a clearly labelled VARIANT that is not SPEC's formula (1/30 per IMP). A
    club whose tables are made of neighbours in skill shows the other extreme.
(b) **One bad week.** A member established over those weeks plays week 13 as a player two
    standard deviations below their skill; the same week played normally (same draws) is
    the comparison, and the Rate is followed through two normal weeks after.
(c) **A weak partner.** A strong member (skill ≈ +1.5) plays all of week 13 with a weak
    partner (skill ≈ −1.5) against the rest of the club; beside it, the same member's
    week with an average partner, and the partner's own Rate.
(d) **Scale.** The weekly close of 20,000 players and 1,000,000 board results (random
    tables, IMPs and 0.1 % disconnections), best of 3 and the worst, with the peak memory
    the close allocates (tracemalloc, which counts numpy's buffers) and the process's
    maximum resident size.
"""

from __future__ import annotations

import argparse
import gc
import os
import resource
import sys
import time
import tracemalloc
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field, replace
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
from scoring.field import datum_imps  # noqa: E402

SESSIONS = 9
ATTENDANCE = 0.8
BOARDS_PER_SESSION = 4
IMPS_PER_SKILL = 0.75
#: the normal luck of the control club (this benchmark's first model)
LUCK_IMPS = 5.0
#: half the members have a regular partner of about their standard …
REGULAR_SHARE = 0.5
PARTNER_LIKENESS = 1.0  # partnerships paired in the order of skill + this × N(0, 1)
#: … and play together at half the sessions they come to
TOGETHER = 0.5

#: more clubs, to tell the Rate's lead or lag from one club's luck
OTHER_CLUBS = 20
#: the sorted club's tables: neighbours in skill + SORTED_BY × N(0, 1)
SORTED_BY = 0.5
#: a labelled variant (not SPEC 13's formula): 1/30 per IMP instead of 1/15
VARIANT_MULTIPLIER = 1 / 30

SPEARMAN_GOAL = 0.9
SCALE_PLAYERS = 20_000
SCALE_BOARDS = 1_000_000
SCALE_TARGET_S = 30.0

USEBIO_SAMPLES = ROOT / os.environ.get("USEBIO_SAMPLES_DIR", "../shared/usebio")

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


# --- the luck of a board, from real club events --------------------------------------------


def real_luck(folder: Path = USEBIO_SAMPLES) -> np.ndarray:
    """Every result's IMPs against its board's datum (SPEC 5.3, our own scoring core) in the
    USEBIO events in ``folder``: boards with at least three scored results; adjusted and
    unscored lines (no integer score) left out."""
    files = sorted(folder.glob("*.xml"))
    if not files:
        sys.exit(
            f"bench_rating: no USEBIO events in {folder} (set USEBIO_SAMPLES_DIR to the "
            "folder of Compscore3's files)"
        )
    deviations: list[int] = []
    for path in files:
        for board in ET.parse(path).iter("BOARD"):
            scores = []
            for line in board.iter("TRAVELLER_LINE"):
                text = (line.findtext("SCORE") or "").strip()
                if text.lstrip("-").isdigit():
                    scores.append(int(text))
            if len(scores) >= 3:
                deviations.extend(datum_imps(scores)[1])
    return np.asarray(deviations, dtype=float)


# --- the simulated club ------------------------------------------------------------------


@dataclass(frozen=True)
class Model:
    """How the simulated club plays: the luck (real deviations drawn with a random sign, or
    a normal curve of ``LUCK_IMPS`` when None), the share of members with a regular
    partner, and whether tables are made of neighbours in skill."""

    luck: np.ndarray | None
    regular_share: float = REGULAR_SHARE
    together: float = TOGETHER
    likeness: float = PARTNER_LIKENESS
    sorted_by: float | None = None


@dataclass
class Week:
    players: np.ndarray  # (boards, 4) N, E, S, W
    imps: np.ndarray  # NS's IMPs


def regular_partners(skills: np.ndarray, rng: np.random.Generator, model: Model) -> np.ndarray:
    """Each member's regular partner (−1: none): ``model.regular_share`` of the members,
    paired in the order of skill + ``model.likeness`` × N(0, 1), so partners are of about
    the same standard but not sorted exactly."""
    partner = np.full(len(skills), -1)
    count = int(len(skills) * model.regular_share) // 2 * 2
    if count == 0:
        return partner
    members = rng.permutation(len(skills))[:count]
    members = members[np.argsort(skills[members] + model.likeness * rng.standard_normal(count))]
    first, second = members[0::2], members[1::2]
    partner[first], partner[second] = second, first
    return partner


def play_week(
    club: Club,
    rng: np.random.Generator,
    *,
    fixed_pair: tuple[int, int] | None = None,
) -> Week:
    """A week of sessions: pairs at tables of two pairs (NS, EW), 4 boards each.

    A regular partnership comes as one (one draw of the attendance) and plays together
    with probability ``model.together``; everyone else present is paired at random. ``fixed_pair``
    (a, b) sit together as NS at every session, against the first pair of the others.
    """
    skills, partner, model = club.skills, club.partners, club.model
    count = len(skills)
    anchors = np.flatnonzero((partner >= 0) & (np.arange(count) < partner))
    tables = []
    for _session in range(SESSIONS):
        present = rng.random(count) < ATTENDANCE
        present[partner[anchors]] = present[anchors]
        if fixed_pair is not None:
            present[list(fixed_pair)] = False
        came = anchors[present[anchors] & present[partner[anchors]]]
        together = came[rng.random(len(came)) < model.together]
        seated = np.zeros(count, dtype=bool)
        seated[together] = seated[partner[together]] = True
        alone = rng.permutation(np.flatnonzero(present & ~seated))
        alone = alone[: len(alone) - len(alone) % 2]
        pairs = np.concatenate(
            [np.stack([together, partner[together]], axis=1), alone.reshape(-1, 2)]
        )
        pairs = pairs[rng.permutation(len(pairs))]
        if model.sorted_by is not None:
            strength = skills[pairs].mean(axis=1)
            pairs = pairs[np.argsort(strength + model.sorted_by * rng.standard_normal(len(pairs)))]
        if fixed_pair is not None:
            pairs = np.concatenate([np.array([fixed_pair]), pairs])
        pairs = pairs[: len(pairs) - len(pairs) % 2].reshape(-1, 2, 2)  # NS pair, EW pair
        # Seats N, E, S, W; which member of a pair sits North is a coin.
        flip = rng.random((len(pairs), 2)) < 0.5
        pairs[flip] = pairs[flip][:, ::-1]
        tables.append(
            np.stack([pairs[:, 0, 0], pairs[:, 1, 0], pairs[:, 0, 1], pairs[:, 1, 1]], axis=1)
        )
    seated_boards = np.repeat(np.concatenate(tables), BOARDS_PER_SESSION, axis=0)
    return Week(players=seated_boards, imps=draw_imps(seated_boards, skills, rng, model.luck))


def draw_imps(
    seated: np.ndarray,
    skills: np.ndarray,
    rng: np.random.Generator,
    luck: np.ndarray | None,
) -> np.ndarray:
    s = skills[seated]
    edge = s[:, 0] + s[:, 2] - s[:, 1] - s[:, 3]
    if luck is None:
        drawn = LUCK_IMPS * rng.standard_normal(len(seated))
    else:
        drawn = rng.choice(luck, len(seated)) * rng.choice((-1.0, 1.0), len(seated))
    return np.round(IMPS_PER_SKILL * edge + drawn)


def imps_per_player(week: Week, count: int) -> tuple[np.ndarray, np.ndarray]:
    """(sum of own side's IMPs, boards) per player for the week."""
    signed = np.stack([week.imps, -week.imps, week.imps, -week.imps], axis=1)
    total = np.bincount(week.players.ravel(), weights=signed.ravel(), minlength=count)
    boards = np.bincount(week.players.ravel(), minlength=count)
    return total, boards


@dataclass
class Ceiling:
    """The Bayes-optimal estimate of the skills from every board so far, knowing the model:
    skills ~ N(0, 1) a priori, a board's IMPs = k × (s_N + s_S − s_E − s_W) + luck of
    variance σ². The posterior mean solves (I + k²/σ² · AᵀA) s = k/σ² · Aᵀ imps, where a
    board's row of A is +1 for N and S and −1 for E and W; AᵀA and Aᵀ imps are summed
    board by board, so each week adds to them."""

    count: int
    luck_variance: float
    gram: np.ndarray = field(init=False)
    moment: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        self.gram = np.zeros((self.count, self.count))
        self.moment = np.zeros(self.count)

    def add(self, week: Week) -> None:
        sign = np.array([1.0, -1.0, 1.0, -1.0])
        for i in range(4):
            np.add.at(self.moment, week.players[:, i], sign[i] * week.imps)
            for j in range(4):
                np.add.at(self.gram, (week.players[:, i], week.players[:, j]), sign[i] * sign[j])

    def skills(self) -> np.ndarray:
        k, variance = IMPS_PER_SKILL, self.luck_variance
        system = np.eye(self.count) + (k * k / variance) * self.gram
        return np.linalg.solve(system, (k / variance) * self.moment)


@dataclass
class Club:
    skills: np.ndarray
    partners: np.ndarray
    model: Model
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
        return replace(
            self,
            rates=self.rates.copy(),
            weights=self.weights.copy(),
            imps=self.imps.copy(),
            boards=self.boards.copy(),
        )


def new_club(count: int, rng: np.random.Generator, params: RatingParameters, model: Model) -> Club:
    rates, weights = new_players(count, params)
    skills = rng.standard_normal(count)
    return Club(
        skills,
        regular_partners(skills, rng, model),
        model,
        rates,
        weights,
        np.zeros(count),
        np.zeros(count),
    )


def recognition(
    club: Club,
    weeks: int,
    rng: np.random.Generator,
    params: RatingParameters,
    *,
    ceiling: bool = False,
) -> list[dict]:
    rows = []
    luck = club.model.luck
    best = Ceiling(len(club.skills), LUCK_IMPS**2 if luck is None else float(np.var(luck)))
    for number in range(1, weeks + 1):
        week = play_week(club, rng)
        week_mean = club.close(week, params)
        row = {
            "week": number,
            "boards": len(week.players),
            "boards_per_player": round(float(np.mean(club.boards)) / number, 1),
            "rate": round(spearman(club.rates, club.skills), 3),
            "naive": round(spearman(club.naive(), club.skills), 3),
            "week_only": round(spearman(week_mean, club.skills), 3),
        }
        if ceiling:
            best.add(week)
            row["ceiling"] = round(spearman(best.skills(), club.skills), 3)
        rows.append(row)
    return rows


def clubs(
    players: int, weeks: int, seeds: range, params: RatingParameters, model: Model
) -> np.ndarray:
    """ρ week by week for each club: an array (clubs, weeks, 2) of (Rate, naive)."""
    figures = []
    for seed in seeds:
        rng = np.random.default_rng(seed)
        rows = recognition(new_club(players, rng, params, model), weeks, rng, params)
        figures.append([(r["rate"], r["naive"]) for r in rows])
    return np.asarray(figures)


def lead(figures: np.ndarray) -> dict:
    """The Rate's mean lead over the naive index week by week, its standard error over the
    clubs, and how many clubs had the Rate ahead in every single week."""
    gap = figures[:, :, 0] - figures[:, :, 1]
    mean = gap.mean(axis=0)
    error = gap.std(axis=0, ddof=1) / np.sqrt(len(gap))
    return {
        "rate": [round(float(x), 3) for x in figures[:, :, 0].mean(axis=0)],
        "naive": [round(float(x), 3) for x in figures[:, :, 1].mean(axis=0)],
        "lead": [round(float(x), 4) for x in mean],
        "standard_error": [round(float(x), 4) for x in error],
        "weeks_ahead": int(np.sum(mean - 2 * error > 0)),
        "clubs_ahead_every_week": int(np.sum(np.all(gap > 0, axis=1))),
        "clubs": len(gap),
    }


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
    week = play_week(club, rng, fixed_pair=fixed_pair)
    # The same tables and the same luck whichever skills play them.
    played = club.skills if skills is None else skills
    week.imps = draw_imps(week.players, played, np.random.default_rng(seed + 1), club.model.luck)
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
    parser.add_argument("--clubs", type=int, default=OTHER_CLUBS)
    args = parser.parse_args()
    params = DEFAULT_PARAMETERS
    luck = real_luck()
    model = Model(luck=luck)
    print(f"rating settings: {params.as_dict()}")
    print(
        f"club: {args.players} members, skill ~ N(0, 1); {SESSIONS} sessions a week, "
        f"attendance {ATTENDANCE}, {BOARDS_PER_SESSION} boards a table; "
        f"{REGULAR_SHARE:.0%} of the members with a regular partner, together at "
        f"{TOGETHER:.0%} of their sessions; board IMPs = round({IMPS_PER_SKILL} × skill edge "
        f"+ luck), the luck one of {len(luck)} real results' IMPs against the datum "
        f"(standard deviation {np.std(luck):.2f}, kurtosis "
        f"{np.mean((luck - luck.mean()) ** 4) / np.var(luck) ** 2:.2f}; a normal curve's is 3) "
        f"with a random sign; seed {args.seed}"
    )

    rng = np.random.default_rng(args.seed)
    club = new_club(args.players, rng, params, model)
    rows = recognition(club, args.weeks, rng, params, ceiling=True)
    print("\n(a) Spearman's ρ with the hidden skill, week by week (one club)")
    print_table(
        [
            "week",
            "boards",
            "boards/player/week",
            "Rate",
            "naive (all boards)",
            "naive (the week)",
            "ceiling (knows the model)",
        ],
        [
            [
                r["week"],
                f"{r['boards']:,}",
                r["boards_per_player"],
                f"{r['rate']:.3f}",
                f"{r['naive']:.3f}",
                f"{r['week_only']:.3f}",
                f"{r['ceiling']:.3f}",
            ]
            for r in rows
        ],
    )

    seeds = range(args.seed + 1, args.seed + 1 + args.clubs)
    club_model = lead(clubs(args.players, args.weeks, seeds, params, model))
    # Controls over the same seeds: where there is little or nothing to see through.
    random_partners = lead(
        clubs(args.players, args.weeks, seeds, params, Model(luck=luck, regular_share=0.0))
    )
    normal_luck = lead(
        clubs(args.players, args.weeks, seeds, params, Model(luck=None, regular_share=0.0))
    )
    # Not SPEC's formula, labelled as such: the first model's clubs with a gentler IMP
    # multiplier, so fewer boards are clamped to a whole board won or lost.
    variant = RatingParameters(imp_multiplier=VARIANT_MULTIPLIER)
    variant_clubs = lead(
        clubs(args.players, args.weeks, seeds, variant, Model(luck=None, regular_share=0.0))
    )
    sorted_clubs = lead(
        clubs(args.players, args.weeks, seeds, params, Model(luck=luck, sorted_by=SORTED_BY))
    )
    print(
        f"\n(a) the mean over {args.clubs} more clubs (seeds {seeds.start}–{seeds.stop - 1}): "
        "the Rate's lead over the naive index (all boards) ± its standard error; and the "
        "controls over the same seeds"
    )

    def cell(figures: dict, week: int) -> str:
        return f"{figures['lead'][week]:+.4f} ± {figures['standard_error'][week]:.4f}"

    print_table(
        [
            "week",
            "Rate",
            "naive",
            "lead",
            "random partners: lead",
            "random partners, normal luck: lead",
            "VARIANT (not SPEC, 1/30 per IMP), random partners, normal luck: lead",
            f"neighbours' tables (± {SORTED_BY}): Rate / naive",
        ],
        [
            [
                week + 1,
                f"{club_model['rate'][week]:.3f}",
                f"{club_model['naive'][week]:.3f}",
                cell(club_model, week),
                cell(random_partners, week),
                cell(normal_luck, week),
                cell(variant_clubs, week),
                f"{sorted_clubs['rate'][week]:.3f} / {sorted_clubs['naive'][week]:.3f}",
            ]
            for week in range(args.weeks)
        ],
    )
    for name, figures in (
        ("random partners, real luck", random_partners),
        ("random partners, normal luck", normal_luck),
        ("neighbours' tables", sorted_clubs),
    ):
        print(
            f"  control, {name}: ahead (lead > 2 standard errors) in "
            f"{figures['weeks_ahead']} of {args.weeks} weeks; clubs ahead every week: "
            f"{figures['clubs_ahead_every_week']} of {figures['clubs']}"
        )
    # The club's three assumptions about partnerships, each halved and doubled (or so).
    sensitivity = []
    for label, changed in (
        ("regular partners: 25 % of the members", {"regular_share": 0.25}),
        ("regular partners: 75 % of the members", {"regular_share": 0.75}),
        ("together at 25 % of their sessions", {"together": 0.25}),
        ("together at 75 % of their sessions", {"together": 0.75}),
        ("partners more alike (skill + 0.5 × N(0, 1))", {"likeness": 0.5}),
        ("partners less alike (skill + 2 × N(0, 1))", {"likeness": 2.0}),
    ):
        figures = lead(clubs(args.players, args.weeks, seeds, params, replace(model, **changed)))
        sensitivity.append({"change": label, **changed, **figures})
    print(f"\n(a) the club's assumptions changed one at a time, {args.clubs} clubs each")
    print_table(
        [
            "change",
            "weeks ahead (> 2 SE)",
            "lead, week 1 / week 12",
            "clubs ahead every week",
            "Rate ρ, week 12",
        ],
        [
            [
                row["change"],
                f"{row['weeks_ahead']} of {args.weeks}",
                f"{row['lead'][0]:+.4f} / {row['lead'][-1]:+.4f}",
                f"{row['clubs_ahead_every_week']} of {row['clubs']}",
                f"{row['rate'][-1]:.3f}",
            ]
            for row in sensitivity
        ],
    )
    last = rows[-1]
    goal = last["rate"] >= SPEARMAN_GOAL and club_model["rate"][-1] >= SPEARMAN_GOAL
    ahead = club_model["weeks_ahead"] == args.weeks
    print(
        f"target: Rate ρ ≥ {SPEARMAN_GOAL} by week {args.weeks}: {last['rate']:.3f} in the "
        f"club above, {club_model['rate'][-1]:.3f} over {args.clubs} clubs "
        f"({'met' if goal else 'MISSED'}); ahead of the naive index (all boards) every week, "
        f"the mean lead over {args.clubs} clubs above two standard errors: "
        f"{'met' if ahead else 'MISSED'} ({club_model['weeks_ahead']} of {args.weeks} weeks; "
        f"the club above ahead in {sum(r['rate'] > r['naive'] for r in rows)} of "
        f"{len(rows)} weeks; clubs ahead in every single week: "
        f"{club_model['clubs_ahead_every_week']} of {args.clubs})"
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
            "luck": f"{len(luck)} real results' IMPs against the datum, random sign",
            "regular_share": REGULAR_SHARE,
            "together": TOGETHER,
        },
        weeks=rows,
        clubs=club_model,
        random_partners=random_partners,
        normal_luck=normal_luck,
        variant_not_spec={"imp_multiplier": VARIANT_MULTIPLIER, **variant_clubs},
        sorted_club={"sorted_by": SORTED_BY, **sorted_clubs},
        sensitivity=sensitivity,
        goal_met=goal,
        ahead_every_week=ahead,
        bad_week=bad,
        weak_partner=weak,
        scale=big,
    )


if __name__ == "__main__":
    main()
