"""Fair withdrawals and late entries (RULES 1, RULES 1; issue 14 points 5 and 6).

A pair that withdraws while seated in a round in play leaves its opponents A+ on the
boards their table had not finished (A- to itself), counted as completed for both and
settled against own percentage like any adjustment; the bell leaves them alone. A pair
withdrawn before round 1 is not listed anywhere. An organiser may add a confirmed pair
to a running tournament until the last round is seated; it plays from the next round.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db.models import Q
from django.utils import translation

import scoring
from tests.support.clock import submit
from tournaments import selectors
from tournaments.errors import NotAllowed, PermissionRequired, RegistrationError
from tournaments.models import (
    BoardResult,
    Pair,
    PairBoardScore,
    PairMember,
    Round,
    Standing,
    Table,
)
from tournaments.services import registration, results
from tournaments.services.clock import advance

pytestmark = [pytest.mark.django_db]

MINUTE = timedelta(minutes=1)
ROUND = 20 * MINUTE


@pytest.fixture(autouse=True)
def english():
    with translation.override("en"):
        yield


def table_of(pair: Pair, number: int) -> Table | None:
    return (
        Table.objects.filter(Q(ns_pair=pair) | Q(ew_pair=pair), round__number=number)
        .filter(round__tournament=pair.tournament)
        .first()
    )


def play_everything(tournament, number: int, *, now, favour: Pair | None = None) -> None:
    """Enter a result for every board at every table of round `number` still without one.

    `favour`'s side makes 3NT+1 at its table; elsewhere North makes 1♣, so `favour` tops
    every board it plays (MP)."""
    rnd = Round.objects.get(tournament=tournament, number=number)
    for table in Table.objects.filter(round=rnd).select_related("ns_pair", "ew_pair"):
        done = set(BoardResult.objects.filter(table=table).values_list("board__number", flat=True))
        for board in rnd.boards.exclude(number__in=done):
            side = table.side_of_pair(favour.pk) if favour else None
            if side == "NS":
                submit(table, board.number, "3NT", "N", 10, now=now)
            elif side == "EW":
                submit(table, board.number, "3NT", "E", 10, now=now)
            else:
                submit(table, board.number, "1C", "N", 7, now=now)


def results_of(table: Table) -> list[tuple]:
    return list(
        BoardResult.objects.filter(table=table)
        .order_by("board__number")
        .values_list(
            "board__number", "state", "ns_adjustment", "ew_adjustment", "adjustment_reason"
        )
    )


# --- a withdrawal during an open round ------------------------------------------------


def test_a_withdrawal_during_an_open_round_gives_the_opponents_a_plus_and_completion(
    make_tournament, register_pairs, t0
):
    """6 pairs, MP, 3 rounds of 2 boards, threshold 70 %. Pair 2 withdraws a minute into
    round 1 before its table has entered anything. Its opponents (pair 1) get A+ on both
    boards, counted as completed: 6 of 6 boards and ranked, where "not played" would have
    left them at 4 of 6 (67 %) and unranked through no fault of their own. Their A+ is
    settled against their own percentage (they top every board they play: 100 %)."""
    tournament = make_tournament(
        rounds=3, boards_per_round=2, scoring_method="MP", unplayed_policy="not_played"
    )
    p1, p2, *_others = register_pairs(tournament, 6)
    advance(now=t0)
    first = table_of(p1, 1)
    assert (first.ns_pair_id, first.ew_pair_id) == (p1.id, p2.id)
    submit(first, 1, "3NT", "N", 10, now=t0 + MINUTE // 2)  # board 1 finished first

    registration.withdraw_pair(pair=p2, by=p2.player1, now=t0 + MINUTE)

    # Only the unfinished board is adjusted, at once, recorded as the withdrawing player's.
    assert results_of(first) == [
        (1, "played", "", "", ""),
        (2, "adjusted", "A+", "A-", "Withdrawal"),
    ]
    adjusted = BoardResult.objects.get(table=first, board__number=2)
    assert (adjusted.adjusted_by, adjusted.entered_by, adjusted.entered_at) == (
        p2.player1,
        p2.player1,
        t0 + MINUTE,
    )
    # The opponents cannot play over it; only a director changes it.
    with pytest.raises(NotAllowed, match="adjusted"):
        submit(first, 2, "4S", "S", 10, now=t0 + 2 * MINUTE)

    play_everything(tournament, 1, now=t0 + 5 * MINUTE, favour=p1)
    advance(now=t0 + ROUND)  # the bell: it cuts off nothing of table 1 and overrides nothing
    assert results_of(first)[1] == (2, "adjusted", "A+", "A-", "Withdrawal")
    assert BoardResult.objects.get(table=first, board__number=2).pk == adjusted.pk
    for number in (2, 3):
        assert table_of(p2, number) is None, "a withdrawn pair is not seated again"
        play_everything(tournament, number, now=t0 + (number - 1) * ROUND + MINUTE, favour=p1)
        advance(now=t0 + number * ROUND)

    p1.refresh_from_db()
    p2.refresh_from_db()
    assert p1.boards_completed == 6 and p1.completed and p1.rank is not None
    # The A+ board shows what the total counted: A+ settled against own percentage.
    scores = PairBoardScore.objects.filter(pair=p1, completed=True)
    played = [s.points for s in scores if s.artificial == ""]
    own = sum(played) / len(played)
    assert own == 100.0
    (a_plus,) = [s for s in scores if s.artificial == "A+"]
    assert a_plus.points == scoring.settled_artificial("MP", "A+", own) == 100.0
    # The withdrawn pair: A- settled against its own 0 % on board 1 (the lower of the
    # two), completed, still listed with its scores, unranked (2 of 6 boards).
    minus = PairBoardScore.objects.get(pair=p2, board=adjusted.board)
    assert (minus.artificial, minus.points, minus.completed) == ("A-", 0.0, True)
    assert scoring.settled_artificial("MP", "A-", 0.0) == 0.0
    assert (p2.boards_completed, p2.completed, p2.rank) == (2, False, None)
    listed = {row.pair_id: row for row in selectors.standings(tournament=tournament)}
    assert listed[p2.id].withdrawn and listed[p2.id].boards_completed == 2


def test_a_withdrawal_of_the_ns_pair_gives_ew_the_a_plus(make_tournament, register_pairs, t0):
    tournament = make_tournament(rounds=2, boards_per_round=3)
    p1, p2, _p3, _p4 = register_pairs(tournament, 4)
    advance(now=t0)
    registration.withdraw_pair(pair=p1, by=p1.player2, now=t0 + MINUTE)
    first = table_of(p1, 1)
    assert [r[1:4] for r in results_of(first)] == [("adjusted", "A-", "A+")] * 3
    advance(now=t0 + ROUND)
    # IMPs: A+ is +3, A- is -3, whatever the pair did elsewhere.
    assert Pair.objects.get(pk=p2.pk).total == 9.0
    assert Pair.objects.get(pk=p1.pk).total == -9.0


# --- withdrawals that adjust nothing ---------------------------------------------------


def test_a_withdrawal_before_round_1_is_not_listed_ranked_or_in_standings(
    make_tournament, register_pairs, organiser, t0
):
    """IMPs, where a pair that never played would sit at 0, in the middle of the field."""
    tournament = make_tournament(rounds=2, boards_per_round=1, scoring_method="IMP")
    pairs = register_pairs(tournament, 5)
    gone = pairs[2]
    registration.withdraw_pair(pair=gone, by=organiser, now=t0 - MINUTE)
    advance(now=t0)
    assert Round.objects.get(tournament=tournament, number=1).bye_pair_id is None
    for number in (1, 2):
        play_everything(tournament, number, now=t0 + (number - 1) * ROUND + MINUTE)
        advance(now=t0 + number * ROUND)
    tournament.refresh_from_db()
    assert tournament.status == "finished"

    rows = selectors.standings(tournament=tournament)
    assert gone.id not in {row.pair_id for row in rows}
    assert [row.position for row in rows] == [1, 2, 3, 4]
    assert sorted(row.rank for row in rows) == [1, 2, 3, 4]
    assert not Standing.objects.filter(pair=gone).exists()
    for rnd in Round.objects.filter(tournament=tournament):
        positions = Standing.objects.filter(round=rnd).values_list("position", flat=True)
        assert sorted(positions) == [1, 2, 3, 4]
    gone.refresh_from_db()
    assert (gone.rank, gone.completed, gone.master_points) == (None, False, 0)
    assert gone.id not in selectors.board_score_grid(tournament=tournament)


def test_a_withdrawal_with_a_bye_adjusts_nothing(make_tournament, register_pairs, t0):
    tournament = make_tournament(rounds=2, boards_per_round=2)
    pairs = register_pairs(tournament, 5)
    advance(now=t0)
    rnd = Round.objects.get(tournament=tournament, number=1)
    bye = Pair.objects.get(pk=rnd.bye_pair_id)
    play_everything(tournament, 1, now=t0 + MINUTE)
    before = list(BoardResult.objects.filter(board__tournament=tournament).order_by("id").values())
    registration.withdraw_pair(pair=bye, by=bye.player1, now=t0 + 2 * MINUTE)
    after = list(BoardResult.objects.filter(board__tournament=tournament).order_by("id").values())
    assert after == before
    advance(now=t0 + ROUND)
    # Its bye still counts (average, completed); it is not seated again.
    assert Pair.objects.get(pk=bye.pk).boards_completed == 2
    assert table_of(bye, 2) is None and len(pairs) == 5


def test_a_withdrawal_between_rounds_changes_nothing_played(make_tournament, register_pairs, t0):
    """With a gap between rounds: round 1 is closed and scored, round 2 seated but not
    open. The withdrawal changes nothing of round 1 (results, scores, totals). The pair
    is already seated in round 2 and cannot be unseated, so its opponents get A+ on all
    of that round's boards when it opens; the withdrawn pair A-."""
    tournament = make_tournament(rounds=2, boards_per_round=2, gap_length=5 * MINUTE)
    p1, p2, _p3, _p4 = register_pairs(tournament, 4)
    advance(now=t0)
    play_everything(tournament, 1, now=t0 + MINUTE)
    advance(now=t0 + ROUND)
    second = Round.objects.get(tournament=tournament, number=2)
    assert second.status == "scheduled"

    def played() -> tuple:
        return (
            list(BoardResult.objects.filter(board__round__number=1).order_by("id").values()),
            list(PairBoardScore.objects.filter(board__round__number=1).order_by("id").values()),
            list(Standing.objects.filter(round__number=1).order_by("id").values()),
        )

    before = played()
    registration.withdraw_pair(pair=p2, by=p2.player1, now=t0 + ROUND + MINUTE)
    assert played() == before
    seated = table_of(p2, 2)
    side = seated.side_of_pair(p2.pk)
    expected = ("A-", "A+") if side == "NS" else ("A+", "A-")
    assert [r[1:4] for r in results_of(seated)] == [("adjusted", *expected)] * 2
    advance(now=second.starts_at)
    play_everything(tournament, 2, now=second.starts_at + MINUTE)
    advance(now=second.ends_at)
    assert played() == before
    opponent = seated.ew_pair_id if side == "NS" else seated.ns_pair_id
    assert Pair.objects.get(pk=opponent).boards_completed == 4


