"""Kibitzing in the browser (issue 24, item 9; RULES 2), served by a real uvicorn: a visitor
follows a public page's "Watch table n" to the table of a running round and watches it —
the seats' names and how far the board has come, no card face until the bell, then every
hand. When the organiser lets kibitzers watch live, the public sees the hands as they are
played; a player of the tournament still does not. English and Chinese, desktop and phone,
with screenshots."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from scoring import SEATS
from tests.support.browser.pw import shot
from tests.support.browser.table import (
    DESKTOP,
    PHONE,
    act,
    actor_of,
    connected,
    seat_page,
    table_server,
    views,
    wait_seq,
)
from tests.support.online_ws import (
    board_path,
    dealt_hands,
    open_online_round,
    robot_action,
    seated_users,
)
from tournaments.models import Round, Tournament, player_name
from tournaments.services import settings_change

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FACES = ".bt-hand [data-card]"
PROGRESS = {
    "en": ("The board is being bid.", "Trick 1 of 13 is being played."),
    "zh-hans": ("这副牌正在叫牌。", "正在打第 1 墩（共 13 墩）。"),
}
BADGE = {"en": "Kibitzing", "zh-hans": "旁观中"}


def page_path(table) -> str:
    return f"/t/{table.round.tournament_id}/rounds/1/tables/{table.number}/play/"


def play_on(table, users, actions: int) -> int:
    """Before the server is up: the seats take `actions` robot actions through the
    service. The last seq stored."""
    seq = 0
    for _ in range(actions):
        now = views(table, users)
        seat = actor_of(now)
        seq = act(table, users[seat], 1, now[seat], **robot_action(now[seat]))["next_seq"] - 1
    return seq


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


def play_live(devices: dict, table, users, actions: int) -> int:
    """While the pages watch: each seat's device (a page signed in as that player) sends
    the robot's action over the seat's own socket, so the table server tells every
    page at once. The last seq stored."""
    seq = 0
    for _ in range(actions):
        now = views(table, users)
        seat = actor_of(now)
        action = robot_action(now[seat])
        message = {**action, "type": "action", "action": action["type"]}
        answer = devices[seat].evaluate(SEND, [board_path(table, 1), message])
        assert answer == "view", (seat, action, answer)
        seq = action["seq"]
    return seq


def faces(page) -> set[str]:
    return set(page.eval_on_selector_all(FACES, "els => els.map(e => e.dataset.card)"))


def test_a_kibitzer_sees_names_and_progress_and_the_hands_only_after_the_bell(
    make_tournament, register_pairs, make_user, tmp_path
):
    first_round, tables = open_online_round(make_tournament, register_pairs, boards=2, rounds=1)
    table = tables[0]
    users = seated_users(table)
    hands = dealt_hands(table, 1)
    play_on(table, users, 2)  # in the auction
    passer_by = make_user("passer-by")
    looks = {
        "anonymous-en": (None, "en", DESKTOP),
        "anonymous-zh": (None, "zh-hans", PHONE),
        "passer-by-en": (passer_by, "en", PHONE),
    }
    with table_server(tmp_path) as (base, browser):
        pages = {}
        for name, (user, lang, size) in looks.items():
            page = seat_page(browser, base, user, lang=lang, size=size)
            # From the public seating sheet's link, as a visitor finds the table.
            page.goto(f"{base}/t/{first_round.tournament_id}/")
            page.locator(f"a.watch-link[href='{page_path(table)}']").first.click()
            page.wait_for_url(f"**{page_path(table)}")
            connected(page)
            pages[name] = page
        wait_seq(pages.values(), 1)
        for name, page in pages.items():
            _user, lang, size = looks[name]
            page.wait_for_selector("#bt-progress")
            assert PROGRESS[lang][0] in page.inner_text("#bt-progress"), name
            assert faces(page) == set(), name  # not one card face
            assert page.locator(".bt-bid, .bt-box, .bt-call").count() == 0, name
            # No call, no card back, no count of cards: nothing of the play is told.
            assert page.locator(".bt-auction-grid, .bt-card.back, .bt-hidden").count() == 0
            assert page.locator("#bt-kibitz-auction").count() == 1, name
            assert page.inner_text("#bt-watching") == BADGE[lang]
            at_table = page.inner_text("#bt-table")
            for seat in SEATS:  # the seats' names, from the page
                assert player_name(users[seat]) in at_table, (name, seat, at_table)
            shot(page, f"table-kibitz-auction-{name}-{size[0]}")
        # The auction ends and a card is led: the progress follows, still no card.
        devices = {seat: seat_page(browser, base, users[seat]) for seat in SEATS}
        for device in devices.values():
            device.goto(base + "/")
        seq = play_live(devices, table, users, 3)
        wait_seq(pages.values(), seq)
        for name, page in pages.items():
            _user, lang, size = looks[name]
            page.wait_for_function(
                "t => (document.getElementById('bt-progress') || {}).textContent?.includes(t)",
                arg=PROGRESS[lang][1],
            )
            assert faces(page) == set(), name
            assert 'data-card="' not in page.content(), name
            shot(page, f"table-kibitz-play-{name}-{size[0]}")
        # The bell: the round is closed, every hand is everyone's.
        try:
            Round.objects.filter(pk=first_round.pk).update(
                ends_at=timezone.now() + timedelta(seconds=1)
            )
        finally:
            connection.close()
        for name, page in pages.items():
            _user, lang, size = looks[name]
            page.wait_for_selector("#bt-closed", timeout=30_000)
            page.wait_for_function(f"() => document.querySelectorAll('{FACES}').length >= 48")
            shown = faces(page)
            assert shown <= set().union(*hands.values()) and len(shown) >= 48, name
            assert page.locator("#bt-progress").count() == 0, name
            assert page.locator("#bt-cut-off").count() == 1, name
            shot(page, f"table-kibitz-closed-{name}-{size[0]}")
        # A reload after the bell: the hands, and what the bell made of the board.
        page = pages["anonymous-zh"]
        page.reload()
        connected(page)
        page.wait_for_function(f"() => document.querySelectorAll('{FACES}').length >= 48")
        assert "第 1 副" in page.inner_text("#bt-cut-off")


def test_with_kibitz_live_the_public_sees_every_hand_but_a_player_does_not(
    make_tournament, register_pairs, organiser, tmp_path
):
    first_round, (table, other) = open_online_round(make_tournament, register_pairs, boards=2)
    settings_change.set_kibitz_live(
        tournament=Tournament.objects.get(pk=first_round.tournament_id),
        by=organiser,
        kibitz_live=True,
    )
    users = seated_users(table)
    hands = dealt_hands(table, 1)
    player = seated_users(other)["W"]
    looks = {
        "anonymous-en": (None, "en", DESKTOP),
        "anonymous-zh": (None, "zh-hans", PHONE),
        "player-en": (player, "en", DESKTOP),
    }
    with table_server(tmp_path) as (base, browser):
        pages = {}
        for name, (user, lang, size) in looks.items():
            pages[name] = seat_page(browser, base, user, lang=lang, size=size)
            pages[name].goto(base + page_path(table))
            connected(pages[name])
        devices = {seat: seat_page(browser, base, users[seat]) for seat in SEATS}
        for device in devices.values():
            device.goto(base + "/")
        seq = play_live(devices, table, users, 5)  # the auction, and the lead
        wait_seq(pages.values(), seq)
        for name, page in pages.items():
            _user, lang, size = looks[name]
            if name.startswith("anonymous"):
                page.wait_for_function(f"() => document.querySelectorAll('{FACES}').length >= 51")
                assert faces(page) <= set().union(*hands.values()), name
                assert page.locator("#bt-progress").count() == 0
                assert page.locator(".bt-bid, .bt-box").count() == 0
            else:
                # A player of this round never kibitzes live: the progress only.
                page.wait_for_selector("#bt-progress")
                assert faces(page) == set()
            shot(page, f"table-kibitz-live-{name}-{size[0]}")
