"""Neuberg in a movement (RULES 10): a board played at fewer tables (A) than the movement
has it played (E, the round's tables) is factored by MP' = (MP + 1)·E/A − 1 and scores
MP' / 2(E − 1), a table cut off with no score counting in E, a phantom's table not. The
figures are worked out by hand here, through the real clock, and the Swiss path keeps E as
the board's entries."""

from __future__ import annotations

from datetime import timedelta
from fractions import Fraction

import pytest
from django.utils import timezone

import scoring
from tests.support.clock import submit
from tests.support.exports import parse
from tournaments.exports import usebio_export
from tournaments.models import BoardResult, PairBoardScore, Round, Table
from tournaments.services import clock, results
from tournaments.services.formats import format_of

pytestmark = pytest.mark.django_db

# What table k's North plays, on each of round 1's boards (board 1: nobody vulnerable;
# board 2: NS vulnerable, East deals). None: nobody plays it (board 1 at table 7, cut off
# at the bell under "not played"); "adjusted": the director gives NS A+ and EW A−.
PLAYS = {
    1: {
        1: ("4S", "N", 10),  # +420
        2: ("4S", "N", 10),  # +420
        3: ("4S", "N", 11),  # +450
        4: ("3NT", "N", 9),  # +400
        5: ("4S", "N", 9),  # −50
        6: ("2S", "N", 9),  # +140
        7: None,
    },
    2: {
        1: ("4S", "N", 10),  # +620
        2: ("4S", "N", 10),  # +620
        3: "adjusted",
        4: ("3NT", "N", 9),  # +600
        5: ("4S", "N", 9),  # −100
        6: ("2S", "N", 9),  # +140
        7: ("4H", "E", 10),  # −420
    },
}

# By hand, results in the order best for NS first. Board 1: A = 6 played of E = 7
# tables. Matchpoints on the played results' top of 10: 450 → 10, 420 → 7 (twice),
# 400 → 4, 140 → 2, −50 → 0. Neuberg, MP' = (MP + 1)·7/6 − 1: 71/6, 25/3, 25/3, 29/6,
# 5/2, 1/6, on the top of 2(7 − 1) = 12: 98.61 %, 69.44 %, 69.44 %, 40.28 %, 20.83 %,
# 1.39 % (with E = A = 6, as before the movement's E: 100, 70, 70, 40, 20 and 0 %).
# Table 7 scores nothing. Board 2: A = 6 played; E = 7 (table 3's A+/A− counts). MP on
# top 10: 620 → 9 (twice), 600 → 6, 140 → 4, −100 → 2, −420 → 0; MP' = 32/3, 32/3,
# 43/6, 29/6, 5/2, 1/6 on 12: 88.89 %, 88.89 %, 59.72 %, 40.28 %, 20.83 %, 1.39 %.
# Either board's played results still average 50 %.
SCORES = {
    1: {1: 420, 2: 420, 3: 450, 4: 400, 5: -50, 6: 140},
    2: {1: 620, 2: 620, 4: 600, 5: -100, 6: 140, 7: -420},
}
NEUBERG = {
    1: {
        1: Fraction(25, 3),
        2: Fraction(25, 3),
        3: Fraction(71, 6),
        4: Fraction(29, 6),
        5: Fraction(1, 6),
        6: Fraction(5, 2),
    },
    2: {
        1: Fraction(32, 3),
        2: Fraction(32, 3),
        4: Fraction(43, 6),
        5: Fraction(5, 2),
        6: Fraction(29, 6),
        7: Fraction(1, 6),
    },
}
PERCENT = {
    1: {1: 69.444444, 2: 69.444444, 3: 98.611111, 4: 40.277778, 5: 1.388889, 6: 20.833333},
    2: {1: 88.888889, 2: 88.888889, 4: 59.722222, 5: 20.833333, 6: 40.277778, 7: 1.388889},
}


def expected_of(tournament, round) -> dict[int, int]:
    """Neuberg's E for `round` as the tournament's format fixes it (empty: each board's
    entries)."""
    return format_of(tournament).expected_results(tournament=tournament, rounds=[round])


