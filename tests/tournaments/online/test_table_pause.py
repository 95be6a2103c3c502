"""The director pauses the tournament while a player is to call (issue 24, item 3): every
page says so at once (the socket's `round` message), the bidding box and the cards take
no click; a page opened during the pause shows it from the start; on resume the page
says play goes on and the box is live again — no reload, no click needed to find out.
English and Chinese, desktop and phone, with screenshots."""

from __future__ import annotations

import pytest

from scoring import SEATS
from tests.support.browser.pw import shot
from tests.support.browser.table import (
    DESKTOP,
    PHONE,
    actor_of,
    armed,
    play_url,
    seat_page,
    table_server,
    views,
    wait_seq,
)
from tests.support.online_ws import open_online_round, seated_users, session_cookie

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LIVE_BIDS = "#bt-controls .bt-bid[data-call]:not([disabled])"


def console_action(browser, base: str, director, tournament_id: int, name: str) -> None:
    """The organiser's console, in the server (whose sockets hear of it): the action's
    confirmation page, then Confirm."""
    context = browser.new_context()
    name_, value = session_cookie(director).split("=", 1)
    context.add_cookies([{"name": name_, "value": value, "url": base}])
    page = context.new_page()
    page.goto(f"{base}/console/{tournament_id}/do/{name}/")
    page.click("form.stacked button[type=submit]")
    page.wait_for_url(f"{base}/console/{tournament_id}/")
    context.close()


PAUSED = {"en": "Paused by the director", "zh-hans": "裁判已暂停比赛"}
RESUMED = {"en": "The director resumed play", "zh-hans": "裁判已恢复比赛"}


def test_a_pause_is_shown_at_once_and_the_resume_too(
    make_tournament, register_pairs, director, tmp_path
):
    first_round, tables = open_online_round(make_tournament, register_pairs, boards=2)
    table = tables[0]
    users = seated_users(table)
    tournament_id = first_round.tournament_id
    dealer = actor_of(views(table, users))
    other = next(seat for seat in SEATS if seat != dealer)
    with table_server(tmp_path) as (base, browser):
        looks = {dealer: ("en", DESKTOP), other: ("zh-hans", PHONE)}
        pages = {
            seat: seat_page(browser, base, users[seat], lang=lang, size=size)
            for seat, (lang, size) in looks.items()
        }
        for page in pages.values():
            page.goto(base + play_url(table))
        wait_seq(pages.values(), 0)
        bidder = pages[dealer]
        armed(bidder)
        assert bidder.locator(LIVE_BIDS).count() > 0

        console_action(browser, base, director, tournament_id, "pause")
        for seat, page in pages.items():
            lang = looks[seat][0]
            page.wait_for_selector("#bt-paused", timeout=5_000)  # at once, no click
            assert PAUSED[lang] in page.inner_text("#bt-paused")
            assert page.locator(".clock.phase-paused").count() == 1
            assert page.locator(LIVE_BIDS).count() == 0, seat
            assert page.locator("button.bt-card.playable").count() == 0, seat
            assert page.locator("#bt-status.mine").count() == 0, seat  # no "Your turn"
            shot(page, f"table-paused-{seat}-{lang}-{looks[seat][1][0]}")
        # A click on the box does nothing (and sends nothing).
        bidder.locator("#bt-controls .bt-bid[data-call='P']").click(force=True)
        bidder.wait_for_timeout(500)
        assert bidder.get_attribute("#bt", "data-seq") == "0"
        assert views(table, users)[dealer]["auction"] == []

        # Opened during the pause: paused from the first drawing on.
        bidder.reload()
        wait_seq([bidder], 0)
        bidder.wait_for_selector("#bt-paused")
        assert bidder.locator(LIVE_BIDS).count() == 0

        console_action(browser, base, director, tournament_id, "resume")
        for seat, page in pages.items():
            lang = looks[seat][0]
            page.wait_for_selector("#bt-resumed", timeout=5_000)
            assert RESUMED[lang] in page.inner_text("#bt-resumed")
            assert page.locator("#bt-paused").count() == 0
            assert page.locator(".clock.phase-ends").count() == 1
        bidder.wait_for_selector(LIVE_BIDS)
        armed(bidder)
        assert "Your turn" in bidder.inner_text("#bt-status")
        shot(bidder, f"table-resumed-{dealer}-en-1280")
        bidder.locator("#bt-controls .bt-bid[data-call='P']").click()
        wait_seq(pages.values(), 1)
