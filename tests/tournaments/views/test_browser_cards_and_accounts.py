"""The board cards and the account pages in a real headless Chromium, English and
Chinese: the vulnerability compass, a half-typed result kept through a live refresh, a
pause shown on every board card without a reload, the score key, the description and
time zone, the account pages and the 404 page. Screenshots go to
test-artifacts/screenshots/polish-*.png."""

from __future__ import annotations

import pytest

from tests.support.browser.events import (
    adjusted_round_one,
    close_round_one,
    make_people,
    running_event,
)
from tests.support.browser.pw import log_in, shot, shot_path
from tournaments.services import clock as clock_service
from tournaments.services.results import ContractEntry, submit_result

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

WAIT_MS = 5_000  # the table page polls every 3 s
RED = "rgb(200, 16, 46)"  # --red
GREEN = "rgb(47, 107, 87)"  # a side that is not vulnerable
WHITE = "rgb(255, 255, 255)"


@pytest.fixture
def people(make_user):
    return make_people(make_user, 10)


def style(page, selector: str, prop: str) -> str:
    return page.eval_on_selector(selector, f"e => getComputedStyle(e).{prop}")


def test_the_compass_colours_only_the_vulnerable_sides(
    open_page, live_server, make_tournament, people
):
    tournament, round1, tables = running_event(
        make_tournament, people, n_pairs=4, name="Compass Swiss", scoring_method="MP"
    )
    close_round_one(round1, tables, board_number=2, entry=ContractEntry("3NT", "S", 9))
    base = live_server.url
    for locale, lang in (("en-GB", "en"), ("zh-CN", "zh")):
        page = open_page(locale=locale)
        # Board 1: nobody vulnerable. Board 2: North-South vulnerable (RULES 2).
        page.goto(f"{base}/t/{tournament.id}/boards/1/")
        for side in ("cn", "cs", "ce", "cw"):
            assert style(page, f".compass .{side}", "backgroundColor") == GREEN, side
        page.goto(f"{base}/t/{tournament.id}/boards/2/")
        for side in ("cn", "cs"):
            assert style(page, f".compass .{side}", "backgroundColor") == RED, side
        for side in ("ce", "cw"):
            assert style(page, f".compass .{side}", "backgroundColor") == GREEN, side
        # The point counts: white, full strength, at least 12 px.
        for side in ("cn", "ce", "cs", "cw"):
            small = f".compass .{side} small"
            assert style(page, small, "color") == WHITE and style(page, small, "opacity") == "1"
            assert float(style(page, small, "fontSize").rstrip("px")) >= 12
        counts = [int(page.inner_text(f".compass .{s} small")) for s in ("cn", "ce", "cs", "cw")]
        assert sum(counts) == 40  # every high-card point of the deal, once
        assert "+600" in page.inner_text("table.traveller")  # 3NT= vulnerable
        assert "50.00%" in page.inner_text("table.traveller")
        page.locator(".board-layout").screenshot(path=str(shot_path(f"polish-compass-{lang}")))
        shot(page, f"polish-board-{lang}")