def test_a_withdrawal_after_the_bell_leaves_the_boards_to_the_cut_off(
    make_tournament, register_pairs, t0
):
    tournament = make_tournament(rounds=2, boards_per_round=2, unplayed_policy="avg_minus")
    p1, p2, _p3, _p4 = register_pairs(tournament, 4)
    advance(now=t0)
    registration.withdraw_pair(pair=p2, by=p2.player1, now=t0 + ROUND)  # the bell rang
    first = table_of(p1, 1)
    assert not BoardResult.objects.filter(table=first).exists()
    advance(now=t0 + ROUND)
    assert [r[1:] for r in results_of(first)] == [
        ("adjusted", "A-", "A-", "Cut off at the bell")
    ] * 2


def test_a_refused_withdrawal_adjusts_nothing(make_tournament, register_pairs, make_user, t0):
    tournament = make_tournament(rounds=2, boards_per_round=2)
    p1, *_ = register_pairs(tournament, 4)
    advance(now=t0)
    with pytest.raises(NotAllowed):
        registration.withdraw_pair(pair=p1, by=make_user(), now=t0 + MINUTE)
    assert not BoardResult.objects.exists()
    assert Pair.objects.get(pk=p1.pk).withdrawn_at is None


# --- late entries ----------------------------------------------------------------------


