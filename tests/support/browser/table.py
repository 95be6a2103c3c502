"""The live table in Chromium, as the table page tests drive it: a real uvicorn serving
`make run`'s application (the round clock inside), pages logged in as the seats, waits
on what the page shows (`#bt`'s data: board, seq, phase), and a robot that plays the
seats no browser holds through the service."""

from __future__ import annotations

import json
from contextlib import contextmanager

from django.db import connection

from scoring import SEATS
from tests.support.browser.pw import chromium
from tests.support.online_ws import session_cookie
from tests.support.servers import free_port, stop, wait_for_server_sessions
from tests.support.uvicorn import EMBEDDED, start_server, wait_until_listening
from tournaments.models import Table
from tournaments.services import table_play

WAIT = 15_000
# A page load asks the server for the page, its scripts and styles while the other workers'
# servers and browsers share the two cores: on a loaded machine that took over 15 s.
NAVIGATION = 30_000
PHONE = (390, 844)
DESKTOP = (1280, 900)


@contextmanager
def table_server(tmp_path):
    """(base URL, browser): the site served by uvicorn as `make run` serves it, and one
    headless Chromium. Django's own connection is closed on the way out (the test runs
    in Playwright's greenlet, and an open connection keeps the test database busy)."""
    port, log_path = free_port(), tmp_path / "server.log"
    server = start_server(port=port, log=log_path.open("w"), **EMBEDDED)
    try:
        wait_until_listening(port, server, log_path)
        with chromium() as browser:
            try:
                yield f"http://127.0.0.1:{port}", browser
            finally:
                connection.close()
    finally:
        stop(server)
        wait_for_server_sessions()


def seat_page(browser, base: str, user=None, *, lang: str = "en", size=DESKTOP, frames=None):
    """A page logged in as `user` (None: anonymous), in `lang`, at `size`; the socket's
    frames received are appended to `frames` if given."""
    width, height = size
    context = browser.new_context(
        locale="zh-CN" if lang == "zh-hans" else "en-GB",
        viewport={"width": width, "height": height},
        has_touch=width < 500,
    )
    context.set_default_timeout(WAIT)
    context.set_default_navigation_timeout(NAVIGATION)
    cookies = [{"name": "django_language", "value": lang, "url": base}]
    if user is not None:
        name, value = session_cookie(user).split("=", 1)
        cookies.append({"name": name, "value": value, "url": base})
    context.add_cookies(cookies)
    page = context.new_page()
    if frames is not None:
        page.on(
            "websocket",
            lambda ws: ws.on("framereceived", lambda payload: frames.append(json.loads(payload))),
        )
    return page


def play_url(table: Table) -> str:
    """The table's address (by round and table number: the old one by id is a redirect)."""
    return f"/t/{table.round.tournament_id}/rounds/{table.round.number}/tables/{table.number}/play/"


def wait_seq(pages, seq: int, board: int = 1) -> None:
    """Every page shows action `seq` of `board` (or later)."""
    for page in pages:
        page.wait_for_function(
            "([s, b]) => { const bt = document.getElementById('bt');"
            " return Number(bt.dataset.seq) >= s && Number(bt.dataset.board) === b; }",
            arg=[seq, board],
            timeout=WAIT,
        )


def connected(page) -> None:
    page.wait_for_function("() => document.getElementById('bt').dataset.state === 'connected'")


def armed(page) -> None:
    """The controls drawn last take clicks (they wait a moment after they appear)."""
    page.wait_for_function("() => document.getElementById('bt').dataset.armed !== 'false'")


def views(table: Table, users: dict, board: int = 1) -> dict[str, dict]:
    return {
        seat: table_play.board_view(table=table, board_number=board, user=user)
        for seat, user in users.items()
    }


def actor_of(now: dict[str, dict]) -> str | None:
    return next((seat for seat in SEATS if now[seat]["legal"]), None)


def act(table: Table, user, board: int, view: dict, **action) -> dict:
    """One action stored through the service, as another seat's device would send it."""
    return table_play.act(
        table=table, board_number=board, user=user, action={"seq": view["next_seq"], **action}
    )


def offered(page, selector: str, attribute: str) -> list[str]:
    return page.eval_on_selector_all(selector, f"els => els.map(e => e.dataset.{attribute})")


def off_screen(page, selector: str) -> list[str]:
    """The elements matching `selector` that are NOT wholly on screen as the page stands
    (no scrolling): their data-key, empty when every one is reachable."""
    return page.eval_on_selector_all(
        selector,
        """els => els.filter(e => { const r = e.getBoundingClientRect();
            return r.top < 0 || r.left < 0 || r.bottom > innerHeight || r.right > innerWidth
                || r.width === 0; }).map(e => e.dataset.key || e.dataset.card || e.id)""",
    )
