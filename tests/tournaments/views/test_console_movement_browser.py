"""The console's movement in a real headless Chromium (RULES 10; issue 25 item 4): an
organiser creates a two-winner Mitchell from the new-tournament form (Neuberg follows the
seating), sees the movement as it stands for the pairs registered (and why there is none
while too few have), and changes the seating on its page. English and Chinese, desktop and
phone; screenshots in test-artifacts/screenshots/console-movement-*.png."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from tests.support.browser.pw import log_in, new_page, shot
from tournaments.models import Tournament
from tournaments.services.registration import register_pair

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

TEXT = {
    "en-GB": {
        "created": "Tournament created",
        "too_few": "There is no Mitchell movement for 3 pairs: it is for 5 to 60 pairs.",
        "tables": "Tables",
        "phantom": "whoever meets it sits the round out",
        "saved": "Seating saved",
        "refused": "in a Howell every pair moves",
    },
    "zh-CN": {
        "created": "比赛已创建",
        "too_few": "没有适合 3 对的米切尔移位：它适用于 5 到 60 对。",
        "tables": "桌数",
        "phantom": "遇到它的牌对本轮轮空",
        "saved": "移位方式已保存",
        "refused": "豪威尔移位中每对牌手都换方向",
    },
}


def _register(tournament: Tournament, make_user, n: int) -> None:
    now = timezone.now()
    for i in range(n):
        a, b = make_user(name=f"南{i}号"), make_user(name=f"Player {i}")
        register_pair(by=None, tournament=tournament, usernames=[a.username, b.username], now=now)


@pytest.mark.parametrize("locale", ["en-GB", "zh-CN"])
@pytest.mark.parametrize("width, height", [(1280, 900), (390, 844)])
def test_an_organiser_sets_up_a_mitchell_from_the_console(
    browser, live_server, director, make_user, locale, width, height
):
    text = TEXT[locale]
    tag = f"{'en' if locale == 'en-GB' else 'zh'}-{'phone' if width < 500 else 'desktop'}"
    page = new_page(browser, locale=locale, width=width, height=height)
    try:
        log_in(page, live_server.url, "director", "pw-director")
        page.goto(f"{live_server.url}/console/new/")
        page.fill("#id_name", f"Club Mitchell {tag}")
        start = timezone.localtime() + timedelta(hours=2)
        page.fill("#id_start_at", start.strftime("%Y-%m-%dT%H:%M"))
        page.fill("#id_rounds", "5")
        page.fill("#id_boards_per_round", "3")
        assert not page.is_checked("#id_neuberg")
        page.select_option("#id_seating", "mitchell")
        assert page.is_checked("#id_neuberg")  # on by default for a movement
        page.select_option("#id_winners", "2")
        page.locator("[data-field=seating]").scroll_into_view_if_needed()
        shot(page, f"console-movement-{tag}-1-new", full_page=False)
        page.click("form.console-form button[type=submit]")
        page.wait_for_selector(".messages")
        assert text["created"] in page.inner_text(".messages")
        tournament = Tournament.objects.get(name=f"Club Mitchell {tag}")
        assert (tournament.seating, tournament.winners, tournament.neuberg) == ("mitchell", 2, True)

        _register(tournament, make_user, 3)
        page.reload()
        assert text["too_few"] in page.inner_text("#movement")
        shot(page, f"console-movement-{tag}-2-too-few")

        _register(tournament, make_user, 6)
        page.reload()
        panel = page.inner_text("#movement")
        assert text["tables"] in panel and "5" in panel and text["phantom"] in panel
        assert page.locator(f"#movement a[href='/t/{tournament.pk}/movement/']").count() == 1
        page.locator("#movement").scroll_into_view_if_needed()
        shot(page, f"console-movement-{tag}-3-movement", full_page=False)

        page.click(f"#movement a[href='/console/{tournament.pk}/seating/']")
        page.select_option("#id_seating", "howell")
        page.click("form.console-form button[type=submit]")
        assert text["refused"] in page.inner_text(".refusal")
        shot(page, f"console-movement-{tag}-4-refused")
        page.select_option("#id_winners", "1")
        page.click("form.console-form button[type=submit]")
        page.wait_for_selector(".messages")
        assert text["saved"] in page.inner_text(".messages")
        tournament.refresh_from_db()
        assert (tournament.seating, tournament.winners) == ("howell", 1)
    finally:
        page.context.close()