def _mitchell(make_tournament, register_pairs, organiser, *, pairs: int, **settings):
    now = timezone.now()
    tournament = make_tournament(
        seating="mitchell",
        winners=2,
        rounds=2,
        boards_per_round=2,
        scoring_method="MP",
        unplayed_policy="not_played",
        start_at=now + timedelta(hours=1),
        registration_opens_at=now - timedelta(days=1),
        **settings,
    )
    register_pairs(tournament, pairs, now=now)
    clock.start_now(by=organiser, tournament=tournament)
    return tournament


def _play_round_1(tournament, director, plays) -> None:
    for table in Table.objects.filter(round__tournament=tournament, round__number=1):
        for board in (1, 2):
            play = plays[board].get(table.number)
            if play == "adjusted":
                results.director_set_result(
                    table=table,
                    board_number=board,
                    by=director,
                    ns_adjustment="A+",
                    ew_adjustment="A-",
                    reason="Slow play",
                )
            elif play is not None:
                submit(table, board, *play, now=timezone.now())


def _stored(tournament, board: int) -> dict[int, tuple]:
    """{table: (NS points, EW points, completed, NS code, EW code)} of round 1's board."""
    scores = PairBoardScore.objects.filter(
        board__tournament=tournament, board__number=board, result__isnull=False
    ).select_related("result__table")
    out: dict[int, dict[str, PairBoardScore]] = {}
    for score in scores:
        out.setdefault(score.result.table.number, {})[score.direction] = score
    return {
        table: (s["NS"].points, s["EW"].points, s["NS"].completed, s["NS"].artificial,
                s["EW"].artificial)
        for table, s in out.items()
    }  # fmt: skip


def test_the_hand_worked_seven_table_mitchell(make_tournament, register_pairs, organiser, director):
    tournament = _mitchell(make_tournament, register_pairs, organiser, pairs=14, neuberg=True)
    _play_round_1(tournament, director, PLAYS)
    clock.close_round_now(by=organiser, tournament=tournament)
    round_1 = Round.objects.get(tournament=tournament, number=1)
    assert round_1.status == "closed"
    assert Table.objects.filter(round=round_1).count() == 7
    # The bell stored board 1 at table 7 as not played: a result with no score.
    missing = BoardResult.objects.get(board__round=round_1, board__number=1, table__number=7)
    assert missing.state == "not_played"

    for board in (1, 2):
        stored = _stored(tournament, board)
        for table, ns_score in SCORES[board].items():
            result = BoardResult.objects.get(
                board__round=round_1, board__number=board, table__number=table
            )
            assert result.ns_score == ns_score
            # The hand's fractions and its rounded figures say the same.
            percent = NEUBERG[board][table] / 12 * 100
            assert float(percent) == pytest.approx(PERCENT[board][table], abs=1e-6)
            ns, ew, completed, ns_code, ew_code = stored[table]
            assert completed and (ns_code, ew_code) == ("", "")
            assert ns == pytest.approx(float(percent), abs=1e-9)
            assert ew == pytest.approx(100 - float(percent), abs=1e-9)
        played = [float(NEUBERG[board][t] / 12 * 100) for t in SCORES[board]]
        assert sum(played) / len(played) == pytest.approx(50.0, abs=1e-9)

    # Board 1 at table 7: no score, not completed.
    assert _stored(tournament, 1)[7] == (None, None, False, "", "")
    # Board 2 at table 3: the adjusted score, settled against each pair's own play
    # (RULES 5.4): NS's A+ is the better of 60 % and its 98.61 % on board 1; EW's A− the
    # worse of 40 % and its 1.39 % there.
    ns, ew, completed, ns_code, ew_code = _stored(tournament, 2)[3]
    assert (completed, ns_code, ew_code) == (True, "A+", "A-")
    assert ns == pytest.approx(float(Fraction(71, 72) * 100), abs=1e-9)
    assert ew == pytest.approx(float(Fraction(1, 72) * 100), abs=1e-9)

    # The USEBIO export writes MP' on the top the board was factored to, 12, as
    # Compscore3 does: board 1's lines 71/6, 25/3, …; table 7's meeting with no score.
    event = parse(usebio_export(tournament=tournament)).getroot().find("EVENT")
    board_1 = next(b for b in event.iterfind("BOARD") if b.findtext("BOARD_NUMBER") == "1")
    written = {
        (line.findtext("NS_PAIR_NUMBER"), line.findtext("NS_MATCH_POINTS"))
        for line in board_1.iterfind("TRAVELLER_LINE")
    }
    assert written == {
        *((f"{t}NS", f"{float(NEUBERG[1][t]):.2f}".rstrip("0").rstrip(".")) for t in SCORES[1]),
        ("7NS", None),
    }
    assert {f"{float(v):.2f}" for v in NEUBERG[1].values()} == {
        "11.83", "8.33", "4.83", "2.50", "0.17"
    }  # fmt: skip


