"""The broadcast's pages (RULES 12): who may open `/broadcasts/<id>/` (anyone, anonymous
too, but a player of the event while it runs: a 403 saying why), what the page carries
(the selector's snapshot, no card of a board not yet released), commentary posted by a
commentator only (a refusal changes nothing), the API's same snapshot and rule, the
director's console starting, re-timing and ending a broadcast, and the public pages'
links."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client
from django.urls import reverse

from tests.support.online_ws import cards_in, seated_users
from tests.tournaments.broadcasts.test_broadcast import _team_event
from tests.tournaments.test_who_sees_what import _play_to_the_end
from tournaments.models import Broadcast, BroadcastComment, TournamentStatus
from tournaments.services import broadcasts

pytestmark = pytest.mark.django_db


@pytest.fixture
def item(match, organiser):
    return broadcasts.start_broadcast(by=organiser, tournament=match.round.tournament, match=match)


def _snapshot_of(html: str) -> dict:
    script = r'<script id="bc-snapshot" type="application/json">(.*?)</script>'
    found = re.search(script, html, re.S)
    assert found, "no snapshot in the page"
    return json.loads(found.group(1))


def _page(client, item):
    return client.get(reverse("broadcast", args=[item.pk]))


# --- who may open the page --------------------------------------------------------------


def test_anyone_but_a_player_opens_the_page_and_it_carries_no_card_before_the_release(
    client, item, match, make_user
):
    _play_to_the_end(match.open_table, 1, "1H")  # the open room ahead: board 1 not shown
    for viewer in (None, make_user("passer-by")):
        if viewer is not None:
            client.force_login(viewer)
        response = _page(client, item)
        assert response.status_code == 200
        html = response.content.decode()
        assert f'data-socket="/ws/broadcasts/{item.pk}/"' in html
        assert 'id="bc-comment-form"' not in html  # no commentary form for them
        shown = _snapshot_of(html)
        assert shown["id"] == item.pk and [r["key"] for r in shown["rooms"]] == ["open", "closed"]
        assert cards_in(shown) == set()
        assert shown["boards"][0]["rooms"]["open"]["progress"]["phase"] == "over"
        assert '<script type="module"' in html and "<script>" not in html  # CSP: no inline


def test_a_player_of_the_event_gets_a_403_saying_why_until_it_is_over(client, item, match):
    player = seated_users(match.closed_table)["N"]
    client.force_login(player)
    response = _page(client, item)
    assert response.status_code == 403
    assert "its broadcast is not shown to its players while it runs" in response.content.decode()
    assert "bc-snapshot" not in response.content.decode()
    with_zh = client.get(reverse("broadcast", args=[item.pk]), HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert with_zh.status_code == 403
    event = match.round.tournament
    event.status = TournamentStatus.FINISHED
    event.save(update_fields=["status"])
    assert _page(client, item).status_code == 200


def test_a_missing_broadcast_is_a_404(client, item):
    assert client.get(reverse("broadcast", args=[item.pk + 1000])).status_code == 404
    assert client.get("/broadcasts/99999999999999999999999/").status_code == 404


# --- commentary -------------------------------------------------------------------------


def _post(client, item, text):
    return client.post(reverse("broadcast_comment", args=[item.pk]), {"text": text})


def test_a_commentator_adds_a_line_and_sees_the_form(client, item, commentator):
    client.force_login(commentator)
    html = _page(client, item).content.decode()
    assert 'id="bc-comment-form"' in html
    assert f'data-comment-url="{reverse("broadcast_comment", args=[item.pk])}"' in html
    response = _post(client, item, "  A lead from  the king ")
    assert response.status_code == 200
    said = response.json()["comment"]
    assert said["text"] == "A lead from the king" and said["by"] == "commentator"
    assert list(BroadcastComment.objects.values_list("text", flat=True)) == ["A lead from the king"]
    assert _snapshot_of(_page(client, item).content.decode())["comments"][0]["id"] == said["id"]


def test_commentary_is_refused_without_the_permission_and_changes_nothing(client, item, make_user):
    response = _post(client, item, "Hello")  # anonymous
    assert response.status_code == 403 and response.json()["error"]
    client.force_login(make_user("spectator"))
    response = _post(client, item, "Hello")
    assert response.status_code == 403 and response.json()["error"]
    assert not BroadcastComment.objects.exists()


def test_bad_commentary_is_refused_with_its_reason_and_changes_nothing(client, item, commentator):
    client.force_login(commentator)
    for text, reason in (("", "Write"), ("x" * 501, "at most 500"), ("ring\x07", "control")):
        response = _post(client, item, text)
        assert response.status_code == 400, text
        assert reason in response.json()["error"]
    with_zh = client.post(
        reverse("broadcast_comment", args=[item.pk]), {"text": ""}, HTTP_ACCEPT_LANGUAGE="zh-hans"
    )
    assert with_zh.status_code == 400 and with_zh.json()["error"] != "Write the commentary first."
    assert client.get(reverse("broadcast_comment", args=[item.pk])).status_code == 405
    assert not BroadcastComment.objects.exists()


def test_commentary_needs_the_csrf_token(item, commentator):
    client = Client(enforce_csrf_checks=True)
    client.force_login(commentator)
    response = client.post(reverse("broadcast_comment", args=[item.pk]), {"text": "Hi"})
    assert response.status_code == 403
    page = client.get(reverse("broadcast", args=[item.pk])).content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    response = client.post(
        reverse("broadcast_comment", args=[item.pk]),
        {"text": "Hi"},
        HTTP_X_CSRFTOKEN=token,
    )
    assert response.status_code == 200
    assert BroadcastComment.objects.count() == 1


# --- the API ----------------------------------------------------------------------------


def test_the_api_answers_the_same_snapshot_under_the_same_rule(client, item, match):
    response = client.get(f"/api/v1/broadcasts/{item.pk}")
    assert response.status_code == 200
    body = response.json()
    assert body["id"] == item.pk and len(body["boards"]) == 3 and body["score"]["home"] == 0
    assert cards_in(body) == set()
    assert client.get(f"/api/v1/broadcasts/{item.pk + 1000}").status_code == 404
    client.force_login(seated_users(match.open_table)["E"])
    refused = client.get(f"/api/v1/broadcasts/{item.pk}")
    assert refused.status_code == 403 and "play in this event" in refused.json()["error"]
    schema = Client().get("/api/v1/openapi.json").json()
    assert "/api/v1/broadcasts/{broadcast_id}" in schema["paths"]


# --- the console ------------------------------------------------------------------------


def test_a_director_starts_re_times_and_ends_a_broadcast_from_the_console(client, match, director):
    event = match.round.tournament
    client.force_login(director)
    console = client.get(reverse("console", args=[event.pk])).content.decode()
    start = reverse("console_broadcast_start", args=[event.pk])
    assert f"{start}?match={match.pk}" in console  # the match list
    assert f"{start}?table={match.open_table_id}" in console  # a table's row
    assert client.get(f"{start}?match={match.pk}").status_code == 200
    response = client.post(start, {"match": match.pk, "delay_minutes": 5}, follow=True)
    item = Broadcast.objects.get()
    assert item.match_id == match.pk and item.delay_minutes == 5
    page = response.content.decode()
    assert "The broadcast has started" in page
    assert reverse("broadcast", args=[item.pk]) in page  # the link on the console

    # A refusal is said and changes nothing.
    response = client.post(start, {"match": match.pk, "delay_minutes": 0}, follow=True)
    assert "broadcast already" in response.content.decode()
    assert Broadcast.objects.count() == 1
    delay = reverse("console_broadcast_delay", args=[event.pk, item.pk])
    response = client.post(delay, {"delay_minutes": 999}, follow=True)
    assert "from 0 to 240 minutes" in response.content.decode()
    assert Broadcast.objects.get().delay_minutes == 5
    response = client.post(delay, {"delay_minutes": 2}, follow=True)
    assert Broadcast.objects.get().delay_minutes == 2

    client.post(start, {"table": match.closed_table_id, "delay_minutes": 0})
    assert Broadcast.objects.count() == 2
    end = reverse("console_broadcast_end", args=[event.pk, item.pk])
    response = client.post(end, follow=True)
    assert "has ended" in response.content.decode()
    assert list(Broadcast.objects.values_list("table_id", flat=True)) == [match.closed_table_id]
    assert client.post(end).status_code == 404


def test_staff_without_the_power_is_refused_and_nothing_starts(client, match, make_user):
    event = match.round.tournament
    staff = make_user("staff-only")
    staff.is_staff = True
    staff.save()
    client.force_login(staff)
    console = client.get(reverse("console", args=[event.pk])).content.decode()
    assert "broadcast-start" not in console
    start = reverse("console_broadcast_start", args=[event.pk])
    response = client.post(start, {"match": match.pk, "delay_minutes": 0}, follow=True)
    assert response.status_code == 200 and not Broadcast.objects.exists()
    assert "Only a tournament director" in response.content.decode()
    client.force_login(make_user("not-staff"))
    assert client.post(start, {"match": match.pk, "delay_minutes": 0}).status_code == 403


def test_an_event_played_elsewhere_offers_no_broadcast(client, organiser, director):
    event = _team_event(organiser, name="Played at the club", play="entered")
    client.force_login(director)
    console = client.get(reverse("console", args=[event.pk])).content.decode()
    assert 'id="broadcasts"' not in console and "broadcast-start" not in console


# --- the public pages' links -----------------------------------------------------------


def test_the_tournament_page_and_the_home_page_link_the_live_broadcast(client, item, match):
    link = reverse("broadcast", args=[item.pk])
    event = match.round.tournament
    assert link in client.get(reverse("tournament", args=[event.pk])).content.decode()
    assert link in client.get(reverse("home")).content.decode()
    event.status = TournamentStatus.FINISHED
    event.save(update_fields=["status"])
    assert link not in client.get(reverse("home")).content.decode()  # live ones only
    assert link in client.get(reverse("tournament", args=[event.pk])).content.decode()
