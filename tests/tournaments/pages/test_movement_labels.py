"""A pair's number on the results pages of an event seated by a movement (RULES 10): the
results grid, the tournament page's standings, a pair's page and score card, a board's
traveller and the API's standings print the position the pair holds as the movement page,
the cards and the club scorers do ("3NS" / "3EW" in a two-winner Mitchell, "3" in a
Howell), not its registration number; a Swiss event, and a movement's pairs before they
hold positions, keep their registration numbers. "Find a pair" takes the label.

The labels are worked out here from the positions (1…T NS, T+1…2T EW), not by the code
that prints them."""

from __future__ import annotations

import re

import lxml.html
import pytest
from django.urls import reverse

from tests.support.api import Api
from tests.support.movements import event, howell4, store
from tests.support.two_winners import build_mitchell
from tournaments.models import Pair

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_pages")]

TABLES = 5
ROWS = "//table[contains(@class, 'results-grid')]/tbody/tr[@data-pair]"  # the results grid


@pytest.fixture
def mitchell_event(make_tournament, register_pairs):
    """A finished 5-table two-winner Mitchell: registration k holds position k."""
    return build_mitchell(make_tournament, register_pairs, tables=TABLES, rounds=3)


def label(pair: Pair) -> str:
    """What a club scorer prints for the pair's position in a T-table Mitchell."""
    position = pair.position
    return f"{position}NS" if position <= TABLES else f"{position - TABLES}EW"


