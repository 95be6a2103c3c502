"""A live broadcast in Chromium (RULES 12, Vugraph), served by a real uvicorn: the open room
has finished board 1 while the closed room is on its last trick, so spectators see each
room's progress and not one card; the closed room's last card (sent over its seat's own
socket) releases the board in every spectator's page — both rooms' hands and auctions with
the alert, the play stepped card by card (and by itself), the IMPs and the match's score;
a commentator's line reaches every spectator. English and Chinese, desktop and phone,
with screenshots; nothing wider than a phone, nothing the page's policy blocks."""

from __future__ import annotations

import pytest
from django.db import connection

from scoring import SEATS
from teams.match import board_imps
from tests.support.browser.pw import shot
from tests.support.browser.table import DESKTOP, PHONE, act, actor_of, seat_page, table_server
from tests.support.browser.table import views as seat_views
from tests.support.online_ws import dealt_hands, robot_action, seated_users
from tests.tournaments.online.test_kibitz_page_browser import play_live
from tests.tournaments.test_who_sees_what import _play_to_the_end
from tournaments.models import BoardResult
from tournaments.services import broadcasts

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

COMMENT = "4♥ in the closed room, 1♥ in the open: a swing"
STATE = "() => ['live', 'finished'].includes(document.getElementById('bc-state').dataset.kind)"
PENDING = {"en": ("Finished", "Trick 13"), "zh-hans": ("已结束", "第 13 墩")}


def play_until_one_card_left(table, board: int) -> None:
    """The closed room (through the service, before the server is up): 4H by the dealer
    with its alert (the open room stops in 1H: a swing), three passes, and every card
    but the last."""
    users = seated_users(table)
    while True:
        now = seat_views(table, users, board)
        seat = actor_of(now)
        if len(now[seat]["play"]) == 51:
            return
        action = robot_action(now[seat])
        if action.get("call") == "1C":
            action["call"] = "4H"
        act(table, users[seat], board, now[seat], **{k: v for k, v in action.items() if k != "seq"})


def cards_shown(page, room: str) -> set[str]:
    """Every card the room's four hands show now (suit letter + rank)."""
    found = page.eval_on_selector_all(
        f".bc-room[data-room='{room}'] .bc-ranks",
        "els => els.map(e => [e.dataset.suit, e.textContent])",
    )
    return {
        suit + ("T" if rank == "10" else rank)
        for suit, text in found
        for rank in text.split()
        if rank != "—"
    }


def where(page, room: str) -> int:
    return int(page.get_attribute(f".bc-room[data-room='{room}'] .bc-where", "data-step"))


def tricks(page, room: str) -> tuple[int, int]:
    node = page.locator(f".bc-room[data-room='{room}'] .bc-tricks")
    return int(node.get_attribute("data-ns")), int(node.get_attribute("data-ew"))


