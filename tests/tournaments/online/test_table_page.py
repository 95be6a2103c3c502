"""The table in the browser (issue 17, point 1): four Chromium contexts sit down at one
table of an online tournament served by a real uvicorn (`make run`'s ASGI app, the clock
inside), bid and play board 1 to a claim the opponents accept, go on to board 2 and hear
the bell. Meanwhile a player of another table and an anonymous visitor see no hand of the
board, in the page or on the wire; every frame a seat receives holds only what it may
see; a page reloaded mid-trick comes back the same; the bidding box offers exactly the
legal calls. English and Chinese, desktop and 390 px, with screenshots."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.db import connection
from django.db.models import Q
from django.utils import timezone

from scoring import SEATS, partner_of, side_of
from tests.support.browser.pw import chromium, shot
from tests.support.online_ws import (
    allowed_cards,
    cards_in,
    dealt_hands,
    open_online_round,
    seated_users,
    session_cookie,
)
from tests.support.servers import free_port, stop, wait_for_server_sessions
from tests.support.uvicorn import EMBEDDED, start_server, wait_until_listening
from tournaments.models import BoardResult, Round, Table
from tournaments.services import table_play

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Each seat a different look: N English desktop, E Chinese desktop, S English phone,
# W Chinese phone.
LOOKS = {"N": ("en", 1280), "E": ("zh-hans", 1280), "S": ("en", 390), "W": ("zh-hans", 390)}
# The auction: the first caller opens 1C (alerted), then X, XX and three passes.
AUCTION = [("1C", "could be short"), ("X", ""), ("XX", "")]
WAIT = 15_000
NAVIGATION = 30_000  # a page load on a loaded machine (tests/support/browser/table.py)
RECONNECTING = "() => document.getElementById('bt').dataset.state === 'reconnecting'"


def ring_soon(round_id: int) -> None:
    """The round ends in a second; the clock inside the server closes it."""
    try:
        Round.objects.filter(pk=round_id).update(ends_at=timezone.now() + timedelta(seconds=1))
    finally:
        connection.close()


def open_context(browser, base: str, *, user=None, lang: str = "en", width: int = 1280):
    context = browser.new_context(
        locale="zh-CN" if lang == "zh-hans" else "en-GB",
        viewport={"width": width, "height": 900 if width > 500 else 844},
        has_touch=width < 500,  # the phones are played by touch
    )
    context.set_default_timeout(WAIT)
    context.set_default_navigation_timeout(NAVIGATION)
    cookies = [{"name": "django_language", "value": lang, "url": base}]
    if user is not None:
        name, value = session_cookie(user).split("=", 1)
        cookies.append({"name": name, "value": value, "url": base})
    context.add_cookies(cookies)
    page = context.new_page()
    frames: list[dict] = []

    def on_socket(ws):
        ws.on("framereceived", lambda payload: frames.append(json.loads(payload)))

    page.on("websocket", on_socket)
    return page, frames


def wait_seq(pages, seq: int, board: int = 1) -> None:
    for page in pages:
        page.wait_for_function(
            "([s, b]) => { const bt = document.getElementById('bt');"
            " return Number(bt.dataset.seq) >= s && Number(bt.dataset.board) === b; }",
            arg=[seq, board],
            timeout=WAIT,
        )


def views(table, users, board: int = 1) -> dict[str, dict]:
    return {
        seat: table_play.board_view(table=table, board_number=board, user=user)
        for seat, user in users.items()
    }


def offered(page, selector: str, attribute: str) -> list[str]:
    return page.eval_on_selector_all(selector, f"els => els.map(e => e.dataset.{attribute})")


def socket_as(page, path: str) -> dict:
    """Open the table server's socket from this page (its cookies, its origin): what
    came back and the close code."""
    return page.evaluate(
        """path => new Promise(resolve => {
            const got = [];
            const ws = new WebSocket(`ws://${location.host}${path}`);
            ws.onmessage = e => got.push(JSON.parse(e.data));
            ws.onclose = e => resolve({messages: got, code: e.code});
            setTimeout(() => resolve({messages: got, code: null}), 8000);
        })""",
        path,
    )


def outsiders_see_nothing(outsiders, url: str, table: Table) -> None:
    """A player of another table and an anonymous visitor: a kibitzer's page (its own
    socket, the progress only), not the seats' socket, no card."""
    for who, (page, frames) in outsiders.items():
        response = page.goto(url)
        assert response.status == 200, (who, response.status)
        config = page.evaluate("() => JSON.parse(document.getElementById('bt-config').textContent)")
        assert config["kibitz"] is True and config["seat"] is None, who
        page.wait_for_selector("#bt-progress")
        assert page.locator("[data-card]").count() == 0
        answer = socket_as(page, f"/ws/tables/{table.pk}/boards/1/")
        assert answer["code"] == 4403, (who, answer)
        assert all(not cards_in(m) for m in answer["messages"]), (who, answer)
        assert all(not cards_in(m) for m in frames), who


