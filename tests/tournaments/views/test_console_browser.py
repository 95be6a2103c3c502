"""The director's console in a real headless Chromium (Playwright, sync API).

An organiser who has never seen Django admin runs round 1 of an event with the
console's buttons only: creates the tournament, starts it (after the confirmation page
says which proposals lapse), watches round 1 fill in by itself, rules on a dispute and
closes the round. Players act through the services meanwhile, as their own pages would.
In English and in Chinese; screenshots in test-artifacts/screenshots/console-*.png.
"""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from tests.support.browser.pw import log_in, new_page, shot
from tournaments.models import BoardResult, Round, RoundStatus, Table, Tournament
from tournaments.services.registration import propose_pair, register_pair
from tournaments.services.results import (
    ContractEntry,
    confirm_result,
    dispute_result,
    submit_result,
)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

POLL_MS = 12_000  # the console polls every 5 s

TEXT = {
    "en-GB": {
        "created": "Tournament created",
        "lapse": "1 proposal still waiting for the partner's confirmation will lapse.",
        "seated": "4 registered pairs will be seated.",
        "progress": "Round 1: progress",
        "disputed": "disputed",
        "ruled": "the director's result is recorded",
        "finished": "of 2 tables have finished",
        "closed": "Round 1 closed and scored.",
        "round2": "Round 2 of 3",
    },
    "zh-CN": {
        "created": "比赛已创建",
        "lapse": "1 个仍在等待搭档确认的报名邀请将失效。",
        "seated": "将为 4 对已报名的牌手对安排座位。",
        "progress": "第 1 轮：进度",
        "disputed": "有异议",
        "ruled": "裁判成绩已记录",
        "finished": "2 张桌中已有",
        "closed": "第 1 轮已结束并计分。",
        "round2": "第 2 轮，共 3 轮",
    },
}


def _players_register(tournament: Tournament, make_user) -> None:
    """Four pairs register and one proposal waits for the partner, as on the players' pages."""
    now = timezone.now()
    for i in range(4):
        a = make_user(name=f"北{i}号")
        b = make_user(name=f"Player {i}")
        register_pair(by=None, tournament=tournament, usernames=[a.username, b.username], now=now)
    proposer, partner = make_user(), make_user()
    propose_pair(
        tournament=tournament, proposer=proposer, partner_username=partner.username, now=now
    )


def _tables_play(tournament: Tournament) -> BoardResult:
    """Table 1: board 1 entered by NS and disputed by EW, board 2 entered and confirmed.
    Table 2: board 1 entered, not confirmed; board 2 missing."""
    one, two = Table.objects.filter(round__tournament=tournament).select_related(
        "ns_pair__player1", "ew_pair__player1", "round"
    ).order_by("number")  # fmt: skip
    entered = submit_result(
        table=one,
        board_number=1,
        entry=ContractEntry(contract="4S", declarer="N", tricks=10, lead="HA"),
        user=one.ns_pair.player1,
    )
    disputed = dispute_result(result=entered, user=one.ew_pair.player1, note="4♠ went one down")
    confirm_result(
        result=submit_result(
            table=one,
            board_number=2,
            entry=ContractEntry(contract="3NT", declarer="S", tricks=9),
            user=one.ns_pair.player1,
        ),
        user=one.ew_pair.player1,
    )
    submit_result(
        table=two,
        board_number=1,
        entry=ContractEntry(contract="2H", declarer="E", tricks=8),
        user=two.ew_pair.player1,
    )
    return disputed


