"""A two-winner Mitchell's results page in a real headless Chromium (RULES 10): every pair
is numbered by its movement position ("3NS", "2EW"), as the movement page and the cards
number it, on a desktop and on a phone (390×844), in English and Chinese; the number sits
whole on one line in the pinned pair column. And the console's start confirmation of a
Mitchell with a phantom: the movement's tables and who sits round 1 out. Screenshots go
to test-artifacts/screenshots/movement-labels-*.png (looked at by the author)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from tests.support.browser.pw import log_in, shot
from tests.support.two_winners import build_mitchell

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

PHONE = {"width": 390, "height": 844}
TABLES = 5
NAMES = [
    "欧阳娜娜", "诸葛孔明", "Alice Wang", "Bob Li", "司马相如", "上官婉儿", "Carol Zhang",
    "Dave Chen", "皇甫嵩", "令狐冲", "Erin Liu", "Frank Zhao", "东方不败", "慕容复",
    "Grace Sun", "Henry Wu", "Ivy Zhou", "Jack Ma", "夏侯惇", "Kate Hu",
]  # fmt: skip

NUMBERS = """() => [...document.querySelectorAll(
    'table.results-grid[data-field] tbody tr[data-pair]')].map(tr => {
    const number = tr.querySelector('td.pair-cell .regno');
    const cell = tr.querySelector('td.pair-cell').getBoundingClientRect();
    const box = number.getBoundingClientRect();
    return {
      pair: Number(tr.dataset.pair),
      field: tr.closest('table').dataset.field,
      number: number.innerText.trim(),
      oneLine: number.getClientRects().length === 1,
      inside: box.left >= cell.left - 1 && box.right <= cell.right + 1,
    };
  })"""


@pytest.fixture
def mitchell_event(make_tournament, register_pairs):
    event = build_mitchell(
        make_tournament, register_pairs, tables=TABLES, rounds=3, name="周三双冠军 Mitchell"
    )
    names = iter(NAMES)
    for pair in event.pairs:
        for user in (pair.player1, pair.player2):
            user.profile.display_name = next(names)
            user.profile.save()
    return event


def _check_numbers(page, event) -> None:
    expected = {
        p.pk: (p.field, f"{p.position}NS" if p.position <= TABLES else f"{p.position - TABLES}EW")
        for p in event.pairs
    }
    shown = page.evaluate(NUMBERS)
    assert {row["pair"]: (row["field"], row["number"]) for row in shown} == expected
    assert all(row["oneLine"] and row["inside"] for row in shown), shown


@pytest.mark.parametrize("locale", ["en-GB", "zh-CN"])
def test_the_results_page_prints_the_movements_numbers(
    open_page, live_server, mitchell_event, locale
):
    tournament = mitchell_event.tournament
    tag = "en" if locale == "en-GB" else "zh"
    url = f"{live_server.url}/t/{tournament.id}/results/"

    desktop = open_page(locale=locale)
    desktop.goto(url)
    _check_numbers(desktop, mitchell_event)
    shot(desktop, f"movement-labels-results-{tag}")

    phone = open_page(locale=locale, **PHONE)
    phone.goto(url)
    _check_numbers(phone, mitchell_event)
    assert phone.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
    shot(phone, f"movement-labels-results-phone-{tag}")

    # A pair's score card: its own number and its opponents'.
    ew = next(p for p in mitchell_event.pairs if p.position == TABLES + 2)
    phone.goto(f"{live_server.url}/t/{tournament.id}/pairs/{ew.id}/card/")
    assert phone.locator("h2 .regno").inner_text() == "2EW"
    opponents = phone.locator(".rh-opp .regno").all_inner_texts()
    assert opponents and all(n.endswith("NS") for n in opponents)
    assert phone.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
    shot(phone, f"movement-labels-score-card-phone-{tag}")


START = {
    "en-GB": ("Round 1 opens at once at the movement's 5 tables", "meets the phantom (5EW)"),
    "zh-CN": ("第 1 轮立即在移位表的 5 张桌开始", "遇到虚拟对（5EW）"),
}


@pytest.mark.parametrize("locale", ["en-GB", "zh-CN"])
def test_the_start_confirmation_of_a_mitchell_with_a_phantom(
    open_page, live_server, director, make_tournament, register_pairs, locale
):
    start = timezone.now() + timedelta(hours=1)
    tournament = make_tournament(
        name="周三 Mitchell", seating="mitchell", winners=2, rounds=5,
        start_at=start, registration_opens_at=start - timedelta(days=1),
    )  # fmt: skip
    register_pairs(tournament, 9, now=timezone.now())
    tag = "en" if locale == "en-GB" else "zh"
    url = live_server.url + reverse("console_action", args=[tournament.pk, "start"])
    for size, name in (({}, "desktop"), (PHONE, "phone")):
        page = open_page(locale=locale, **size)
        log_in(page, live_server.url, "director", "pw-director")
        page.goto(url)
        said = " ".join(page.inner_text("ul.consequences").split())
        tables, phantom = START[locale]
        assert tables in said and phantom in said, said
        assert (
            page.evaluate("() => document.documentElement.scrollWidth")
            <= page.viewport_size["width"]
        )
        shot(page, f"movement-labels-start-{name}-{tag}")