def check_frames(frames_of, hands) -> None:
    """Every view a seat's page received holds only what that seat may see then."""
    for seat, frames in frames_of.items():
        assert frames, seat
        for message in frames:
            view = message.get("view")
            if view is None or message.get("board") not in (None, 1):
                continue
            # Once over at the table (13 tricks or an accepted claim), all four are shown.
            allowed = (
                set().union(*hands.values()) if view["over"] else allowed_cards(seat, view, hands)
            )
            if view.get("claim"):  # Law 68: the claimer faces his cards while it waits
                allowed |= hands[view["claim"]["seat"]]
            assert cards_in(message) <= allowed, (seat, message)


def press(page, seat: str, selector: str) -> None:
    """Act as the seat's player would: North with the mouse, East with the keyboard
    (focus, Enter), South and West (the phones) by touch."""
    target = page.locator(selector).first
    if seat == "E":
        target.focus()
        page.keyboard.press("Enter")
    elif LOOKS[seat][1] < 500:
        target.tap()
    else:
        target.click()


def state_text(page) -> dict[str, str]:
    return {
        part: page.inner_text(part)
        for part in ("#bt-pos-bottom", "#bt-pos-top", "#bt-centre", "#bt-auction")
    }


def test_four_seats_play_a_board_claim_and_hear_the_bell(make_tournament, register_pairs, tmp_path):
    first_round, tables = open_online_round(
        make_tournament, register_pairs, pairs=4, boards=2, rounds=2
    )
    table, other_table = tables
    tournament_id = first_round.tournament_id
    users = seated_users(table)
    other_player = seated_users(other_table)["N"]
    hands = dealt_hands(table, 1)
    url = f"/t/{tournament_id}/tables/{table.pk}/play/"
    port, log_path = free_port(), tmp_path / "server.log"
    server = start_server(port=port, log=log_path.open("w"), **EMBEDDED)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_listening(port, server, log_path)
        with chromium() as browser:
            # Playwright's sync API runs the test in a greenlet, where Django keeps a
            # connection of its own: closed here, or the test database stays busy.
            try:
                seats = {}
                for seat in SEATS:
                    lang, width = LOOKS[seat]
                    seats[seat] = open_context(
                        browser, base, user=users[seat], lang=lang, width=width
                    )
                pages = {seat: page for seat, (page, _frames) in seats.items()}
                for page in pages.values():
                    page.goto(base + url)
                wait_seq(pages.values(), 0)
                outsiders = {
                    "other table": open_context(browser, base, user=other_player),
                    "anonymous": open_context(browser, base, lang="zh-hans", width=390),
                }
                outsiders = {who: (page, frames) for who, (page, frames) in outsiders.items()}
                for page, _frames in outsiders.values():
                    page.goto(base + "/")  # the origin the sockets below are opened from
                for seat, page in pages.items():
                    lang, width = LOOKS[seat]
                    shot(page, f"table-{seat}-{lang}-{width}-start")

                seq = 0
                calls = 0
                # The auction: the bidding box offers the legal calls, no more, no fewer.
                while True:
                    now = views(table, users)
                    if now["N"]["contract"] is not None or now["N"]["over"]:
                        break
                    actor = next(seat for seat in SEATS if now[seat]["legal"])
                    page = pages[actor]
                    box = offered(page, "#bt-controls .bt-bid[data-call]", "call")
                    assert sorted(box) == sorted(now[actor]["legal"]), (actor, box)
                    for seat in SEATS:  # nobody else is offered a call
                        if seat != actor:
                            assert pages[seat].locator(".bt-bid[data-call]").count() == 0, seat
                    call, alert = AUCTION[calls] if calls < len(AUCTION) else ("P", "")
                    if alert:
                        page.fill("#bt-alert", alert)
                    if calls == 0:
                        lang, width = LOOKS[actor]
                        shot(page, f"table-{actor}-{lang}-{width}-bidding-box")
                    press(page, actor, f"#bt-controls .bt-bid[data-call='{call}']")
                    calls += 1
                    seq += 1
                    wait_seq(pages.values(), seq)
                opener = now["N"]["auction"][0]["seat"]
                declarer = now["N"]["declarer"]
                assert now["N"]["contract"] == "1CXX" and declarer == opener
                # The alert: shown to the opponents and to its author, never to partner.
                for seat, page in pages.items():
                    sees = "could be short" in page.inner_text("#bt-auction")
                    assert sees == (seat == opener or side_of(seat) != side_of(opener)), seat

                # The play: a card per click, from the seat on turn (declarer plays dummy's).
                dummy = partner_of(declarer)
                reloaded = False
                while True:
                    now = views(table, users)
                    played = len(now["N"]["play"])
                    if played == 12:
                        break
                    actor = next(seat for seat in SEATS if now[seat]["legal"])
                    page = pages[actor]
                    playable = offered(page, "button.bt-card.playable", "card")
                    assert sorted(playable) == sorted(now[actor]["legal"]), (actor, playable)
                    # Declarer's own cards, or dummy's (drawn at the top) when dummy plays.
                    hand = "#bt-pos-top" if now[actor]["turn"] == dummy else "#bt-pos-bottom"
                    press(page, actor, f"{hand} button.bt-card.playable")
                    seq += 1
                    wait_seq(pages.values(), seq)
                    if played + 1 == 6 and not reloaded:
                        # Mid-trick: every page shows the trick; one reloads and is back.
                        for seat, page in pages.items():
                            lang, width = LOOKS[seat]
                            shot(page, f"table-{seat}-{lang}-{width}-mid-trick")
                        before = state_text(pages["S"])
                        pages["S"].reload()
                        wait_seq([pages["S"]], seq)
                        assert state_text(pages["S"]) == before
                        assert pages["S"].locator(".bt-played").count() == 2
                        outsiders_see_nothing(outsiders, base + url, table)
                        reloaded = True
                    if played + 1 == 9:
                        # The connection is lost: the server goes away, a card is played
                        # meanwhile (stored by the service, as another server process
                        # would), the server comes back; every page reconnects by itself
                        # and resumes where the table is.
                        stop(server)
                        for page in pages.values():
                            page.wait_for_function(RECONNECTING)
                        now = views(table, users)
                        actor = next(seat for seat in SEATS if now[seat]["legal"])
                        table_play.act(
                            table=table,
                            board_number=1,
                            user=users[actor],
                            action={"seq": seq + 1, "type": "card", "card": now[actor]["legal"][0]},
                        )
                        seq += 1
                        server = start_server(port=port, log=log_path.open("a"), **EMBEDDED)
                        wait_until_listening(port, server, log_path)
                        wait_seq(pages.values(), seq)
                        for page in pages.values():
                            assert page.locator("#bt").get_attribute("data-state") == "connected"
                            assert page.locator(".bt-played").count() == 2  # trick 3: 2 cards

                # Last trick on request (the L key), then the claim and its answers.
                pages["N"].keyboard.press("l")
                assert pages["N"].locator("#bt-trick.last .bt-played").count() == 4
                pages["N"].keyboard.press("l")
                claimer = pages[declarer]
                claimer.click("[data-key=claim]")
                claimer.fill("#bt-claim-tricks", "10")
                lang, width = LOOKS[declarer]
                shot(claimer, f"table-{declarer}-{lang}-{width}-claim-dialog")
                claimer.click("[data-key=claim-send]")
                seq += 1
                wait_seq(pages.values(), seq)
                opponents = [seat for seat in SEATS if side_of(seat) != side_of(declarer)]
                for seat in opponents:
                    assert pages[seat].locator("[data-key=accept]").count() == 1, seat
                for seat in (declarer, dummy):
                    assert pages[seat].locator("[data-key=accept]").count() == 0, seat
                lang, width = LOOKS[opponents[0]]
                shot(pages[opponents[0]], f"table-{opponents[0]}-{lang}-{width}-claim-answer")
                for seat in opponents:
                    pages[seat].click("[data-key=accept]")
                    seq += 1
                    wait_seq(pages.values(), seq)

                # The board is over: its score and the four hands as dealt, on every page.
                result = BoardResult.objects.get(table=table, board__number=1)
                assert result.played_online
                for seat, page in pages.items():
                    page.wait_for_selector("#bt-result")
                    assert page.get_attribute("[data-ns-score]", "data-ns-score") == str(
                        result.ns_score
                    )
                    shown = set(offered(page, ".bt-hand [data-card]", "card"))
                    assert shown == set().union(*hands.values()), seat
                    lang, width = LOOKS[seat]
                    shot(page, f"table-{seat}-{lang}-{width}-board-over")
                check_frames({seat: frames for seat, (_p, frames) in seats.items()}, hands)
                # Over at the table, but the round is open: still nothing for outsiders.
                outsiders_see_nothing(outsiders, base + url, table)

                # The next board follows.
                for page in pages.values():
                    page.click("#bt-next-board")
                wait_seq(pages.values(), 0, board=2)
                assert "2" in pages["N"].inner_text(".bt-board-info")

                # The bell: every page says the round closed and leads to the next table.
                ring_soon(first_round.pk)
                for seat, page in pages.items():
                    page.wait_for_selector("#bt-closed", timeout=30_000)
                    pair = table.ns_pair_id if side_of(seat) == "NS" else table.ew_pair_id
                    next_table = Table.objects.get(
                        Q(ns_pair_id=pair) | Q(ew_pair_id=pair),
                        round__tournament_id=tournament_id,
                        round__number=2,
                    )
                    href = page.get_attribute("#bt-next-table", "href")
                    assert href == f"/t/{tournament_id}/tables/{next_table.pk}/play/", (seat, href)
                    lang, width = LOOKS[seat]
                    shot(page, f"table-{seat}-{lang}-{width}-round-closed")
                # Once closed, the record is public: the anonymous visitor sees the hands.
                anonymous, _frames = outsiders["anonymous"]
                anonymous.goto(base + url)
                anonymous.wait_for_function(
                    "() => document.querySelectorAll('.bt-hand [data-card]').length === 52"
                )
                shot(anonymous, "table-anonymous-zh-hans-390-after-close")
            finally:
                connection.close()
    finally:
        stop(server)
        wait_for_server_sessions()


