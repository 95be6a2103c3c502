"""Average plus that never hurts the innocent (RULES 5.4, Law 12C2), and pairs with no board
yet standing at average for seating (RULES 6)."""

from __future__ import annotations

import math
from datetime import timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

import pairing
import scoring
from tests.support.clock import submit
from tournaments.models import Pair, PairBoardScore, Standing, Table
from tournaments.services import results
from tournaments.services.clock import advance
from tournaments.services.formats import swiss_pairs

MINUTE = timedelta(minutes=1)

percent = st.floats(min_value=0, max_value=100, allow_nan=False)


# --- the rule, pure --------------------------------------------------------------------


def oracle_total(method: str, played: list[float], codes: list[str]) -> float:
    """The rule as the Law states it, written out board by board."""
    own = sum(played) / len(played) if played else None
    values = list(played)
    for code in codes:
        if method != "MP":
            values.append({"A+": 3.0, "A": 0.0, "A-": -3.0}[code])
        elif code == "A+":
            values.append(60.0 if own is None else max(60.0, own))
        elif code == "A-":
            values.append(40.0 if own is None else min(40.0, own))
        else:
            values.append(50.0)
    if method != "MP":
        return math.fsum(values)
    return math.fsum(values) / len(values) if values else 0.0


@given(
    method=st.sampled_from(["MP", "IMP", "XIMP"]),
    played=st.lists(percent, max_size=12),
    codes=st.lists(st.sampled_from(["A+", "A", "A-"]), max_size=6),
)
def test_pair_total_matches_the_rule_board_by_board(method, played, codes):
    artificial = {code: codes.count(code) for code in ("A+", "A", "A-")}
    total = scoring.pair_total(
        method, played_sum=math.fsum(played), played_count=len(played), artificial=artificial
    )
    assert total == pytest.approx(oracle_total(method, played, codes), abs=1e-9)


@given(played=st.lists(percent, min_size=1, max_size=12), extra=st.integers(1, 5))
def test_average_plus_never_lowers_and_average_minus_never_raises_a_total(played, extra):
    own = math.fsum(played) / len(played)
    kwargs = {"played_sum": math.fsum(played), "played_count": len(played)}
    with_plus = scoring.pair_total("MP", artificial={"A+": extra}, **kwargs)
    with_minus = scoring.pair_total("MP", artificial={"A-": extra}, **kwargs)
    assert with_plus >= own - 1e-9
    assert with_plus >= min(own, 60.0) - 1e-9
    assert with_minus <= own + 1e-9


def test_settled_figures():
    assert scoring.settled_artificial("MP", "A+", 80.0) == 80.0
    assert scoring.settled_artificial("MP", "A+", 55.0) == 60.0
    assert scoring.settled_artificial("MP", "A+", None) == 60.0
    assert scoring.settled_artificial("MP", "A-", 30.0) == 30.0
    assert scoring.settled_artificial("MP", "A-", 45.0) == 40.0
    assert scoring.settled_artificial("MP", "A", 90.0) == 50.0
    assert scoring.settled_artificial("IMP", "A+", 90.0) == 3.0
    assert scoring.settled_artificial("XIMP", "A-", 10.0) == -3.0
    with pytest.raises(scoring.ScoringError):
        scoring.settled_artificial("MP", "B", 50.0)


# --- through the director's adjustment and the clock -----------------------------------


@pytest.fixture
def mp_field(make_tournament, register_pairs):
    """6 pairs (3 tables), 1 round of 3 boards, MP."""

    def make(**fields):
        tournament = make_tournament(
            scoring_method="MP", rounds=fields.pop("rounds", 1), boards_per_round=3, **fields
        )
        return tournament, register_pairs(tournament, 6)

    return make


def _tables(tournament, number=1):
    return list(
        Table.objects.filter(round__tournament=tournament, round__number=number).order_by("number")
    )


def _points(tournament, pair):
    return dict(
        PairBoardScore.objects.filter(pair=pair, board__tournament=tournament).values_list(
            "board__number", "points"
        )
    )


def test_a_pair_on_a_top_given_average_plus_keeps_its_own_percentage(mp_field, organiser, t0):
    tournament, pairs = mp_field()
    advance(now=t0)
    t1, t2, t3 = _tables(tournament)
    # Pair 1 (NS at table 1) has the top on boards 1 and 2; board 3 never reached table 1.
    submit(t1, 1, "4S", "N", 11, now=t0 + MINUTE)
    submit(t2, 1, "4S", "N", 10, now=t0 + MINUTE)
    submit(t3, 1, "4S", "N", 9, now=t0 + MINUTE)
    submit(t1, 2, "3NT", "N", 10, now=t0 + MINUTE)
    submit(t2, 2, "3NT", "N", 9, now=t0 + MINUTE)
    submit(t3, 2, "2S", "N", 8, now=t0 + MINUTE)
    submit(t2, 3, "1NT", "N", 7, now=t0 + MINUTE)
    submit(t3, 3, "1NT", "N", 8, now=t0 + MINUTE)
    advance(now=t0 + 20 * MINUTE)  # table 1's board 3 is cut off: not played
    results.director_set_result(
        table=t1,
        board_number=3,
        by=organiser,
        ns_adjustment="A+",
        ew_adjustment="A-",
        reason="slow play by the field, not by table 1",
        now=t0 + 25 * MINUTE,
    )
    winner, loser = Pair.objects.get(pk=pairs[0].pk), Pair.objects.get(pk=pairs[1].pk)
    # A flat 60 % would have cost pair 1 its 100 %: (100 + 100 + 60) / 3.
    assert _points(tournament, winner) == {1: 100.0, 2: 100.0, 3: 100.0}
    assert winner.total == 100.0
    # Average minus is 40 % or the offender's own percentage, if lower (here 0 %).
    assert _points(tournament, loser) == {1: 0.0, 2: 0.0, 3: 0.0}
    assert loser.total == 0.0
    assert winner.rank == 1
    standing = Standing.objects.get(pair=winner, round__number=1)
    assert (standing.round_score, standing.total) == (100.0, 100.0)


