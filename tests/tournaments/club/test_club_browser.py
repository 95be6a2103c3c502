"""The club in Chromium (issue 28): a member opens a full-field table in the lobby, asks
robots for the empty seats, lands on the table page (a club table: no round clock, no
"round N"), plays the board in their seat while the test plays the robots' seats through
the service, goes on to the next board with the page reloaded, and finds the field's
results for the deal on "my boards" (a table of four had played it before). English on a
desktop, then Chinese on a phone; then the lobby, my boards and the standings in English on a
phone and Chinese on a desktop; screenshots of each page."""

from __future__ import annotations

import pytest
from django.utils import timezone

from tests.support.browser.pw import shot
from tests.support.browser.table import (
    DESKTOP,
    PHONE,
    actor_of,
    armed,
    connected,
    seat_page,
    table_server,
    views,
    wait_seq,
)
from tests.support.club import play_club_board, seat_four
from tests.support.online_ws import board_path
from tournaments.models import ClubSystem, ClubTable, Table
from tournaments.selectors import table_seats
from tournaments.services import club

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SYSTEM = ClubSystem.FULL_FIELD_IMPS
# A robot seat's device: its own socket sends the action (so the table server tells the
# browser at once), as tests/tournaments/online/test_kibitz_page_browser.py does.
SEND = """([path, action]) => new Promise((resolve, reject) => {
  const ws = new WebSocket(`ws://${location.host}${path}`);
  let sent = false;
  setTimeout(() => reject("no answer"), 10000);
  ws.onerror = () => reject("socket error");
  ws.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (!sent && message.type === "snapshot") {
      sent = true;
      ws.send(JSON.stringify(action));
    } else if (sent && (message.type === "view" || message.type === "error")) {
      ws.close();
      resolve(message.type);
    }
  };
})"""


def bt(page, key: str) -> str:
    return page.evaluate(f"() => document.getElementById('bt').dataset.{key}")


def no_sideways_scroll(page) -> None:
    assert page.evaluate("() => document.documentElement.scrollWidth <= innerWidth + 1")


def whole_tables(page) -> None:
    """No table of the page hides a column behind a sideways scroll of its own."""
    assert page.evaluate(
        "() => [...document.querySelectorAll('.table-scroll')]"
        ".every(box => box.scrollWidth <= box.clientWidth + 1)"
    )


def play_the_board(
    page, devices: dict, play_table: Table, users: dict, mine: str, board: int
) -> None:
    """The browser plays `mine` (and dummy when declarer); the robots' seats are played
    by their devices' sockets: a robot opens 1C when nobody has bid, else everyone
    passes, each side plays its first legal card."""
    wait_seq([page], 0, board)
    for seq in range(1, 200):
        now = views(play_table, users, board)
        actor = actor_of(now)
        if actor is None:
            return
        view = now[actor]
        if actor == mine:
            armed(page)
            if view["contract"] is None:
                page.locator("#bt-controls .bt-bid[data-call='P']").click()
            else:
                card = sorted(view["legal"])[0]
                page.locator(f"button.bt-card.playable[data-card='{card}']").click()
        else:
            if view["contract"] is None:
                call = "1C" if "1C" in view["legal"] and "X" not in view["legal"] else "P"
                action = {"type": "call", "call": call}
            else:
                action = {"type": "card", "card": sorted(view["legal"])[0]}
            action = {"seq": view["next_seq"], **action}
            message = {**action, "type": "action", "action": action["type"]}
            answer = devices[actor].evaluate(SEND, [board_path(play_table, board), message])
            assert answer == "view", (actor, action, answer)
        wait_seq([page], seq, board)
    raise AssertionError("the board did not end")