@pytest.mark.parametrize("threshold,ranked", [(70, False), (60, True)])
def test_a_late_pair_is_seated_from_round_3_of_5_and_ranked_by_its_completion(
    make_tournament, register_pairs, make_user, director, t0, threshold, ranked
):
    """4 pairs, 5 rounds of 1 board. During round 2 the organiser adds a fifth pair: it is
    seated from round 3, rounds 1–2 are not played for it, registration no. 5 (last on
    the final tie-break). 3 boards of 5 is 60 %: ranked at a 60 % threshold, not at 70 %."""
    tournament = make_tournament(rounds=5, boards_per_round=1, completion_threshold=threshold)
    register_pairs(tournament, 4)
    advance(now=t0)
    play_everything(tournament, 1, now=t0 + MINUTE)
    advance(now=t0 + ROUND)
    a, b = make_user(), make_user()
    late = registration.add_late_pair(
        tournament=tournament, usernames=[a.username, b.username], by=director,
        now=t0 + ROUND + MINUTE,
    )  # fmt: skip
    assert (late.status, late.registration_no, late.confirmed_at) == (
        "confirmed",
        5,
        t0 + ROUND + MINUTE,
    )
    assert set(PairMember.objects.filter(pair=late).values_list("user_id", flat=True)) == {
        a.id,
        b.id,
    }
    assert table_of(late, 2) is None, "round 2 was seated before it joined"
    for number in range(2, 6):
        play_everything(tournament, number, now=t0 + (number - 1) * ROUND + MINUTE)
        advance(now=t0 + number * ROUND)
        if number == 2:
            third = Round.objects.get(tournament=tournament, number=3)
            assert table_of(late, 3) is not None or third.bye_pair_id == late.id
    tournament.refresh_from_db()
    assert tournament.status == "finished"
    late.refresh_from_db()
    assert late.boards_completed == 3
    numbers = PairBoardScore.objects.filter(pair=late).values_list("board__number", flat=True)
    assert sorted(numbers) == [3, 4, 5], "nothing for the rounds it missed"
    assert late.completed is ranked
    assert (late.rank is not None) is ranked
    row = next(r for r in selectors.standings(tournament=tournament) if r.pair_id == late.id)
    assert row.completion == pytest.approx(0.6)