def test_a_half_typed_result_survives_the_live_refresh_and_a_pause_shows_on_every_card(
    open_page, live_server, make_tournament, people, organiser
):
    tournament, round1, tables = running_event(
        make_tournament, people, n_pairs=2, name="Live Swiss", boards_per_round=3
    )
    base = live_server.url
    table = tables[0]  # NS Alice–Bob, EW Carol–Dave
    alice = open_page()
    log_in(alice, base, "alice", "pw-alice")
    alice.goto(f"{base}/t/{tournament.id}/tables/{table.id}/")

    # Alice starts on board 1 and stops half-way (no declarer, nothing saved).
    row1 = alice.locator("#board-row-1")
    row1.locator("select[name=b1-level]").select_option("4")
    row1.locator("select[name=b1-strain]").select_option("S")
    alice.locator("body").click(position={"x": 5, "y": 5})  # focus leaves the form

    # Meanwhile the opponents enter boards 1 and 2: both rows change on the server.
    for board in (1, 2):
        submit_result(
            table=table, board_number=board, entry=ContractEntry("3NT", "S", 9),
            user=table.ew_pair.player1,
        )  # fmt: skip
    alice.wait_for_selector("#board-row-2 .br-confirm", timeout=WAIT_MS)
    alice.wait_for_timeout(3_500)  # one more poll, to be sure row 1 was offered again
    # Row 1 kept what Alice typed; it has not been replaced by the opponents' entry.
    assert row1.locator("select[name=b1-level]").input_value() == "4"
    assert row1.locator("select[name=b1-strain]").input_value() == "S"
    assert "Please check and confirm" not in row1.inner_text()
    # …and says the board moved underneath; rows nobody is typing in say nothing.
    assert alice.is_visible("#board-row-1 .br-changed")
    assert alice.is_hidden("#board-row-2 .br-changed")
    shot(alice, "polish-table-kept-en")

    # The director pauses: every card says so without a reload, the kept one too.
    clock_service.pause(tournament=tournament, by=organiser)
    alice.wait_for_selector("#board-row-3 .br-paused", timeout=WAIT_MS)
    for n in (1, 2, 3):
        assert "Paused by the director" in alice.inner_text(f"#board-row-{n} .br-paused")
    assert alice.is_hidden("#board-row-3 form.result-form")  # nothing to enter while paused
    assert "The tournament is paused" not in alice.inner_text("#board-row-3")  # said once
    assert row1.locator("select[name=b1-level]").input_value() == "4"
    assert "Paused by the director" in alice.inner_text("#round-clock")
    shot(alice, "polish-table-paused-en")

    # The same in Chinese, on a phone.
    phone = open_page(locale="zh-CN", width=390, height=844)
    log_in(phone, base, "bob", "pw-bob")
    phone.goto(f"{base}/t/{tournament.id}/tables/{table.id}/")
    assert "裁判已暂停比赛" in phone.inner_text("#board-row-1 .br-paused")
    shot(phone, "polish-table-paused-zh")

    # Resumed: the notice goes, entry is open again.
    clock_service.resume(tournament=tournament, by=organiser)
    phone.wait_for_selector("#board-row-3 form.result-form", timeout=WAIT_MS)
    assert phone.locator(".br-paused").count() == 0


def test_score_key_description_time_zone_and_account_pages(
    open_page, live_server, make_tournament, people, organiser
):
    tournament, _round1, _tables = adjusted_round_one(
        make_tournament, people, organiser, name="Key Swiss", scoring_method="MP",
        description="Club night at the Jade Room.\n欢迎新老牌友：请带上约定卡。",
    )  # fmt: skip
    base = live_server.url
    for locale, lang in (("en-GB", "en"), ("zh-CN", "zh")):
        page = open_page(locale=locale)
        page.goto(f"{base}/t/{tournament.id}/")
        assert "Jade Room" in page.inner_text(".t-description")
        assert "UTC+8" in page.inner_text(".t-head .meta")
        if lang == "zh":
            assert "副数" in page.inner_text("table.standings")
        shot(page, f"polish-tournament-{lang}")
        page.goto(f"{base}/t/{tournament.id}/results/")
        assert page.is_visible(".score-legend")
        assert page.locator("td.cell.BYE").count() >= 1
        shot(page, f"polish-results-{lang}")
        page.goto(f"{base}/t/{tournament.id}/boards/2/")
        assert page.locator("tr.adjusted sup.adj").count() == 2
        page.locator("section.panel", has=page.locator("table.traveller")).screenshot(
            path=str(shot_path(f"polish-traveller-{lang}"))
        )
        response = page.goto(f"{base}/no/such/page/")
        assert response.status == 404 and page.is_visible(".site-header .brand")
        shot(page, f"polish-404-{lang}")
        page.goto(f"{base}/accounts/login/")
        page.click(".card a[href='/accounts/password-reset/']")
        page.wait_for_url(f"{base}/accounts/password-reset/")
        shot(page, f"polish-password-reset-{lang}")
        page.goto(f"{base}/accounts/signup/")
        assert page.is_visible("input[type=email][name=email]")
        shot(page, f"polish-signup-{lang}")
        icon = page.evaluate("document.querySelector('link[rel=icon]').href")
        assert page.request.get(icon).status == 200
