"""The Content-Security-Policy (config/security.py) breaks nothing: the pages, their htmx
polls, the admin and the API docs run in headless Chromium with no violation reported.
(The live table's WebSocket under the policy: tests/tournaments/online/test_table_page.py.)"""

from __future__ import annotations

import pytest

from tests.support.browser.events import make_people, running_event
from tests.support.browser.pw import log_in

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]


def watch(page, seen: list[str]) -> None:
    """Note every violation the page meets: Chromium's console error and the DOM event."""
    page.on(
        "console",
        lambda message: (
            seen.append(message.text) if "Content Security Policy" in message.text else None
        ),
    )
    page.add_init_script(
        "document.addEventListener('securitypolicyviolation', e => "
        "console.error('Content Security Policy violation: ' + e.violatedDirective"
        " + ' ' + e.blockedURI));"
    )


def test_pages_admin_and_api_docs_run_under_the_policy(
    open_page, live_server, make_tournament, make_user, organiser
):
    tournament, _round, tables = running_event(
        make_tournament, make_people(make_user, 4), n_pairs=2
    )
    base = live_server.url
    violations: list[str] = []
    page = open_page()
    watch(page, violations)
    for path in ("/", f"/t/{tournament.id}/", "/accounts/login/", "/api/v1/docs"):
        page.goto(f"{base}{path}")
        page.wait_for_load_state("networkidle")
    assert page.locator(".swagger-ui .info").count() == 1  # the docs page drew itself
    log_in(page, base, "organiser", "pw-organiser", admin=True)
    for path in ("/admin/", f"/admin/tournaments/tournament/{tournament.id}/change/"):
        page.goto(f"{base}{path}")
        page.wait_for_load_state("networkidle")
    # A player's result sheet: htmx posts and its 3-second poll.
    player = tables[0].ns_pair.player1.username
    sheet = open_page()
    watch(sheet, violations)
    log_in(sheet, base, player, f"pw-{player}")
    sheet.goto(f"{base}/t/{tournament.id}/tables/{tables[0].id}/")
    sheet.wait_for_timeout(3_500)
    assert violations == []
