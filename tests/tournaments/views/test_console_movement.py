"""The console and a movement (RULES 10; issue 25 items 4 and 5): a new tournament seated
by a movement (chosen, or uploaded as an .ASC file), the movement as it stands before
round 1 or why there is none, and the seating changed until round 1 starts."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import timezone, translation

import movements
from tournaments.models import Tournament
from tournaments.selectors.movements import movement_of
from tournaments.services import clock

pytestmark = [pytest.mark.django_db]


@pytest.fixture(autouse=True)
def english():
    with translation.override("en"):
        yield


def new_event(**overrides) -> dict:
    start = (timezone.localtime() + timedelta(days=2)).strftime("%Y-%m-%dT%H:%M")
    data = {
        "name": "Club Mitchell",
        "start_at": start,
        "rounds": "7",
        "boards_per_round": "2",
        "round_minutes": "15",
        "scoring": "MP",
        "seating": "mitchell",
        "winners": "2",
    }
    data.update(overrides)
    return data


def test_a_two_winner_mitchell_from_the_console_form(client, director):
    client.force_login(director)
    form = client.get(reverse("console_new")).content.decode()
    for name in ("seating", "winners", "movement_file", "boards_travel", "arrow_switch"):
        assert f'name="{name}"' in form
    assert 'enctype="multipart/form-data"' in form
    response = client.post(reverse("console_new"), new_event(neuberg="on"))
    created = Tournament.objects.get(name="Club Mitchell")
    assert response.url == reverse("console", args=[created.pk])
    assert (created.seating, created.winners, created.arrow_switch, created.neuberg) == (
        "mitchell", 2, False, True,
    )  # fmt: skip


def test_a_movement_uploaded_as_an_asc_file(client, director):
    client.force_login(director)
    movement = movements.mitchell(7, 2)
    upload = SimpleUploadedFile("mitchell7.asc", movements.to_asc(movement).encode())
    response = client.post(
        reverse("console_new"), new_event(seating="movement", movement_file=upload)
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    created = Tournament.objects.get(name="Club Mitchell")
    assert movements.from_json(created.movement).rounds == movement.rounds


def test_a_movement_that_breaks_a_rule_is_refused_on_the_form(client, director):
    client.force_login(director)
    upload = SimpleUploadedFile("broken.asc", b"this is not a movement")
    response = client.post(
        reverse("console_new"), new_event(seating="movement", movement_file=upload)
    )
    assert response.status_code == 400
    assert "malformed" in response.content.decode()
    response = client.post(reverse("console_new"), new_event(seating="howell"))
    assert response.status_code == 400
    assert "in a Howell every pair moves" in response.content.decode()
    assert not Tournament.objects.exists()


def test_the_console_shows_the_movement_as_it_stands_before_round_1(
    client, director, make_tournament, register_pairs
):
    tournament = make_tournament(seating="howell", rounds=7, neuberg=True)
    client.force_login(director)
    register_pairs(tournament, 3)
    page = client.get(reverse("console", args=[tournament.pk])).content.decode()
    assert "A Howell movement for 3 pairs has 3 rounds, not 7" in page
    register_pairs(tournament, 4)
    page = client.get(reverse("console", args=[tournament.pk])).content.decode()
    assert "A Howell movement for" not in page
    assert "Howell movement" in page
    assert "<dt>Tables</dt><dd>4</dd>" in page and "<dt>Rounds</dt><dd>7</dd>" in page
    movement = movement_of(tournament)
    phantom = movement.label(movement.phantom)
    assert f"position {phantom}: whoever meets it sits the round out" in page
    assert reverse("movement", args=[tournament.pk]) in page
    assert reverse("console_seating", args=[tournament.pk]) in page


def test_the_seating_page_changes_it_until_round_1_and_not_after(
    client, director, make_tournament, register_pairs
):
    start = timezone.now() + timedelta(hours=1)
    tournament = make_tournament(
        start_at=start, registration_opens_at=start - timedelta(days=1), rounds=3
    )
    client.force_login(director)
    page = reverse("console_seating", args=[tournament.pk])
    assert client.get(page).status_code == 200
    refused = client.post(page, {"seating": "howell", "winners": "2"})
    assert refused.status_code == 400 and "in a Howell every pair moves" in refused.content.decode()
    saved = client.post(page, {"seating": "howell", "winners": "1"})
    assert saved.status_code == 302
    tournament.refresh_from_db()
    assert (tournament.seating, tournament.neuberg) == ("howell", True)
    register_pairs(tournament, 6, now=timezone.now())
    clock.start_now(tournament=tournament, by=director)
    shown = client.get(page).content.decode()
    assert "its seating was fixed when round 1 was seated" in shown
    assert 'name="seating"' not in shown
    late = client.post(page, {"seating": "swiss", "winners": "1"})
    assert late.status_code == 400 and "has started" in late.content.decode()
    tournament.refresh_from_db()
    assert tournament.seating == "howell"


def test_an_arrow_switched_mitchell_with_travelling_sets_from_the_console_form(client, director):
    client.force_login(director)
    response = client.post(
        reverse("console_new"),
        new_event(winners="", arrow_switch="on", boards_travel="on", datum_rounding="half_away"),
    )
    created = Tournament.objects.get(name="Club Mitchell")
    assert response.url == reverse("console", args=[created.pk])
    assert (created.winners, created.arrow_switch, created.boards_travel) == (1, True, True)
    assert created.datum_rounding == "half_away"
    # Without travelling sets the arrow-switch is refused, saying why, and nothing is made.
    refused = client.post(
        reverse("console_new"), new_event(name="Refused", winners="", arrow_switch="on")
    )
    assert "needs board sets that travel" in refused.content.decode()
    assert not Tournament.objects.filter(name="Refused").exists()
