"""A real BBO vugraph file imported through the upload page and drawn by the broadcast
page as a finished match (RULES 12.1), in Chromium: English and Chinese, desktop and
phone, with screenshots; the refused room says why; nothing wider than a phone, nothing
the page's policy blocks."""

from __future__ import annotations

import pytest

from tests.support.browser.pw import log_in, shot
from tests.support.samples import LIN_SAMPLES
from tournaments.models import ImportedMatch

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SAMPLE = LIN_SAMPLES / "001_00100.lin"
SIZES = {"desktop": (1280, 900), "phone": (390, 844)}


@pytest.mark.skipif(not SAMPLE.exists(), reason="the real LIN files are beside the repository")
def test_a_real_match_uploaded_and_stepped_through_in_both_languages(
    director, open_page, live_server
):
    page = open_page()
    log_in(page, live_server.url, "director", "pw-director")
    page.goto(f"{live_server.url}/vugraph/import/")
    page.set_input_files("input[type=file]", str(SAMPLE))
    page.check("input[name=policy][value=lenient]")
    with page.expect_navigation():
        page.click("form[data-lin-import] button[type=submit]")
    item = ImportedMatch.objects.get()
    assert page.url.endswith(f"/vugraph/{item.pk}/")
    for lang, locale in (("en", "en-GB"), ("zh-hans", "zh-CN")):
        for size, (width, height) in SIZES.items():
            viewer = open_page(locale=locale, width=width, height=height)
            viewer.context.add_cookies(
                [{"name": "django_language", "value": lang, "url": live_server.url}]
            )
            errors: list[str] = []
            viewer.on("pageerror", lambda error, errors=errors: errors.append(str(error)))
            viewer.goto(f"{live_server.url}/vugraph/{item.pk}/")
            viewer.wait_for_selector("#bc-rooms .bc-room")
            text = viewer.inner_text("body")
            assert "Spain" in text and "France" in text
            # The match's score as the core replays it (BENCHMARKS: Spain 29 – 23 France).
            assert "29" in viewer.inner_text("#bc-score") and "23" in viewer.inner_text("#bc-score")
            # Step the first board's open room to its end: all 13 tricks counted.
            room = viewer.locator(".bc-room[data-room='open']")
            room.locator("button[data-step='last']").click()
            ns = int(room.locator(".bc-tricks").get_attribute("data-ns"))
            ew = int(room.locator(".bc-tricks").get_attribute("data-ew"))
            assert ns + ew <= 13 and ns + ew >= 10  # a claim may end it early
            # Board 12's open room, whose opening lead came from the wrong hand, says why.
            viewer.click("tr[data-board='12'] button.bc-choose")
            reason = viewer.inner_text(".bc-room[data-room='open'] .bc-refused")
            assert "H8" in reason and "W" in reason, reason  # the card, and whose turn it was
            assert viewer.locator("tr[data-board='12'] .bc-refused").count() == 1
            wide = viewer.evaluate("document.documentElement.scrollWidth")
            assert wide <= width, (lang, size, wide)
            assert errors == [], errors
            shot(viewer, f"vugraph-imported-{lang}-{size}")
            viewer.click("tr[data-board='1'] button.bc-choose")
