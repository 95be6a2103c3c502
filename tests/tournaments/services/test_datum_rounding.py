"""How a datum that ends in exactly 5 goes to a ten (RULES 5.3): to the even ten by
default, away from zero as Compscore3 does when the organiser chooses it; a setting that
decides scores, so changed only with a reason and a re-score of the whole event."""

from __future__ import annotations

import pytest
from django.utils import timezone

from tests.support.clock import submit
from tournaments.models import Board, PairBoardScore, SettingsChange, Table
from tournaments.services import clock, settings_change, setup
from tournaments.services.settings_change import SettingsInvalid

pytestmark = pytest.mark.django_db


def _butler_board(make_tournament, register_pairs, organiser):
    """Compscore3's board 2 of its 4-table Butler Howell, as one Swiss round: NS scores
    +50, -460, -490, -430 (3NT by East down one, +2, +3, +1), whose trimmed mean is -445."""
    tournament = make_tournament(scoring_method="XIMP", rounds=1, boards_per_round=1)
    register_pairs(tournament, 8)
    now = timezone.now()
    clock.start_now(tournament=tournament, by=organiser, now=now)
    tables = Table.objects.filter(round__tournament=tournament).order_by("number")
    for table, tricks in zip(tables, (8, 11, 12, 10), strict=True):
        submit(table, 1, "3NT", "E", tricks, now=now)
    clock.close_round_now(tournament=tournament, by=organiser, now=now)
    return tournament


def test_a_datum_goes_to_the_even_ten_unless_the_organiser_chooses_compscore3s_rounding(
    make_tournament, register_pairs, organiser
):
    tournament = _butler_board(make_tournament, register_pairs, organiser)
    board = Board.objects.get(tournament=tournament, number=1)
    assert board.datum == -440
    imps = lambda: sorted(  # noqa: E731
        PairBoardScore.objects.filter(board=board, direction="NS").values_list("points", flat=True)
    )
    assert imps() == [-2.0, -1.0, 0.0, 10.0]
    record = settings_change.change_scoring_settings(
        tournament=tournament,
        by=organiser,
        changes={"datum_rounding": "half_away"},
        reason="The club scores as Compscore3 does",
    )
    board.refresh_from_db()
    assert board.datum == -450
    assert imps() == [-1.0, 0.0, 1.0, 11.0]  # Compscore3's own Butler points for the board
    assert (record.before, record.after) == (
        {"datum_rounding": "half_even"},
        {"datum_rounding": "half_away"},
    )


def test_an_unknown_rounding_is_refused_and_changes_nothing(
    make_tournament, register_pairs, organiser
):
    tournament = _butler_board(make_tournament, register_pairs, organiser)
    with pytest.raises(SettingsInvalid, match="half_even, half_away"):
        settings_change.change_scoring_settings(
            tournament=tournament, by=organiser, changes={"datum_rounding": "up"}, reason="x"
        )
    assert not SettingsChange.objects.filter(tournament=tournament).exists()
    assert Board.objects.get(tournament=tournament, number=1).datum == -440
    with pytest.raises(setup.SetupError, match="half_even, half_away"):
        setup.check_tournament_settings(
            name="Butler", start_at=timezone.now(), rounds=1, boards_per_round=1,
            round_minutes=20, datum_rounding="nearest",
        )  # fmt: skip
