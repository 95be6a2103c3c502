"""The director's console (tournaments/views/console.py): pages, the clock's actions with
their confirmation pages, the dispute queue and the director's result form.

Every refusal — a missing permission, the wrong state — is checked to change nothing:
the tournament, its rounds and its results are read back and compared.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from tournaments.models import (
    BoardResult,
    Direction,
    Pair,
    PairStatus,
    ResultState,
    Round,
    RoundStatus,
    Table,
    Tournament,
    TournamentStatus,
)
from tournaments.selectors import console as console_selectors
from tournaments.services import clock
from tournaments.services.registration import propose_pair, register_pair
from tournaments.services.results import ContractEntry, dispute_result, submit_result

pytestmark = pytest.mark.django_db


@pytest.fixture
def scheduled(make_tournament, make_user):
    """A tournament starting in an hour with four confirmed pairs and one proposal
    still waiting for the partner."""
    now = timezone.now()
    tournament = make_tournament(
        registration_opens_at=now - timedelta(days=1), start_at=now + timedelta(hours=1)
    )
    for _ in range(4):
        a, b = make_user(), make_user()
        register_pair(by=None, tournament=tournament, usernames=[a.username, b.username], now=now)
    proposer, partner = make_user(), make_user()
    propose_pair(
        tournament=tournament, proposer=proposer, partner_username=partner.username, now=now
    )
    return tournament


@pytest.fixture
def running(scheduled, director):
    clock.start_now(tournament=scheduled, by=director)
    scheduled.refresh_from_db()
    return scheduled


@pytest.fixture
def staff_without_powers(make_user):
    """A staff account outside the directors' group: it may open the console, not act."""
    user = make_user("helper")
    user.is_staff = True
    user.save(update_fields=["is_staff"])
    return user


def _state(tournament: Tournament) -> tuple:
    """Everything a clock action or a ruling could change, to compare before and after."""
    t = Tournament.objects.get(pk=tournament.pk)
    rounds = list(
        Round.objects.filter(tournament=t)
        .order_by("number")
        .values_list("number", "status", "starts_at", "ends_at", "closed_at")
    )
    results = list(
        BoardResult.objects.filter(board__tournament=t)
        .order_by("pk")
        .values_list(
            "pk", "state", "contract", "tricks", "ns_score", "disputed", "entered_by_id",
            "adjusted_by_id", "ns_adjustment", "adjustment_reason",
        )
    )  # fmt: skip
    pairs = list(
        Pair.objects.filter(tournament=t).order_by("pk").values_list("pk", "status", "total")
    )
    return (t.status, t.start_at, t.paused_at, rounds, results, pairs)


def _first_table(tournament: Tournament) -> Table:
    return (
        Table.objects.filter(round__tournament=tournament, round__number=1)
        .select_related("ns_pair__player1", "ew_pair__player1", "round")
        .order_by("number")
        .first()
    )


def _disputed(tournament: Tournament) -> BoardResult:
    """NS enters 4♠ by N making 10 on board 1 of table 1; EW disputes it."""
    table = _first_table(tournament)
    entered = submit_result(
        table=table,
        board_number=1,
        entry=ContractEntry(contract="4S", declarer="N", tricks=10, lead="HA"),
        user=table.ns_pair.player1,
    )
    return dispute_result(result=entered, user=table.ew_pair.player1, note="it went one down")


# Who may open the console


def test_the_console_is_for_staff_only(client, scheduled, make_user):
    url = reverse("console", args=[scheduled.pk])
    assert client.get(url).status_code == 302  # to the login page
    client.force_login(make_user())
    assert client.get(url).status_code == 403
    assert client.get(reverse("console_index")).status_code == 403


def test_buttons_are_hidden_from_staff_who_may_not_use_them(
    client, running, staff_without_powers, director
):
    _disputed(running)
    client.force_login(staff_without_powers)
    page = client.get(reverse("console", args=[running.pk])).content.decode()
    assert reverse("console_action", args=[running.pk, "close"]) not in page
    assert "ruling-form" not in page  # the dispute is listed, without the form
    # Nor its result, note or hand: the round is running (tournaments.visibility).
    assert "it went one down" not in page and 'class="hand seat-' not in page
    client.force_login(director)
    page = client.get(reverse("console", args=[running.pk])).content.decode()
    assert reverse("console_action", args=[running.pk, "close"]) in page
    assert reverse("console_action", args=[running.pk, "start"]) not in page  # running
    assert "ruling-form" in page


