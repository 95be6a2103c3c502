"""A program's seat from the pages in Chromium (SPEC 14): a player gives their own seat
from the table's page, a director a seat from the console; the ticket page in English and
Chinese, desktop and phone, nothing wider than the screen. Screenshots in
test-artifacts/screenshots/program-ticket-*.png."""

from __future__ import annotations

import re

import pytest

from tests.support.browser.pw import log_in, shot
from tests.support.online_ws import open_online_round, seated_users
from tournaments.models import ProgramSeat
from tournaments.services import programs

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

SIZES = {"desktop": (1280, 900), "phone": (390, 844)}
WORDS = {
    "en": {"give": "Give my seat to a program…", "reserve": "Reserve the seat", "seat": "South"},
    "zh-hans": {"give": "把我的座位交给程序…", "reserve": "预留座位", "seat": "南"},
}


def test_a_player_gives_their_seat_and_sees_the_ticket_once(
    open_page, live_server, make_tournament, register_pairs
):
    _round, tables = open_online_round(make_tournament, register_pairs, boards=1, rounds=1)
    table = tables[0]
    south = seated_users(table)["S"]
    t = table.round.tournament_id
    for lang, words in WORDS.items():
        for size, (width, height) in SIZES.items():
            page = open_page(
                locale="en-GB" if lang == "en" else "zh-CN", width=width, height=height
            )
            page.context.add_cookies(
                [{"name": "django_language", "value": lang, "url": live_server.url}]
            )
            errors: list[str] = []
            page.on("pageerror", lambda error, errors=errors: errors.append(str(error)))
            log_in(page, live_server.url, south.username, "pw-" + south.username)
            page.goto(f"{live_server.url}/t/{t}/rounds/1/tables/{table.number}/play/")
            page.get_by_text(words["give"]).click()
            page.wait_for_selector("form.stacked input[name=think_seconds]")
            assert page.locator("input[name=seat]").count() == 1  # their own seat only
            page.fill("input[name=program]", "BEN")
            page.fill("input[name=think_seconds]", "30")
            if lang == "en" and size == "phone":
                shot(page, f"program-form-{lang}-{size}")
            with page.expect_navigation():
                page.get_by_role("button", name=re.compile(words["reserve"])).click()
            ticket = page.inner_text("#ticket").strip()
            assert re.fullmatch(r"tkt-[0-9a-f]{32}", ticket), ticket
            assert page.inner_text("#connecting").strip() == (
                f'Connecting "{ticket}" as South using protocol version 18'
            )
            assert words["seat"] in page.inner_text("h1")
            assert ProgramSeat.objects.get(seat="S").ticket_digest == programs.digest(ticket)
            wide = page.evaluate("document.documentElement.scrollWidth")
            assert wide <= width, (lang, size, wide)
            assert errors == [], errors
            shot(page, f"program-ticket-{lang}-{size}")
            # Shown once: "Done" goes back to the table, which lists the program only.
            page.get_by_role("link", name=re.compile("Done|完成")).click()
            page.wait_for_selector("#bt")
            assert ticket not in page.content()
