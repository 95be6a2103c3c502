"""The organiser's admin actions: each calls its service and says what happened; a
refused one shows the service's error and changes nothing."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.urls import reverse

from tournaments.models import (
    BoardResult,
    ClockHeartbeat,
    Pair,
    PairBoardScore,
    Round,
    Table,
    Tournament,
)
from tournaments.services import registration, results
from tournaments.services.clock import advance

pytestmark = pytest.mark.django_db

MINUTE = timedelta(minutes=1)
TOURNAMENTS = reverse("admin:tournaments_tournament_changelist")


@pytest.fixture
def admin_client(client, organiser):
    client.force_login(organiser)
    return client


@pytest.fixture
def tournament(make_tournament, register_pairs):
    t = make_tournament(rounds=2, boards_per_round=1)
    register_pairs(t, 4)
    return t


@pytest.fixture
def at(t0):
    """at(minutes) travels the whole process (service calls and requests) to t0 + m."""
    travellers = []

    def travel(minutes: float):
        if travellers:
            travellers.pop().stop()
        traveller = time_machine.travel(t0 + timedelta(minutes=minutes), tick=False)
        traveller.start()
        travellers.append(traveller)

    yield travel
    for traveller in travellers:
        traveller.stop()


def messages_of(response) -> list[tuple[str, str]]:
    return [(m.level_tag, str(m)) for m in response.context["messages"]]


def act(client, url, action, pks, **extra):
    data = {"action": action, "_selected_action": [str(pk) for pk in pks], **extra}
    return client.post(url, data, follow=True)


def assert_refused(client, tournament, action, message, *, url=TOURNAMENTS, on=None, **data):
    """The action on `on` (the tournament unless said) answers `message` as an error
    about it, and nothing of `tournament` changed."""
    on = on or tournament
    before = state(tournament)
    response = act(client, url, action, [on.pk], **data)
    assert messages_of(response) == [("error", f"{on}: {message}")]
    assert state(tournament) == before


def state(t: Tournament) -> tuple:
    return (
        Tournament.objects.filter(pk=t.pk).values().get(),
        list(Round.objects.filter(tournament=t).order_by("id").values()),
        list(BoardResult.objects.filter(board__tournament=t).order_by("id").values()),
        list(Pair.objects.filter(tournament=t).order_by("id").values()),
    )


def test_staff_only(client, make_user, tournament):
    client.force_login(make_user())
    response = client.post(TOURNAMENTS, {"action": "start_now", "_selected_action": tournament.pk})
    assert response.status_code == 302 and "/login/" in response.url
    assert not Round.objects.filter(tournament=tournament).exists()


def test_start_now_asks_first(admin_client, tournament, at):
    at(-30)
    before = state(tournament)
    page = act(admin_client, TOURNAMENTS, "start_now", [tournament.pk])
    assert "Start now" in page.content.decode() and 'name="apply"' in page.content.decode()
    assert state(tournament) == before, "nothing happens until the organiser confirms"
    response = act(admin_client, TOURNAMENTS, "start_now", [tournament.pk], apply="1")
    assert messages_of(response) == [
        ("success", f"{tournament.name}: started, round 1 seated (2 tables)")
    ]
    rnd = Round.objects.get(tournament=tournament)
    assert (rnd.number, rnd.status) == (1, "open")
    assert_refused(
        admin_client, tournament, "start_now", f"{tournament.name} has already started.", apply="1"
    )


def test_close_round_now_is_confirmed_for_the_round_in_play(admin_client, tournament, at, t0):
    at(0)
    advance()
    at(5)
    page = act(admin_client, TOURNAMENTS, "close_round_now", [tournament.pk])
    assert page.status_code == 200
    html = page.content.decode()
    assert f"Close the current round now: {tournament.name} (round 1)" in html
    assert f'name="round_{tournament.pk}" value="1"' in html
    assert Round.objects.get(tournament=tournament).status == "open", "nothing before confirm"

    confirm = {"apply": "1", f"round_{tournament.pk}": "1"}
    response = act(admin_client, TOURNAMENTS, "close_round_now", [tournament.pk], **confirm)
    assert messages_of(response) == [
        ("success", f"{tournament.name}: round 1 closed, round 2 seated")
    ]
    first, second = Round.objects.filter(tournament=tournament).order_by("number")
    assert (first.status, first.closed_at) == ("closed", t0 + 5 * MINUTE)
    assert (second.status, second.starts_at) == ("open", t0 + 5 * MINUTE)

    # The same confirmation sent again (a double click, a stale page): refused.
    at(6)
    assert_refused(
        admin_client,
        tournament,
        "close_round_now",
        "Round 1 is no longer in play (round 2 is); nothing was changed.",
        **confirm,
    )


def test_close_round_now_refused_before_the_start(admin_client, tournament, at):
    at(-10)
    assert_refused(
        admin_client,
        tournament,
        "close_round_now",
        f"{tournament.name} has no round in play.",
        apply="1",
    )


def test_extend_round(admin_client, tournament, at, t0):
    at(0)
    advance()
    at(5)
    page = act(admin_client, TOURNAMENTS, "extend_round", [tournament.pk])
    assert 'name="minutes"' in page.content.decode()

    before = state(tournament)
    bad = act(admin_client, TOURNAMENTS, "extend_round", [tournament.pk], apply="1", minutes="0")
    assert bad.status_code == 200
    assert "Ensure this value is greater than or equal to 0.1" in bad.content.decode()
    assert state(tournament) == before

    response = act(
        admin_client,
        TOURNAMENTS,
        "extend_round",
        [tournament.pk],
        apply="1",
        minutes="7",
        **{f"round_{tournament.pk}": "1"},
    )
    # 14:00 + 20' + 7' in Shanghai.
    assert messages_of(response) == [
        ("success", f"{tournament.name}: round 1 now ends at 14:27:00")
    ]
    assert Round.objects.get(tournament=tournament).ends_at == t0 + 27 * MINUTE


def test_extend_refused_after_the_event(admin_client, make_tournament, register_pairs, at):
    finished = make_tournament(rounds=1, boards_per_round=1)
    register_pairs(finished, 2)
    at(0)
    advance()
    at(20)
    advance()
    assert_refused(
        admin_client,
        finished,
        "extend_round",
        "There is no round in play to extend.",
        apply="1",
        minutes="5",
    )


def test_pause_and_resume(admin_client, tournament, at, t0):
    at(0)
    advance()
    at(5)
    response = act(admin_client, TOURNAMENTS, "pause", [tournament.pk])
    assert messages_of(response) == [("success", f"{tournament.name}: paused")]
    assert_refused(
        admin_client, tournament, "pause", "Only a scheduled or running tournament can be paused."
    )
    at(15)
    response = act(admin_client, TOURNAMENTS, "resume", [tournament.pk])
    assert messages_of(response) == [("success", f"{tournament.name}: resumed")]
    assert Round.objects.get(tournament=tournament).ends_at == t0 + 30 * MINUTE
    assert_refused(admin_client, tournament, "resume", f"{tournament.name} is not paused.")


def test_a_clock_action_on_several_tournaments_acts_on_each(
    admin_client, tournament, make_tournament, register_pairs, at, t0
):
    """One message per tournament; a refusal of one does not stop the others, and each
    extension carries the round its own tournament had in play."""
    other = make_tournament(rounds=2, boards_per_round=1)
    register_pairs(other, 4)
    at(0)
    advance()
    at(5)
    act(admin_client, TOURNAMENTS, "pause", [other.pk])
    response = act(admin_client, TOURNAMENTS, "pause", [tournament.pk, other.pk])
    assert sorted(messages_of(response)) == [
        ("error", f"{other.name}: Only a scheduled or running tournament can be paused."),
        ("success", f"{tournament.name}: paused"),
    ]
    at(6)
    response = act(admin_client, TOURNAMENTS, "resume", [tournament.pk, other.pk])
    assert sorted(messages_of(response)) == sorted(
        [("success", f"{other.name}: resumed"), ("success", f"{tournament.name}: resumed")]
    )
    # Both back on the clock, each round's bell 1 minute later than it was.
    assert {r.ends_at for r in Round.objects.filter(tournament__in=[tournament, other])} == {
        t0 + 21 * MINUTE
    }
    response = act(
        admin_client,
        TOURNAMENTS,
        "extend_round",
        [tournament.pk, other.pk],
        apply="1",
        minutes="4",
        **{f"round_{tournament.pk}": "1", f"round_{other.pk}": "2"},
    )
    assert sorted(messages_of(response)) == [
        ("error", f"{other.name}: Round 2 is no longer in play (round 1 is); nothing was changed."),
        ("success", f"{tournament.name}: round 1 now ends at 14:25:00"),
    ]
    assert Round.objects.get(tournament=tournament).ends_at == t0 + 25 * MINUTE
    assert Round.objects.get(tournament=other).ends_at == t0 + 21 * MINUTE


def test_rescore_actions(admin_client, tournament, at):
    assert_refused(admin_client, tournament, "rescore_last_round", "no closed round")

    at(0)
    advance()
    open_round = Round.objects.get(tournament=tournament)
    rounds_url = reverse("admin:tournaments_round_changelist")
    response = act(admin_client, rounds_url, "rescore", [open_round.pk])
    assert messages_of(response) == [
        ("error", f"{open_round}: Only a closed round can be re-scored.")
    ]
    at(20)
    advance()
    scores = sorted(
        PairBoardScore.objects.filter(board__tournament=tournament).values_list(
            "pair_id", "points", "completed"
        )
    )
    response = act(admin_client, TOURNAMENTS, "rescore_last_round", [tournament.pk])
    assert messages_of(response) == [("success", f"{tournament.name}: round 1 re-scored")]
    open_round.refresh_from_db()
    response = act(admin_client, rounds_url, "rescore", [open_round.pk])
    assert messages_of(response) == [("success", f"{open_round}: re-scored")]
    assert (
        sorted(
            PairBoardScore.objects.filter(board__tournament=tournament).values_list(
                "pair_id", "points", "completed"
            )
        )
        == scores
    )


def test_withdraw_a_pair(admin_client, tournament, at):
    at(0)
    advance()
    pair = Pair.objects.filter(tournament=tournament).first()
    url = reverse("admin:tournaments_pair_changelist")
    response = act(admin_client, url, "withdraw", [pair.pk])
    assert messages_of(response) == [("success", f"{pair}: done")]
    pair.refresh_from_db()
    assert pair.withdrawn_at is not None
    assert_refused(
        admin_client, tournament, "withdraw", "This pair has already withdrawn.", url=url, on=pair
    )
    at(20)
    advance()
    second = Round.objects.get(tournament=tournament, number=2)
    assert second.bye_pair_id != pair.id
    assert not Table.objects.filter(round=second, ns_pair=pair).exists()
    assert not Table.objects.filter(round=second, ew_pair=pair).exists()


def test_adding_a_pair_ignores_pending_proposals_and_refuses_a_taken_player(
    admin_client, tournament, make_user, at
):
    """The add form asks the service's checks: a player another player merely proposed
    to is free (the proposal is cancelled); one in a registered pair is refused."""
    at(-60)
    ann, ben, pest = make_user("ann"), make_user("ben"), make_user("pest")
    proposal = registration.propose_pair(
        tournament=tournament, proposer=pest, partner_username="ann"
    )
    url = reverse("admin:tournaments_pair_add")
    form = {"tournament": tournament.pk, "player1": ann.pk, "player2": ben.pk, "_save": "Save"}
    response = admin_client.post(url, form, follow=True)
    assert response.status_code == 200 and "errornote" not in response.content.decode()
    added = Pair.objects.get(tournament=tournament, player1=ann)
    assert (added.status, added.registration_no) == ("confirmed", 5)
    assert not Pair.objects.filter(pk=proposal.pk).exists()

    before = list(Pair.objects.order_by("id").values())
    form = {**form, "player2": pest.pk}
    html = admin_client.post(url, form).content.decode()
    assert "ann is already in a pair in this tournament." in html
    assert list(Pair.objects.order_by("id").values()) == before


@pytest.fixture
def closed_round(tournament, at):
    """Round 1 closed: table 1 played 3NT= (+400), table 2 cut off (not played)."""
    at(0)
    advance()
    t1, t2 = Table.objects.filter(round__tournament=tournament).order_by("number")
    results.submit_result(
        table=t1,
        board_number=1,
        entry=results.ContractEntry(contract="3NT", declarer="N", tricks=9),
        user=t1.ns_pair.player1,
    )
    at(20)
    advance()
    return t1, t2


def test_adjust_action_replaces_a_result_and_rescores(admin_client, closed_round, organiser):
    t1, t2 = closed_round
    cut = BoardResult.objects.get(table=t2)
    url = reverse("admin:tournaments_boardresult_changelist")
    page = act(admin_client, url, "adjust", [cut.pk])
    assert 'name="reason"' in page.content.decode()

    before = list(BoardResult.objects.order_by("id").values())
    no_reason = act(
        admin_client, url, "adjust", [cut.pk], apply="1", ns_adjustment="A", ew_adjustment="A"
    )
    assert "This field is required" in no_reason.content.decode()
    assert list(BoardResult.objects.order_by("id").values()) == before

    response = act(
        admin_client,
        url,
        "adjust",
        [cut.pk],
        apply="1",
        ns_adjustment="A+",
        ew_adjustment="A-",
        reason="fouled board",
    )
    assert messages_of(response) == [("success", f"{cut}: done")]
    cut.refresh_from_db()
    assert (cut.state, cut.ns_adjustment, cut.ew_adjustment) == ("adjusted", "A+", "A-")
    assert (cut.adjusted_by, cut.adjustment_reason) == (organiser, "fouled board")
    # IMPs: the adjusted sides get +3 / -3 at once (the round is closed: re-scored).
    points = dict(PairBoardScore.objects.filter(result=cut).values_list("pair_id", "points"))
    assert points == {t2.ns_pair_id: 3.0, t2.ew_pair_id: -3.0}


def test_result_change_form_goes_through_the_service(admin_client, closed_round, organiser):
    t1, t2 = closed_round
    cut = BoardResult.objects.get(table=t2)
    url = reverse("admin:tournaments_boardresult_change", args=[cut.pk])
    form = {
        "contract": "4s",
        "declarer": "S",
        "tricks": "",
        "result_text": "-1",
        "lead": "♥K",
        "adjustment_reason": "entered late by the director",
        "_save": "Save",
    }
    response = admin_client.post(url, form, follow=True)
    assert ("success", "") not in messages_of(response)
    assert [level for level, _ in messages_of(response)] == ["success"]
    cut.refresh_from_db()
    assert (cut.state, cut.contract, cut.tricks, cut.lead, cut.ns_score) == (
        "played",
        "4S",
        9,
        "HK",
        -50,
    )
    # The cut-off stays the entry (the clock's, at the bell); the director is who changed
    # it, and the history keeps both (issue 14).
    assert (cut.entered_by, cut.adjusted_by) == (None, organiser)
    assert list(cut.history.values_list("kind", "by")) == [
        ("cut_off", None),
        ("director_result", organiser.pk),
        ("rescore", organiser.pk),  # the round was re-scored: 10 IMPs each way now
    ]
    # Re-scored at once: 400 against -50 is 10 IMPs.
    points = dict(PairBoardScore.objects.filter(board=cut.board).values_list("pair_id", "points"))
    assert points == {
        t1.ns_pair_id: 10.0,
        t1.ew_pair_id: -10.0,
        t2.ns_pair_id: -10.0,
        t2.ew_pair_id: 10.0,
    }


@pytest.mark.parametrize(
    "bad, error",
    [
        ({"contract": "9Z"}, "level must be 1–7"),
        ({"contract": "4S", "declarer": "Q"}, "declarer must be N, E, S or W"),
        ({"contract": "4S", "declarer": "S", "tricks": "", "result_text": ""}, "Give the tricks"),
        ({"contract": "4S", "declarer": "S", "tricks": "", "result_text": "+4"}, "declarer takes"),
        ({"contract": "4S", "declarer": "S", "lead": "Z9"}, "is not a card"),
    ],
)
def test_a_bad_result_in_the_change_form_is_a_form_error(bad, error, admin_client, closed_round):
    t1, _t2 = closed_round
    played = BoardResult.objects.get(table=t1)
    url = reverse("admin:tournaments_boardresult_change", args=[played.pk])
    before = (
        list(BoardResult.objects.order_by("id").values()),
        sorted(PairBoardScore.objects.values_list("pair_id", "board_id", "points")),
    )
    form = {
        "contract": "",
        "declarer": "",
        "tricks": "10",
        "result_text": "",
        "lead": "",
        "adjustment_reason": "",
        "_save": "Save",
        **bad,
    }
    response = admin_client.post(url, form)
    assert response.status_code == 200  # the form again, not a redirect
    assert error in response.content.decode()
    assert response.context["adminform"].form.non_field_errors()
    assert not [m for m in response.context["messages"] if m.level_tag == "success"]
    after = (
        list(BoardResult.objects.order_by("id").values()),
        sorted(PairBoardScore.objects.values_list("pair_id", "board_id", "points")),
    )
    assert after == before


def test_the_clock_heartbeat_shows_in_admin(admin_client, tournament, at):
    at(0)
    page = admin_client.get(TOURNAMENTS).content.decode()
    assert "never ticked" in page
    advance(driver="celery")
    at(0.2)
    page = admin_client.get(TOURNAMENTS).content.decode()
    assert "ticking: last tick 12s (celery)" in page
    at(5)
    page = admin_client.get(TOURNAMENTS).content.decode()
    assert "STALLED: last tick 300s" in page
    detail = admin_client.get(reverse("admin:tournaments_tournament_change", args=[tournament.pk]))
    assert "STALLED: last tick 300s" in detail.content.decode()
    assert ClockHeartbeat.objects.get().ticks == 1
