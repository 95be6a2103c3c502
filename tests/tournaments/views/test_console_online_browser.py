"""The console for online play in headless Chromium (issue 24, items 11–15): the links to
every table's live view, the live progress (board, trick, whose turn, who is connected,
idle time) following the play by itself, extra time and a robot for one table, a new
online event with every setting, and the console on a phone. English and Chinese,
desktop and 390×844; screenshots in test-artifacts/screenshots/console-online-*.png.
"""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.db import connections
from django.utils import timezone
from playwright.sync_api import expect

from tests.support.browser.pw import log_in, new_page, shot
from tests.support.online_ws import open_online_round, seated_users
from tournaments.models import TableDirection, Tournament
from tournaments.services import presence, table_play

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

POLL_MS = 15_000  # the console polls every 5 s

TEXT = {
    "en-GB": {
        "auction": "board 1 · auction · East to call",
        "play": "trick 1 · East to play",
        "extra": "now plays until",
        "robot": "A robot plays seat South at table 2",
        "created": "Tournament created",
        "extra_time": "extra time to",
    },
    "zh-CN": {
        "auction": "第 1 副 · 叫牌 · 东 叫牌",
        "play": "第 1 墩 · 东 出牌",
        "extra": "现在可打到",
        "robot": "机器人将在第 2 桌的南座位",
        "created": "比赛已创建",
        "extra_time": "加时至",
    },
}


def _tag(locale: str, width: int) -> str:
    return f"{'en' if locale == 'en-GB' else 'zh'}-{'phone' if width < 500 else 'desktop'}"


def _call(table, seat: str, seq: int, call: str) -> None:
    """A call at the table, as its socket would make it: in a thread of its own (the
    announcement after the commit may not run in Playwright's event loop)."""
    user = seated_users(table)[seat]
    failed = []

    def act():
        try:
            table_play.act(table=table, board_number=1, user=user,
                           action={"seq": seq, "type": "call", "call": call})  # fmt: skip
        except Exception as error:  # re-raised in the test's thread
            failed.append(error)
        finally:
            connections.close_all()

    worker = threading.Thread(target=act)
    worker.start()
    worker.join()
    if failed:
        raise failed[0]


