"""A movement's paper in a real headless Chromium (issue 25, item 4): the movement page, a
table guide card and a travel card in English and Chinese, on a desktop, a phone
(390×844: no sideways scrolling of the page) and on paper (print media; the guide cards
one A4 page a table); every table on the round's boards. Screenshots go to
test-artifacts/screenshots/ (looked at by the author). One page per locale and paper,
reused across viewports: the suite is slow."""

from __future__ import annotations

import re

import pytest

from tests.support.browser.pw import SCREENSHOTS, shot
from tests.support.movements import mitchell, store
from tournaments.models import Pair
from tournaments.services.registration import register_pair

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
# A4 portrait at 96 px per inch less movement.css's 12 mm margins: 186 × 273 mm.
A4_PORTRAIT = {"width": round(186 / 25.4 * 96), "height": round(273 / 25.4 * 96)}
NAMES = [
    "欧阳娜娜", "诸葛孔明", "Alice Wang", "Bob Li", "司马相如", "上官婉儿", "Carol Zhang",
    "Dave Chen", "皇甫嵩", "令狐冲", "Erin Liu", "Frank Zhao", "东方不败", "慕容复",
    "Grace Sun", "Henry Wu", "公孙胜", "Ivy Zhou", "Jack Xu", "Kate Ma", "欧阳修",
    "Leo Hu", "Mia Lin", "司徒雷登", "Nina Gao", "Oscar He",
]  # fmt: skip

NO_SIDEWAYS = """() => ({
  page: document.documentElement.scrollWidth,
  view: document.documentElement.clientWidth,
  // anything wider than the screen that is not inside a box that scrolls by itself
  wide: [...document.querySelectorAll('main *')].filter(el => {
    const r = el.getBoundingClientRect();
    return r.right > window.innerWidth + 1 && !el.closest('.table-scroll');
  }).map(el => el.tagName + '.' + el.className).slice(0, 5),
})"""

NAMES_WHOLE = """() => [...document.querySelectorAll('.pname')]
  .filter(el => el.offsetWidth > 0 && el.getClientRects().length > 1).map(el => el.innerText)"""


def on_a_phone(page, name: str) -> None:
    """The page at 390×844: a screenshot, then no sideways scrolling of the page (a wide
    grid scrolls in its own box) and no name broken across lines."""
    page.set_viewport_size(PHONE)
    shot(page, name, full_page=False)
    layout = page.evaluate(NO_SIDEWAYS)
    assert layout["page"] <= layout["view"], layout
    assert layout["wide"] == [], layout
    assert page.evaluate(NAMES_WHOLE) == []


@pytest.fixture
def mitchell_event(make_tournament, make_user):
    """A two-winner Mitchell of 7 tables for 13 pairs (7EW the phantom), round 1 started:
    the pairs hold their positions."""
    users = [make_user(f"m{i:02d}", name=name) for i, name in enumerate(NAMES)]
    movement = mitchell(7, 3, phantom=14)
    tournament = make_tournament(
        name="秋季双冠军 Autumn Mitchell",
        seating="mitchell",
        winners=2,
        rounds=7,
        boards_per_round=3,
        scoring_method="MP",
    )
    pairs = [
        register_pair(
            by=None,
            tournament=tournament,
            usernames=[users[2 * i].username, users[2 * i + 1].username],
            now=tournament.start_at.replace(hour=1),
        )
        for i in range(13)
    ]
    store(tournament, movement, pairs)
    assert Pair.objects.filter(tournament=tournament, position__isnull=False).count() == 13
    return tournament


@pytest.mark.parametrize("locale", ["en-GB", "zh-CN"])
def test_movement_paper_on_desktop_phone_and_paper(open_page, live_server, mitchell_event, locale):
    t = mitchell_event
    tag = "en" if locale == "en-GB" else "zh"
    base = f"{live_server.url}/t/{t.id}/movement"
    page = open_page(locale=locale, **DESKTOP)

    # The movement page: seven rounds of seven tables, the phantom's table a bye.
    page.goto(f"{base}/")
    assert page.locator("section.mv-round").count() == 7
    assert page.locator("section.mv-round").first.locator("tbody tr").count() == 7
    bye = page.locator("section.mv-round").first.locator("tr.mv-bye-row")
    assert bye.count() == 1
    assert ("sits out" if tag == "en" else "休息") in bye.inner_text()
    # Every table plays the round's boards (duplicated boards), and the page says so.
    for r in (1, 7):
        cells = page.locator(f"section.mv-round[data-round='{r}'] td.mv-boards")
        assert set(cells.evaluate_all("els => els.map(e => e.dataset.boards)")) == {
            f"{3 * r - 2},{3 * r - 1},{3 * r}"
        }
    assert page.is_visible("p.mv-same-boards")
    if tag == "zh":
        assert "移位表" in page.locator("h2#mv-title").inner_text()
        assert "第 1 轮" in page.locator("section.mv-round h3").first.inner_text()
    assert page.locator("section.mv-balance table").count() == 2  # NS and EW
    shot(page, f"mv-page-desktop-{tag}")
    on_a_phone(page, f"mv-page-phone-{tag}")
    page.locator("section.mv-balance").scroll_into_view_if_needed()
    shot(page, f"mv-page-phone-{tag}-balance", full_page=False)
    page.set_viewport_size(A4_PORTRAIT)
    page.emulate_media(media="print")
    assert not page.is_visible(".site-header") and not page.is_visible(".mv-links")
    shot(page, f"mv-page-print-{tag}")
    page.emulate_media(media="screen")

    # Every table's guide card: on paper one A4 page each.
    page.set_viewport_size(DESKTOP)
    page.goto(f"{base}/tables/")
    assert page.locator("section.mv-table-card").count() == 7
    page.locator("section.mv-table-card").nth(2).screenshot(
        path=str(SCREENSHOTS / f"mv-table-card-desktop-{tag}.png")
    )
    on_a_phone(page, f"mv-table-card-phone-{tag}")
    page.set_viewport_size(A4_PORTRAIT)
    page.emulate_media(media="print")
    shot(page, f"mv-table-cards-print-{tag}")
    pdf = page.pdf(format="A4")
    (SCREENSHOTS / f"mv-table-cards-{tag}.pdf").write_bytes(pdf)
    assert len(re.findall(rb"/Type\s*/Page[^s]", pdf)) == 7  # one page a table
    page.emulate_media(media="screen")

    # A pair's travel card: 3NS, whose round-4 opponents would be the phantom (a bye).
    page.set_viewport_size(DESKTOP)
    page.goto(f"{base}/pairs/3/")
    card = page.locator("section.mv-travel-card")
    assert card.count() == 1 and card.locator("tbody tr").count() == 7
    assert card.locator("tr.mv-bye-row").count() == 1
    card.screenshot(path=str(SCREENSHOTS / f"mv-travel-card-desktop-{tag}.png"))
    on_a_phone(page, f"mv-travel-card-phone-{tag}")
    page.set_viewport_size(A4_PORTRAIT)
    page.emulate_media(media="print")
    shot(page, f"mv-travel-card-print-{tag}")
