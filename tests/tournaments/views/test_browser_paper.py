"""Results on a phone and on paper, in a real headless Chromium (issue 15, points 2–5):
a player's score card, the results grid at 390 px wide with every board column
reachable and the pair column always in view, the grid in print emulation on A4
landscape (column groups each repeating the pair column), travellers, hand records and
the printable seating list; English and Chinese. Screenshots go to
test-artifacts/screenshots/ (looked at by the author before calling a page done)."""

from __future__ import annotations

import re

import pytest

from tests.support.browser.events import fill_round, running_event
from tests.support.browser.pw import SCREENSHOTS, log_in, shot
from tournaments.models import Pair, Round
from tournaments.services.clock import advance

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

PHONE = {"width": 390, "height": 844}
# A4 landscape at 96 px per inch less the print stylesheet's 10 mm margins: 277 × 190 mm.
A4_LANDSCAPE_PRINTABLE_PX = round(277 / 25.4 * 96)
NAMES = [
    "欧阳娜娜", "诸葛孔明", "Alice Wang", "Bob Li", "司马相如", "上官婉儿", "Carol Zhang",
    "Dave Chen", "皇甫嵩", "令狐冲", "Erin Liu", "Frank Zhao", "东方不败", "慕容复",
    "Grace Sun", "Henry Wu",
]  # fmt: skip
ROUNDS, BOARDS = 5, 4  # 20 boards: wider than a phone and than one A4 page


@pytest.fixture
def finished_event(make_tournament, make_user):
    users = [make_user(f"p{i:02d}", name=name) for i, name in enumerate(NAMES)]
    tournament, _round1, _tables = running_event(
        make_tournament,
        users,
        n_pairs=len(users) // 2,
        name="秋季瑞士 Autumn Swiss",
        rounds=ROUNDS,
        boards_per_round=BOARDS,
        scoring_method="MP",
    )
    for number in range(1, ROUNDS + 1):
        round = Round.objects.get(tournament=tournament, number=number)
        if round.status != "open":
            advance(now=round.starts_at)
        fill_round(round, seed=number, skip_every=4 if number == 1 else 0)
        advance(now=round.ends_at)
    tournament.refresh_from_db()
    assert tournament.status == "finished"
    return tournament


GRID_CHECK = """() => {
  // Scroll each board column into view as a thumb would and check it lands beside the
  // sticky pair column, inside the scroll box, with the pair column still in view.
  const box = document.querySelector('[data-scroll-cue]');
  const boxRect = box.getBoundingClientRect();
  const failures = [];
  const heads = [...box.querySelectorAll('thead th.board-col')];
  const sticky = box.querySelector('tbody tr td.c2');
  for (const th of heads) {
    // Scroll until the column's left edge meets the pair column (as far as it goes).
    box.scrollLeft = 0;
    box.scrollLeft = th.getBoundingClientRect().left - sticky.getBoundingClientRect().right;
    const pair = sticky.getBoundingClientRect();
    const r = th.getBoundingClientRect();
    const at = [r.left, r.right, pair.right, boxRect.right].map(Math.round).join(' ');
    if (pair.left < boxRect.left - 1 || pair.right > boxRect.right) {
      failures.push('pair hidden at board ' + th.innerText);
    }
    if (r.left < pair.right - 1 || r.right > boxRect.right + 1) {
      failures.push('board ' + th.innerText + ' not reachable: ' + at);
    }
  }
  box.scrollLeft = box.scrollWidth;
  const last = heads[heads.length - 1].getBoundingClientRect();
  return {boards: heads.map(h => h.innerText.trim()), failures,
          lastVisible: last.right <= boxRect.right + 1,
          overflow: box.scrollWidth > box.clientWidth};
}"""

NAMES_WHOLE = """() => {
  // A name is laid out on one line: never broken mid-name.
  const broken = [];
  for (const el of document.querySelectorAll('.pname')) {
    if (el.getClientRects().length > 1) broken.push(el.innerText);
  }
  return broken;
}"""


