"""The bell's fast path (issue 23, item 6) gives what the plain path gave, to the last bit.

- `scoring.pair_totals` (many pairs at once) against `scoring.pair_total` (one pair);
- the array literals `services/bulk.py` hands PostgreSQL read back as the same values;
- on random fields closed by the real clock, the grouped query of the totals against the
  ORM aggregate it replaced, and the stored totals and board scores against the rule;
- the board scores and standings, with no database keys since migration 0018, still
  go with what they belong to through the ORM's cascade.
"""

from __future__ import annotations

import math
import random
from datetime import timedelta

import pytest
from django.db import connection
from django.db.models import Count, Q, Sum
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import scoring
from tests.support.clock import submit
from tournaments.models import (
    Board,
    BoardResult,
    Pair,
    PairBoardScore,
    PairStatus,
    Round,
    Standing,
    Table,
    listed_in_results,
)
from tournaments.services import board_scoring, bulk
from tournaments.services.clock import advance

MINUTE = timedelta(minutes=1)
CODES = board_scoring.ADJUSTMENT_CODES

counts = st.integers(min_value=0, max_value=6)
aggregate = st.tuples(
    st.floats(min_value=-500, max_value=900, allow_nan=False),
    st.integers(min_value=0, max_value=12),
    st.tuples(counts, counts, counts),
)


@given(method=st.sampled_from(scoring.METHODS), aggregates=st.lists(aggregate, max_size=30))
def test_pair_totals_is_pair_total_to_the_last_bit(method, aggregates):
    expected = [
        scoring.pair_total(
            method,
            played_sum=played_sum,
            played_count=played_count,
            artificial=dict(zip(CODES, code_counts, strict=True)),
        )
        for played_sum, played_count, code_counts in aggregates
    ]
    got = scoring.pair_totals(method, CODES, aggregates)
    assert [math.copysign(1, x) for x in got] == [math.copysign(1, x) for x in expected]
    assert got == expected


def test_pair_totals_refuses_negative_counts():
    with pytest.raises(scoring.ScoringError):
        scoring.pair_totals("MP", CODES, [(50.0, 1, (0, -1, 0))])


needs_postgresql = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="array literals are PostgreSQL's"
)


def _read_back(array_type: str, field, values):
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT x FROM unnest(%s::{array_type}) WITH ORDINALITY AS u(x, n) ORDER BY n",
            [bulk.array_literal(field, values)],
        )
        return [row[0] for row in cursor.fetchall()]


no_nul = st.text(alphabet=st.characters(blacklist_characters="\x00"), max_size=12)


@needs_postgresql
@pytest.mark.django_db
@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    texts=st.lists(
        st.one_of(st.none(), no_nul, st.sampled_from(["", "NULL", '"', "\\", "{,}"])),
        max_size=20,
    ),
    floats=st.lists(st.one_of(st.none(), st.floats(allow_nan=False, allow_infinity=False))),
    ints=st.lists(st.one_of(st.none(), st.integers(min_value=-(2**63), max_value=2**63 - 1))),
    repeated=st.lists(st.sampled_from([0.0, -0.0, 1 / 3, 2.5, -7.0, 1e300]), max_size=30),
)
def test_array_literals_read_back_as_the_same_values(texts, floats, ints, repeated):
    field = PairBoardScore._meta.get_field
    assert _read_back("text[]", field("artificial"), texts) == texts
    back = _read_back("float8[]", field("points"), floats)
    assert back == floats
    assert [math.copysign(1, x) for x in back if x is not None] == [
        math.copysign(1, x) for x in floats if x is not None
    ]
    assert _read_back("bigint[]", field("pair"), ints) == ints
    back = _read_back("float8[]", field("points"), repeated)
    assert [(x, math.copysign(1, x)) for x in back] == [(x, math.copysign(1, x)) for x in repeated]


@needs_postgresql
@pytest.mark.django_db
def test_booleans_and_other_values_read_back():
    field = PairBoardScore._meta.get_field("completed")
    assert _read_back("boolean[]", field, [True, None, False]) == [True, None, False]
    # Repeated values are spelled once; -0.0 and 0.0 are equal keys but different text.
    points = PairBoardScore._meta.get_field("points")
    for floats in ([0.0, -0.0, 0.0, -0.0, 1.5, 1.5], [-0.0] * 5 + [2.0], [1 / 3] * 4 + [0.0]):
        back = _read_back("float8[]", points, floats)
        assert back == floats
        assert [math.copysign(1, x) for x in back] == [math.copysign(1, x) for x in floats]
    directions = ["NS", "EW", "NS", "EW", 'E"W', 'E"W', "BYE"]
    assert _read_back("text[]", PairBoardScore._meta.get_field("direction"), directions) == (
        directions
    )
    # Anything else is left to psycopg, as before.
    assert bulk.array_literal(field, [1.5, "x"]) == [1.5, "x"]


