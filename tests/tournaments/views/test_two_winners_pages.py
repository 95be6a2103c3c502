"""Two winners on the pages and the API (RULES 10): the results page, the tournament page's
standings, a pair's score card and page, the console and the API standings show the NS and
the EW pairs as two lists, each with its own positions and ranks, in English and Chinese;
one winner shows one list as before."""

from __future__ import annotations

import lxml.html
import pytest
from django.urls import reverse

from tests.support.api import Api
from tests.support.two_winners import build_mitchell
from tournaments.live import cache
from tournaments.models import Pair

pytestmark = pytest.mark.django_db

HEADINGS = {"en": ("North-South", "East-West"), "zh-hans": ("南北", "东西")}


@pytest.fixture
def finished(make_tournament, register_pairs):
    cache.clear_memo()
    return build_mitchell(make_tournament, register_pairs, tables=5, rounds=3)


def _page(client, url: str, language: str):
    response = client.get(url, HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200
    html = response.content.decode()
    assert f'<html lang="{language}">' in html
    return lxml.html.fromstring(html)


def _lists(doc, css_class: str) -> dict[str, list[tuple[str, int]]]:
    """{field: [(rank cell text, pair id)]} of every table of `css_class` with a field."""
    lists = {}
    for table in doc.xpath(f'//table[contains(@class, "{css_class}") and @data-field]'):
        rows = []
        for tr in table.xpath("./tbody/tr[@data-pair] | ./tbody/tr[td[@class='num rank']]"):
            rank = tr.xpath("./td[contains(@class, 'rank')]")[0].text_content().strip()
            link = tr.xpath(".//a[contains(@href, '/pairs/')]/@href")[0]
            rows.append((rank, int(link.rstrip("/").split("/")[-1])))
        lists[table.get("data-field")] = rows
    return lists


def _expected(tournament) -> dict[str, list[tuple[str, int]]]:
    """Each field's pairs as its list shows them: the ranked by rank, then the rest (a
    dash for no rank, "=" marking a total tied with a neighbour)."""
    lists = {}
    for field in ("NS", "EW"):
        pairs = Pair.objects.filter(tournament=tournament, field=field)
        ranked = sorted((p for p in pairs if p.rank), key=lambda p: p.rank)
        rest = sorted(
            (p for p in pairs if not p.rank),
            key=lambda p: (-p.total, -p.boards_completed, p.registration_no),
        )
        lists[field] = [(str(p.rank), p.pk) for p in ranked] + [("—", p.pk) for p in rest]
    return lists


def _without_ties(lists):
    return {f: [(rank.rstrip("="), pk) for rank, pk in rows] for f, rows in lists.items()}


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_results_page_shows_two_lists(client, finished, language):
    tournament = finished.tournament
    doc = _page(client, reverse("results", args=[tournament.pk]), language)
    headings = [h.text_content().strip() for h in doc.xpath('//h2[@class="field-title"]')]
    assert headings == list(HEADINGS[language])
    lists = _lists(doc, "results-grid")
    assert _without_ties(lists) == _expected(tournament)
    # NS 1 and NS 2 tie on total: both are marked, registration placed them.
    assert lists["NS"][0][0] == "1=" and lists["NS"][1][0] == "2="
    text = doc.text_content()
    if language == "en":
        assert "the North-South pairs and the East-West pairs are ranked apart" in text
    else:
        assert "南北和东西分别排名" in text


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_tournament_page_standings_are_two_lists(client, finished, language):
    tournament = finished.tournament
    doc = _page(client, reverse("tournament", args=[tournament.pk]), language)
    headings = [h.text_content().split()[0] for h in doc.xpath('//h3[@class="field-title"]')]
    assert headings == list(HEADINGS[language])
    assert _without_ties(_lists(doc, "standings")) == _expected(tournament)


def test_a_results_search_keeps_the_field_of_what_it_found(client, finished):
    pair = Pair.objects.get(tournament=finished.tournament, registration_no=7)
    doc = _page(client, reverse("results", args=[finished.tournament.pk]) + "?q=7", "en")
    assert [h.text_content() for h in doc.xpath('//h2[@class="field-title"]')] == ["East-West"]
    assert [pk for _rank, pk in _lists(doc, "results-grid")["EW"]] == [pair.pk]


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_a_pairs_score_card_and_page_say_which_field_it_is_ranked_in(client, finished, language):
    tournament = finished.tournament
    pair = Pair.objects.get(tournament=tournament, field="EW", rank=1)
    for name in ("score_card", "pair"):
        doc = _page(client, reverse(name, args=[tournament.pk, pair.pk]), language)
        stat = doc.xpath('//div[@class="field-stat"]')[0]
        label = {"en": "Ranked in", "zh-hans": "排名组别"}[language]
        assert stat.xpath("./dt")[0].text_content() == label
        assert stat.xpath("./dd")[0].text_content() == HEADINGS[language][1]


def test_the_console_marks_each_rank_with_its_field(client, finished, director):
    client.force_login(director)
    doc = _page(client, reverse("console", args=[finished.tournament.pk]), "en")
    ranks = {
        tr.xpath("./td")[0].text_content().strip(): " ".join(
            tr.xpath("./td")[4].text_content().split()
        )
        for tr in doc.xpath('//table[contains(@class, "pairs-list")]/tbody/tr')
    }
    for pair in Pair.objects.filter(tournament=finished.tournament):
        expected = f"{pair.rank} {pair.field}" if pair.rank else pair.field
        assert ranks[str(pair.registration_no)] == expected


def test_the_api_standings_give_each_pairs_field_and_position_in_it(finished):
    tournament = finished.tournament
    rows = Api().get(f"/tournaments/{tournament.pk}/standings").json()
    assert [r["field"] for r in rows] == ["NS"] * 5 + ["EW"] * 5
    assert [r["position"] for r in rows] == [1, 2, 3, 4, 5] * 2
    by_pair = {p.pk: p for p in Pair.objects.filter(tournament=tournament)}
    for row in rows:
        pair = by_pair[row["pair"]]
        assert (row["field"], row["rank"], row["master_points"]) == (
            pair.field,
            pair.rank,
            float(pair.master_points),
        )
    # Every field of one winner is still there.
    assert {
        "pair", "registration_no", "players", "position", "rank", "total",
        "boards_completed", "completion", "completed", "master_points", "withdrawn", "field",
        "label",
    } == set(rows[0])  # fmt: skip
    schema = Api().get("/openapi.json").json()["components"]["schemas"]["StandingOut"]
    assert "field" in schema["properties"]


def test_one_winner_shows_one_list_without_field_headings(client, export_running):
    tournament, _pairs = export_running
    doc = _page(client, reverse("results", args=[tournament.pk]), "en")
    assert not doc.xpath('//h2[@class="field-title"]')
    assert len(doc.xpath('//table[contains(@class, "results-grid")]')) == 1
    rows = Api().get(f"/tournaments/{tournament.pk}/standings").json()
    assert {r["field"] for r in rows} == {""}


def test_the_home_page_podium_gives_each_field_its_own(client, finished):
    tournament = finished.tournament
    doc = _page(client, reverse("home"), "en")
    card = doc.xpath(f'//article[.//a[@href="/t/{tournament.pk}/results/"]]')[0]
    podium = [" ".join(li.text_content().split()[:2]) for li in card.xpath(".//ol/li")]
    winners = Pair.objects.filter(tournament=tournament, rank__in=[1, 2, 3])
    ns = sorted(p.rank for p in winners if p.field == "NS")
    ew = sorted(p.rank for p in winners if p.field == "EW")
    assert podium == [f"{r} NS" for r in ns] + [f"{r} EW" for r in ew]