def test_an_adjustment_follows_the_pairs_later_play(mp_field, organiser, t0):
    """Own percentage is taken when totals are computed, so it settles with the last round."""
    tournament, pairs = mp_field(rounds=2)
    advance(now=t0)
    t1, t2, t3 = _tables(tournament)
    for table, tricks in ((t1, 11), (t2, 10), (t3, 9)):
        submit(table, 1, "4S", "N", tricks, now=t0 + MINUTE)
        submit(table, 2, "4S", "N", tricks, now=t0 + MINUTE)
    submit(t2, 3, "4S", "N", 10, now=t0 + MINUTE)
    submit(t3, 3, "4S", "N", 9, now=t0 + MINUTE)
    advance(now=t0 + 20 * MINUTE)
    results.director_set_result(
        table=t1, board_number=3, by=organiser, ns_adjustment="A+", ew_adjustment="A",
        reason="fouled board", now=t0 + 21 * MINUTE,
    )  # fmt: skip
    first = pairs[0]
    assert _points(tournament, first)[3] == 100.0
    # Round 2: pair 1 scores a bottom on each of the three boards; its own percentage
    # falls to 40 %, so its average plus is worth 60 % again.
    tables = _tables(tournament, 2)
    mine = next(t for t in tables if first.pk in (t.ns_pair_id, t.ew_pair_id))
    others = [t for t in tables if t != mine]
    # 4S one down when pair 1 is North-South, two over when it defends: a bottom either way.
    tricks = 9 if mine.ns_pair_id == first.pk else 12
    for number in (4, 5, 6):
        submit(mine, number, "4S", "N", tricks, now=t0 + 22 * MINUTE)
        for table in others:
            submit(table, number, "4S", "N", 10, now=t0 + 22 * MINUTE)
    advance(now=t0 + 40 * MINUTE)
    assert _points(tournament, first) == {1: 100.0, 2: 100.0, 3: 60.0, 4: 0.0, 5: 0.0, 6: 0.0}
    assert Pair.objects.get(pk=first.pk).total == pytest.approx(260.0 / 6)


def test_imp_adjustments_stay_fixed(make_tournament, register_pairs, organiser, t0):
    tournament = make_tournament(scoring_method="IMP", rounds=1, boards_per_round=2)
    pairs = register_pairs(tournament, 4)
    advance(now=t0)
    t1, t2 = _tables(tournament)
    submit(t1, 1, "4S", "N", 11, now=t0 + MINUTE)
    submit(t2, 1, "4S", "N", 8, now=t0 + MINUTE)
    submit(t2, 2, "1NT", "N", 7, now=t0 + MINUTE)
    advance(now=t0 + 20 * MINUTE)
    results.director_set_result(
        table=t1, board_number=2, by=organiser, ns_adjustment="A+", ew_adjustment="A-",
        reason="fouled board", now=t0 + 21 * MINUTE,
    )  # fmt: skip
    assert _points(tournament, pairs[0])[2] == 3.0
    assert _points(tournament, pairs[1])[2] == -3.0


# --- seating: no board yet is average, not bottom ---------------------------------------


@pytest.mark.parametrize(("method", "average"), [("MP", 50.0), ("IMP", 0.0)])
def test_a_pair_with_no_completed_board_stands_at_average_for_seating(
    make_tournament, register_pairs, t0, method, average
):
    tournament = make_tournament(scoring_method=method, rounds=2, boards_per_round=1)
    pairs = register_pairs(tournament, 6)
    advance(now=t0)
    t1, t2, _t3 = _tables(tournament)
    submit(t1, 1, "4S", "N", 11, now=t0 + MINUTE)  # +450
    submit(t2, 1, "4S", "N", 8, now=t0 + MINUTE)  # -100; table 3 is cut off
    advance(now=t0 + 20 * MINUTE)
    states = {s.pair_id: s for s in swiss_pairs.pair_states(tournament)}
    cut_off = (pairs[4].pk, pairs[5].pk)
    assert [states[p].score for p in cut_off] == [average, average]
    assert [states[p].boards_completed for p in cut_off] == [0, 0]
    # Between the winners and the losers of round 1, not below the losers.
    ordered = [s.pair_id for s in pairing.standings_order(states.values())]
    losers = (pairs[1].pk, pairs[2].pk)
    assert max(ordered.index(p) for p in cut_off) < min(ordered.index(p) for p in losers)