def test_a_spectator_follows_a_live_match_from_progress_to_the_released_board(
    match, organiser, commentator, make_user, tmp_path
):
    event = match.round.tournament
    item = broadcasts.start_broadcast(by=organiser, tournament=event, match=match)
    open_room, closed_room = match.open_table, match.closed_table
    _play_to_the_end(open_room, 1, "1H")  # the open room ahead
    play_until_one_card_left(closed_room, 1)
    every_card = set().union(*dealt_hands(open_room, 1).values())
    closed_users = seated_users(closed_room)
    passer_by = make_user("passer-by", name="路人甲")
    path = f"/broadcasts/{item.pk}/"
    looks = {
        "en-desktop": (None, "en", DESKTOP),
        "zh-phone": (None, "zh-hans", PHONE),
        "zh-desktop": (passer_by, "zh-hans", DESKTOP),
        "en-phone": (None, "en", PHONE),
    }
    violations: list[str] = []
    with table_server(tmp_path) as (base, browser):
        pages = {}
        for name, (user, lang, size) in looks.items():
            page = seat_page(browser, base, user, lang=lang, size=size)
            page.on(
                "console",
                lambda m: violations.append(m.text) if "Content Security" in m.text else None,
            )
            page.on("pageerror", lambda e: violations.append(f"page error: {e}"))
            page.goto(base + path)
            page.wait_for_function(STATE)
            pages[name] = page
        commentator_page = seat_page(browser, base, commentator)
        commentator_page.goto(base + path)
        commentator_page.wait_for_function(STATE)

        # Board 1 is not shown: each room's progress, no card anywhere.
        for name, page in pages.items():
            _user, lang, size = looks[name]
            assert page.get_attribute("#bc-state", "data-kind") == "live", name
            page.wait_for_selector("#bc-pending")
            assert page.locator(".bc-ranks, .bc-face, .bc-auction").count() == 0, name
            over, trick_13 = PENDING[lang]
            assert over in page.inner_text(".bc-room[data-room='open'] .bc-progress-big")
            assert trick_13 in page.inner_text(".bc-room[data-room='closed'] .bc-progress-big")
            assert page.locator("tr[data-board='1'].pending").count() == 1
            shot(page, f"broadcast-progress-{name}-{size[0]}")
        assert "bc-comment-form" not in pages["en-desktop"].content()

        # The closed room's last card, from its seat's own device: the board is released.
        devices = {seat: seat_page(browser, base, closed_users[seat]) for seat in SEATS}
        for device in devices.values():
            device.goto(base + "/")
        play_live(devices, closed_room, closed_users, 1)
        connection.close()
        results = {r.table_id: r.ns_score for r in BoardResult.objects.filter(board__number=1)}
        imps = board_imps(results[open_room.pk], results[closed_room.pk])
        assert imps != 0  # 1H against 4H on the same cards
        for name, page in pages.items():
            page.wait_for_selector("tr[data-board='1'].released", timeout=20_000)
            page.wait_for_selector(".bc-room[data-room='closed'] .bc-ranks")
            for room in ("open", "closed"):
                assert where(page, room) == 0
                assert cards_shown(page, room) == every_card, (name, room)
                calls = page.locator(f".bc-room[data-room='{room}'] .bc-auction td[data-call]")
                assert calls.count() == 4, (name, room)  # 1H or 4H and three passes
                alerts = page.inner_text(f".bc-room[data-room='{room}'] .bc-alerts")
                assert "could be short" in alerts
            assert page.inner_text("#bc-home-score") == str(max(imps, 0))
            assert page.inner_text("#bc-away-score") == str(max(-imps, 0))
            row = page.locator("tr[data-board='1'] td.imps")
            assert [row.nth(0).inner_text(), row.nth(1).inner_text()] == [
                str(imps) if imps > 0 else "",
                str(-imps) if imps < 0 else "",
            ]

        # Step through the open room's play.
        page = pages["en-desktop"]
        open_room_panel = ".bc-room[data-room='open']"
        for _ in range(5):
            page.click(f"{open_room_panel} [data-step='forward']")
        assert where(page, "open") == 5
        assert page.locator(f"{open_room_panel} .bc-played").count() == 1  # trick 2's lead
        assert sum(tricks(page, "open")) == 1
        assert len(cards_shown(page, "open")) == 52 - 5
        page.click(f"{open_room_panel} [data-step='last']")
        assert where(page, "open") == 52 and sum(tricks(page, "open")) == 13
        assert cards_shown(page, "open") == set()
        page.click(f"{open_room_panel} [data-step='back']")
        assert where(page, "open") == 51 and sum(tricks(page, "open")) == 12
        page.click(f"{open_room_panel} [data-step='first']")
        assert where(page, "open") == 0
        page.click(f"{open_room_panel} [data-step='auto']")
        page.wait_for_function(
            "() => Number(document.querySelector(\".bc-room[data-room='open'] .bc-where\")"
            ".dataset.step) >= 2"
        )
        page.click(f"{open_room_panel} [data-step='auto']")  # pause
        stopped = where(page, "open")
        page.wait_for_timeout(1_500)
        assert where(page, "open") == stopped
        assert page.get_attribute(f"{open_room_panel} [data-step='auto']", "aria-pressed") == (
            "false"
        )
        page.click(f"{open_room_panel} [data-step='first']")

        # A commentator's line reaches every spectator, time-stamped.
        commentator_page.fill("#bc-comment-text", COMMENT)
        commentator_page.click("#bc-comment-form button[type=submit]")
        commentator_page.wait_for_selector(f".bc-comment .bc-text:has-text('{COMMENT}')")
        # The box is emptied when the POST answers, which may come after the socket has
        # brought the line back: wait for it (a box never emptied fails here).
        commentator_page.wait_for_function(
            "() => document.querySelector('#bc-comment-text').value === ''", timeout=10_000
        )
        for name, page in pages.items():
            _user, lang, size = looks[name]
            line = page.locator(".bc-comment").last
            line.wait_for()
            page.wait_for_function(
                "t => [...document.querySelectorAll('.bc-comment .bc-text')]"
                ".some(e => e.textContent === t)",
                arg=COMMENT,
            )
            assert page.locator(".bc-comment time").last.inner_text().strip()
            if size == PHONE:
                width = page.evaluate("() => document.documentElement.scrollWidth")
                assert width <= PHONE[0], (name, width)
            shot(page, f"broadcast-released-{name}-{size[0]}")
        shot(commentator_page, "broadcast-commentator-en-1280")
        assert violations == []
        for device in [*devices.values(), *pages.values(), commentator_page]:
            device.context.close()


def test_a_director_starts_a_broadcast_from_the_console_and_changes_its_delay(
    match, director, open_page, live_server
):
    from tests.support.browser.pw import log_in, shot_path

    event = match.round.tournament
    for lang, locale in (("en", "en-GB"), ("zh-hans", "zh-CN")):
        page = open_page(locale=locale)
        page.context.add_cookies(
            [{"name": "django_language", "value": lang, "url": live_server.url}]
        )
        log_in(page, live_server.url, "director", "pw-director")
        page.goto(f"{live_server.url}/console/{event.pk}/")
        if lang == "en":
            page.click(f"#matches a.broadcast-start[href$='?match={match.pk}']")
            page.fill("#id_delay_minutes", "3")
            with page.expect_navigation():
                page.click("form.stacked button[type=submit]")
            page.wait_for_selector("#broadcasts .broadcast-item")
            assert "The broadcast has started" in page.inner_text(".messages")
            # The field stops 999 itself; without its limit, the service refuses it.
            page.eval_on_selector("#broadcasts input[name=delay_minutes]", "e => e.max = ''")
            page.fill("#broadcasts input[name=delay_minutes]", "999")
            with page.expect_navigation():
                page.click("#broadcasts .broadcast-delay button")
            assert "from 0 to 240 minutes" in page.inner_text(".messages")
            page.fill("#broadcasts input[name=delay_minutes]", "5")
            with page.expect_navigation():
                page.click("#broadcasts .broadcast-delay button")
            assert "5 minutes" in page.inner_text("#broadcasts")
        assert page.locator("#matches a.broadcast-link").count() == 1
        assert page.locator("#progress-title ~ .table-scroll a.broadcast-link").count() == 0
        page.locator("#matches").screenshot(
            path=str(shot_path(f"broadcast-console-matches-{lang}"))
        )
        page.locator("#broadcasts").screenshot(path=str(shot_path(f"broadcast-console-{lang}")))
        page.click("#broadcasts a.broadcast-link")
        page.wait_for_selector("#bc-rooms .bc-room")
        assert page.locator("#bc-comment-form").count() == 1  # directors may comment
