"""The console for online play (issue 24, items 11–15), through the Django test client:
tables addressed by round and table number (old addresses 301), every table linked to
its live view, the live progress, extra time from the console, a new event with every
setting, and one time-zone label."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from tests.support.online_ws import open_online_round, seated_users
from tests.support.pages import without_tokens
from tournaments.models import TableDirection, Tournament
from tournaments.services import presence, table_play

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff_without_powers(make_user):
    user = make_user("helper")
    user.is_staff = True
    user.save(update_fields=["is_staff"])
    return user


@pytest.fixture
def online(make_tournament, register_pairs):
    return open_online_round(make_tournament, register_pairs, boards=2, rounds=2)


def test_tables_are_addressed_by_round_and_number_and_old_addresses_move(client, online):
    first, (one, two) = online
    t = first.tournament_id
    assert reverse("play_table", args=[t, 1, 2]) == f"/t/{t}/rounds/1/tables/2/play/"
    assert reverse("table", args=[t, 1, 2]) == f"/t/{t}/rounds/1/tables/2/"
    moved = client.get(f"/t/{t}/tables/{two.pk}/play/?from=mail")
    assert moved.status_code == 301
    assert moved["Location"] == f"/t/{t}/rounds/1/tables/2/play/?from=mail"
    sheet = client.get(f"/t/{t}/tables/{two.pk}/")
    assert (sheet.status_code, sheet["Location"]) == (301, f"/t/{t}/rounds/1/tables/2/")
    assert client.get(f"/t/{t}/tables/987654/play/").status_code == 404
    assert client.get(f"/t/{t}/rounds/1/tables/99/play/").status_code == 404
    assert client.get(f"/t/{t}/rounds/7/tables/1/play/").status_code == 404
    # The player's own table opens at its new address.
    client.force_login(seated_users(two)["N"])
    assert client.get(f"/t/{t}/rounds/1/tables/2/play/").status_code == 200


def test_the_public_seating_links_every_online_table_to_its_live_view(client, online):
    first, tables = online
    t = first.tournament_id
    page = client.get(reverse("tournament", args=[t])).content.decode()
    for table in tables:
        assert f'href="/t/{t}/rounds/1/tables/{table.number}/play/"' in page
    sheet = client.get(reverse("seating_sheet", args=[t, 1])).content.decode()
    assert f'href="/t/{t}/rounds/1/tables/1/play/"' in sheet


def test_a_played_elsewhere_seating_has_no_live_links(client, make_tournament, register_pairs):
    from tournaments.services import clock

    now = timezone.now()
    tournament = make_tournament(
        registration_opens_at=now - timedelta(days=1), start_at=now - timedelta(seconds=1)
    )
    register_pairs(tournament, 4, now=now - timedelta(minutes=5))
    clock.advance(now=now)
    page = client.get(reverse("tournament", args=[tournament.pk])).content.decode()
    assert "/play/" not in page and "watch-link" not in page


def test_the_console_shows_what_each_online_table_is_doing(client, online, director):
    first, (one, two) = online
    t = first.tournament_id
    users = seated_users(one)
    table_play.act(table=one, board_number=1, user=users["N"],
                   action={"seq": 1, "type": "call", "call": "1NT"})  # fmt: skip
    presence.connected(channel="sock-e", table_id=one.pk, seat="E", user_id=users["E"].pk)
    client.force_login(director)
    page = client.get(reverse("console", args=[t])).content.decode()
    # The table number and its board in play link to the live view, not a result form.
    assert f'<a class="table-link" href="/t/{t}/rounds/1/tables/1/play/"' in page
    assert f'"cell s-playing" data-label="Board 1"><a href="/t/{t}/rounds/1/tables/1/play/"' in page
    assert reverse("console_result", args=[t, one.pk, 1]) not in page
    assert reverse("console_result", args=[t, one.pk, 2]) in page  # to come: a ruling
    assert "board 1 · auction · East to call" in page
    assert 'class="seat-dot on" data-seat="E"' in page
    assert 'class="seat-dot off" data-seat="N"' in page
    assert "idle" in page
    assert reverse("console_extra_time", args=[t, one.pk]) in page
    # The poll hears a card or call played (the fingerprint moves).
    from tournaments.selectors import console as console_selectors

    before = console_selectors.progress_version(tournament=first.tournament)
    table_play.act(table=one, board_number=1, user=users["E"],
                   action={"seq": 2, "type": "call", "call": "P"})  # fmt: skip
    assert console_selectors.progress_version(tournament=first.tournament) != before


def test_extra_time_from_the_console(client, online, director, staff_without_powers):
    first, (one, _two) = online
    url = reverse("console_extra_time", args=[first.tournament_id, one.pk])
    client.force_login(staff_without_powers)
    assert client.get(url).status_code == 200
    refused = client.post(url, {"minutes": "5", "reason": "slow"})
    assert refused.status_code == 400
    assert "can run the round clock" in refused.content.decode()
    assert not TableDirection.objects.exists()
    client.force_login(director)
    too_long = client.post(url, {"minutes": "90", "reason": ""})
    assert "at most 60" in too_long.content.decode()
    done = client.post(url, {"minutes": "5", "reason": "N's connection dropped"})
    assert done.status_code == 302
    one.refresh_from_db()
    assert one.ends_at == first.ends_at + timedelta(minutes=5)
    page = client.get(url).content.decode()
    assert "N&#x27;s connection dropped" in page  # in the table's history
    console = client.get(reverse("console", args=[first.tournament_id])).content.decode()
    assert "extra time to" in console


def _new_event(**overrides) -> dict:
    start = (timezone.localtime() + timedelta(days=2)).strftime("%Y-%m-%dT%H:%M")
    data = {
        "name": "Online Swiss",
        "description": "Six rounds at our tables.\nBring a friend.",
        "play": "online",
        "start_at": start,
        "registration_opens_at": "",
        "rounds": "6",
        "boards_per_round": "3",
        "round_minutes": "24",
        "gap_minutes": "2",
        "scoring": "MP",
        "unplayed_policy": "avg_minus",
        "completion_threshold": "60",
        "first_round_draw": "random",
        "neuberg": "on",
        "kibitz_live": "on",
    }
    data.update(overrides)
    return data


def test_a_new_online_event_with_every_setting_from_the_console(client, director):
    client.force_login(director)
    form = client.get(reverse("console_new")).content.decode()
    for name in ("play", "unplayed_policy", "completion_threshold", "first_round_draw",
                 "description", "neuberg", "kibitz_live"):  # fmt: skip
        assert f'name="{name}"' in form
    response = client.post(reverse("console_new"), _new_event())
    created = Tournament.objects.get(name="Online Swiss")
    assert response.url == reverse("console", args=[created.pk])
    assert (created.play, created.unplayed_policy, created.first_round_draw) == (
        "online", "avg_minus", "random",
    )  # fmt: skip
    assert created.completion_threshold == 60 and created.neuberg and created.scoring_method == "MP"
    assert created.kibitz_live
    assert created.description.startswith("Six rounds") and created.gap_length == timedelta(
        minutes=2
    )


@pytest.mark.parametrize(
    ("field", "value", "says"),
    [
        ("completion_threshold", "0.7", "percentage from 1 to 100"),
        ("completion_threshold", "101", ""),
        ("play", "carrier-pigeon", ""),
        ("unplayed_policy", "coin", ""),
        ("first_round_draw", "by-height", ""),
        ("description", "evil \u202e text", "direction of text"),
        ("rounds", "0", ""),
        ("play", "entered", "Live kibitzing is for a tournament played online"),
    ],
)
def test_a_new_event_refused_changes_nothing(client, director, field, value, says):
    client.force_login(director)
    response = client.post(reverse("console_new"), _new_event(**{field: value}))
    assert response.status_code == 400
    if says:
        assert says in response.content.decode()
    assert not Tournament.objects.filter(name="Online Swiss").exists()


def test_the_console_writes_the_zone_as_every_page_does(client, online, director):
    first, _tables = online
    client.force_login(director)
    for url in (reverse("console", args=[first.tournament_id]), reverse("console_index"),
                reverse("console_new")):  # fmt: skip
        page = client.get(url).content.decode()
        assert "UTC+8" in page, url
        assert "CST" not in without_tokens(page), url


def test_a_pairs_page_links_its_online_tables(client, online):
    first, (one, _two) = online
    t = first.tournament_id
    page = client.get(reverse("pair", args=[t, one.ns_pair_id])).content.decode()
    assert f'href="/t/{t}/rounds/1/tables/1/play/"' in page
