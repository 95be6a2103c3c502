"""The results grid marks adjusted scores as the travellers do (RULES 5.4): an artificial
score (Law 12C2 average plus / average / average minus) and a result the director set
carry the traveller's "A", with what it is in the cell's title; played scores, byes and
boards cut off at the bell carry none. In the page and in Chromium, English and Chinese."""

from __future__ import annotations

import re

import pytest

from tests.support.browser.events import adjusted_round_one, make_people
from tests.support.browser.pw import shot
from tournaments import selectors
from tournaments.models import Pair
from tournaments.selectors.results import DIRECTOR_SET
from tournaments.services import results
from tournaments.services.results import ContractEntry


@pytest.fixture
def people(make_user):
    return make_people(make_user, 10)


def adjusted_event(make_tournament, users, organiser, *, method: str = "MP"):
    """Five pairs (a bye), round 1 closed: board 1 played everywhere, the director set
    table 2's result of board 1 (a ruling), board 2 at table 1 adjusted A+ / A, and
    board 2 not played at table 2 (cut off at the bell)."""
    tournament, round1, tables = adjusted_round_one(
        make_tournament, users, organiser, name="Adjusted Swiss", scoring_method=method
    )
    results.director_set_result(
        table=tables[1], board_number=1, by=organiser, entry=ContractEntry("4S", "N", 9),
        reason="revoke: one trick transferred",
    )  # fmt: skip
    return tournament, round1, tables


def cell(html: str, pair_id: int, board: int) -> str:
    row = re.search(rf'<tr data-pair="{pair_id}".*?</tr>', html, re.S).group(0)
    return re.search(rf'<td class="num cell[^"]*" data-board="{board}".*?</td>', row, re.S).group(0)


@pytest.mark.django_db
def test_the_grid_marks_artificial_and_director_set_scores_and_nothing_else(
    make_tournament, people, organiser, client
):
    tournament, round1, tables = adjusted_event(make_tournament, people, organiser)
    first, second = tables
    bye = Pair.objects.get(pk=round1.bye_pair_id)
    grid = selectors.board_score_grid(tournament=tournament)
    assert grid[first.ns_pair_id][2][3] == "A+" and grid[first.ew_pair_id][2][3] == "A"
    assert grid[second.ns_pair_id][1][3] == DIRECTOR_SET == grid[second.ew_pair_id][1][3]
    assert grid[first.ns_pair_id][1][3] == ""  # played as entered
    assert grid[second.ns_pair_id][2][3] == ""  # cut off at the bell: not played
    assert grid[bye.pk][1][3] == "" and grid[bye.pk][1][2] == "BYE"

    html = client.get(f"/t/{tournament.pk}/results/").content.decode()
    average_plus = cell(html, first.ns_pair_id, 2)
    assert 'data-adjusted="A+"' in average_plus and '<sup class="adj">A</sup>' in average_plus
    assert "Average plus" in average_plus
    assert "an adjusted score, awarded by the director" in average_plus
    average = cell(html, first.ew_pair_id, 2)
    assert 'data-adjusted="A"' in average and "Average · " in average
    ruled = cell(html, second.ns_pair_id, 1)
    assert f'data-adjusted="{DIRECTOR_SET}"' in ruled and '<sup class="adj">A</sup>' in ruled
    assert "an adjusted score, awarded by the director" in ruled
    for plain in (
        cell(html, first.ns_pair_id, 1),
        cell(html, second.ew_pair_id, 2),
        cell(html, bye.pk, 1),
    ):
        assert "adj" not in plain, plain
    assert html.count('<sup class="adj">A</sup>') == 4
    # The key says what the mark means, as on the traveller.
    assert 'class="lg-sample adj"' in html
    # The traveller marks the director's result too, as it marks an artificial score.
    traveller = client.get(f"/t/{tournament.pk}/boards/1/").content.decode()
    row = re.search(rf'<tr data-table="{second.pk}".*?</tr>', traveller, re.S).group(0)
    assert row.count('<sup class="adj">A</sup>') == 2
    played = re.search(rf'<tr data-table="{first.pk}".*?</tr>', traveller, re.S).group(0)
    assert "adj" not in played


@pytest.mark.django_db
def test_an_imp_grid_marks_them_too(make_tournament, people, organiser, client):
    tournament, _round1, tables = adjusted_event(make_tournament, people, organiser, method="IMP")
    html = client.get(f"/t/{tournament.pk}/results/").content.decode()
    assert 'data-adjusted="A+"' in cell(html, tables[0].ns_pair_id, 2)
    assert html.count('<sup class="adj">A</sup>') == 4


@pytest.mark.browser
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_the_marks_in_chromium(open_page, live_server, make_tournament, people, organiser):
    tournament, _round1, tables = adjusted_event(make_tournament, people, organiser)
    for locale, lang, width, words in (
        ("en-GB", "en", 1280, ("Average plus", "an adjusted score, awarded by the director")),
        ("zh-CN", "zh", 390, ("平均加", "裁判判定的调整分")),
    ):
        page = open_page(locale=locale, width=width)
        page.goto(f"{live_server.url}/t/{tournament.id}/results/")
        marks = page.locator("td.cell.adjusted sup.adj")
        assert marks.count() == 4
        assert page.is_visible(".score-legend .lg-sample.adj")
        colour = page.eval_on_selector("td.cell.adjusted sup.adj", "e => getComputedStyle(e).color")
        sample = page.eval_on_selector(
            ".score-legend .lg-sample.adj", "e => getComputedStyle(e).color"
        )
        assert colour == sample  # the traveller's mark, the traveller's colour
        title = page.get_attribute(
            f"tr[data-pair='{tables[0].ns_pair_id}'] td[data-board='2'] a", "title"
        )
        assert all(word in title for word in words), title
        shot(page, f"results-grid-adjusted-{lang}-{width}")
        if width < 500:  # the board columns, scrolled into view on the phone
            page.eval_on_selector(".table-scroll", "e => { e.scrollLeft = e.scrollWidth; }")
            shot(page, f"results-grid-adjusted-{lang}-{width}-boards")
