"""Whole tournaments walked through the round clock with a controlled clock (RULES 2–7).

Every round of 2-, 7- and 20-pair events is played by each scoring method: results are
entered before the bell, some boards are left unplayed, a pair withdraws, a director
adjusts a board. After every bell the stored scores, totals, standings, seating and
finally ranks and master points are compared with values this file works out itself
from the rules (docs/RULES.md) with deliberately naive code (no `scoring` or `pairing` import).
"""

from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import ROUND_HALF_EVEN, Decimal
from zoneinfo import ZoneInfo

import pytest

from tournaments import selectors, visibility
from tournaments.errors import RoundClosed
from tournaments.models import (
    Board,
    BoardResult,
    MasterPointAward,
    Pair,
    PairBoardScore,
    PlayerProfile,
    Round,
    Standing,
    Table,
)
from tournaments.services import board_scoring, registration, results
from tournaments.services.clock import advance

pytestmark = pytest.mark.django_db

SHANGHAI = ZoneInfo("Asia/Shanghai")

# --- RULES 5, written out the slow and obvious way -----------------------------------------

IMP_BANDS = [20, 50, 90, 130, 170, 220, 270, 320, 370, 430, 500, 600, 750, 900, 1100]
IMP_BANDS += [1300, 1500, 1750, 2000, 2250, 2500, 3000, 3500, 4000]
ARTIFICIAL = {
    "MP": {"A+": 60.0, "A": 50.0, "A-": 40.0},
    "IMP": {"A+": 3.0, "A": 0.0, "A-": -3.0},
    "XIMP": {"A+": 3.0, "A": 0.0, "A-": -3.0},
}
VULNERABILITY = {}
for _n in (1, 8, 11, 14):
    VULNERABILITY[_n] = "None"
for _n in (2, 5, 12, 15):
    VULNERABILITY[_n] = "NS"
for _n in (3, 6, 9, 16):
    VULNERABILITY[_n] = "EW"
for _n in (4, 7, 10, 13):
    VULNERABILITY[_n] = "Both"


def expected_dealer(n: int) -> str:
    return "NESW"[(n - 1) % 4]


def expected_vulnerability(n: int) -> str:
    return VULNERABILITY[(n - 1) % 16 + 1]


def naive_imps(difference: int) -> int:
    won = sum(1 for band in IMP_BANDS if abs(difference) >= band)
    return won if difference >= 0 else -won


def naive_contract_score(contract: str, declarer: str, tricks: int, vul: str) -> int:
    """NS score of a played contract per RULES 5.1 ("4S", "3NTX", "6HXX")."""
    level, rest = int(contract[0]), contract[1:]
    doubled = rest.count("X")
    strain = rest.replace("X", "")
    side = "NS" if declarer in "NS" else "EW"
    vulnerable = vul in ("Both", side)
    needed = level + 6
    if tricks >= needed:
        per = 20 if strain in ("C", "D") else 30
        trick_score = (per * level + (10 if strain == "NT" else 0)) * [1, 2, 4][doubled]
        over = tricks - needed
        per_over = per if doubled == 0 else (200 if vulnerable else 100) * doubled
        over_score = over * per_over
        bonus = 50 if trick_score < 100 else (500 if vulnerable else 300)
        slam = {6: 750 if vulnerable else 500, 7: 1500 if vulnerable else 1000}.get(level, 0)
        score = trick_score + over_score + [0, 50, 100][doubled] + bonus + slam
    else:
        down = needed - tricks
        if doubled == 0:
            score = -down * (100 if vulnerable else 50)
        else:
            first_three = [200, 500, 800] if vulnerable else [100, 300, 500]
            penalty = first_three[min(down, 3) - 1] + 300 * max(down - 3, 0)
            score = -penalty * doubled
    return score if declarer in "NS" else -score


