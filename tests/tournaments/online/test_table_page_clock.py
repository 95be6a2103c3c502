"""The table page in Chromium, served by a real uvicorn: the round clock follows the
organiser's extension, pause and resume without a reload (the socket's `round` message),
and an organiser watching a table sees it as a watcher — "Watching", every hand the
server sends, South at the bottom, no bidding box. English and Chinese, with
screenshots."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from scoring import SEATS
from tests.support.browser.pw import chromium, shot
from tests.support.online_ws import dealt_hands, open_online_round, seated_users, session_cookie
from tests.support.servers import wait_for_server_sessions
from tests.support.uvicorn import free_port, start_server, stop, wait_until_listening
from tournaments.models import Round, player_name
from tournaments.timezones import zone_label

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WAIT = 15_000
NAVIGATION = 30_000  # a page load on a loaded machine (tests/support/browser/table.py)
CLOCK = ".bt-meta .clock"


def open_page(browser, base: str, user, *, lang: str = "en", width: int = 1280):
    context = browser.new_context(
        locale="zh-CN" if lang == "zh-hans" else "en-GB",
        viewport={"width": width, "height": 900 if width > 500 else 844},
    )
    context.set_default_timeout(WAIT)
    context.set_default_navigation_timeout(NAVIGATION)
    name, value = session_cookie(user).split("=", 1)
    context.add_cookies(
        [
            {"name": "django_language", "value": lang, "url": base},
            {"name": name, "value": value, "url": base},
        ]
    )
    return context.new_page()


def connected(page) -> None:
    page.wait_for_function("() => document.getElementById('bt').dataset.state === 'connected'")


def console_action(page, base: str, tournament_id: int, name: str, **fields) -> None:
    """The organiser's console: the action's confirmation page, then Confirm."""
    page.goto(f"{base}/console/{tournament_id}/do/{name}/")
    for field, value in fields.items():
        page.fill(f"#id_{field}", str(value))
    page.click("form.stacked button[type=submit]")
    page.wait_for_url(f"{base}/console/{tournament_id}/")


def local_hhmm(moment) -> str:
    return f"{timezone.localtime(moment).strftime('%H:%M')} {zone_label(moment)}"


def follows(page, ends_at) -> None:
    """The page's clock now counts down to `ends_at` (no reload)."""
    page.wait_for_function(
        "([sel, iso]) => { const c = document.querySelector(sel);"
        " return c && Date.parse(c.dataset.endsAt) === Date.parse(iso)"
        " && c.hasAttribute('data-clock'); }",
        arg=[CLOCK, ends_at.isoformat()],
    )