@pytest.mark.parametrize("locale", ["en-GB", "zh-CN"])
def test_results_grid_on_a_phone(open_page, live_server, finished_event, locale):
    t = finished_event
    page = open_page(locale=locale, **PHONE)
    page.goto(f"{live_server.url}/t/{t.id}/results/")
    tag = "en" if locale == "en-GB" else "zh"
    hint = page.locator("[data-scroll-hint]").first
    assert hint.is_visible()  # the grid says that it scrolls sideways
    if tag == "zh":
        assert "左右滑动" in hint.inner_text()
    assert "more-right" in (page.locator("[data-scroll-cue]").first.get_attribute("class") or "")
    shot(page, f"p3-results-phone-{tag}", full_page=False)
    result = page.evaluate(GRID_CHECK)
    assert result["overflow"]
    assert result["boards"] == [str(n) for n in range(1, ROUNDS * BOARDS + 1)]
    assert result["failures"] == [], "\n".join(result["failures"])
    assert result["lastVisible"]
    assert page.evaluate(NAMES_WHOLE) == []
    shot(page, f"p3-results-phone-{tag}-scrolled", full_page=False)


@pytest.mark.parametrize("locale", ["en-GB", "zh-CN"])
def test_results_grid_in_print_on_a4_landscape(open_page, live_server, finished_event, locale):
    t = finished_event
    tag = "en" if locale == "en-GB" else "zh"
    page = open_page(locale=locale, width=A4_LANDSCAPE_PRINTABLE_PX, height=718)
    page.goto(f"{live_server.url}/t/{t.id}/results/")
    page.emulate_media(media="print")
    assert not page.is_visible(".site-header") and not page.is_visible(".tabs")
    assert not page.is_visible(".pager") and not page.is_visible("form")
    assert not page.is_visible(".print-split") and page.is_visible(".print-grids")
    grids = page.evaluate(
        """() => [...document.querySelectorAll('.print-grid')].map(g => ({
            width: g.getBoundingClientRect().width,
            boards: [...g.querySelectorAll('thead th.board-col')].map(th => th.innerText.trim()),
            pairs: [...g.querySelectorAll('tbody td.c2')].filter(td => td.offsetWidth > 0).length,
            rows: g.querySelectorAll('tbody tr').length,
        }))"""
    )
    pairs = Pair.objects.filter(tournament=t, status="confirmed").count()
    # Every board once, in page-wide groups, each repeating the pair column for every pair.
    assert [b for g in grids for b in g["boards"]] == [str(n) for n in range(1, 21)]
    assert [len(g["boards"]) for g in grids] == [16, 4]
    for g in grids:
        assert g["width"] <= A4_LANDSCAPE_PRINTABLE_PX + 1
        assert g["pairs"] == g["rows"] == pairs
    assert page.evaluate(NAMES_WHOLE) == []
    shot(page, f"p3-results-print-{tag}")
    pdf = page.pdf(format="A4", landscape=True)
    (SCREENSHOTS / f"p3-results-print-{tag}.pdf").write_bytes(pdf)
    pages = re.findall(rb"/Type\s*/Page[^s]", pdf)
    assert len(pages) >= 2  # one column group a page at least
    box = re.search(rb"/MediaBox\s*\[\s*0 0 ([\d.]+) ([\d.]+)\s*\]", pdf)
    assert box and float(box[1]) > float(box[2])  # landscape
    assert abs(float(box[1]) - 841.9) < 1 and abs(float(box[2]) - 595.3) < 1  # A4