def naive_datum(scores: list[int]) -> int:
    n = len(scores)
    k = 0 if n <= 2 else max(1, n // 10)
    kept = sorted(scores)[k : n - k]
    mean = Decimal(sum(kept)) / Decimal(len(kept))
    return int((mean / 10).quantize(Decimal(1), rounding=ROUND_HALF_EVEN)) * 10


def naive_played_points(method: str, scores: list[int]) -> list[float]:
    """NS points of each played score among the played scores of one board."""
    n = len(scores)
    if method == "MP":
        if n == 1:
            return [50.0]
        points = []
        for i, s in enumerate(scores):
            mp = sum(2 if s > t else 1 if s == t else 0 for j, t in enumerate(scores) if j != i)
            points.append(100.0 * mp / (2 * (n - 1)))
        return points
    if method == "IMP":
        if n == 1:
            return [0.0]
        return [
            sum(naive_imps(s - t) for j, t in enumerate(scores) if j != i) / (n - 1)
            for i, s in enumerate(scores)
        ]
    datum = naive_datum(scores)
    return [float(naive_imps(s - datum)) for s in scores]


def naive_settled(method: str, code: str, played: list[float]) -> float:
    """An adjusted score's worth (RULES 5.4): in MP, A+ is 60 % or the pair's own percentage
    on its played boards if higher, A- 40 % or its own if lower; IMPs are fixed."""
    flat = ARTIFICIAL[method][code]
    if method != "MP" or not played:
        return flat
    own = sum(played) / len(played)
    return {"A+": max(flat, own), "A-": min(flat, own)}.get(code, flat)


def naive_total(method: str, points: list[float]) -> float:
    if method == "MP":
        return sum(points) / len(points) if points else 0.0
    return sum(points)


def naive_master_points(rank: int, finishers: int) -> int:
    if rank == 1:
        return 3
    if finishers >= 20:
        return 2 if rank <= 4 else 1 if rank <= 10 else 0
    if rank > finishers / 2:
        return 0
    return 2 if rank <= 4 else 1


# --- the event as the test sees it --------------------------------------------------------

CONTRACTS = ["4S", "3NT", "2H", "1NT", "4HX", "3C", "6NT", "5DX", "2SXX"]


@dataclass
class Model:
    method: str
    policy: str
    reg: dict[int, int]  # pair id -> registration no.
    # (board number, table id) -> ("played", ns) | ("adjusted", ns_code, ew_code) | None
    outcome: dict[tuple[int, int], tuple | None] = field(default_factory=dict)
    # A pair's completed boards: a played board's points, or the code of an adjusted score
    # (a bye is "A"), valued against the pair's own play when the totals are taken.
    points: dict[int, list[float | str]] = field(default_factory=lambda: defaultdict(list))
    round_points: dict[tuple[int, int], list[float | str]] = field(
        default_factory=lambda: defaultdict(list)
    )
    met: set[frozenset] = field(default_factory=set)
    ns_count: dict[int, int] = field(default_factory=lambda: defaultdict(int))
    ew_count: dict[int, int] = field(default_factory=lambda: defaultdict(int))
    byes: dict[int, int] = field(default_factory=lambda: defaultdict(int))
    withdrawn: set[int] = field(default_factory=set)
    # (pair id, board number) -> points or code, None for a board the pair did not complete
    expected: dict[tuple[int, int], float | str | None] = field(default_factory=dict)

    def value(self, pair_id: int, entry: float | str) -> float:
        if not isinstance(entry, str):
            return entry
        played = [p for p in self.points[pair_id] if not isinstance(p, str)]
        return naive_settled(self.method, entry, played)

    def values(self, pair_id: int, entries) -> list[float]:
        return [self.value(pair_id, entry) for entry in entries]

    def total(self, pair_id: int) -> float:
        return naive_total(self.method, self.values(pair_id, self.points[pair_id]))

    def done(self, pair_id: int) -> int:
        return len(self.points[pair_id])

    def order(self, pair_ids) -> list[int]:
        return sorted(
            pair_ids, key=lambda p: (-round(self.total(p), 6), -self.done(p), self.reg[p])
        )

    def score_round(self, number: int, tables: list[Table], boards: list[int], bye: int | None):
        cutoff = {"avg_minus": ("adjusted", "A-", "A-"), "avg": ("adjusted", "A", "A")}
        for board in boards:
            entries = []
            for table in tables:
                outcome = self.outcome.get((board, table.id))
                if outcome is None:
                    outcome = cutoff.get(self.policy)
                entries.append((table, outcome))
            played = [o[1] for _, o in entries if o and o[0] == "played"]
            played_points = iter(naive_played_points(self.method, played) if played else [])
            for table, outcome in entries:
                if outcome is None:
                    self.expected[(table.ns_pair_id, board)] = None
                    self.expected[(table.ew_pair_id, board)] = None
                    continue
                if outcome[0] == "played":
                    ns = next(played_points)
                    ew = 100.0 - ns if self.method == "MP" else -ns
                else:
                    ns, ew = outcome[1], outcome[2]
                for pair_id, value in ((table.ns_pair_id, ns), (table.ew_pair_id, ew)):
                    self.expected[(pair_id, board)] = value
                    self.points[pair_id].append(value)
                    self.round_points[(number, pair_id)].append(value)
            if bye is not None:
                self.expected[(bye, board)] = "A"
                self.points[bye].append("A")
                self.round_points[(number, bye)].append("A")


@dataclass
class Config:
    pairs: int
    rounds: int
    boards: int
    method: str
    policy: str
    gap_minutes: int = 0
    withdraw: tuple[int, int] | None = None  # (registration no., during round)
    slow: int | None = None  # registration no. of a pair that plays nothing in rounds 1-2

    @property
    def id(self) -> str:
        return f"{self.pairs}pairs-{self.method}-{self.policy}"


CONFIGS = [
    Config(2, 2, 3, "MP", "not_played", gap_minutes=2),
    Config(2, 2, 3, "IMP", "avg_minus", gap_minutes=2),
    Config(2, 2, 3, "XIMP", "avg", gap_minutes=2),
    Config(7, 5, 2, "MP", "avg_minus", gap_minutes=5, withdraw=(5, 2), slow=3),
    Config(7, 5, 2, "IMP", "avg", gap_minutes=5, withdraw=(5, 2), slow=3),
    Config(7, 5, 2, "XIMP", "not_played", gap_minutes=5, withdraw=(5, 2), slow=3),
    Config(20, 4, 2, "MP", "avg", withdraw=(7, 3), slow=3),
    Config(20, 4, 2, "IMP", "not_played", withdraw=(7, 3), slow=3),
    Config(20, 4, 2, "XIMP", "avg_minus", withdraw=(7, 3), slow=3),
]


def local_time(when: datetime) -> str:
    return when.astimezone(SHANGHAI).strftime("%H:%M:%S")


def snapshot(tournament) -> dict:
    """Every row the clock writes for `tournament`, ids included."""
    return {
        "tournament": type(tournament).objects.filter(pk=tournament.pk).values().get(),
        "rounds": list(Round.objects.filter(tournament=tournament).order_by("id").values()),
        "boards": list(Board.objects.filter(tournament=tournament).order_by("id").values()),
        "tables": list(Table.objects.filter(round__tournament=tournament).order_by("id").values()),
        "results": list(
            BoardResult.objects.filter(board__tournament=tournament).order_by("id").values()
        ),
        "scores": list(
            PairBoardScore.objects.filter(board__tournament=tournament).order_by("id").values()
        ),
        "standings": list(
            Standing.objects.filter(round__tournament=tournament).order_by("id").values()
        ),
        "pairs": list(Pair.objects.filter(tournament=tournament).order_by("id").values()),
        "awards": list(
            MasterPointAward.objects.filter(tournament=tournament).order_by("id").values()
        ),
    }


def check_boards(tournament, rnd: Round, config: Config, seen_deals: set[str]):
    boards = list(Board.objects.filter(round=rnd).order_by("number"))
    first = (rnd.number - 1) * config.boards + 1
    assert [b.number for b in boards] == list(range(first, first + config.boards))
    for board in boards:
        assert board.dealer == expected_dealer(board.number)
        assert board.vulnerability == expected_vulnerability(board.number)
        # Hidden from players while the round is open (RULES 2).
        assert visibility.deal_public(rnd) is False
        seat, _, hands = board.deal.partition(":")
        assert seat == "N"
        cards = []
        for hand in hands.split():
            suits = hand.split(".")
            assert len(suits) == 4
            held = [s + c for s, holding in zip("SHDC", suits, strict=True) for c in holding]
            assert len(held) == 13
            cards += held
        assert len(set(cards)) == 52
        assert board.deal not in seen_deals
        seen_deals.add(board.deal)
    return boards


def rematch_free_seating_exists(pair_ids: list[int], met: set[frozenset]) -> bool:
    """Backtracking search for a perfect matching that avoids every earlier meeting."""
    if not pair_ids:
        return True
    first, rest = pair_ids[0], pair_ids[1:]
    return any(
        rematch_free_seating_exists(rest[:i] + rest[i + 1 :], met)
        for i, other in enumerate(rest)
        if frozenset((first, other)) not in met
    )


def check_seating(model: Model, rnd: Round, tables: list[Table], active: list[int]):
    seated = [p for t in tables for p in (t.ns_pair_id, t.ew_pair_id)]
    if rnd.bye_pair_id is not None:
        seated.append(rnd.bye_pair_id)
    assert sorted(seated) == sorted(active), "every active pair seated exactly once"
    assert [t.number for t in tables] == list(range(1, len(tables) + 1))
    if rnd.number == 1:
        by_reg = sorted(active, key=model.reg.__getitem__)
        bye = by_reg.pop() if len(by_reg) % 2 else None
        assert rnd.bye_pair_id == bye
        assert [(t.ns_pair_id, t.ew_pair_id) for t in tables] == list(
            zip(by_reg[::2], by_reg[1::2], strict=True)
        )
        return
    order = model.order(active)
    rematches = sum(frozenset((t.ns_pair_id, t.ew_pair_id)) in model.met for t in tables)
    assert rnd.rematches == rematches
    if len(order) % 2:
        fewest = min(model.byes[p] for p in order)
        eligible = [p for p in order if model.byes[p] == fewest]
        assert rnd.bye_pair_id in eligible, "nobody has a second bye before everyone had one"
        free_with = {
            p: rematch_free_seating_exists([q for q in order if q != p], model.met)
            for p in eligible
        }
        if free_with[eligible[-1]]:
            assert rnd.bye_pair_id == eligible[-1], "bye to the lowest-placed pair without one"
        if any(free_with.values()):
            assert rematches == 0, "no rematch while a rematch-free seating exists"
        order.remove(rnd.bye_pair_id)
    else:
        assert rnd.bye_pair_id is None
        if rematch_free_seating_exists(order, model.met):
            assert rematches == 0, "no rematch while a rematch-free seating exists"
    top_down = [frozenset(order[i : i + 2]) for i in range(0, len(order), 2)]
    if not any(pair in model.met for pair in top_down):
        assert [frozenset((t.ns_pair_id, t.ew_pair_id)) for t in tables] == top_down
    for t in tables:
        # Directions balance: the pair that sat North-South less so far sits there now.
        ns_balance = model.ns_count[t.ns_pair_id] - model.ew_count[t.ns_pair_id]
        ew_balance = model.ns_count[t.ew_pair_id] - model.ew_count[t.ew_pair_id]
        assert ns_balance <= ew_balance


def random_entry(rng: random.Random) -> tuple[str, str, int]:
    contract = rng.choice(CONTRACTS)
    declarer = rng.choice("NESW")
    tricks = min(13, max(0, int(contract[0]) + 6 + rng.choice([-3, -1, -1, 0, 0, 0, 1])))
    return contract, declarer, tricks


def play_round(model, config, rnd, tables, boards, pairs_by_id, organiser, rng):
    """Enter this round's results before the bell; some boards are left for the cut-off."""
    t_entry = rnd.starts_at + timedelta(minutes=1)
    for table in tables:
        for board in boards:
            regs = {model.reg[table.ns_pair_id], model.reg[table.ew_pair_id]}
            if config.slow in regs and rnd.number <= 2:
                continue
            if rng.random() < 0.12:
                continue
            ns_pair, ew_pair = pairs_by_id[table.ns_pair_id], pairs_by_id[table.ew_pair_id]
            player = ns_pair.player1 if table.number % 2 else ew_pair.player2
            if rng.random() < 0.06:
                results.submit_result(
                    table=table,
                    board_number=board.number,
                    entry=results.ContractEntry(contract="PASS"),
                    user=player,
                    now=t_entry,
                )
                model.outcome[(board.number, table.id)] = ("played", 0)
                continue
            if table.number == 1 and board.number == boards[0].number:
                # A first entry corrected before the bell: only the correction counts.
                results.submit_result(
                    table=table,
                    board_number=board.number,
                    entry=results.ContractEntry(contract="7NTXX", declarer="N", tricks=0),
                    user=player,
                    now=t_entry,
                )
            contract, declarer, tricks = random_entry(rng)
            results.submit_result(
                table=table,
                board_number=board.number,
                entry=results.ContractEntry(contract=contract, declarer=declarer, tricks=tricks),
                user=player,
                now=t_entry + timedelta(seconds=30),
            )
            ns = naive_contract_score(contract, declarer, tricks, board.vulnerability)
            model.outcome[(board.number, table.id)] = ("played", ns)
    if rnd.number == 1 and tables:
        # The director replaces a board by an adjusted score before the bell.
        table, board = tables[-1], boards[-1]
        stored = results.director_set_result(
            table=table,
            board_number=board.number,
            by=organiser,
            ns_adjustment="A+",
            ew_adjustment="A-",
            reason="slow play by EW",
            now=t_entry + timedelta(minutes=2),
        )
        assert (stored.adjusted_by, stored.adjustment_reason) == (organiser, "slow play by EW")
        model.outcome[(board.number, table.id)] = ("adjusted", "A+", "A-")


def check_scores(model: Model, tournament, rnd: Round, tables, boards):
    stored = {
        (s.pair_id, s.board.number): s
        for s in PairBoardScore.objects.filter(board__round=rnd).select_related("board")
    }
    numbers = {b.number for b in boards}
    expected = {key: v for key, v in model.expected.items() if key[1] in numbers}
    assert set(stored) == set(expected), "one score per pair per board of the round"
    for key, want in expected.items():
        score = stored[key]
        if want is None:
            assert (score.completed, score.points) == (False, None), key
        else:
            assert score.completed is True, key
            assert score.points == pytest.approx(model.value(key[0], want), abs=1e-9), key
        if key[0] == rnd.bye_pair_id:
            assert (score.direction, score.result_id) == ("BYE", None)
    # Running totals and standings after this round.
    pairs = list(Pair.objects.filter(tournament=tournament))
    for pair in pairs:
        assert pair.total == pytest.approx(model.total(pair.id), abs=1e-6)
        assert pair.boards_completed == model.done(pair.id)
    standings = {s.pair_id: s for s in Standing.objects.filter(round=rnd)}
    assert set(standings) == {p.id for p in pairs}
    for position, pair_id in enumerate(model.order([p.id for p in pairs]), start=1):
        standing = standings[pair_id]
        assert standing.position == position
        assert standing.total == pytest.approx(model.total(pair_id), abs=1e-6)
        assert standing.boards_completed == model.done(pair_id)
        round_points = model.round_points.get((rnd.number, pair_id))
        if round_points:
            assert standing.round_score == pytest.approx(
                naive_total(model.method, model.values(pair_id, round_points)), abs=1e-6
            )
        else:
            assert standing.round_score is None
    if model.method == "XIMP":
        for board in Board.objects.filter(round=rnd):
            played = [
                o[1]
                for (number, _), o in model.outcome.items()
                if number == board.number and o and o[0] == "played"
            ]
            assert board.datum == (naive_datum(played) if played else None)


def check_final(model: Model, tournament, config: Config):
    total_boards = config.rounds * config.boards
    pairs = list(Pair.objects.filter(tournament=tournament).select_related("player1", "player2"))
    order = model.order([p.id for p in pairs])
    finishers = [p for p in order if model.done(p) / total_boards >= 0.7 - 1e-12]
    expected_rank = {p: i for i, p in enumerate(finishers, start=1)}
    for pair in pairs:
        rank = expected_rank.get(pair.id)
        points = naive_master_points(rank, len(finishers)) if rank else 0
        assert (pair.rank, pair.completed, pair.master_points) == (rank, rank is not None, points)
        awards = MasterPointAward.objects.filter(tournament=tournament, pair=pair)
        if points:
            assert {(a.user_id, a.rank, a.points) for a in awards} == {
                (pair.player1_id, rank, points),
                (pair.player2_id, rank, points),
            }
            for user in (pair.player1, pair.player2):
                profile = PlayerProfile.objects.get(user=user)
                assert profile.master_points == points  # their only event
                title = board_scoring.title_for(profile.master_points)
                # Defaults: 1 master point makes 有级牌手, 5 makes 中级牌手.
                assert title.name_zh == "有级牌手"
        else:
            assert not awards.exists()
    assert MasterPointAward.objects.filter(tournament=tournament).count() == 2 * sum(
        1 for p in pairs if expected_rank.get(p.id) and p.master_points > 0
    )
    # Withdrawn pairs keep their scores and appear in the results (RULES 1).
    for pair_id in model.withdrawn:
        assert any(row.pair_id == pair_id for row in selectors.standings(tournament=tournament))


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: c.id)
def test_whole_tournament(config, make_tournament, register_pairs, organiser, t0):
    round_length = timedelta(minutes=20)
    gap = timedelta(minutes=config.gap_minutes)
    tournament = make_tournament(
        rounds=config.rounds,
        boards_per_round=config.boards,
        round_length=round_length,
        gap_length=gap,
        scoring_method=config.method,
        unplayed_policy=config.policy,
    )
    pairs = register_pairs(tournament, config.pairs)
    pairs_by_id = {p.id: p for p in pairs}
    model = Model(config.method, config.policy, {p.id: p.registration_no for p in pairs})
    rng = random.Random(f"{config.pairs}-{config.method}")
    seen_deals: set[str] = set()

    assert not advance(now=t0 - timedelta(seconds=1))
    assert not Round.objects.filter(tournament=tournament).exists()
    advance(now=t0)
    expected_start = t0
    for number in range(1, config.rounds + 1):
        rnd = Round.objects.get(tournament=tournament, number=number)
        assert (rnd.starts_at, rnd.ends_at) == (expected_start, expected_start + round_length)
        if rnd.status == "scheduled":
            # The gap: seated but not started; entries are refused until the start.
            before = snapshot(tournament)
            assert not advance(now=rnd.starts_at - timedelta(seconds=1))
            assert snapshot(tournament) == before
            advance(now=rnd.starts_at)
            rnd.refresh_from_db()
        assert rnd.status == "open"
        tables = list(Table.objects.filter(round=rnd).order_by("number"))
        active = [p.id for p in pairs if p.id not in model.withdrawn]
        check_seating(model, rnd, tables, active)
        boards = check_boards(tournament, rnd, config, seen_deals)

        play_round(model, config, rnd, tables, boards, pairs_by_id, organiser, rng)
        if config.withdraw and config.withdraw[1] == number:
            leaving = next(p for p in pairs if p.registration_no == config.withdraw[0])
            registration.withdraw_pair(
                pair=leaving, by=leaving.player1, now=rnd.starts_at + timedelta(minutes=5)
            )
            model.withdrawn.add(leaving.id)
            # Its table's unfinished boards: A+ to the opponents, A- to it (RULES 1).
            for table in tables:
                side = table.side_of_pair(leaving.id)
                for board in boards if side else ():
                    codes = ("A-", "A+") if side == "NS" else ("A+", "A-")
                    model.outcome.setdefault((board.number, table.id), ("adjusted", *codes))

        before = snapshot(tournament)
        assert not advance(now=rnd.ends_at - timedelta(microseconds=1))
        assert snapshot(tournament) == before, "nothing moves before the bell"

        report = advance(now=rnd.ends_at)
        assert any(f"round {number} closed" in event for event in report.events)
        after = snapshot(tournament)
        assert not advance(now=rnd.ends_at)
        assert snapshot(tournament) == after, "a repeated tick changes nothing"

        rnd.refresh_from_db()
        assert (rnd.status, rnd.closed_at) == ("closed", rnd.ends_at)
        for board in boards:
            board.refresh_from_db()
            assert visibility.deal_public(rnd) is True

        # The cut-off: every table has a row for every board, per the policy.
        for table in tables:
            for board in boards:
                row = BoardResult.objects.get(table=table, board=board)
                if (board.number, table.id) in model.outcome:
                    continue
                if config.policy == "not_played":
                    assert (row.state, row.ns_score) == ("not_played", None)
                else:
                    code = "A-" if config.policy == "avg_minus" else "A"
                    assert (row.state, row.ns_adjustment, row.ew_adjustment) == (
                        "adjusted",
                        code,
                        code,
                    )

        # A result after the bell is refused with the clock's message and changes nothing.
        late_table = tables[0]
        with pytest.raises(RoundClosed) as refused:
            results.submit_result(
                table=late_table,
                board_number=boards[0].number,
                entry=results.ContractEntry(contract="3NT", declarer="S", tricks=9),
                user=pairs_by_id[late_table.ns_pair_id].player1,
                now=rnd.ends_at + timedelta(seconds=1),
            )
        assert str(refused.value) == (
            f"Round {number} closed at {local_time(rnd.ends_at)}; results can no longer be entered."
        )
        assert snapshot(tournament) == after

        model.score_round(number, tables, [b.number for b in boards], rnd.bye_pair_id)
        check_scores(model, tournament, rnd, tables, boards)
        for t in tables:
            model.met.add(frozenset((t.ns_pair_id, t.ew_pair_id)))
            model.ns_count[t.ns_pair_id] += 1
            model.ew_count[t.ew_pair_id] += 1
        if rnd.bye_pair_id:
            model.byes[rnd.bye_pair_id] += 1
        expected_start = rnd.ends_at + gap

        if number < config.rounds:
            assert Round.objects.filter(tournament=tournament).count() == number + 1
            tournament.refresh_from_db()
            assert tournament.status == "running"

    tournament.refresh_from_db()
    assert tournament.status == "finished"
    assert tournament.finished_at == rnd.ends_at
    assert Round.objects.filter(tournament=tournament).count() == config.rounds
    check_final(model, tournament, config)
    # Withdrawn pairs were not seated after their round; their earlier scores stand.
    for pair_id in model.withdrawn:
        later = Table.objects.filter(
            round__tournament=tournament, round__number__gt=config.withdraw[1]
        )
        assert not later.filter(ns_pair_id=pair_id).exists()
        assert not later.filter(ew_pair_id=pair_id).exists()
        assert not Round.objects.filter(tournament=tournament, bye_pair_id=pair_id).filter(
            number__gt=config.withdraw[1]
        )
        assert Pair.objects.get(pk=pair_id).boards_completed == model.done(pair_id) > 0
    if config.pairs == 2:
        # Two pairs can only meet again; the repeat is recorded, directions swap.
        second = Round.objects.get(tournament=tournament, number=2)
        assert second.rematches == 1
        first_table = Table.objects.get(round__tournament=tournament, round__number=1)
        second_table = Table.objects.get(round=second)
        assert (second_table.ns_pair_id, second_table.ew_pair_id) == (
            first_table.ew_pair_id,
            first_table.ns_pair_id,
        )
    final = snapshot(tournament)
    assert not advance(now=rnd.ends_at + timedelta(hours=1))
    assert snapshot(tournament) == final