@pytest.mark.parametrize("locale", ["en-GB", "zh-CN"])
@pytest.mark.parametrize(("width", "height"), [(1280, 900), (390, 844)])
def test_the_console_follows_online_tables_and_links_each_to_its_live_view(
    browser, live_server, director, make_tournament, register_pairs, locale, width, height
):
    first, (one, two) = open_online_round(
        make_tournament, register_pairs, pairs=4, boards=3, rounds=2
    )
    t = first.tournament_id
    _call(one, "N", 1, "1NT")
    for seat in ("N", "E", "W"):
        presence.connected(channel=f"c-{seat}", table_id=one.pk, seat=seat, user_id=None)
    text = TEXT[locale]
    tag = _tag(locale, width)
    page = new_page(browser, locale=locale, width=width, height=height)
    try:
        log_in(page, live_server.url, "director", "pw-director")
        page.goto(f"{live_server.url}/console/{t}/")
        page.wait_for_selector("table.progress-grid")
        row = page.locator("tr[data-table='1']")
        assert text["auction"] in row.inner_text()
        assert row.locator(".seat-dot.on").count() == 3
        assert row.locator(".seat-dot.off[data-seat='S']").count() == 1
        # Every table's number and its board in play lead to the live view, by number.
        for number in (1, 2):
            href = f"/t/{t}/rounds/1/tables/{number}/play/"
            assert page.locator(f"tr[data-table='{number}'] a.table-link[href='{href}']").count()
            assert page.locator(f"tr[data-table='{number}'] td.s-playing a[href='{href}']").count()
        # No board column is cut off: every cell lies on the screen, nothing scrolls
        # sideways (on a phone each table is a card, each cell naming its board).
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        scroller = page.locator("#console-live .table-scroll")
        assert scroller.evaluate("e => e.scrollWidth <= e.clientWidth + 1")
        cells = page.locator("table.progress-grid td.cell")
        assert cells.count() == 6
        for i in range(cells.count()):
            box = cells.nth(i).bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width, i
        shot(page, f"console-online-{tag}-1-progress")

        # The play goes on: the console follows without a reload.
        for seq, call in ((2, "P"), (3, "P"), (4, "P")):
            _call(one, "ESW"[seq - 2], seq, call)
        expect(page.locator("tr[data-table='1'] td.live")).to_contain_text(
            text["play"], timeout=POLL_MS
        )

        # Extra time for table 1 from its row.
        row = page.locator("tr[data-table='1']")
        row.locator("a.extra-time-link").click()
        page.wait_for_selector("ul.consequences")
        shot(page, f"console-online-{tag}-2-extra-time")
        page.fill("#id_minutes", "6")
        page.fill("#id_reason", "N lost the connection")
        page.click("form.stacked button[type=submit]")
        page.wait_for_selector(".messages")
        assert text["extra"] in page.inner_text(".messages")
        one.refresh_from_db()
        assert one.ends_at == first.ends_at + timedelta(minutes=6)
        assert text["extra_time"] in page.locator("tr[data-table='1'] td.live").inner_text()

        # A robot in table 2's South seat (nobody is connected there).
        page.locator("tr[data-table='2'] a.robot-link").click()
        page.wait_for_selector("ul.consequences")
        page.check("input[name='seat'][value='S']")
        page.fill("#id_reason", "S has not come")
        shot(page, f"console-online-{tag}-3-robot")
        page.click("form.stacked button[type=submit]")
        page.wait_for_selector(".messages")
        assert text["robot"] in page.inner_text(".messages")
        assert TableDirection.objects.filter(table=two, kind="robot", seat="S").exists()
        shot(page, f"console-online-{tag}-4-after")

        # The public seating links each table to its live view too.
        page.goto(f"{live_server.url}/t/{t}/")
        seating = page.locator("table.seating")
        assert seating.locator(f"a.watch-link[href='/t/{t}/rounds/1/tables/2/play/']").count()
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        shot(page, f"console-online-{tag}-6-public-seating")
        page.goto(f"{live_server.url}/console/{t}/")

        # The live view opens at the table's own address.
        page.locator("tr[data-table='2'] a.table-link").click()
        page.wait_for_url(f"{live_server.url}/t/{t}/rounds/1/tables/2/play/")
    finally:
        page.context.close()


@pytest.mark.parametrize("locale", ["en-GB", "zh-CN"])
@pytest.mark.parametrize(("width", "height"), [(1280, 900), (390, 844)])
def test_an_online_event_created_from_the_console_with_every_setting(
    browser, live_server, director, locale, width, height
):
    text = TEXT[locale]
    tag = _tag(locale, width)
    page = new_page(browser, locale=locale, width=width, height=height)
    name = f"Online Swiss {tag}"
    try:
        log_in(page, live_server.url, "director", "pw-director")
        page.goto(f"{live_server.url}/console/new/")
        page.fill("#id_name", name)
        page.fill("#id_description", "Played at our tables.")
        page.check("input[name='play'][value='online']")
        start = timezone.localtime() + timedelta(hours=3)
        page.fill("#id_start_at", start.strftime("%Y-%m-%dT%H:%M"))
        page.fill("#id_rounds", "5")
        page.fill("#id_boards_per_round", "3")
        page.fill("#id_round_minutes", "25")
        page.select_option("#id_scoring", "MP")
        page.select_option("#id_unplayed_policy", "avg_minus")
        page.fill("#id_completion_threshold", "60")
        page.select_option("#id_first_round_draw", "random")
        page.check("#id_neuberg")
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        assert "UTC+8" in page.inner_text("form.console-form")
        shot(page, f"console-online-{tag}-5-new")
        page.click("form.console-form button[type=submit]")
        page.wait_for_selector(".messages")
        assert text["created"] in page.inner_text(".messages")
        created = Tournament.objects.get(name=name)
        assert (created.play, created.scoring_method, created.unplayed_policy) == (
            "online", "MP", "avg_minus",
        )  # fmt: skip
        assert (created.first_round_draw, created.completion_threshold, created.neuberg) == (
            "random", 60, True,
        )  # fmt: skip
        assert created.description == "Played at our tables."
        # The console writes its times as every page does.
        console = page.inner_text("main")
        assert "UTC+8" in console and "CST" not in console
    finally:
        page.context.close()