# The clock's actions: ask first, then call the service


def test_start_asks_first_and_says_which_proposals_lapse(client, scheduled, director):
    client.force_login(director)
    url = reverse("console_action", args=[scheduled.pk, "start"])
    before = _state(scheduled)
    page = client.get(url)
    assert page.status_code == 200
    text = page.content.decode()
    assert "4 registered pairs will be seated" in text
    assert "1 proposal still waiting for the partner's confirmation will lapse" in text
    assert reverse("console", args=[scheduled.pk]) in text  # Cancel
    assert _state(scheduled) == before  # asking changes nothing
    response = client.post(url)
    assert response.status_code == 302
    scheduled.refresh_from_db()
    assert scheduled.status == TournamentStatus.RUNNING
    assert not Pair.objects.filter(tournament=scheduled, status=PairStatus.PENDING).exists()
    assert Round.objects.get(tournament=scheduled, number=1).status == RoundStatus.OPEN


def test_close_summarises_the_round_then_closes_it(client, running, director):
    _disputed(running)
    table = _first_table(running)
    confirmed = submit_result(
        table=table,
        board_number=2,
        entry=ContractEntry(contract="3NT", declarer="S", tricks=9),
        user=table.ns_pair.player1,
    )
    from tournaments.services.results import confirm_result

    confirm_result(result=confirmed, user=table.ew_pair.player1)
    other = Table.objects.filter(round__tournament=running).exclude(pk=table.pk).get()
    submit_result(
        table=other,
        board_number=1,
        entry=ContractEntry(contract="PASS"),
        user=other.ns_pair.player1,
    )
    summary = console_selectors.close_summary(tournament=running)
    assert (summary.tables, summary.tables_finished) == (2, 0)
    assert (summary.missing, summary.unconfirmed, summary.disputed) == (1, 1, 1)

    client.force_login(director)
    url = reverse("console_action", args=[running.pk, "close"])
    text = client.get(url).content.decode()
    assert "0 of 2 tables have finished" in text
    assert "1 board has no result" in text
    assert "1 result is not confirmed" in text
    assert "1 result is disputed" in text
    client.post(url, {"round_number": "1"})
    assert Round.objects.get(tournament=running, number=1).status == RoundStatus.CLOSED
    cut = BoardResult.objects.get(table=other, board__number=2)
    assert cut.state == ResultState.NOT_PLAYED


def test_extend_pause_resume_rescore_through_the_console(client, running, director):
    client.force_login(director)
    round = Round.objects.get(tournament=running, number=1)
    client.post(
        reverse("console_action", args=[running.pk, "extend"]),
        {"minutes": "5", "round_number": "1"},
    )
    assert Round.objects.get(pk=round.pk).ends_at == round.ends_at + timedelta(minutes=5)
    client.post(reverse("console_action", args=[running.pk, "pause"]))
    assert Tournament.objects.get(pk=running.pk).status == TournamentStatus.PAUSED
    client.post(reverse("console_action", args=[running.pk, "resume"]))
    assert Tournament.objects.get(pk=running.pk).status == TournamentStatus.RUNNING
    clock.close_round_now(tournament=running, by=director)
    response = client.post(reverse("console_action", args=[running.pk, "rescore"]), follow=True)
    assert "Round 1 re-scored." in response.content.decode()


@pytest.mark.parametrize("name", ["start", "close", "extend", "pause", "resume", "rescore"])
def test_every_clock_action_refuses_staff_without_the_power(
    client, running, staff_without_powers, name
):
    client.force_login(staff_without_powers)
    before = _state(running)
    response = client.post(
        reverse("console_action", args=[running.pk, name]),
        {"minutes": "5", "round_number": "1"},
        follow=True,
    )
    assert response.status_code == 200
    errors = [m for m in response.context["messages"] if m.level_tag == "error"]
    assert errors, name
    assert _state(running) == before


