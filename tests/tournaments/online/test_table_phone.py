"""The table on a phone (issue 24, item 2): four 390 × 844 phones (English and Chinese)
bid and play a whole board by touch, and at every turn of the board each call the
bidding box offers and each card the seat may play is on the screen as it stands —
nothing to scroll to. The header at the table is slim, the auction stands above the
bidding box, and no empty trick area takes the screen while the board is bid. The hand
panels keep their size when their cards become playable. Screenshots in both
languages."""

from __future__ import annotations

import pytest

from scoring import SEATS
from tests.support.browser.pw import shot
from tests.support.browser.table import (
    PHONE,
    actor_of,
    armed,
    off_screen,
    offered,
    play_url,
    seat_page,
    table_server,
    views,
    wait_seq,
)
from tests.support.online_ws import open_online_round, seated_users
from tournaments.models import BoardResult

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LANGS = {"N": "en", "E": "zh-hans", "S": "en", "W": "zh-hans"}
# From the dealer on: a natural auction to 4♠ over four rounds of calls.
AUCTION = ["1C", "P", "1H", "P", "1S", "P", "2S", "P", "4S", "P", "P", "P"]
# Where the table starts under the page's own header: the site's header and the table's
# title and clock take no more than this (they took ~45 % of the screen before).
HEADER_AT_MOST = 90


def scrolled(page) -> int:
    return page.evaluate("() => Math.round(scrollY)")


def box(page, selector: str) -> dict:
    return page.eval_on_selector(
        selector,
        "e => { const r = e.getBoundingClientRect();"
        " return {top: r.top, bottom: r.bottom, height: r.height}; }",
    )


def test_a_whole_board_on_a_phone_without_scrolling(make_tournament, register_pairs, tmp_path):
    first_round, tables = open_online_round(make_tournament, register_pairs, boards=2)
    table = tables[0]
    users = seated_users(table)
    with table_server(tmp_path) as (base, browser):
        pages = {
            seat: seat_page(browser, base, users[seat], lang=LANGS[seat], size=PHONE)
            for seat in SEATS
        }
        for page in pages.values():
            page.goto(base + play_url(table))
        wait_seq(pages.values(), 0)
        seq = 0
        heights: dict[str, float] = {}
        for call in AUCTION:
            actor = actor_of(views(table, users))
            page = pages[actor]
            armed(page)
            assert scrolled(page) == 0, actor
            assert sorted(offered(page, "#bt-controls .bt-bid[data-call]", "call")) == sorted(
                views(table, users)[actor]["legal"]
            )
            # Every call offered is on the screen, the auction above the box, no trick
            # area while the board is bid, the table right under a slim header.
            assert off_screen(page, "#bt-controls .bt-bid[data-call], .bt-hand.pos-bottom") == []
            assert box(page, "#bt-auction")["bottom"] <= box(page, ".bt-box")["top"], actor
            assert not page.is_visible("#bt-trick")
            assert box(page, ".bt-layout")["top"] <= HEADER_AT_MOST
            heights.setdefault(actor, box(page, ".bt-hand.pos-bottom")["height"])
            if seq in (0, 5):
                shot(page, f"table-phone-{actor}-{LANGS[actor]}-auction-{seq}", full_page=False)
            page.locator(f"#bt-controls .bt-bid[data-call='{call}']").tap()
            seq += 1
            wait_seq(pages.values(), seq)
        now = views(table, users)
        assert now["N"]["contract"] == "4S"
        declarer = now["N"]["declarer"]

        for played in range(52):
            now = views(table, users)
            actor = actor_of(now)
            page = pages[actor]
            armed(page)
            assert scrolled(page) == 0, (actor, played)
            playable = offered(page, "button.bt-card.playable", "card")
            assert sorted(playable) == sorted(now[actor]["legal"]), (actor, played)
            assert off_screen(page, "button.bt-card.playable") == [], (actor, played)
            assert off_screen(page, "#bt-trick") == [], (actor, played)
            if played in (1, 26):
                shot(page, f"table-phone-{actor}-{LANGS[actor]}-play-{played}", full_page=False)
            # The hand's panel is as tall with its cards playable as it was in the auction.
            if now[actor]["turn"] == actor and actor in heights:
                assert box(page, ".bt-hand.pos-bottom")["height"] == heights[actor], actor
            # The whole last card, or the strip a card shows of itself under the next.
            card = playable[-1] if played % 2 else playable[0]
            page.locator(f"button.bt-card.playable[data-card='{card}']").tap()
            seq += 1
            wait_seq(pages.values(), seq)
            assert scrolled(page) == 0

        result = BoardResult.objects.get(table=table, board__number=1)
        assert result.played_online and result.declarer == declarer
        for seat, page in pages.items():
            page.wait_for_selector("#bt-result")
            assert off_screen(page, "#bt-next-board") == [], seat
            assert scrolled(page) == 0, seat
            shot(page, f"table-phone-{seat}-{LANGS[seat]}-over", full_page=False)
