"""Board sets that travel, as a club's organiser and players see them (RULES 10), in a real
headless Chromium: the console's progress grid gives each table its own boards, the
movement page prints each table's set, and a pair's score card keeps a board it played in
round 1 "still in play at other tables" after round 1 closes. English and Chinese, desktop
and phone; screenshots in test-artifacts/screenshots/travelling-*.png."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from tests.support.browser.pw import log_in, new_page, shot
from tests.support.clock import submit
from tournaments.models import Pair, Table
from tournaments.services import clock, setup
from tournaments.services.registration import register_pair

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

TEXT = {
    "en-GB": {
        "grid": "Boards: each table its own set",
        "travel": "Board sets travel",
        "pending": "Still in play at other tables",
        "board": "tables of the coming rounds still play it",
    },
    "zh-CN": {
        "grid": "牌：每张桌打各自的一套",
        "travel": "牌套流转",
        "pending": "其他桌仍在打这副牌",
        "board": "后面轮次的桌还要打它",
    },
}


@pytest.fixture
def club_mitchell(director, make_user):
    """A 5-table two-winner Mitchell, face to face with travelling sets, round 1 open with
    table 1's boards entered."""
    now = timezone.now()
    tournament = setup.create_tournament(
        by=director, now=now, name="Club Mitchell", start_at=now + timedelta(hours=1),
        registration_opens_at=now - timedelta(hours=1), rounds=5, boards_per_round=2,
        round_minutes=30, scoring="MP", seating="mitchell", winners=2, boards_travel=True,
    )  # fmt: skip
    for i in range(10):
        a, b = make_user(name=f"北{i}号"), make_user(name=f"Player {i}")
        register_pair(by=None, tournament=tournament, usernames=[a.username, b.username], now=now)
    clock.start_now(tournament=tournament, by=director, now=now)
    table = Table.objects.get(round__tournament=tournament, round__number=1, number=1)
    for board in (table.first_board, table.last_board):
        submit(table, board, "3NT", "N", 9, now=now)
    return tournament


@pytest.mark.parametrize("locale", ["en-GB", "zh-CN"])
@pytest.mark.parametrize("width, height", [(1280, 900), (390, 844)])
def test_a_club_mitchell_whose_board_sets_travel(
    browser, live_server, club_mitchell, director, locale, width, height
):
    text = TEXT[locale]
    tag = f"{'en' if locale == 'en-GB' else 'zh'}-{'phone' if width < 500 else 'desktop'}"
    tournament = club_mitchell
    page = new_page(browser, locale=locale, width=width, height=height)
    try:
        log_in(page, live_server.url, "director", "pw-director")
        page.goto(f"{live_server.url}/console/{tournament.pk}/")
        grid = page.locator(".progress-grid")
        if width >= 500:
            assert text["grid"] in grid.inner_text()
        for table in Table.objects.filter(round__tournament=tournament, round__number=1):
            row = page.locator(f".progress-grid tr[data-table='{table.number}']")
            cells = row.locator("td.cell")
            assert cells.count() == 2
            labels = [cells.nth(i).get_attribute("data-label") for i in range(2)]
            assert [label.split()[-1] for label in labels] == [
                str(table.first_board), str(table.last_board)
            ]  # fmt: skip
        grid.scroll_into_view_if_needed()
        shot(page, f"travelling-{tag}-1-console", full_page=False)

        page.goto(f"{live_server.url}/t/{tournament.pk}/movement/")
        assert text["travel"] in page.inner_text("main")
        first = page.locator(".mv-round[data-round='1'] td.mv-boards")
        assert first.count() == 5
        boards = {first.nth(i).get_attribute("data-boards") for i in range(5)}
        assert boards == {"1,2", "3,4", "5,6", "7,8", "9,10"}  # five sets, one a table
        shot(page, f"travelling-{tag}-2-movement", full_page=False)

        clock.close_round_now(tournament=tournament, by=director)
        pair = Pair.objects.get(tournament=tournament, position=1)
        page.goto(f"{live_server.url}/t/{tournament.pk}/pairs/{pair.pk}/card/")
        body = page.inner_text("main")
        assert text["pending"] in body
        assert "3NT" not in body  # its own result too waits for the other tables
        shot(page, f"travelling-{tag}-3-score-card")

        page.goto(f"{live_server.url}/t/{tournament.pk}/boards/1/")
        assert text["board"] in page.inner_text("main")
        shot(page, f"travelling-{tag}-4-board", full_page=False)
    finally:
        page.context.close()