# -- the page without a browser: who may open it, its links, its words ----------------


def test_the_page_opens_for_the_table_and_for_kibitzers_before_the_close(
    make_tournament, register_pairs, director, client
):
    first_round, tables = open_online_round(make_tournament, register_pairs, boards=2)
    table, other_table = tables
    url = f"/t/{first_round.tournament_id}/rounds/1/tables/{table.number}/play/"
    # Anyone else kibitzes (tests/tournaments/online/test_kibitz_page.py says more).
    for visitor in (None, seated_users(other_table)["E"]):
        if visitor is not None:
            client.force_login(visitor)
        answer = client.get(url)
        assert answer.status_code == 200 and answer.context["config"]["kibitz"] is True
    client.force_login(seated_users(table)["W"])
    page = client.get(url)
    assert page.status_code == 200
    config = page.context["config"]
    assert config["seat"] == "W" and config["boards"] == [1, 2] and config["current"] == 1
    # The page itself carries no card: they come over the socket, per seat.
    assert not cards_in(config) and not cards_in(page.content.decode().split())
    # The tournament page and the home page lead a seated player here.
    assert url in client.get(f"/t/{first_round.tournament_id}/").content.decode()
    assert url in client.get("/").content.decode()
    # An organiser watches (no seat: every hand comes over the socket, live).
    client.force_login(director)
    watching = client.get(url)
    assert watching.status_code == 200 and watching.context["config"]["seat"] is None


def test_a_played_elsewhere_tournament_has_no_table_page(make_tournament, register_pairs, client):
    tournament = make_tournament()
    pairs = register_pairs(tournament, 4)
    from tournaments.services import clock

    clock.advance(now=tournament.start_at)
    table = Table.objects.filter(round__tournament=tournament).first()
    client.force_login(pairs[0].player1)
    assert client.get(f"/t/{tournament.pk}/rounds/1/tables/{table.number}/play/").status_code == 404
    assert f"/tables/{table.pk}/play/" not in client.get(f"/t/{tournament.pk}/").content.decode()


@pytest.mark.parametrize("language", ["zh-hans"])
def test_every_word_of_the_table_has_a_translation(language):
    from django.utils import translation

    from tournaments.views.play import _strings

    english = _strings()
    with translation.override(language):
        translated = _strings()
    same = {key for key in english if english[key] == translated[key]}
    assert same <= {"NT", "double_short", "redouble_short"}, same
