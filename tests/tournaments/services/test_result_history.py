"""The result history (issue 14, point 1; RULES 3): every change to a result after it is
first stored is kept — who, when, before, after, and the director's reason — and a
director's change to a result of a closed round needs a reason."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import DatabaseError, connection, transaction
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from tests.support.clock import submit
from tournaments.errors import ResultRefused
from tournaments.models import (
    BoardResult,
    PairBoardScore,
    ResultChange,
    ResultChangeKind,
    Round,
    Table,
)
from tournaments.services import clock, results
from tournaments.services.clock import advance

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]
MINUTE = timedelta(minutes=1)
K = ResultChangeKind


def iso(when) -> str:
    return when.isoformat()


@pytest.fixture
def field(make_tournament, register_pairs, t0):
    """MP, 2 rounds of 2 boards, 4 pairs: round 1 open at t0, tables 1 and 2."""
    tournament = make_tournament(scoring_method="MP", rounds=2, boards_per_round=2)
    register_pairs(tournament, 4)
    advance(now=t0)
    t1, t2 = (
        Table.objects.select_related("ns_pair__player1", "ew_pair__player1").get(
            round__tournament=tournament, round__number=1, number=n
        )
        for n in (1, 2)
    )
    return tournament, t1, t2


def history(result) -> list[ResultChange]:
    return list(ResultChange.objects.filter(result=result).order_by("id"))


def points(result) -> dict:
    return {
        f"{direction.lower()}_points": value
        for direction, value in PairBoardScore.objects.filter(result=result).values_list(
            "direction", "points"
        )
    }


def entry(contract: str, declarer: str, tricks: int) -> results.ContractEntry:
    return results.ContractEntry(contract=contract, declarer=declarer, tricks=tricks)


def test_the_history_of_one_board_step_by_step(field, director, organiser, t0):
    tournament, t1, t2 = field
    north, east = t1.ns_pair.player1, t1.ew_pair.player1

    # 1. Entry: North enters 3NT= (board 1, nobody vulnerable).
    submit(t1, 1, "3NT", "N", 9, now=t0 + 1 * MINUTE)
    result = BoardResult.objects.get(table=t1, board__number=1)
    [first] = history(result)
    assert (first.kind, first.by, first.at, first.before, first.reason) == (
        K.ENTRY, north, t0 + MINUTE, None, ""
    )  # fmt: skip
    assert first.after["contract"] == "3NT" and first.after["tricks"] == 9
    assert first.after["ns_score"] == 400 and first.after["entered_by_id"] == north.pk
    assert first.after["entered_at"] == iso(t0 + MINUTE)

    # 2. Correction: it was 3NT+1.
    submit(t1, 1, "3NT", "N", 10, now=t0 + 2 * MINUTE)
    correction = history(result)[1]
    assert (correction.kind, correction.by, correction.at) == (K.CORRECTION, north, t0 + 2 * MINUTE)
    assert correction.before == first.after
    assert (correction.after["tricks"], correction.after["ns_score"]) == (10, 430)

    # 3. Confirmation by East.
    results.confirm_result(result=result, user=east, now=t0 + 3 * MINUTE)
    confirmation = history(result)[2]
    assert (confirmation.kind, confirmation.by, confirmation.at) == (
        K.CONFIRMATION, east, t0 + 3 * MINUTE
    )  # fmt: skip
    assert confirmation.before == correction.after
    assert confirmation.before["confirmed_by_id"] is None
    assert confirmation.after["confirmed_by_id"] == east.pk
    assert confirmation.after["confirmed_at"] == iso(t0 + 3 * MINUTE)

    # 4. The bell cuts off another board (table 1's board 2); board 1's history is as it was.
    submit(t2, 1, "4S", "N", 10, now=t0 + 4 * MINUTE)
    submit(t2, 2, "2H", "S", 8, now=t0 + 4 * MINUTE)
    bell = t0 + 20 * MINUTE
    advance(now=bell)
    cut = BoardResult.objects.get(table=t1, board__number=2)
    [cut_off] = history(cut)
    assert (cut_off.kind, cut_off.by, cut_off.at, cut_off.before) == (K.CUT_OFF, None, bell, None)
    assert cut_off.after["state"] == "not_played" and cut_off.after["entered_by_id"] is None
    assert len(history(result)) == 3
    assert points(result) == {"ns_points": 100.0, "ew_points": 0.0}  # 430 beats 420

    # 5. The director's result in the closed round (3NT-1), with the re-score it causes.
    ruling = t0 + 25 * MINUTE
    results.director_set_result(
        table=t1, board_number=1, by=director, entry=entry("3NT", "N", 8),
        reason="revoke established: 3NT-1", now=ruling,
    )  # fmt: skip
    steps = history(result)
    director_result, rescored = steps[3], steps[4]
    assert (director_result.kind, director_result.by, director_result.at) == (
        K.DIRECTOR_RESULT, director, ruling
    )  # fmt: skip
    assert director_result.reason == "revoke established: 3NT-1"
    assert director_result.before == confirmation.after
    assert (director_result.after["tricks"], director_result.after["ns_score"]) == (8, -50)
    assert director_result.after["adjusted_by_id"] == director.pk
    # The original entry's who and when stay on the row (and in the history).
    assert director_result.after["entered_by_id"] == north.pk
    assert director_result.after["entered_at"] == iso(t0 + 2 * MINUTE)
    stored = BoardResult.objects.get(pk=result.pk)
    assert (stored.entered_by, stored.entered_at, stored.adjusted_by) == (
        north, t0 + 2 * MINUTE, director
    )  # fmt: skip
    assert (rescored.kind, rescored.by, rescored.at, rescored.reason) == (
        K.RESCORE, director, ruling, "revoke established: 3NT-1"
    )  # fmt: skip
    assert rescored.before == {"ns_points": 100.0, "ew_points": 0.0}
    assert rescored.after == {"ns_points": 0.0, "ew_points": 100.0} == points(result)
    # The other table's result of the board changed score too, and says so.
    other = BoardResult.objects.get(table=t2, board__number=1)
    assert [(c.kind, c.before, c.after) for c in history(other)][-1] == (
        K.RESCORE, {"ns_points": 0.0, "ew_points": 100.0}, {"ns_points": 100.0, "ew_points": 0.0}
    )  # fmt: skip

    # 6. The director's adjusted score.
    adjusted_at = t0 + 26 * MINUTE
    results.director_set_result(
        table=t1, board_number=1, by=director, ns_adjustment="A+", ew_adjustment="A-",
        reason="fouled board", now=adjusted_at,
    )  # fmt: skip
    steps = history(result)
    adjustment = steps[5]
    assert (adjustment.kind, adjustment.by, adjustment.at, adjustment.reason) == (
        K.ADJUSTMENT, director, adjusted_at, "fouled board"
    )  # fmt: skip
    assert adjustment.before == director_result.after
    assert adjustment.after["state"] == "adjusted" and adjustment.after["ns_score"] is None
    assert (adjustment.after["ns_adjustment"], adjustment.after["ew_adjustment"]) == ("A+", "A-")
    assert adjustment.after["entered_by_id"] == north.pk
    [rescore_after_adjustment] = steps[6:]
    assert rescore_after_adjustment.kind == K.RESCORE
    assert rescore_after_adjustment.before == rescored.after
    assert rescore_after_adjustment.after == points(result)

    # 7. An organiser's re-score that changes nothing adds nothing.
    clock.rescore_round(round=Round.objects.get(pk=t1.round_id), by=organiser, now=t0 + 27 * MINUTE)
    assert len(history(result)) == 7
    # The history is only ever appended to: the database refuses an edit.
    with pytest.raises(DatabaseError), transaction.atomic():
        ResultChange.objects.filter(result=result).update(reason="nothing happened")
    assert history(result)[5].reason == "fouled board"


def test_a_dispute_is_recorded_with_its_note(field, t0):
    _tournament, t1, _t2 = field
    submit(t1, 1, "4S", "N", 10, now=t0 + MINUTE)
    result = BoardResult.objects.get(table=t1, board__number=1)
    west = t1.ew_pair.player2
    results.dispute_result(result=result, user=west, note="it was 4S-1", now=t0 + 2 * MINUTE)
    dispute = history(result)[-1]
    assert (dispute.kind, dispute.by, dispute.at, dispute.reason) == (
        K.DISPUTE, west, t0 + 2 * MINUTE, "it was 4S-1"
    )  # fmt: skip
    assert (dispute.before["disputed"], dispute.after["disputed"]) == (False, True)
    assert dispute.after["dispute_note"] == "it was 4S-1"


def _state(tournament) -> dict:
    mine = {"board__tournament": tournament}
    return {
        "results": list(BoardResult.objects.filter(**mine).order_by("id").values()),
        "history": list(ResultChange.objects.order_by("id").values()),
        "scores": list(PairBoardScore.objects.filter(**mine).order_by("id").values()),
    }


def test_a_closed_rounds_result_needs_a_reason(field, director, t0):
    """The cut-off board turned into a played result: refused without a reason, nothing
    changed; with one, stored, and the row keeps the bell as its entry."""
    tournament, t1, t2 = field
    submit(t2, 1, "4S", "N", 10, now=t0 + MINUTE)
    bell = t0 + 20 * MINUTE
    advance(now=bell)
    before = _state(tournament)
    for reason in ("", "   "):
        with pytest.raises(ResultRefused) as refused:
            results.director_set_result(
                table=t1, board_number=1, by=director, entry=entry("4S", "N", 10),
                reason=reason, now=t0 + 22 * MINUTE,
            )  # fmt: skip
        assert str(refused.value) == (
            "Round 1 is closed: say why its result is changed; the reason is kept in the "
            "result's history."
        )
        # The admin form asks the same question before saving.
        assert results.director_result_problem(
            table=t1, board_number=1, by=director, entry=entry("4S", "N", 10), reason=reason
        ) == str(refused.value)
    assert _state(tournament) == before

    results.director_set_result(
        table=t1, board_number=1, by=director, entry=entry("4S", "N", 10),
        reason="table 1 finished before the bell; slip found", now=t0 + 23 * MINUTE,
    )  # fmt: skip
    stored = BoardResult.objects.get(table=t1, board__number=1)
    assert (stored.state, stored.ns_score) == ("played", 420)
    assert (stored.entered_by, stored.entered_at, stored.adjusted_by) == (None, bell, director)
    cut_off, ruling = history(stored)[:2]
    assert cut_off.kind == K.CUT_OFF
    assert ruling.kind == K.DIRECTOR_RESULT and ruling.before == cut_off.after
    assert ruling.reason == "table 1 finished before the bell; slip found"


def test_an_open_rounds_result_needs_no_reason(field, director, t0):
    _tournament, t1, _t2 = field
    results.director_set_result(
        table=t1, board_number=1, by=director, entry=entry("4S", "N", 10), now=t0 + MINUTE
    )
    result = BoardResult.objects.get(table=t1, board__number=1)
    [ruling] = history(result)
    assert (ruling.kind, ruling.by, ruling.before, ruling.reason) == (
        K.DIRECTOR_RESULT, director, None, ""
    )  # fmt: skip
    assert (result.entered_by, result.entered_at) == (director, t0 + MINUTE)


def _close_queries(tournament, bell) -> list[str]:
    with CaptureQueriesContext(connection) as queries:
        advance(now=bell)
    return [q["sql"] for q in queries.captured_queries]


@pytest.mark.parametrize("pairs", [4, 10])
def test_the_cut_off_writes_one_statement_per_kind(make_tournament, register_pairs, t0, pairs):
    tournament = make_tournament(rounds=2, boards_per_round=3, unplayed_policy="avg_minus")
    register_pairs(tournament, pairs)
    advance(now=t0)
    table = Table.objects.get(round__tournament=tournament, round__number=1, number=1)
    submit(table, 1, "4S", "N", 10, now=t0 + MINUTE)
    statements = _close_queries(tournament, t0 + 20 * MINUTE)
    result_table, history_table = (
        connection.ops.quote_name(m._meta.db_table) for m in (BoardResult, ResultChange)
    )
    inserts = [s for s in statements if s.startswith("INSERT INTO")]
    assert len([s for s in inserts if s.startswith(f"INSERT INTO {result_table}")]) == 1
    assert len([s for s in inserts if s.startswith(f"INSERT INTO {history_table}")]) == 1
    cut = ResultChange.objects.filter(result__board__tournament=tournament).exclude(kind=K.ENTRY)
    missing = (pairs // 2) * 3 - 1
    assert cut.count() == cut.filter(kind=K.CUT_OFF, by=None).count() == missing
    one = cut.first()
    assert one.after["state"] == "adjusted"
    assert (one.after["ns_adjustment"], one.after["ew_adjustment"]) == ("A-", "A-")
    assert one.reason == "Cut off at the bell"
    # The result rows and their history are the same rows.
    assert set(cut.values_list("result_id", flat=True)) == set(
        BoardResult.objects.filter(board__tournament=tournament, entered_by=None).values_list(
            "id", flat=True
        )
    )


def test_the_board_page_shows_the_history_to_organisers_only(field, director, client, t0):
    tournament, t1, t2 = field
    submit(t1, 1, "3NT", "N", 9, now=t0 + MINUTE)
    submit(t1, 1, "3NT", "N", 10, now=t0 + 2 * MINUTE)
    submit(t2, 1, "4S", "N", 10, now=t0 + 2 * MINUTE)
    advance(now=t0 + 20 * MINUTE)  # board 2 is cut off at both tables
    results.director_set_result(
        table=t1, board_number=1, by=director, ns_adjustment="A", ew_adjustment="A",
        reason="the tray was turned", now=t0 + 21 * MINUTE,
    )  # fmt: skip
    url = reverse("board", args=[tournament.pk, 1])
    page = client.get(url).content.decode()
    assert "Result history" not in page and "the tray was turned" not in page
    client.force_login(t1.ns_pair.player1)
    page = client.get(url).content.decode()
    assert "Result history" not in page and "the tray was turned" not in page
    client.force_login(director)
    page = client.get(url).content.decode()
    assert "Result history" in page and "the tray was turned" in page
    assert page.count('data-kind="') == len(
        ResultChange.objects.filter(result__board__tournament=tournament, result__board__number=1)
    )
    for kind in ("entry", "correction", "adjustment", "rescore"):
        assert f'data-kind="{kind}"' in page


def test_the_admin_change_form_refuses_a_closed_rounds_change_without_a_reason(
    field, director, client, t0
):
    _tournament, t1, _t2 = field
    submit(t1, 1, "3NT", "N", 9, now=t0 + MINUTE)
    advance(now=t0 + 20 * MINUTE)
    result = BoardResult.objects.get(table=t1, board__number=1)
    before = list(BoardResult.objects.order_by("id").values()), history(result)
    client.force_login(director)
    url = reverse("admin:tournaments_boardresult_change", args=[result.pk])
    form = {"contract": "3NT", "declarer": "N", "tricks": "8", "result_text": "", "lead": ""}
    response = client.post(url, {**form, "adjustment_reason": "", "_save": "Save"})
    assert response.status_code == 200  # the form again, with the reason it needs
    assert "say why its result is changed" in response.content.decode()
    assert (list(BoardResult.objects.order_by("id").values()), history(result)) == before
    response = client.post(url, {**form, "adjustment_reason": "revoke", "_save": "Save"})
    assert response.status_code == 302
    # The only result of the board: still 50 %, so no re-score line.
    assert [(c.kind, c.by, c.reason) for c in history(result)] == [
        (K.ENTRY, t1.ns_pair.player1, ""),
        (K.DIRECTOR_RESULT, director, "revoke"),
    ]


def test_the_result_admin_shows_the_history(field, director, client, t0):
    _tournament, t1, _t2 = field
    submit(t1, 1, "3NT", "N", 9, now=t0 + MINUTE)
    submit(t1, 1, "3NT", "N", 10, now=t0 + 2 * MINUTE)
    result = BoardResult.objects.get(table=t1, board__number=1)
    client.force_login(director)
    page = client.get(reverse("admin:tournaments_boardresult_change", args=[result.pk]))
    assert page.status_code == 200
    text = page.content.decode()
    assert "Result history" in text or "result history" in text
    assert "Corrected" in text and "Entered" in text


# --- every other write path of a result appends its line (RULES 3) ----------------------


def test_a_withdrawals_forfeits_each_append_an_adjustment_line(field, director, t0):
    from tournaments.services.registration import withdraw_pair

    tournament, t1, _t2 = field
    withdraw_pair(pair=t1.ns_pair, by=director, now=t0 + MINUTE)
    forfeits = list(BoardResult.objects.filter(table=t1).order_by("board__number"))
    assert [r.state for r in forfeits] == ["adjusted", "adjusted"]
    for result in forfeits:
        (line,) = history(result)
        assert (line.kind, line.by, line.at, line.before) == (
            K.ADJUSTMENT,
            director,
            t0 + MINUTE,
            None,
        )
        assert line.after["ns_adjustment"] == "A-" and line.after["ew_adjustment"] == "A+"
        assert line.reason == "Withdrawal"


def test_a_new_unplayed_policy_appends_a_line_to_each_cut_off_it_changes(field, organiser, t0):
    from tournaments.services.settings_change import change_scoring_settings

    tournament, t1, _t2 = field
    round1 = Round.objects.get(tournament=tournament, number=1)
    advance(now=round1.ends_at)  # nothing entered: the bell cuts off all four boards
    cut = list(BoardResult.objects.filter(board__round=round1).order_by("id"))
    assert len(cut) == 4 and all(len(history(r)) == 1 for r in cut)
    old_state = cut[0].state
    change_scoring_settings(
        tournament=tournament,
        by=organiser,
        changes={"unplayed_policy": "avg"},
        reason="The club scores unplayed boards as average",
        now=round1.ends_at + MINUTE,
    )
    for result in cut:
        # The cut-off, the new policy's cut-off, and the re-score of the points it moved.
        first, line, rescored = history(result)
        assert first.kind == K.CUT_OFF and line.kind == K.CUT_OFF
        assert (rescored.kind, rescored.by, rescored.reason) == (K.RESCORE, organiser, line.reason)
        assert (line.by, line.at) == (organiser, round1.ends_at + MINUTE)
        assert line.before["state"] == old_state and line.after["state"] == "adjusted"
        assert line.after["ns_adjustment"] == line.after["ew_adjustment"] == "A"
        assert line.reason == "The club scores unplayed boards as average"


def test_a_board_played_at_the_systems_table_appends_its_entry_line(
    make_tournament, register_pairs
):
    from tests.support.online_ws import open_online_round, robot_action, seated_users
    from tournaments.services import table_play

    _first, tables = open_online_round(make_tournament, register_pairs, boards=1)
    table = tables[0]
    users = seated_users(table)
    last_actor = None
    for _ in range(80):
        for user in users.values():
            action = robot_action(table_play.board_view(table=table, board_number=1, user=user))
            if action is not None:
                table_play.act(table=table, board_number=1, user=user, action=action)
                last_actor = user
                break
        else:
            break
    result = BoardResult.objects.get(table=table, board__number=1)
    assert result.played_online
    (line,) = history(result)
    assert (line.kind, line.by, line.before) == (K.ENTRY, last_actor, None)
    assert line.after["contract"] == result.contract and line.after["ns_score"] == result.ns_score
