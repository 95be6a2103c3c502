"""Settings that decide scores are locked once round 1 starts; "change settings and
re-score the whole event" (RULES 3) re-scores, re-ranks and records (issue 14, point 2)."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.db import DatabaseError, connection

from tests.support.clock import submit
from tournaments import round_rules, sql
from tournaments.errors import PermissionRequired
from tournaments.models import (
    BoardResult,
    MasterPointAward,
    Pair,
    PairBoardScore,
    PlayerProfile,
    Round,
    SettingsChange,
    Standing,
    Table,
    Tournament,
)
from tournaments.services.clock import advance
from tournaments.services.settings_change import (
    SettingsInvalid,
    SettingsLocked,
    change_schedule,
    change_scoring_settings,
)

pytestmark = pytest.mark.django_db

MINUTE = timedelta(minutes=1)

IMP_SETTINGS = {
    "scoring_method": "IMP",
    "unplayed_policy": "not_played",
    "completion_threshold": Decimal(70),
    "neuberg": False,
}
MP_SETTINGS = {
    "scoring_method": "MP",
    "unplayed_policy": "avg",
    "completion_threshold": Decimal(50),
    "neuberg": True,
}

# (round, table number, board) -> (contract, declarer, tricks); the rest is cut off.
RESULTS = {
    (1, 1, 1): ("4S", "N", 10),
    (1, 2, 1): ("4S", "N", 9),
    (1, 1, 2): ("3NT", "N", 9),
    (2, 1, 3): ("2H", "N", 8),
    (2, 2, 3): ("2H", "N", 9),
    (2, 1, 4): ("3NT", "S", 8),
}


def _play_round(tournament, number, now):
    rnd = Round.objects.get(tournament=tournament, number=number)
    for table in Table.objects.filter(round=rnd).order_by("number"):
        for board in tournament.board_numbers(number):
            entry = RESULTS.get((number, table.number, board))
            if entry:
                submit(table, board, *entry, now=now)


def run_event(make_tournament, register_pairs, t0, **settings) -> Tournament:
    """4 pairs, 2 rounds of 2 boards, the same results at the same tables; finished."""
    tournament = make_tournament(rounds=2, boards_per_round=2, **settings)
    register_pairs(tournament, 4)
    advance(now=t0)
    _play_round(tournament, 1, t0 + 5 * MINUTE)
    advance(now=t0 + 20 * MINUTE)
    _play_round(tournament, 2, t0 + 25 * MINUTE)
    advance(now=t0 + 40 * MINUTE)
    tournament.refresh_from_db()
    assert tournament.status == "finished"
    return tournament


def figures(tournament) -> dict:
    """Everything the scores decide, by registration number (the two events' pairs and
    players differ, their places do not)."""
    reg = dict(Pair.objects.filter(tournament=tournament).values_list("id", "registration_no"))
    seating = sorted(
        (r, t, reg[ns], reg[ew])
        for r, t, ns, ew in Table.objects.filter(round__tournament=tournament).values_list(
            "round__number", "number", "ns_pair_id", "ew_pair_id"
        )
    )
    pairs = sorted(
        (p.registration_no, round(p.total, 6), p.boards_completed, p.completed, p.rank,
         p.master_points)
        for p in Pair.objects.filter(tournament=tournament)
    )  # fmt: skip
    scores = sorted(
        (reg[pair], board, direction, None if points is None else round(points, 6), done, art)
        for pair, board, direction, points, done, art in PairBoardScore.objects.filter(
            board__tournament=tournament
        ).values_list("pair_id", "board__number", "direction", "points", "completed", "artificial")
    )
    standings = sorted(
        (reg[pair], rnd, None if rs is None else round(rs, 6), round(total, 6), done, pos)
        for pair, rnd, rs, total, done, pos in Standing.objects.filter(
            round__tournament=tournament
        ).values_list(
            "pair_id", "round__number", "round_score", "total", "boards_completed", "position"
        )
    )
    results = sorted(
        (b, t, state, ns, ew)
        for b, t, state, ns, ew in BoardResult.objects.filter(
            board__tournament=tournament
        ).values_list("board__number", "table__number", "state", "ns_adjustment", "ew_adjustment")
    )
    awards = sorted(
        (reg[pair], rank, points)
        for pair, rank, points in MasterPointAward.objects.filter(
            tournament=tournament
        ).values_list("pair_id", "rank", "points")
    )
    players = sorted(
        (p.registration_no, profile.master_points)
        for p in Pair.objects.filter(tournament=tournament)
        for profile in PlayerProfile.objects.filter(user_id__in=[p.player1_id, p.player2_id])
    )
    return {
        "seating": seating,
        "pairs": pairs,
        "scores": scores,
        "standings": standings,
        "results": results,
        "awards": awards,
        "players": players,
    }


def test_a_change_mid_event_rescores_to_the_figures_of_an_event_run_so_from_the_start(
    make_tournament, register_pairs, organiser, t0
):
    expected = figures(run_event(make_tournament, register_pairs, t0, **MP_SETTINGS))

    # The same event under IMP / not played / 70 %, changed after round 1 closed.
    tournament = make_tournament(rounds=2, boards_per_round=2, **IMP_SETTINGS)
    register_pairs(tournament, 4)
    advance(now=t0)
    _play_round(tournament, 1, t0 + 5 * MINUTE)
    advance(now=t0 + 20 * MINUTE)
    record = change_scoring_settings(
        tournament=tournament,
        by=organiser,
        changes=MP_SETTINGS,
        reason="The flyer said matchpoints",
        now=t0 + 21 * MINUTE,
    )
    _play_round(tournament, 2, t0 + 25 * MINUTE)
    advance(now=t0 + 40 * MINUTE)
    assert figures(tournament) == expected

    assert record.changed_by == organiser
    assert record.changed_at == t0 + 21 * MINUTE
    assert record.reason == "The flyer said matchpoints"
    assert record.before == {
        "scoring_method": "IMP",
        "unplayed_policy": "not_played",
        "completion_threshold": "70.00",
        "neuberg": False,
    }
    assert record.after == {
        "scoring_method": "MP",
        "unplayed_policy": "avg",
        "completion_threshold": "50.00",
        "neuberg": True,
    }


def test_a_change_after_the_results_are_published_rescores_to_the_same_figures(
    make_tournament, register_pairs, organiser, t0
):
    expected = figures(run_event(make_tournament, register_pairs, t0, **MP_SETTINGS))
    tournament = run_event(make_tournament, register_pairs, t0, **IMP_SETTINGS)
    assert figures(tournament) != expected
    change_scoring_settings(
        tournament=tournament, by=organiser, changes=MP_SETTINGS, reason="MP after all",
        now=t0 + 41 * MINUTE,
    )  # fmt: skip
    assert figures(tournament) == expected
    # ... and back again: the policy's cut-off boards return to "not played".
    original = figures(run_event(make_tournament, register_pairs, t0, **IMP_SETTINGS))
    change_scoring_settings(
        tournament=tournament, by=organiser, changes=IMP_SETTINGS, reason="IMP after all",
        now=t0 + 42 * MINUTE,
    )  # fmt: skip
    assert figures(tournament) == original
    assert SettingsChange.objects.filter(tournament=tournament).count() == 2


def test_the_threshold_changed_after_publication_reranks_and_moves_master_points(
    make_tournament, register_pairs, organiser, t0
):
    tournament = run_event(
        make_tournament, register_pairs, t0, **{**IMP_SETTINGS, "completion_threshold": 100}
    )
    ranked = dict(Pair.objects.filter(tournament=tournament).values_list("registration_no", "rank"))
    assert sorted(r for r in ranked.values() if r) == [1]  # only one pair played all 4 boards
    points_before = sum(PlayerProfile.objects.values_list("master_points", flat=True))
    assert points_before == 6  # 3 to each player of the winner

    change_scoring_settings(
        tournament=tournament, by=organiser, changes={"completion_threshold": 50},
        reason="Threshold typo: 100 for 50", now=t0 + 50 * MINUTE,
    )  # fmt: skip
    pairs = Pair.objects.filter(tournament=tournament)
    assert sorted(p.rank for p in pairs) == [1, 2, 3, 4]
    # F = 4: ranks 1 and 2 (the top half) get 3 and 2, both players each.
    assert sorted(MasterPointAward.objects.filter(tournament=tournament).values_list(
        "rank", "points"
    )) == [(1, 3), (1, 3), (2, 2), (2, 2)]  # fmt: skip
    second = pairs.get(rank=2)
    for user_id in (second.player1_id, second.player2_id):
        assert PlayerProfile.objects.get(user_id=user_id).master_points == 2
    assert sum(PlayerProfile.objects.values_list("master_points", flat=True)) == 10


def snapshot(tournament) -> tuple:
    t = Tournament.objects.filter(pk=tournament.pk).values().get()
    return (
        t,
        figures(tournament),
        list(BoardResult.objects.filter(board__tournament=tournament).order_by("id").values()),
        SettingsChange.objects.count(),
    )


def test_refusals_change_nothing(make_tournament, register_pairs, organiser, make_user, t0):
    tournament = run_event(make_tournament, register_pairs, t0, **IMP_SETTINGS)
    before = snapshot(tournament)
    player = make_user()

    def refused(error, match, **kwargs):
        args = {"tournament": tournament, "by": organiser, "reason": "why", "now": t0}
        args.update(kwargs)
        with pytest.raises(error, match=match):
            change_scoring_settings(**args)
        assert snapshot(tournament) == before

    refused(PermissionRequired, "Only a tournament director", by=player,
            changes={"scoring_method": "MP"})  # fmt: skip
    refused(SettingsInvalid, "reason", reason="  ", changes={"scoring_method": "MP"})
    refused(SettingsInvalid, "scoring method is one of", changes={"scoring_method": "VP"})
    refused(SettingsInvalid, "percentage from 1 to 100", changes={"completion_threshold": 0})
    refused(SettingsInvalid, "Only these settings", changes={"name": "x"})
    refused(SettingsInvalid, "already in force", changes={"scoring_method": "IMP"})
    refused(SettingsLocked, "Boards per round cannot change", changes={"boards_per_round": 3})
    refused(SettingsLocked, "fewer than 2 rounds", changes={"rounds": 1})
    refused(SettingsLocked, "rounds cannot be added", changes={"rounds": 3})
    refused(SettingsInvalid, "whole number", changes={"rounds": 2.5})
    refused(SettingsInvalid, "on or off", changes={"neuberg": "yes"})


def test_rounds_may_grow_while_running_and_the_event_plays_them(
    make_tournament, register_pairs, organiser, t0
):
    tournament = make_tournament(rounds=2, boards_per_round=2)
    register_pairs(tournament, 4)
    advance(now=t0)
    change_scoring_settings(
        tournament=tournament, by=organiser, changes={"rounds": 3}, reason="time left",
        now=t0 + MINUTE,
    )  # fmt: skip
    advance(now=t0 + 20 * MINUTE)
    advance(now=t0 + 40 * MINUTE)
    tournament.refresh_from_db()
    assert tournament.status == "running"
    assert Round.objects.filter(tournament=tournament).count() == 3
    with pytest.raises(SettingsLocked, match="fewer than 3 rounds"):
        change_scoring_settings(
            tournament=tournament, by=organiser, changes={"rounds": 2}, reason="x", now=t0
        )


def test_started_and_a_pause_before_the_start(make_tournament, register_pairs, organiser, t0):
    from tournaments.services import clock

    tournament = make_tournament()
    assert not round_rules.started(tournament)
    clock.pause(tournament=tournament, by=organiser, now=t0 - MINUTE)
    tournament.refresh_from_db()
    assert not round_rules.started(tournament)
    clock.resume(tournament=tournament, by=organiser, now=t0 - MINUTE)
    register_pairs(tournament, 2)
    advance(now=t0)
    tournament.refresh_from_db()
    assert round_rules.started(tournament)


def test_round_length_and_gap_time_only_rounds_not_yet_opened(
    make_tournament, register_pairs, organiser, t0
):
    tournament = make_tournament(rounds=3, gap_length=timedelta(minutes=10))
    register_pairs(tournament, 4)
    advance(now=t0)  # round 1 open, t0 to t0+20
    change_schedule(
        tournament=tournament, by=organiser, round_length=timedelta(minutes=30),
        gap_length=timedelta(minutes=5),
    )  # fmt: skip
    r1 = Round.objects.get(tournament=tournament, number=1)
    assert (r1.starts_at, r1.ends_at) == (t0, t0 + 20 * MINUTE)  # the open round keeps its bell
    advance(now=t0 + 20 * MINUTE)  # round 2 seated for t0+25, 30 minutes
    r2 = Round.objects.get(tournament=tournament, number=2)
    assert (r2.status, r2.starts_at, r2.ends_at) == (
        "scheduled",
        t0 + 25 * MINUTE,
        t0 + 55 * MINUTE,
    )
    # Seated but not yet open: it follows a change.
    change_schedule(
        tournament=tournament, by=organiser, round_length=timedelta(minutes=25),
        gap_length=timedelta(minutes=0),
    )  # fmt: skip
    r2.refresh_from_db()
    assert (r2.starts_at, r2.ends_at) == (t0 + 20 * MINUTE, t0 + 45 * MINUTE)
    with pytest.raises(SettingsInvalid):
        change_schedule(tournament=tournament, by=organiser, round_length=timedelta(0))
    r2.refresh_from_db()
    assert r2.ends_at == t0 + 45 * MINUTE


def test_the_record_is_append_only(make_tournament, register_pairs, organiser, t0):
    tournament = run_event(make_tournament, register_pairs, t0, **IMP_SETTINGS)
    record = change_scoring_settings(
        tournament=tournament, by=organiser, changes={"neuberg": True}, reason="r", now=t0
    )
    record.reason = "rewritten"
    with pytest.raises(ValueError):
        record.save()
    assert SettingsChange.objects.get().reason == "r"


def _record(tournament, author) -> SettingsChange:
    return SettingsChange.objects.create(
        tournament=tournament,
        changed_by=author,
        before={"neuberg": False},
        after={"neuberg": True},
        reason="r",
    )


@pytest.mark.django_db(transaction=True)
def test_the_database_refuses_to_edit_or_delete_a_settings_change(make_tournament, make_user):
    """Append-only whatever path an edit comes by (migration 0016, RULES 3): raw SQL
    that rewrites a record is refused at once, one that deletes it at its commit."""
    record = _record(make_tournament(), make_user())
    before = SettingsChange.objects.filter(pk=record.pk).values().get()
    records, reason, after, author = (
        sql.table(SettingsChange),
        sql.column(SettingsChange, "reason"),
        sql.column(SettingsChange, "after"),
        sql.column(SettingsChange, "changed_by"),
    )
    for statement, params in (
        (f"UPDATE {records} SET {reason} = %s WHERE id = %s", ["rewritten", record.pk]),
        (f"UPDATE {records} SET {after} = %s WHERE id = %s", ['{"neuberg": false}', record.pk]),
        (f"UPDATE {records} SET {author} = %s WHERE id = %s", [make_user().pk, record.pk]),
        (f"DELETE FROM {records} WHERE id = %s", [record.pk]),
    ):
        # Autocommit: each statement is its own transaction, so the DELETE's check runs
        # at its commit.
        with pytest.raises(DatabaseError, match="append-only"), connection.cursor() as cursor:
            cursor.execute(statement, params)
    assert SettingsChange.objects.filter(pk=record.pk).values().get() == before


@pytest.mark.django_db(transaction=True)
def test_a_settings_change_goes_with_its_tournament_and_outlives_its_author(
    make_tournament, make_user
):
    """The two writes the database lets through: deleting the author empties
    `changed_by` (SET NULL), deleting the tournament takes its records with it."""
    tournament, author = make_tournament(), make_user()
    record = _record(tournament, author)
    author.delete()
    record.refresh_from_db()
    assert (record.changed_by, record.reason) == (None, "r")
    tournament.delete()
    assert not SettingsChange.objects.exists()
