"""Django admin shows how a tournament is seated (RULES 10: seating, winners, arrow-switch,
the stored movement) and each pair's movement position, field and number ("2EW"), read
only: they are set by the console's seating page and round 1's start, whose checks an
edit here would skip."""

from __future__ import annotations

import lxml.html
import pytest
from django.urls import reverse

from tests.support.two_winners import build_mitchell
from tournaments.models import Pair

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client, organiser):
    client.force_login(organiser)
    return client


@pytest.fixture
def mitchell_event(make_tournament, register_pairs):
    return build_mitchell(make_tournament, register_pairs, tables=5, rounds=3)


def readonly(doc, field: str) -> str:
    """The text admin shows for read-only `field` on a change page."""
    box = doc.xpath(f"//div[contains(@class, 'field-{field}')]//div[@class='readonly']")
    assert box, f"{field} is not shown read-only"
    return " ".join(box[0].text_content().split())


def get(client, url: str) -> lxml.html.HtmlElement:
    response = client.get(url)
    assert response.status_code == 200
    return lxml.html.fromstring(response.content.decode())


def test_a_tournaments_seating_and_movement_are_shown_read_only(admin_client, mitchell_event):
    tournament = mitchell_event.tournament
    doc = get(admin_client, reverse("admin:tournaments_tournament_change", args=[tournament.pk]))
    assert readonly(doc, "seating") == "Mitchell movement"
    assert readonly(doc, "winners") == "2"
    switch = doc.xpath("//div[contains(@class, 'field-arrow_switch')]//div[@class='readonly']/img")
    assert [img.get("alt") for img in switch] == ["False"]
    summary = readonly(doc, "movement_summary")
    assert "Mitchell 5 tables · tables: 5, rounds: 3, positions: 10" in summary
    links = doc.xpath("//div[contains(@class, 'field-movement_summary')]//a/@href")
    assert reverse("movement", args=[tournament.pk]) in links
    assert reverse("console_seating", args=[tournament.pk]) in links
    for name in ("seating", "winners", "arrow_switch", "movement"):
        assert not doc.xpath(f"//*[@name='{name}']"), f"{name} is editable"


def test_a_swiss_tournament_and_the_add_page(admin_client, make_tournament):
    tournament = make_tournament()
    doc = get(admin_client, reverse("admin:tournaments_tournament_change", args=[tournament.pk]))
    assert readonly(doc, "seating") == "Swiss: by score, no rematch"
    assert readonly(doc, "movement_summary").startswith("none: seated by the Swiss rule")
    add = get(admin_client, reverse("admin:tournaments_tournament_add"))
    assert not add.xpath("//*[@name='seating']")


def test_a_pairs_position_field_and_number_are_shown_read_only(admin_client, mitchell_event):
    pair = next(p for p in mitchell_event.pairs if p.position == 7)
    doc = get(admin_client, reverse("admin:tournaments_pair_change", args=[pair.pk]))
    assert (readonly(doc, "position"), readonly(doc, "field")) == ("7", "EW")
    assert readonly(doc, "pair_number") == "2EW"
    for name in ("position", "field"):
        assert not doc.xpath(f"//*[@name='{name}']"), f"{name} is editable"
    listing = get(
        admin_client,
        reverse("admin:tournaments_pair_changelist")
        + f"?tournament__id__exact={pair.tournament_id}",
    )
    numbers = {
        " ".join(td.text_content().split())
        for td in listing.xpath("//td[contains(@class, 'field-pair_number')]")
    }
    assert numbers == {f"{k}NS" for k in range(1, 6)} | {f"{k}EW" for k in range(1, 6)}
    assert Pair.objects.get(pk=pair.pk).position == 7
