"""The two-winner results page in a real headless Chromium (RULES 10): the North-South and
the East-West lists, each headed and ranked on its own, on a desktop, on a phone (390×844,
the grid scrolling sideways under a fixed pair column) and in print; English and Chinese.
Screenshots go to test-artifacts/screenshots/ (looked at by the author)."""

from __future__ import annotations

import pytest

from tests.support.browser.pw import shot
from tests.support.two_winners import build_mitchell
from tournaments.models import Pair

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

PHONE = {"width": 390, "height": 844}
NAMES = [
    "欧阳娜娜", "诸葛孔明", "Alice Wang", "Bob Li", "司马相如", "上官婉儿", "Carol Zhang",
    "Dave Chen", "皇甫嵩", "令狐冲", "Erin Liu", "Frank Zhao", "东方不败", "慕容复",
    "Grace Sun", "Henry Wu", "Ivy Zhou", "Jack Ma", "夏侯惇", "Kate Hu",
]  # fmt: skip
HEADINGS = {"en": ["North-South", "East-West"], "zh": ["南北", "东西"]}

LISTS = """() => [...document.querySelectorAll('table.results-grid[data-field]')].map(t => ({
  field: t.dataset.field,
  visible: t.offsetWidth > 0,
  heading: document.getElementById('field-' + t.dataset.field).innerText.trim(),
  headingVisible: document.getElementById('field-' + t.dataset.field).offsetWidth > 0,
  headingAbove: document.getElementById('field-' + t.dataset.field).getBoundingClientRect().bottom
    <= t.getBoundingClientRect().top + 1,
  ranks: [...t.querySelectorAll('tbody tr td.rank')].map(td => td.innerText.trim()),
  pairs: [...t.querySelectorAll('tbody tr[data-pair]')].map(tr => Number(tr.dataset.pair)),
}))"""


@pytest.fixture
def two_winner_event(make_tournament, register_pairs):
    event = build_mitchell(
        make_tournament, register_pairs, tables=5, rounds=3, name="周三双冠军 Mitchell"
    )
    names = iter(NAMES)
    for pair in event.pairs:
        for user in (pair.player1, pair.player2):
            user.profile.display_name = next(names)
            user.profile.save()
    return event


def _check_lists(page, tournament, tag: str) -> None:
    lists = page.evaluate(LISTS)
    assert [(x["field"], x["heading"]) for x in lists] == list(
        zip(["NS", "EW"], HEADINGS[tag], strict=True)
    )
    for x in lists:
        assert x["visible"] and x["headingVisible"] and x["headingAbove"]
        fields = set(
            Pair.objects.filter(tournament=tournament, pk__in=x["pairs"]).values_list(
                "field", flat=True
            )
        )
        assert fields == {x["field"]} and len(x["pairs"]) == 5
        ranked = [r.rstrip("=") for r in x["ranks"] if r != "—"]
        assert ranked == [str(n) for n in range(1, len(ranked) + 1)]


@pytest.mark.parametrize("locale", ["en-GB", "zh-CN"])
def test_two_winner_results_on_desktop_phone_and_paper(
    open_page, live_server, two_winner_event, locale
):
    tournament = two_winner_event.tournament
    tag = "en" if locale == "en-GB" else "zh"
    url = f"{live_server.url}/t/{tournament.id}/results/"

    desktop = open_page(locale=locale)
    desktop.goto(url)
    _check_lists(desktop, tournament, tag)
    shot(desktop, f"two-winners-results-{tag}")

    phone = open_page(locale=locale, **PHONE)
    phone.goto(url)
    _check_lists(phone, tournament, tag)
    # Nothing but the grids wider than the phone: the page itself does not scroll sideways.
    assert phone.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
    shot(phone, f"two-winners-results-phone-{tag}")

    phone.emulate_media(media="print")
    _check_lists(phone, tournament, tag)
    assert not phone.is_visible(".site-header") and not phone.is_visible("form")
    shot(phone, f"two-winners-results-print-{tag}")
    desktop.emulate_media(media="print")
    shot(desktop, f"two-winners-results-print-desktop-{tag}")

    # The tournament page's final standings: the same two lists, without the grid.
    phone.emulate_media(media="screen")
    phone.goto(f"{live_server.url}/t/{tournament.id}/")
    headings = phone.locator("#live h3.field-title")
    assert [h.split()[0] for h in headings.all_inner_texts()] == HEADINGS[tag]
    assert phone.locator("#live table.standings[data-field]").count() == 2
    assert phone.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
    shot(phone, f"two-winners-standings-phone-{tag}")