@pytest.mark.parametrize(
    ("fixture", "name", "data", "says"),
    [
        ("running", "start", {}, "has already started"),
        ("scheduled", "close", {}, "has no round in play"),
        ("scheduled", "extend", {"minutes": "5"}, "no round in play to extend"),
        ("running", "extend", {"minutes": "5", "round_number": "2"}, "no longer in play"),
        ("running", "close", {"round_number": "2"}, "no longer in play"),
        ("running", "resume", {}, "is not paused"),
        ("running", "rescore", {}, "nothing to re-score"),
    ],
)
def test_every_clock_action_refuses_the_wrong_state(
    request, client, director, fixture, name, data, says
):
    tournament = request.getfixturevalue(fixture)
    client.force_login(director)
    before = _state(tournament)
    response = client.post(reverse("console_action", args=[tournament.pk, name]), data, follow=True)
    errors = [str(m) for m in response.context["messages"] if m.level_tag == "error"]
    assert errors and says in errors[0], errors
    assert _state(tournament) == before


def test_pause_refuses_a_finished_tournament(client, director, running):
    Tournament.objects.filter(pk=running.pk).update(status=TournamentStatus.FINISHED)
    client.force_login(director)
    before = _state(running)
    response = client.post(reverse("console_action", args=[running.pk, "pause"]), follow=True)
    errors = [str(m) for m in response.context["messages"] if m.level_tag == "error"]
    assert errors and "Only a scheduled or running tournament" in errors[0]
    assert _state(running) == before


def test_extend_refuses_a_bad_number_of_minutes_on_its_page(client, director, running):
    client.force_login(director)
    before = _state(running)
    response = client.post(
        reverse("console_action", args=[running.pk, "extend"]), {"minutes": "-3"}
    )
    assert response.status_code == 200
    assert response.context["form"].errors
    assert _state(running) == before


# Progress, disputes, the director's result


def test_progress_shows_each_board_of_each_table(running, django_assert_max_num_queries):
    result = _disputed(running)
    table = result.table
    with django_assert_max_num_queries(5):
        progress = console_selectors.round_progress(tournament=running)
    assert progress.board_numbers == (1, 2)
    row = next(r for r in progress.rows if r.table_id == table.pk)
    assert [c.state for c in row.cells] == [console_selectors.DISPUTED, console_selectors.MISSING]
    assert progress.totals[console_selectors.MISSING] == 3


def test_the_progress_fragment_polls(client, running, director):
    client.force_login(director)
    page = client.get(reverse("console", args=[running.pk])).content.decode()
    assert 'hx-trigger="every 5s"' in page
    fragment = client.get(reverse("console_progress", args=[running.pk]))
    assert fragment.status_code == 200
    assert "progress-grid" in fragment.content.decode()


def test_the_dispute_queue_is_four_statements_and_nothing_when_none_is_disputed(
    running, django_assert_num_queries
):
    """The disputed results, then each with its table, round, board and who entered it,
    then both pairs with their players: nothing more read per dispute shown."""
    with django_assert_num_queries(1):
        assert list(console_selectors.disputed_results(tournament=running)) == []
    disputed = _disputed(running)
    with django_assert_num_queries(4):
        (result,) = console_selectors.disputed_results(tournament=running)
        shown = (
            result.board.number,
            result.table.round.number,
            result.table.ns_pair.names,
            result.table.ew_pair.names,
            str(result.entered_by.profile),
            result.table.side_of(result.entered_by_id),
        )
    table = disputed.table
    assert shown == (1, 1, table.ns_pair.names, table.ew_pair.names,
                     str(table.ns_pair.player1.profile), Direction.NS)  # fmt: skip