def late_state(tournament) -> tuple:
    return (
        list(Pair.objects.filter(tournament=tournament).order_by("id").values()),
        list(PairMember.objects.filter(tournament=tournament).order_by("id").values()),
        list(Round.objects.filter(tournament=tournament).order_by("id").values()),
    )


def test_a_late_entry_is_refused_once_the_last_round_is_seated(
    make_tournament, register_pairs, make_user, director, t0
):
    tournament = make_tournament(rounds=2, boards_per_round=1)
    register_pairs(tournament, 4)
    a, b = make_user(), make_user()
    usernames = [a.username, b.username]
    # Before the start: not a late entry (registration is open for that).
    before = late_state(tournament)
    with pytest.raises(RegistrationError, match="has not started yet"):
        registration.add_late_pair(
            tournament=tournament, usernames=usernames, by=director, now=t0 - MINUTE
        )
    assert late_state(tournament) == before
    advance(now=t0)
    advance(now=t0 + ROUND)  # round 2, the last, is seated
    before = late_state(tournament)
    with pytest.raises(RegistrationError) as refused:
        registration.add_late_pair(
            tournament=tournament, usernames=usernames, by=director, now=t0 + ROUND + MINUTE
        )
    assert str(refused.value) == (
        f"The last round (round 2) of {tournament.name} is already seated; a pair can join "
        "a running tournament only until then."
    )
    assert late_state(tournament) == before
    advance(now=t0 + 2 * ROUND)
    with pytest.raises(RegistrationError, match="is over"):
        registration.add_late_pair(
            tournament=tournament, usernames=usernames, by=director, now=t0 + 3 * ROUND
        )