@pytest.mark.parametrize("locale", ["en-GB", "zh-CN"])
def test_an_organiser_runs_round_one_from_the_console(
    browser, live_server, director, make_user, locale
):
    text = TEXT[locale]
    tag = "en" if locale == "en-GB" else "zh"
    page = new_page(browser, locale=locale)
    try:
        log_in(page, live_server.url, "director", "pw-director")
        page.click("a.console-link")
        shot(page, f"console-{tag}-1-index")
        page.click("a[href='/console/new/']")

        # Create the tournament: a name and a start time; the rest as offered.
        page.fill("#id_name", f"Club Swiss {tag}")
        start = timezone.localtime() + timedelta(hours=2)
        page.fill("#id_start_at", start.strftime("%Y-%m-%dT%H:%M"))
        page.fill("#id_rounds", "3")
        page.fill("#id_boards_per_round", "2")
        shot(page, f"console-{tag}-2-new")
        page.click("form.console-form button[type=submit]")
        page.wait_for_selector(".messages")
        assert text["created"] in page.inner_text(".messages")
        tournament = Tournament.objects.get(name=f"Club Swiss {tag}")
        assert tournament.created_by == director

        _players_register(tournament, make_user)
        page.reload()

        # Start now: the confirmation page says what will happen, with a Cancel.
        page.click(f"a[href='/console/{tournament.pk}/do/start/']")
        consequences = page.inner_text("ul.consequences")
        assert text["seated"] in consequences
        assert text["lapse"] in consequences
        page.wait_for_selector(f"a.button[href='/console/{tournament.pk}/']")
        assert page.locator(f"a.button[href='/console/{tournament.pk}/']").count() == 1
        shot(page, f"console-{tag}-3-confirm-start")
        page.click("form.stacked button[type=submit]")
        page.wait_for_selector("table.progress-grid")
        assert text["progress"] in page.inner_text("#progress-title")
        assert Round.objects.get(tournament=tournament, number=1).status == RoundStatus.OPEN

        # The tables play; the progress fills in by itself (htmx polling).
        disputed = _tables_play(tournament)
        page.wait_for_selector("td.cell.s-disputed", timeout=POLL_MS)
        assert page.locator("td.cell.s-confirmed").count() == 1
        assert page.locator("td.cell.s-entered").count() == 1
        assert page.locator("td.cell.s-missing").count() == 1
        shot(page, f"console-{tag}-4-progress")

        # The dispute queue: the entry, the note, the hand; one ruling.
        page.click(".dispute-notice a.button")
        # The click returns once the new page commits; its cards may not be parsed yet.
        page.wait_for_selector(".dispute-card")
        card = page.locator(".dispute-card")
        assert card.count() == 1
        assert "4♠ went one down" in card.inner_text()
        assert card.locator(".hand").count() == 4
        shot(page, f"console-{tag}-5-dispute")
        prefix = f"r{disputed.pk}"
        card.locator(f"select[name='{prefix}-result']").select_option("-1")
        card.locator(f"input[name='{prefix}-reason']").fill("both sides agree: one down")
        card.locator("form.ruling-form button[type=submit]").click()
        page.wait_for_selector(".messages")
        assert text["ruled"] in page.inner_text(".messages")
        ruled = BoardResult.objects.get(pk=disputed.pk)
        assert (ruled.tricks, ruled.disputed, ruled.adjusted_by) == (9, False, director)
        assert page.locator(".dispute-card").count() == 0
        shot(page, f"console-{tag}-6-ruled")

        # Close the round: the page counts what the close will cut off or score as is.
        page.click(f"a[href='/console/{tournament.pk}/do/close/']")
        consequences = page.inner_text("ul.consequences")
        assert text["finished"] in consequences
        assert re.search(r"\b1\b", consequences)
        shot(page, f"console-{tag}-7-confirm-close")
        page.click("form.stacked button[type=submit]")
        page.wait_for_selector(".messages")
        assert text["closed"] in page.inner_text(".messages")
        assert Round.objects.get(tournament=tournament, number=1).status == RoundStatus.CLOSED
        assert text["round2"] in page.inner_text(".console-clock")
        shot(page, f"console-{tag}-8-closed")

        # Admin's side of it: the home page's line about disputes, the tournament's link.
        page.click("a[href='/admin/']")
        page.wait_for_selector("#console-note a[href='/console/']")
        shot(page, f"console-{tag}-9-admin-home")
        page.goto(f"{live_server.url}/admin/tournaments/tournament/{tournament.pk}/change/")
        page.click(f"a[href='/console/{tournament.pk}/']")
        page.wait_for_selector("table.progress-grid")
    finally:
        page.context.close()


HIDDEN = {
    "en-GB": "The result and the hand are shown to directors who may set results",
    "zh-CN": "结果和牌型只向有权裁定成绩的裁判显示",
}


@pytest.mark.parametrize("locale", ["en-GB", "zh-CN"])
@pytest.mark.parametrize("width, height", [(1280, 900), (390, 844)])
def test_a_staff_account_without_powers_sees_no_hand_or_result_of_a_running_round(
    browser, live_server, director, make_user, django_user_model, locale, width, height
):
    """The dispute queue and the result page, as a staff account with no permission and
    as a director, while round 1 runs (tournaments.visibility)."""
    tournament = Tournament.objects.create(
        name="Club Swiss",
        registration_opens_at=timezone.now() - timedelta(days=1),
        start_at=timezone.now() + timedelta(hours=1),
        rounds=2,
        boards_per_round=2,
        round_length=timedelta(minutes=30),
        scoring_method="IMP",
    )
    _players_register(tournament, make_user)
    from tournaments.services.clock import start_now

    start_now(tournament=tournament, by=director)
    disputed = _tables_play(tournament)
    django_user_model.objects.create_user("staff-only", password="pw-staff", is_staff=True)
    tag = f"{'en' if locale == 'en-GB' else 'zh'}-{'phone' if width < 500 else 'desktop'}"
    result_url = f"{live_server.url}/console/{tournament.pk}/tables/{disputed.table_id}/boards/1/"
    for username, password, sees in (
        ("staff-only", "pw-staff", False),
        ("director", "pw-director", True),
    ):
        page = new_page(browser, locale=locale, width=width, height=height)
        try:
            log_in(page, live_server.url, username, password)
            page.goto(f"{live_server.url}/console/{tournament.pk}/#disputes")
            queue = page.inner_text("#disputes")
            assert ("went one down" in queue) is sees
            assert (page.locator("#disputes .hand").count() == 4) is sees
            assert (HIDDEN[locale] in queue) is not sees
            shot(page, f"console-visibility-{tag}-{username}-queue")
            page.goto(result_url)
            assert (page.locator(".hand").count() == 4) is sees
            assert (HIDDEN[locale] in page.inner_text("main")) is not sees
            shot(page, f"console-visibility-{tag}-{username}-result")
        finally:
            page.context.close()