def test_the_director_rules_on_a_dispute_in_one_step(client, running, director):
    disputed = _disputed(running)
    player = disputed.entered_by
    client.force_login(director)
    url = reverse("console_result", args=[running.pk, disputed.table_id, 1])
    prefix = f"r{disputed.pk}"
    response = client.post(
        url,
        {
            "prefix": prefix,
            f"{prefix}-level": "4",
            f"{prefix}-strain": "S",
            f"{prefix}-declarer": "N",
            f"{prefix}-result": "-1",
            f"{prefix}-lead_suit": "H",
            f"{prefix}-lead_rank": "A",
            f"{prefix}-reason": "both sides agree it went one down",
        },
    )
    assert response.status_code == 302
    ruled = BoardResult.objects.get(pk=disputed.pk)
    assert (ruled.contract, ruled.tricks, ruled.disputed) == ("4S", 9, False)
    assert ruled.entered_by == player  # who entered the original is kept
    assert ruled.adjusted_by == director
    assert ruled.adjustment_reason == "both sides agree it went one down"
    assert ruled.dispute_note == "it went one down"  # the record of what was disputed
    assert console_selectors.dispute_count(tournament=running) == 0


def test_the_director_gives_an_adjusted_score(client, running, director):
    disputed = _disputed(running)
    client.force_login(director)
    client.post(
        reverse("console_result", args=[running.pk, disputed.table_id, 1]),
        {"ns_adjustment": "A+", "ew_adjustment": "A-", "reason": "revoke not established"},
    )
    ruled = BoardResult.objects.get(pk=disputed.pk)
    assert (ruled.state, ruled.ns_adjustment, ruled.ew_adjustment) == ("adjusted", "A+", "A-")


@pytest.mark.parametrize(
    ("data", "says"),
    [
        # The players' messages, word for word.
        ({"level": "4", "declarer": "N", "result": "=", "reason": "r"}, "Choose the strain"),
        ({"level": "7", "strain": "S", "declarer": "N", "result": "+1", "reason": "r"},
         "impossible in a 7-level contract"),
        ({"level": "4", "strain": "S", "declarer": "N", "result": "=", "reason": ""},
         "This field is required"),
        ({"level": "4", "strain": "S", "declarer": "N", "result": "=", "ns_adjustment": "A",
          "ew_adjustment": "A", "reason": "r"}, "not both"),
        ({"ns_adjustment": "A", "reason": "r"}, "a score for each side"),
        ({"level": "8", "strain": "S", "declarer": "N", "result": "=", "reason": "r"},
         "Select a valid choice"),
    ],
)  # fmt: skip
def test_a_bad_ruling_is_refused_on_the_form_and_changes_nothing(
    client, running, director, data, says
):
    disputed = _disputed(running)
    client.force_login(director)
    before = _state(running)
    response = client.post(reverse("console_result", args=[running.pk, disputed.table_id, 1]), data)
    assert response.status_code == 400
    assert says in response.content.decode()
    assert _state(running) == before


def test_a_ruling_refuses_staff_without_the_power(client, running, staff_without_powers):
    disputed = _disputed(running)
    client.force_login(staff_without_powers)
    before = _state(running)
    response = client.post(
        reverse("console_result", args=[running.pk, disputed.table_id, 1]),
        {"level": "4", "strain": "S", "declarer": "N", "result": "=", "reason": "r"},
    )
    assert response.status_code == 400
    assert "director" in response.context["error"]
    assert _state(running) == before


def test_the_director_enters_a_missing_result(client, running, director):
    table = _first_table(running)
    client.force_login(director)
    url = reverse("console_result", args=[running.pk, table.pk, 2])
    assert client.get(url).status_code == 200
    client.post(
        url,
        {"level": "3", "strain": "NT", "declarer": "S", "tricks": "9", "reason": "table slip"},
    )
    stored = BoardResult.objects.get(table=table, board__number=2)
    # Board 2: NS vulnerable, 3NT made exactly is 600.
    assert (stored.ns_score, stored.entered_by, stored.adjusted_by) == (600, director, director)


# Big fields, the admin's pages


def test_pairs_are_paginated_searchable_and_totals_have_two_decimals(client, running, director):
    Pair.objects.filter(tournament=running, registration_no=2).update(total=6.61809)
    client.force_login(director)
    page = client.get(reverse("console", args=[running.pk])).content.decode()
    assert "6.62" in page and "6.61809" not in page
    second = Pair.objects.select_related("player1").get(tournament=running, registration_no=2)
    second.player1.profile.display_name = "王小明"
    second.player1.profile.save()
    found = client.get(reverse("console", args=[running.pk]), {"q": "小明"})
    assert [p.pk for p in found.context["pairs"]] == [second.pk]
    assert list(console_selectors.pairs_page(tournament=running, query="2")) == [second]