@pytest.mark.parametrize("locale", ["en-GB", "zh-CN"])
def test_a_players_score_card(open_page, live_server, finished_event, locale):
    t = finished_event
    tag = "en" if locale == "en-GB" else "zh"
    pair = Pair.objects.get(tournament=t, registration_no=1)
    base = live_server.url
    page = open_page(locale=locale)
    log_in(page, base, pair.player1.username, "pw-" + pair.player1.username)
    # From the player's own page (their home on the site) to the card.
    page.goto(f"{base}/players/{pair.player1.username}/")
    page.locator(f"a[href='/t/{t.id}/pairs/{pair.id}/card/']").click()
    page.wait_for_url(f"{base}/t/{t.id}/pairs/{pair.id}/card/")
    rounds = page.locator("tbody.card-round")
    assert rounds.count() == ROUNDS
    boards = page.locator("tr[data-board]")
    assert boards.count() == ROUNDS * BOARDS
    head = rounds.nth(0).locator("tr.round-head").inner_text()
    assert ("Table 1" if tag == "en" else "桌号 1") in head
    first = boards.nth(0).inner_text()
    assert re.search(r"\d+\.\d\d", first)  # the pair's MP % on board 1
    # MP figures carry "%" (issue 15.6)
    assert page.locator("tfoot").inner_text().strip().endswith(f"{pair.total:.2f}%")
    assert page.evaluate(NAMES_WHOLE) == []
    shot(page, f"p3-score-card-{tag}")
    phone = open_page(locale=locale, **PHONE)
    phone.goto(f"{base}/t/{t.id}/pairs/{pair.id}/card/")
    # Contract and score come first: board, contract and score fit the phone's width.
    for selector in ("td.contract", "td.score"):
        cell = phone.locator(f"tr[data-board] {selector}").first.bounding_box()
        assert cell["x"] + cell["width"] <= PHONE["width"], selector
    assert phone.evaluate(NAMES_WHOLE) == []
    shot(phone, f"p3-score-card-phone-{tag}")
    phone.emulate_media(media="print")
    shot(phone, f"p3-score-card-print-{tag}")


@pytest.mark.parametrize("locale", ["en-GB", "zh-CN"])
def test_traveller_hand_record_pair_page_and_seating_list(
    open_page, live_server, finished_event, locale
):
    t = finished_event
    tag = "en" if locale == "en-GB" else "zh"
    base = live_server.url
    phone = open_page(locale=locale, **PHONE)
    phone.goto(f"{base}/t/{t.id}/boards/1/")
    # On a phone the contract and the NS score are on the first screen of the traveller.
    for selector in ("td.contract", "td.num.strong"):
        cell = phone.locator(f"table.traveller tbody tr {selector}").first.bounding_box()
        assert cell["x"] + cell["width"] <= PHONE["width"], selector
    phone.locator("table.traveller").scroll_into_view_if_needed()
    shot(phone, f"p3-traveller-phone-{tag}", full_page=False)
    phone.goto(f"{base}/t/{t.id}/pairs/{Pair.objects.get(tournament=t, registration_no=2).id}/")
    shot(phone, f"p3-pair-phone-{tag}")

    paper = open_page(locale=locale, width=A4_LANDSCAPE_PRINTABLE_PX, height=718)
    paper.goto(f"{base}/t/{t.id}/boards/1/")
    paper.emulate_media(media="print")
    assert not paper.is_visible(".site-header") and paper.is_visible(".diagram")
    assert paper.is_visible("table.traveller")
    shot(paper, f"p3-hand-record-print-{tag}")

    sheet = open_page(locale=locale, width=794, height=1123)
    sheet.goto(f"{base}/t/{t.id}/rounds/2/seating/")
    rows = sheet.locator("table.seating-print tbody tr")
    assert rows.count() == 4
    shot(sheet, f"p3-seating-screen-{tag}")
    sheet.emulate_media(media="print")
    assert not sheet.is_visible(".site-header") and not sheet.is_visible("[data-print]")
    assert sheet.evaluate(NAMES_WHOLE) == []
    shot(sheet, f"p3-seating-print-{tag}")
    pdf = sheet.pdf(prefer_css_page_size=True)
    box = re.search(rb"/MediaBox\s*\[\s*0 0 ([\d.]+) ([\d.]+)\s*\]", pdf)
    assert box and float(box[1]) < float(box[2])  # the seating list prints portrait
