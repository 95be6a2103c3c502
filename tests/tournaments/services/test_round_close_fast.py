"""The bell's fast path (issue 23, item 6) gives what the plain path gave, to the last bit.

- `scoring.pair_totals` (many pairs at once) against `scoring.pair_total` (one pair);
- the array literals `services/bulk.py` hands PostgreSQL read back as the same values;
- on random fields closed by the real clock, the grouped query of the totals against the
  ORM aggregate it replaced, and the stored totals and board scores against the rule;
- the board scores and standings, with no database keys since migration 0018, still
  go with what they belong to through the ORM's cascade;
- the bell's board scores (numpy columns, binary COPY) against `scoring.score_board` of
  the stored results, its standings against a re-score's, `scoring.running_totals`
  against `running_total`, and the COPY against the values given.
"""

from __future__ import annotations

import math
import random
from datetime import timedelta

import pytest
from django.db import connection, transaction
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


# Text as it reaches us: decoded UTF-8 has no lone surrogates, and PostgreSQL text no NUL.
no_nul = st.text(
    alphabet=st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",)),
    max_size=12,
)


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


# --- The bell's scoring (issue 23, item 6, second part) -------------------------------
#
# `score_round` scores the boards from numpy columns and stores them by binary COPY, and
# the standings of the bell total the scores it kept instead of reading them back. Here
# the plain path is recomputed by hand from what the database holds, to the last bit.


def _bits(values):
    return [(math.copysign(1, v), v) if v is not None else None for v in values]


@given(
    method=st.sampled_from(scoring.METHODS),
    pairs=st.lists(
        st.lists(st.floats(min_value=-100, max_value=100, allow_nan=False), max_size=6),
        max_size=20,
    ),
)
def test_running_totals_is_running_total_to_the_last_bit(method, pairs):
    expected = [scoring.running_total(method, points) for points in pairs]
    got = scoring.running_totals(method, pairs)
    assert _bits(got) == _bits(expected)


def _store_random_results(rng: random.Random, round, tournament):
    """Every kind of result at random: played (some repeated scores), passed out, not
    played and adjusted (A+/A/A- on either side); some boards left to the cut-off."""
    codes = ["A+", "A", "A-"]
    for table in Table.objects.filter(round=round):
        for board in Board.objects.filter(round=round):
            roll = rng.random()
            if roll < 0.12:
                continue
            fields: dict = {"state": "played", "ns_score": rng.choice([-100, 50, 110, 420])}
            if roll < 0.2:
                fields = {"state": "passed_out", "ns_score": 0}
            elif roll < 0.28:
                fields = {"state": "not_played", "ns_score": None}
            elif roll < 0.4:
                fields = {
                    "state": "adjusted",
                    "ns_score": None,
                    "ns_adjustment": rng.choice(codes),
                    "ew_adjustment": rng.choice(codes),
                }
            elif roll < 0.7:
                fields["ns_score"] = rng.randrange(-2000, 2000, 10)
            BoardResult.objects.create(
                table=table, board=board, entered_at=round.starts_at, **fields
            )