def _orm_aggregates(tournament, upto_round=None):
    """The grouped query the bell ran before issue 23 (the reference)."""
    completed = Q(board_scores__completed=True)
    if upto_round is not None:
        completed &= Q(board_scores__board__round__number__lte=upto_round)
    played = completed & Q(board_scores__artificial="")
    code_counts = {
        f"n{index}": Count("board_scores", filter=completed & Q(board_scores__artificial=code))
        for index, code in enumerate(CODES)
    }
    return sorted(
        Pair.objects.filter(tournament=tournament, status=PairStatus.CONFIRMED)
        .filter(listed_in_results())
        .annotate(
            played_sum=Sum("board_scores__points", filter=played),
            played_count=Count("board_scores", filter=played),
            **code_counts,
        )
        .values_list("id", "registration_no", "played_sum", "played_count", *code_counts)
    )


def _play_round(rng: random.Random, number: int, tournament, bell):
    for table in Table.objects.filter(round__tournament=tournament, round__number=number):
        for board in tournament.board_numbers(number):
            if rng.random() < 0.25:
                continue  # cut off at the bell
            contract, declarer = rng.choice([("3NT", "N"), ("4S", "E"), ("2H", "S"), ("1NT", "W")])
            submit(table, board, contract, declarer, rng.randint(5, 12), now=bell - MINUTE)


@pytest.mark.parametrize(
    ("seed", "method", "policy"),
    [
        (1, "MP", "avg_minus"),
        (2, "MP", "avg"),
        (3, "MP", "not_played"),
        (4, "IMP", "avg_minus"),
        (5, "XIMP", "not_played"),
    ],
)
def test_a_random_field_closes_as_the_rule_says(
    make_tournament, register_pairs, t0, seed, method, policy
):
    rng = random.Random(seed)
    tournament = make_tournament(
        rounds=3, boards_per_round=3, scoring_method=method, unplayed_policy=policy
    )
    register_pairs(tournament, rng.choice([7, 8, 9]))
    advance(now=t0)
    for number in (1, 2):
        bell = t0 + number * 20 * MINUTE
        _play_round(rng, number, tournament, bell)
        advance(now=bell)
        current = Round.objects.get(tournament=tournament, number=number)
        assert sorted(board_scoring._pair_aggregates(tournament)) == _orm_aggregates(tournament)
        assert sorted(board_scoring._pair_aggregates(tournament, upto_round=1)) == (
            _orm_aggregates(tournament, upto_round=1)
        )
        # The stored totals are the rule applied to the stored board scores, pair by pair.
        for pair_id, _reg, played_sum, played_count, *code_counts in _orm_aggregates(tournament):
            pair = Pair.objects.get(pk=pair_id)
            total = scoring.pair_total(
                method,
                played_sum=played_sum or 0.0,
                played_count=played_count,
                artificial=dict(zip(CODES, code_counts, strict=True)),
            )
            assert pair.total == board_scoring.round_total(total)
            assert pair.boards_completed == played_count + sum(code_counts)
        # Every result of the round has its two sides' scores; the round scores add up.
        scores = PairBoardScore.objects.filter(board__round=current)
        assert scores.exclude(direction="BYE").count() == 2 * current.tables.count() * 3
        for standing in Standing.objects.filter(round=current):
            points = list(
                scores.filter(pair=standing.pair_id, completed=True).values_list(
                    "points", flat=True
                )
            )
            expected = board_scoring.round_total(scoring.running_total(method, points))
            assert standing.round_score == (expected if points else None)


def test_deletes_still_reach_the_derived_rows(make_tournament, register_pairs, t0):
    """The board scores and standings have no database foreign keys (migration 0018): the
    ORM's cascade is all that removes them with their result, round, board or pair."""
    rng = random.Random(7)
    tournament = make_tournament(rounds=3, boards_per_round=3, scoring_method="MP")
    register_pairs(tournament, 9)  # a bye: scores with no result, reached by pair and board
    advance(now=t0)
    bell = t0 + 20 * MINUTE
    _play_round(rng, 1, tournament, bell)
    advance(now=bell)
    pairs = list(Pair.objects.filter(tournament=tournament).values_list("id", flat=True))
    boards = list(Board.objects.filter(tournament=tournament).values_list("id", flat=True))
    first = Round.objects.get(tournament=tournament, number=1)
    played = BoardResult.objects.filter(board__round=first, state="played").first()
    assert played is not None
    played_id = played.pk
    assert PairBoardScore.objects.filter(result_id=played_id).count() == 2
    played.delete()
    assert not PairBoardScore.objects.filter(result_id=played_id).exists()
    assert PairBoardScore.objects.filter(board__round=first, result__isnull=True).count() == 3
    assert Standing.objects.filter(round=first).count() == len(pairs)

    # A pair is protected while a table or a bye names it: the rounds go first.
    Round.objects.filter(tournament=tournament).delete()
    assert not PairBoardScore.objects.filter(board_id__in=boards).exists()
    assert not Standing.objects.filter(round_id=first.pk).exists()
    # What only the pair leads to: a standing whose round is gone (no key refuses it).
    Standing.objects.create(
        pair_id=pairs[0], round_id=first.pk, total=0.0, boards_completed=0, position=1
    )
    tournament.delete()
    assert not Standing.objects.filter(pair_id__in=pairs).exists()
