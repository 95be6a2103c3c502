"""The bell of the last round in the browser (issue 24, item 6): a board in the middle of
its auction is cut off; every page says what became of it (the server's words, by the
tournament's unplayed-board policy, in the page's language) and that the tournament is
over, with a link to the results — also after a reload. English and Chinese, desktop
and phone, with screenshots."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from tests.support.browser.pw import shot
from tests.support.browser.table import (
    DESKTOP,
    PHONE,
    act,
    actor_of,
    play_url,
    seat_page,
    table_server,
    views,
    wait_seq,
)
from tests.support.online_ws import open_online_round, seated_users
from tournaments.models import Round

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

OVER = {"en": "The tournament is over.", "zh-hans": "比赛已结束。"}
CUT_OFF = {"en": "Board 1 was not finished at the bell", "zh-hans": "第 1 副"}
ENGLISH = "not finished"


def test_the_last_bell_says_what_became_of_the_board_and_that_it_is_over(
    make_tournament, register_pairs, tmp_path
):
    first_round, tables = open_online_round(make_tournament, register_pairs, boards=2, rounds=1)
    table = tables[0]
    users = seated_users(table)
    for call in ("1C", "P"):
        now = views(table, users)
        seat = actor_of(now)
        act(table, users[seat], 1, now[seat], type="call", call=call)
    looks = {"N": ("en", DESKTOP), "E": ("zh-hans", PHONE)}
    with table_server(tmp_path) as (base, browser):
        pages = {
            seat: seat_page(browser, base, users[seat], lang=lang, size=size)
            for seat, (lang, size) in looks.items()
        }
        for page in pages.values():
            page.goto(base + play_url(table))
        wait_seq(pages.values(), 2)
        try:
            Round.objects.filter(pk=first_round.pk).update(
                ends_at=timezone.now() + timedelta(seconds=1)
            )
        finally:
            connection.close()
        results = f"/t/{first_round.tournament_id}/results/"
        for seat, page in pages.items():
            lang, size = looks[seat]
            page.wait_for_selector("#bt-closed", timeout=30_000)
            cut_off = page.inner_text("#bt-cut-off")
            assert CUT_OFF[lang] in cut_off, (seat, cut_off)
            assert lang == "en" or ENGLISH not in cut_off, (seat, cut_off)
            assert OVER[lang] in page.inner_text("#bt-tournament-over")
            assert page.get_attribute("#bt-results-link", "href") == results
            assert page.locator("#bt-next-table").count() == 0
            assert page.locator(".bt-bid").count() == 0
            shot(page, f"table-last-bell-{seat}-{lang}-{size[0]}")
        # Opened again after the bell: the end is said from the first drawing on.
        page = pages["E"]
        page.reload()
        page.wait_for_selector("#bt-tournament-over")
        assert OVER["zh-hans"] in page.inner_text("#bt-tournament-over")
        page.click("#bt-results-link")
        page.wait_for_url(f"**{results}")