def test_the_clock_follows_the_organiser_and_an_organiser_watches(
    make_tournament, register_pairs, director, tmp_path
):
    first_round, tables = open_online_round(make_tournament, register_pairs, boards=2)
    table = tables[0]
    tournament_id = first_round.tournament_id
    users = seated_users(table)
    hands = dealt_hands(table, 1)
    url = f"/t/{tournament_id}/tables/{table.pk}/play/"
    port, log_path = free_port(), tmp_path / "server.log"
    server = start_server(port=port, log=log_path.open("w"))
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_listening(port, server, log_path)
        with chromium() as browser:
            try:
                seat_en = open_page(browser, base, users["N"])
                seat_zh = open_page(browser, base, users["E"], lang="zh-hans", width=390)
                watcher_en = open_page(browser, base, director)
                watcher_zh = open_page(browser, base, director, lang="zh-hans", width=390)
                console = open_page(browser, base, director)
                pages = (seat_en, seat_zh, watcher_en, watcher_zh)
                for page in pages:
                    page.goto(base + url)
                    connected(page)
                    page.evaluate("() => { window.loadedOnce = true; }")  # gone on a reload

                # -- the organiser watching: no seat, every hand, South at the bottom --
                for page, lang in ((watcher_en, "en"), (watcher_zh, "zh-hans")):
                    page.wait_for_function(
                        "() => document.querySelectorAll('.bt-hand [data-card]').length === 52"
                    )
                    shown = set(
                        page.eval_on_selector_all(
                            ".bt-hand [data-card]", "els => els.map(e => e.dataset.card)"
                        )
                    )
                    assert shown == set().union(*hands.values())
                    for seat in SEATS:  # each hand where it was dealt, not re-oriented
                        in_panel = set(
                            page.eval_on_selector_all(
                                f".bt-hand[data-seat={seat}] [data-card]",
                                "els => els.map(e => e.dataset.card)",
                            )
                        )
                        assert in_panel == hands[seat], seat
                    assert page.get_attribute("#bt-pos-bottom .bt-hand", "data-seat") == "S"
                    assert page.get_attribute("#bt-pos-top .bt-hand", "data-seat") == "N"
                    assert page.locator(".bt-bid, .bt-box, #bt-alert").count() == 0
                    assert page.locator(".bt-you").count() == 0
                    assert page.locator("#bt").get_attribute("data-watching") == "true"
                    badge = page.inner_text("#bt-watching")
                    assert badge == ("Watching" if lang == "en" else "旁观"), badge
                    # The seats are named by direction and player, none as "you".
                    bottom = page.inner_text("#bt-pos-bottom .bt-name")
                    assert player_name(users["S"]) in bottom, bottom
                    assert page.locator("#bt-watch-note").count() == 1
                    width = 1280 if lang == "en" else 390
                    shot(page, f"table-watching-{lang}-{width}")
                # A seated player is not watching: their own hand at the bottom, and only it.
                assert seat_en.locator("#bt-watching").count() == 0
                assert seat_en.get_attribute("#bt-pos-bottom .bt-hand", "data-seat") == "N"
                assert seat_en.locator(".bt-hand [data-card]").count() == 13

                # -- the organiser extends the round: every open page follows ----------
                before = Round.objects.get(pk=first_round.pk).ends_at
                console_action(console, base, tournament_id, "extend", minutes=15)
                extended = Round.objects.get(pk=first_round.pk).ends_at
                assert extended == before + timedelta(minutes=15)
                for page in pages:
                    follows(page, extended)
                    assert page.evaluate("() => window.loadedOnce === true")  # no reload
                assert local_hhmm(extended) in seat_en.inner_text(CLOCK)
                assert "Round 1 ends in" in seat_en.inner_text(CLOCK)
                assert "第 1 轮剩余" in seat_zh.inner_text(CLOCK)
                time_left = seat_en.inner_text(f"{CLOCK} [data-clock-time]")
                minutes = int(time_left.split(":")[-2]) + 60 * (
                    int(time_left.split(":")[0]) if time_left.count(":") == 2 else 0
                )
                assert 60 + 13 <= minutes <= 60 + 15, time_left
                shot(seat_en, "table-N-en-1280-extended")
                shot(seat_zh, "table-E-zh-hans-390-extended")

                # -- paused: the clock stops and says so; resumed: the new end --------
                console_action(console, base, tournament_id, "pause")
                for page, words in (
                    (seat_en, "Paused by the director"),
                    (seat_zh, "裁判已暂停比赛"),
                    (watcher_en, "Paused by the director"),
                    (watcher_zh, "裁判已暂停比赛"),
                ):
                    page.wait_for_selector(f"{CLOCK}.phase-paused")
                    assert words in page.inner_text(CLOCK)
                    assert page.locator(f"{CLOCK}[data-clock]").count() == 0
                shot(seat_en, "table-N-en-1280-paused")
                shot(seat_zh, "table-E-zh-hans-390-paused")
                console_action(console, base, tournament_id, "resume")
                resumed = Round.objects.get(pk=first_round.pk).ends_at
                assert resumed > extended  # moved by the pause's length
                for page in pages:
                    follows(page, resumed)
                    assert page.evaluate("() => window.loadedOnce === true")
                assert local_hhmm(resumed) in seat_en.inner_text(CLOCK)
                assert seat_en.locator(f"{CLOCK}.phase-ends").count() == 1
            finally:
                connection.close()
    finally:
        stop(server)
        wait_for_server_sessions()