def test_pairs_page_is_bounded(make_tournament, django_assert_max_num_queries):
    from tests.support.browser.events import bulk_pairs

    tournament = make_tournament()
    bulk_pairs(tournament, 120)
    with django_assert_max_num_queries(2):
        page = console_selectors.pairs_page(tournament=tournament, page=3)
        names = [p.names for p in page]
    assert len(names) == 20 and page.paginator.num_pages == 3


def test_admin_home_counts_disputes_and_links_the_console(client, running, director):
    _disputed(running)
    client.force_login(director)
    page = client.get(reverse("admin:index")).content.decode()
    assert "1 disputed result waits for the director." in page
    assert reverse("console_index") in page
    listing = client.get(reverse("admin:tournaments_tournament_changelist")).content.decode()
    assert reverse("console", args=[running.pk]) in listing


def test_a_new_tournament_from_the_console(client, director, staff_without_powers):
    start = (timezone.localtime() + timedelta(days=2)).strftime("%Y-%m-%dT%H:%M")
    data = {
        "name": "Club Swiss",
        "start_at": start,
        "rounds": "3",
        "boards_per_round": "2",
        "round_minutes": "20",
        "gap_minutes": "0",
        "scoring": "IMP",
    }
    client.force_login(staff_without_powers)
    refused = client.post(reverse("console_new"), data)
    assert "Only a tournament director can create tournaments." in refused.content.decode()
    assert not Tournament.objects.filter(name="Club Swiss").exists()
    client.force_login(director)
    response = client.post(reverse("console_new"), data)
    created = Tournament.objects.get(name="Club Swiss")
    assert response.url == reverse("console", args=[created.pk])
    assert created.created_by == director


def test_the_poll_answers_204_until_something_changes(client, running, director):
    client.force_login(director)
    url = reverse("console_progress", args=[running.pk])
    version = console_selectors.progress_version(tournament=running)
    assert client.get(url, {"v": version}).status_code == 204
    disputed = _disputed(running)
    moved = console_selectors.progress_version(tournament=running)
    assert moved != version
    assert client.get(url, {"v": version}).status_code == 200
    confirm_versions = [moved]
    from tournaments.services.results import director_set_result

    director_set_result(
        table=disputed.table,
        board_number=1,
        by=director,
        entry=ContractEntry(contract="4S", declarer="N", tricks=9),
        reason="one down",
    )
    confirm_versions.append(console_selectors.progress_version(tournament=running))
    assert confirm_versions[0] != confirm_versions[1]  # the ruling shows at once


def test_a_big_round_shows_a_page_of_tables_with_totals_over_all(
    make_tournament, director, client, django_assert_max_num_queries
):
    from tests.support.browser.events import bulk_pairs, fill_round

    tournament = make_tournament()
    bulk_pairs(tournament, 250)  # 125 tables
    clock.advance(now=tournament.start_at)
    round = Round.objects.get(tournament=tournament, number=1)
    fill_round(round, skip_every=5)  # every fifth table has no result
    BoardResult.objects.filter(table__round=round).update(confirmed_at=round.starts_at)
    with django_assert_max_num_queries(5):
        progress = console_selectors.round_progress(tournament=tournament, page=2)
    assert (progress.tables, progress.pages, len(progress.rows)) == (125, 2, 25)
    assert progress.tables_finished == 100
    assert progress.totals[console_selectors.MISSING] == 25 * 2
    waiting = console_selectors.round_progress(tournament=tournament, unfinished=True)
    assert (waiting.shown, waiting.pages) == (25, 1)
    assert all(not row.finished for row in waiting.rows)
    client.force_login(director)
    page = client.get(reverse("console", args=[tournament.pk]), {"todo": "1"}).content.decode()
    assert page.count('class="cell s-missing"') == 25 * 2  # the unfinished tables only
    assert 'class="cell s-confirmed"' not in page
    assert "100 of 125 tables finished" in page