def page(client, url: str, language: str = "en") -> lxml.html.HtmlElement:
    response = client.get(url, HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200
    return lxml.html.fromstring(response.content.decode())


def linked_pair(link) -> int:
    """The pair a link to its page or score card goes to."""
    return int(re.search(r"/pairs/(\d+)/", link.get("href")).group(1))


def numbers_by_pair(doc, rows: str) -> dict[int, str]:
    """{pair id: the number its row prints} for the rows `rows` (XPath) with a pair link."""
    shown = {}
    for row in doc.xpath(rows):
        link = row.xpath(".//a[contains(@href, '/pairs/')]")[0]
        shown[linked_pair(link)] = link.xpath(".//span[@class='regno']")[0].text_content().strip()
    return shown


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_results_grid_numbers_pairs_by_their_movement_position(
    client, mitchell_event, language
):
    pairs = mitchell_event.pairs
    doc = page(client, reverse("results", args=[mitchell_event.tournament.pk]), language)
    shown = numbers_by_pair(doc, ROWS)
    assert shown == {p.pk: label(p) for p in pairs}
    # The EW list is 1EW…5EW, not registration numbers 6…10.
    ew = doc.xpath("//table[@data-field='EW']//tr[@data-pair]//span[@class='regno']")
    assert sorted(s.text_content() for s in ew) == [f"{k}EW" for k in range(1, TABLES + 1)]


def test_the_tournament_pages_standings_number_pairs_alike(client, mitchell_event):
    doc = page(client, reverse("tournament", args=[mitchell_event.tournament.pk]))
    shown = numbers_by_pair(doc, "//table[contains(@class, 'standings')]/tbody/tr")
    assert shown == {p.pk: label(p) for p in mitchell_event.pairs}


@pytest.mark.parametrize("name", ["pair", "score_card"])
def test_a_pairs_page_and_score_card_number_it_and_its_opponents(client, mitchell_event, name):
    tournament = mitchell_event.tournament
    by_id = {p.pk: p for p in mitchell_event.pairs}
    ew = next(p for p in mitchell_event.pairs if p.position == TABLES + 2)  # 2EW, reg. no. 7
    doc = page(client, reverse(name, args=[tournament.pk, ew.pk]))
    assert doc.xpath("//h2/span[contains(@class, 'regno')]")[0].text_content() == "2EW"
    opponents = doc.xpath("//a[contains(@href, '/pairs/')][span[@class='regno']]")
    assert opponents, "the opponents are listed"
    for link in opponents:
        pair = by_id[linked_pair(link)]
        assert link.xpath("./span[@class='regno']")[0].text_content() == label(pair)
        assert label(pair).endswith("NS")  # an EW pair meets NS pairs only


def test_a_boards_traveller_numbers_both_pairs(client, mitchell_event):
    tournament = mitchell_event.tournament
    doc = page(client, reverse("board", args=[tournament.pk, 1]))
    by_id = {p.pk: p for p in mitchell_event.pairs}
    cells = doc.xpath("//table[contains(@class, 'traveller')]//td[@class='pair-cell']/a")
    assert len(cells) == 2 * (TABLES - 1)  # table 4 did not play round 1's boards
    for link in cells:
        pair = by_id[linked_pair(link)]
        assert link.xpath("./span[@class='regno']")[0].text_content() == label(pair)


def test_the_api_standings_give_the_label_beside_the_registration_number(mitchell_event):
    rows = Api().get(f"/tournaments/{mitchell_event.tournament.pk}/standings").json()
    by_id = {p.pk: p for p in mitchell_event.pairs}
    for row in rows:
        pair = by_id[row["pair"]]
        assert (row["label"], row["registration_no"]) == (label(pair), pair.registration_no)
    schema = Api().get("/openapi.json").json()["components"]["schemas"]["StandingOut"]
    assert "label" in schema["properties"] and "registration_no" in schema["properties"]


@pytest.mark.parametrize(
    ("query", "positions"),
    [
        ("2EW", [TABLES + 2]),
        ("2ew", [TABLES + 2]),
        (" 3 NS ", [3]),
        ("2", [2, TABLES + 2]),  # a Mitchell's number: both directions
        ("9", [9]),  # still the registration number (4EW)
        ("6EW", []),
    ],
)
def test_find_a_pair_takes_its_label(client, mitchell_event, query, positions):
    tournament = mitchell_event.tournament
    doc = page(client, reverse("results", args=[tournament.pk]) + f"?q={query}")
    found = [int(tr.get("data-pair")) for tr in doc.xpath(ROWS)]
    by_position = {p.position: p.pk for p in mitchell_event.pairs}
    assert sorted(found) == sorted(by_position[p] for p in positions)


def test_a_howell_prints_the_position_not_the_registration_number(
    client, make_tournament, register_pairs
):
    movement = howell4(2, phantom=8)
    tournament, pairs = event(
        make_tournament, register_pairs, movement=movement, pairs=7, held=False, seating="howell"
    )
    # Positions handed out against registration order: no number is its own label.
    store(tournament, movement, pairs[1:] + pairs[:1])
    by_id = {p.pk: p for p in Pair.objects.filter(tournament=tournament)}
    assert all(p.position != p.registration_no for p in by_id.values())
    doc = page(client, reverse("results", args=[tournament.pk]))
    shown = numbers_by_pair(doc, ROWS)
    assert shown == {pk: str(p.position) for pk, p in by_id.items()}
    rows = Api().get(f"/tournaments/{tournament.pk}/standings").json()
    assert {r["pair"]: r["label"] for r in rows} == shown


def test_before_round_1_the_pairs_keep_their_registration_numbers(
    client, make_tournament, register_pairs
):
    tournament, pairs = event(
        make_tournament, register_pairs, movement=howell4(2, phantom=8), pairs=7, held=False,
        seating="howell",
    )  # fmt: skip
    doc = page(client, reverse("results", args=[tournament.pk]))
    shown = numbers_by_pair(doc, ROWS)
    assert shown == {p.pk: str(p.registration_no) for p in pairs}


def test_a_swiss_event_keeps_its_registration_numbers(client, export_running):
    tournament, pairs = export_running
    doc = page(client, reverse("results", args=[tournament.pk]))
    shown = numbers_by_pair(doc, ROWS)
    listed = Pair.objects.filter(tournament=tournament, pk__in=shown)
    assert shown == {p.pk: str(p.registration_no) for p in listed}
    rows = Api().get(f"/tournaments/{tournament.pk}/standings").json()
    assert all(r["label"] == str(r["registration_no"]) for r in rows)


def test_your_table_names_the_opponents_by_their_label(client, make_tournament, register_pairs):
    running = build_mitchell(make_tournament, register_pairs, tables=TABLES, rounds=3, finish=False)
    ns = next(p for p in running.pairs if p.position == 1)
    client.force_login(ns.player1)
    doc = page(client, reverse("tournament", args=[running.tournament.pk]))
    (box,) = doc.xpath("//section[@class='your-table']")
    # Round 3: NS pair 1 meets EW pair (1 − 3) mod 5 + 1 = 4 (the Mitchell of two_winners).
    assert "(pair 4EW)" in " ".join(box.text_content().split())