def test_a_phantom_table_is_not_expected(make_tournament, register_pairs, organiser, director):
    """13 pairs: 7 tables in the movement, one the phantom's, so each round seats 6 and a
    board cut off at one of them is factored to E = 6, not 7."""
    tournament = _mitchell(make_tournament, register_pairs, organiser, pairs=13, neuberg=True)
    round_1 = Round.objects.get(tournament=tournament, number=1)
    tables = sorted(Table.objects.filter(round=round_1).values_list("number", flat=True))
    assert len(tables) == 6 and round_1.bye_pair_id is not None
    cut = tables[-1]
    plays = {
        1: {t: PLAYS[1][i] for i, t in enumerate(tables[:-1], start=1)},
        2: {t: ("4S", "N", 10) for t in tables},
    }
    _play_round_1(tournament, director, plays)
    clock.close_round_now(by=organiser, tournament=tournament)
    assert expected_of(tournament, Round.objects.get(pk=round_1.pk)) == {1: 6, 2: 6}
    stored = _stored(tournament, 1)
    # Five played (420, 420, 450, 400, −50) of E = 6: MP 5, 5, 8, 2, 0 on top 8;
    # MP' = (MP + 1)·6/5 − 1 = 31/5, 31/5, 49/5, 13/5, 1/5 on top 10.
    by_hand = [Fraction(31, 50), Fraction(31, 50), Fraction(49, 50), Fraction(13, 50),
               Fraction(1, 50)]  # fmt: skip
    for table, fraction in zip(tables[:-1], by_hand, strict=True):
        assert stored[table][0] == pytest.approx(float(fraction * 100), abs=1e-9)
    assert stored[cut][:3] == (None, None, False)
    # Board 2, played everywhere alike: 50 % each, E = A.
    assert {v[0] for v in _stored(tournament, 2).values()} == {50.0}


def test_neuberg_off_scores_the_played_results_among_themselves(
    make_tournament, register_pairs, organiser, director
):
    tournament = _mitchell(make_tournament, register_pairs, organiser, pairs=14, neuberg=False)
    _play_round_1(tournament, director, PLAYS)
    clock.close_round_now(by=organiser, tournament=tournament)
    stored = _stored(tournament, 1)
    assert [stored[t][0] for t in range(1, 7)] == [70.0, 70.0, 100.0, 40.0, 0.0, 20.0]
    assert expected_of(tournament, Round.objects.get(tournament=tournament, number=1)) == {}


def test_swiss_keeps_the_entries_as_e(make_tournament, register_pairs):
    """Swiss seating with Neuberg on: E stays the board's entries, played and adjusted
    (the path as it always was); the movement's table count is not asked for."""
    tournament = make_tournament(scoring_method="MP", neuberg=True)
    register_pairs(tournament, 4)
    assert tournament.seating == "swiss"
    round = Round.objects.create(
        tournament=tournament,
        number=1,
        status="closed",
        starts_at=tournament.start_at,
        ends_at=tournament.start_at + tournament.round_length,
    )
    assert expected_of(tournament, round) == {}
    assert scoring.score_board("MP", [420, 400], neuberg=True) == scoring.score_board(
        "MP", [420, 400], neuberg=True, expected=None
    )