@pytest.mark.parametrize(
    ("seed", "method", "neuberg", "policy"),
    [
        (11, "MP", False, "avg_minus"),
        (12, "MP", True, "avg"),
        (13, "IMP", False, "not_played"),
        (14, "XIMP", False, "avg_minus"),
        (15, "MP", True, "not_played"),
    ],
)
def test_the_bell_scores_as_the_plain_scoring_core(
    make_tournament, register_pairs, t0, seed, method, neuberg, policy
):
    """Closed by the real clock, every board's stored scores are `scoring.score_board` of
    its stored results (entries in table order, as the plain path built them), bit for
    bit, with its datum; the standings of the bell are those a re-score reads back from
    the database; and the next round is seated from the same history."""
    rng = random.Random(seed)
    tournament = make_tournament(
        rounds=3,
        boards_per_round=3,
        scoring_method=method,
        neuberg=neuberg,
        unplayed_policy=policy,
    )
    register_pairs(tournament, rng.choice([9, 11]))  # odd: a bye in every round
    advance(now=t0)
    for number in (1, 2):
        current = Round.objects.get(tournament=tournament, number=number)
        _store_random_results(rng, current, tournament)
        advance(now=current.ends_at)
        current.refresh_from_db()
        assert current.status == "closed"
        for board in Board.objects.filter(round=current):
            results = list(
                BoardResult.objects.filter(board=board)
                .select_related("table")
                .order_by("table__number")
            )
            scored = [r for r in results if r.state in ("played", "passed_out", "adjusted")]
            entries = [
                (r.ns_adjustment, r.ew_adjustment) if r.state == "adjusted" else r.ns_score
                for r in scored
            ]
            stored = {
                (s.result_id, s.direction): s
                for s in PairBoardScore.objects.filter(board=board, result__isnull=False)
            }
            assert len(stored) == 2 * len(results)
            if scored:
                plain = scoring.score_board(method, entries, neuberg=neuberg)
                assert board.datum == plain.datum
                ns = [stored[(r.pk, "NS")] for r in scored]
                ew = [stored[(r.pk, "EW")] for r in scored]
                # MP adjusted boards are stored settled against the pair's own play.
                for side, points in ((ns, plain.ns_points), (ew, plain.ew_points)):
                    for score, expected in zip(side, points, strict=True):
                        assert score.completed
                        if method == "MP" and score.artificial in ("A+", "A-"):
                            continue
                        assert _bits([score.points]) == _bits([expected])
                        assert score.artificial == (
                            "" if score.result.state != "adjusted"
                            else (score.result.ns_adjustment if score.direction == "NS"
                                  else score.result.ew_adjustment)
                        )  # fmt: skip
            for r in results:
                if r.state == "not_played":
                    for direction in ("NS", "EW"):
                        assert stored[(r.pk, direction)].points is None
                        assert not stored[(r.pk, direction)].completed
            if current.bye_pair_id:
                bye = PairBoardScore.objects.get(board=board, direction="BYE")
                assert (bye.pair_id, bye.points, bye.artificial) == (
                    current.bye_pair_id,
                    board_scoring.AVERAGE[method],
                    "A",
                )
        # The bell's standings (round scores from the scores it kept) against the
        # database's: what a re-score would store.
        at_the_bell = {s.pair_id: s.round_score for s in Standing.objects.filter(round=current)}
        from_database = board_scoring._round_scores(current)
        assert {pid: _bits([v]) for pid, v in at_the_bell.items() if v is not None} == {
            pid: _bits([v]) for pid, v in from_database.items()
        }
        assert all(v is None for pid, v in at_the_bell.items() if pid not in from_database)
        before = sorted(
            Standing.objects.filter(round=current).values_list(
                "pair_id", "round_score", "total", "boards_completed", "position"
            )
        )
        board_scoring.record_standings(round=Round.objects.get(pk=current.pk))
        assert (
            sorted(
                Standing.objects.filter(round=current).values_list(
                    "pair_id", "round_score", "total", "boards_completed", "position"
                )
            )
            == before
        )


@needs_postgresql
@pytest.mark.django_db
@settings(max_examples=25, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    rows=st.lists(
        st.tuples(
            st.one_of(st.none(), st.floats(allow_nan=False, allow_infinity=False)),
            st.booleans(),
            st.sampled_from(["", "A", "A+", "A-", "NS", 'E"W', "\\", "牌", "{,}"]),
        ),
        min_size=1,
        max_size=30,
    )
)
def test_copy_rows_stores_the_very_values(make_tournament, register_pairs, rows):
    """The binary COPY stores each value as given: the float's own bits (-0.0 too), NULLs
    and any text."""
    board = Board.objects.first()
    if board is None:
        tournament = make_tournament(rounds=1, boards_per_round=1)
        register_pairs(tournament, 2)
        advance(now=tournament.start_at)
        board = Board.objects.get(round__tournament=tournament)
    pair_ids = list(Pair.objects.values_list("id", flat=True))
    from tournaments import sql

    with transaction.atomic():
        PairBoardScore.objects.filter(board=board).delete()
        sql.copy_rows(
            PairBoardScore,
            ("pair", "board", "result", "direction", "points", "completed", "artificial"),
            [
                (pair_ids[0] + n, board.pk, None, text[:3], points, points is not None, text[:2])
                for n, (points, _flag, text) in enumerate(rows)
            ],
        )
        back = list(
            PairBoardScore.objects.filter(board=board)
            .order_by("pair_id")
            .values_list("points", "completed", "direction", "artificial")
        )
        transaction.set_rollback(True)
    assert [(_bits([p]), c, d, a) for p, c, d, a in back] == [
        (_bits([points]), points is not None, text[:3], text[:2]) for points, _flag, text in rows
    ]