def test_late_entry_refusals_change_nothing(
    make_tournament, register_pairs, make_user, director, t0
):
    tournament = make_tournament(rounds=3, boards_per_round=1)
    pairs = register_pairs(tournament, 4)
    player = make_user()
    free = make_user()
    advance(now=t0)
    before = late_state(tournament)
    cases = [
        (make_user(), [player.username, free.username], PermissionRequired, "director"),
        (director, [player.username], RegistrationError, "exactly two"),
        (director, [player.username, "nobody"], RegistrationError, "no player"),
        (director, [player.username, player.username], RegistrationError, "two different"),
        (
            director,
            [player.username, pairs[0].player1.username],
            RegistrationError,
            "already in a pair",
        ),
    ]
    for by, usernames, error, fragment in cases:
        with pytest.raises(error, match=fragment):
            registration.add_late_pair(
                tournament=tournament, usernames=usernames, by=by, now=t0 + MINUTE
            )
        assert late_state(tournament) == before
        problem = registration.late_pair_problem(tournament=tournament, usernames=usernames, by=by)
        assert problem is not None and fragment in problem


def test_a_late_pair_plays_from_the_next_seating(
    make_tournament, register_pairs, make_user, director, t0
):
    """Added while round 1 is open: seated in round 2 (a table or the bye), and its
    players may enter results at their table there."""
    tournament = make_tournament(rounds=3, boards_per_round=1)
    register_pairs(tournament, 4)
    advance(now=t0)
    a, b = make_user(), make_user()
    late = registration.add_late_pair(
        tournament=tournament, usernames=[a.username, b.username], by=director, now=t0 + MINUTE
    )
    assert table_of(late, 1) is None
    play_everything(tournament, 1, now=t0 + MINUTE)
    advance(now=t0 + ROUND)
    rnd = Round.objects.get(tournament=tournament, number=2)
    table = table_of(late, 2)
    assert table is not None or rnd.bye_pair_id == late.id
    if table is not None:
        table = Table.objects.select_related("ns_pair", "ew_pair", "round__tournament").get(
            pk=table.pk
        )
        assert results.may_enter(table=table, user=a, round=table.round, now=rnd.starts_at) is None


# --- the admin action ------------------------------------------------------------------


def test_the_admin_adds_a_late_pair_and_a_refusal_is_a_form_error(
    client, director, make_tournament, register_pairs, make_user, t0
):
    import time_machine
    from django.urls import reverse

    tournament = make_tournament(rounds=3, boards_per_round=1)
    pairs = register_pairs(tournament, 4)
    advance(now=t0)
    a, b = make_user("late-a"), make_user("late-b")
    client.force_login(director)
    url = reverse("admin:tournaments_tournament_changelist")

    def act(**data):
        body = {"action": "add_late_pair", "_selected_action": [str(tournament.pk)], **data}
        return client.post(url, body, follow=True)

    with time_machine.travel(t0 + MINUTE, tick=False):
        page = act()
        html = page.content.decode()
        assert f"Add a late pair to {tournament.name}" in html
        assert 'name="player1"' in html and 'name="player2"' in html
        before = late_state(tournament)
        taken = pairs[0].player1.username
        refused = act(apply="1", player1="late-a", player2=taken)
        assert refused.status_code == 200
        assert f"{taken} is already in a pair in this tournament." in refused.content.decode()
        assert 'value="late-a"' in refused.content.decode(), "what was typed stays"
        assert late_state(tournament) == before
        done = act(apply="1", player1="late-a", player2="late-b")
    messages = [(m.level_tag, str(m)) for m in done.context["messages"]]
    late = Pair.objects.get(tournament=tournament, registration_no=5)
    assert messages == [
        (
            "success",
            f"{tournament.name}: {late.names} added as no. 5, seated from the next round",
        )
    ]
    assert {late.player1_id, late.player2_id} == {a.id, b.id}


def test_the_admin_action_needs_manage_players(client, make_user, make_tournament, t0):
    from django.contrib.auth.models import Permission
    from django.urls import reverse

    tournament = make_tournament()
    staff = make_user("clerk")
    staff.is_staff = True
    staff.save()
    staff.user_permissions.add(Permission.objects.get(codename="view_tournament"))
    client.force_login(staff)
    url = reverse("admin:tournaments_tournament_changelist")
    page = client.get(url)
    assert "add_late_pair" not in page.content.decode()
    client.post(
        url,
        {"action": "add_late_pair", "_selected_action": [str(tournament.pk)], "apply": "1",
         "player1": "x", "player2": "y"},
    )  # fmt: skip
    assert not Pair.objects.filter(tournament=tournament).exists()