def test_lobby_to_a_played_board_and_the_fields_results(make_member, tmp_path):
    now = timezone.now()
    # A table of four plays the week's first deal before: the field has a result.
    earlier = seat_four(
        [make_member(name=n) for n in ("Li Na", "Wu Lei", "Zhou Yu", "Sun Li")],
        system=SYSTEM,
        now=now,
    )
    play_club_board(earlier, seed=11)
    club.leave(user=earlier.seats.get(seat="N").user, club_table_id=earlier.pk)
    me = make_member("mei", name="Mei")
    with table_server(tmp_path) as (base, browser):
        page = seat_page(browser, base, me, lang="en", size=DESKTOP)
        page.goto(f"{base}/club/")
        assert page.locator("header .club-link").inner_text() == "Club"
        page.select_option("#club-system", SYSTEM)
        page.select_option("#club-seat", "S")
        page.locator("#club-open").click()
        page.wait_for_selector("#club-robots")
        shot(page, "club-lobby-en-desktop")
        page.locator("#club-robots").click()
        page.wait_for_url("**/play/")
        connected(page)
        assert "Club table" in page.locator(".bt-title").inner_text()
        assert page.locator(".bt-meta .clock").count() == 0  # no round clock at the club
        page.wait_for_function(
            "() => (document.getElementById('bt-table')?.innerText || '').includes('Robot North')"
        )
        table = ClubTable.objects.get(opened_by=me)
        play_table = Table.objects.select_related("round").get(pk=table.table_id)
        seats = table_seats.table_seats(play_table)
        users = {seat: type(me).objects.get(pk=user_id) for seat, user_id in seats.items()}
        board = int(bt(page, "board"))
        devices = {}
        for seat in ("N", "E", "W"):
            devices[seat] = seat_page(browser, base, users[seat], size=PHONE)
            devices[seat].goto(f"{base}/club/standings/")
        play_the_board(page, devices, play_table, users, "S", board)
        for device in devices.values():
            device.context.close()
        page.wait_for_selector("#bt-result")
        assert page.locator("#bt-lobby").get_attribute("href") == "/club/"
        shot(page, "club-table-en-desktop-over", full_page=False)
        page.locator("#bt-next-board").click()
        page.wait_for_function(
            "b => { const bt = document.getElementById('bt');"
            " return bt !== null && Number(bt.dataset.board) > b; }",
            arg=board,
        )
        connected(page)
        page.goto(f"{base}/club/boards/")
        section = page.locator(".club-board").first
        assert section.locator(".club-field tbody tr").count() == 2
        assert section.locator("tr[data-mine]").count() == 1
        assert "Li Na – Zhou Yu" in section.inner_text()
        assert "Robot North" in section.inner_text()
        shot(page, "club-my-boards-en-desktop")
        page.goto(f"{base}/club/standings/{SYSTEM}/")
        assert page.locator("[data-standings] tbody tr").count() == 5  # four and Mei
        shot(page, "club-standings-en-desktop")
        page.context.close()

        phone = seat_page(browser, base, me, lang="zh-hans", size=PHONE)
        phone.goto(f"{base}/club/")
        assert "你的牌桌正在对局" in phone.locator("#club-mine").inner_text()
        no_sideways_scroll(phone)
        shot(phone, "club-lobby-zh-phone")
        phone.locator("#club-go").click()
        phone.wait_for_url("**/play/")
        connected(phone)
        assert "俱乐部牌桌" in phone.locator(".bt-title").inner_text()
        shot(phone, "club-table-zh-phone", full_page=False)
        phone.goto(f"{base}/club/boards/")
        assert "全场：2 个成绩" in phone.locator(".club-board").first.inner_text()
        no_sideways_scroll(phone)
        whole_tables(phone)
        shot(phone, "club-my-boards-zh-phone")
        phone.goto(f"{base}/club/standings/{SYSTEM}/")
        no_sideways_scroll(phone)
        whole_tables(phone)
        shot(phone, "club-standings-zh-phone")
        phone.context.close()

        # The other two looks at the pages: English on a phone, Chinese on a desktop. The
        # lobby lists Mei's table by her name.
        for lang, size, tag, host in (
            ("en", PHONE, "en-phone", "Mei's table"),
            ("zh-hans", DESKTOP, "zh-desktop", "Mei 的牌桌"),
        ):
            look = seat_page(browser, base, me, lang=lang, size=size)
            for path, name in (
                ("/club/", "lobby"),
                ("/club/boards/", "my-boards"),
                (f"/club/standings/{SYSTEM}/", "standings"),
            ):
                look.goto(f"{base}{path}")
                no_sideways_scroll(look)
                # Every tab in sight, and the field's table whole (no scrolling inside it).
                last_tab = look.locator(".club-tabs a").last.bounding_box()
                assert last_tab["x"] + last_tab["width"] <= size[0], last_tab
                whole_tables(look)
                shot(look, f"club-{name}-{tag}")
                if name == "lobby":
                    heads = look.locator(".club-table.mine .club-table-head").all_inner_texts()
                    assert any(host in head for head in heads), heads
            look.context.close()
