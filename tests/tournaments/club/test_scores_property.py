"""The stored club scores (RULES 13) against an independent implementation written here:
random arrival orders of up to 40 results on one library deal of each system —
duplicate (fixed once given: 0 until the sixth, the six scored at once, each later one
against the datum of all so far), full field in IMPs (every result re-scored at each
arrival) and in MP (percentages among the deal's results) — fed one by one through
`club_scoring.board_finished`, the results built directly (no cards played)."""

from __future__ import annotations

from fractions import Fraction
from itertools import count

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tournaments.models import (
    Board,
    BoardResult,
    ClubDeal,
    ClubField,
    ClubScore,
    ClubSystem,
    Pair,
    PairStatus,
    ResultState,
    Round,
    RoundStatus,
    Table,
)
from tournaments.services import club, club_scoring

pytestmark = pytest.mark.django_db

# The IMP scale: the least difference worth 1, 2, … 24 IMPs.
IMP_STEPS = (20, 50, 90, 130, 170, 220, 270, 320, 370, 430, 500, 600, 750, 900, 1100, 1300,
             1500, 1750, 2000, 2250, 2500, 3000, 3500, 4000)  # fmt: skip


def imps(difference: int) -> int:
    won = sum(1 for step in IMP_STEPS if abs(difference) >= step)
    return won if difference >= 0 else -won


def datum(scores: list[int]) -> int:
    """Trimmed mean (k = max(1, n // 10) off each end; none for n <= 2, where that would
    leave nothing: the club keeps section 5.3's), rounded to 10 with 5 to the even ten."""
    n = len(scores)
    k = 0 if n <= 2 else max(1, n // 10)
    kept = sorted(scores)[k : n - k]
    return round(Fraction(sum(kept), len(kept)) / 10) * 10  # Fraction rounds half to even


def percentages(scores: list[int]) -> list[float]:
    n = len(scores)
    if n == 1:
        return [50.0]
    out = []
    for i, mine in enumerate(scores):
        mp = sum(2 if mine > other else 1 if mine == other else 0
                 for j, other in enumerate(scores) if j != i)  # fmt: skip
        out.append(100.0 * mp / (2 * (n - 1)))
    return out


def expected(system: str, scores: list[int]) -> list[tuple[float, bool]]:
    """(NS points, scored) of each result in arrival order, after all have arrived."""
    n = len(scores)
    if system == ClubSystem.DUPLICATE:
        out: list[tuple[float, bool]] = []
        for i, score in enumerate(scores):
            if n < 6:
                out.append((0.0, False))
            elif i < 6:
                out.append((float(imps(score - datum(scores[:6]))), True))
            else:
                out.append((float(imps(score - datum(scores[: i + 1]))), True))
        return out
    if system == ClubSystem.FULL_FIELD_MP:
        return [(p, True) for p in percentages(scores)]
    d = datum(scores)
    return [(float(imps(s - d)), True) for s in scores]


_numbers = count(1000)


@pytest.fixture
def field_players(django_user_model, t0):
    """The week and 160 players (scoring asks nothing of them but to be four a result)."""
    week = club.current_week(now=t0)
    django_user_model.objects.bulk_create(
        [django_user_model(username=f"prop-{i}") for i in range(160)]
    )
    return week, list(django_user_model.objects.filter(username__startswith="prop-"))


def _new_deal(field: ClubField) -> tuple[ClubDeal, Round, Board]:
    deal = ClubDeal.objects.create(
        field=field, number=next(_numbers), dealer="N", vulnerability="None",
        deal=field.deals.first().deal, given=0,
    )  # fmt: skip
    number = next(_numbers)
    round = Round.objects.create(
        tournament=field.tournament, number=number, status=RoundStatus.OPEN,
        starts_at=field.week.starts_at, ends_at=field.week.ends_at,
    )  # fmt: skip
    board = Board.objects.create(
        tournament=field.tournament, round=round, number=number, dealer="N",
        vulnerability="None", deal=deal.deal, club_deal=deal,
    )  # fmt: skip
    return deal, round, board


def _table(field: ClubField, round: Round, number: int, players: list) -> Table:
    pairs = []
    for first, second in (players[0:2], players[2:4]):
        pairs.append(
            Pair.objects.create(
                tournament=field.tournament,
                player1=first,
                player2=second,
                status=PairStatus.CONFIRMED,
                registration_no=next(_numbers),
            )  # fmt: skip
        )
    return Table.objects.create(round=round, number=number, ns_pair=pairs[0], ew_pair=pairs[1])


SCORES = st.one_of(
    st.sampled_from([-1430, -800, -620, -200, -100, -50, 50, 90, 110, 140, 420, 450, 620, 1430]),
    st.integers(-250, 250).map(lambda tens: tens * 10),
)


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(scores=st.lists(SCORES, min_size=1, max_size=40), seed=st.randoms())
def test_stored_scores_equal_an_independent_recomputation(field_players, t0, scores, seed):
    week, members = field_players
    seed.shuffle(members)  # who plays which result: any four of the pool
    for system in (ClubSystem.DUPLICATE, ClubSystem.FULL_FIELD_IMPS, ClubSystem.FULL_FIELD_MP):
        field = ClubField.objects.select_related("tournament", "week").get(week=week, system=system)
        deal, round, board = _new_deal(field)
        results = []
        for i, ns_score in enumerate(scores):
            ClubDeal.objects.filter(pk=deal.pk).update(given=i + 1)  # this table was given it
            table = _table(field, round, i + 1, members[4 * i : 4 * i + 4])
            result = BoardResult.objects.create(
                table=table, board=board, state=ResultState.PLAYED, contract="3NT",
                declarer="N", tricks=9, ns_score=ns_score, entered_at=t0,
                played_online=True,
            )  # fmt: skip
            club_scoring.board_finished(result=result, play_table=table, now=t0)
            results.append(result)
        deal.refresh_from_db()
        assert deal.results == len(scores)
        assert (deal.retired_at is not None) == (len(scores) == 40)
        want = expected(system, scores)
        for i, result in enumerate(results):
            rows = {row.seat: row for row in ClubScore.objects.filter(result=result)}
            assert set(rows) == {"N", "E", "S", "W"}
            ns, scored = want[i]
            ew = 100.0 - ns if system == ClubSystem.FULL_FIELD_MP else -ns
            for seat, points in (("N", ns), ("S", ns), ("E", ew), ("W", ew)):
                row = rows[seat]
                assert row.arrival == i + 1
                assert row.scored == scored, (system, i, scores)
                assert row.points == pytest.approx(points), (system, i, seat, scores)
