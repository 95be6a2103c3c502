"""Refused requests: each is a 4xx `{"error": …}` with a message, and changes nothing."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from tests.support.api import Api, assert_error, result_path, snapshot, table_of, token_for
from tournaments.models import BoardResult

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]


@pytest.fixture
def seated(api_running):
    """The running tournament and an API client for an NS player of table 1."""
    tournament, pairs = api_running
    table = table_of(tournament, 1, 1)
    return tournament, Api(token_for(table.ns_pair.player1)), table


def refused(call, status: int, fragment: str = ""):
    before = snapshot()
    body = assert_error(call(), status, fragment)
    assert snapshot() == before, "a refused request changed the database"
    return body


# --- result entry --------------------------------------------------------------------


@pytest.mark.parametrize(
    "body,fragment",
    [
        ({"contract": "8S", "declarer": "N", "tricks": 10}, "level"),
        ({"contract": "4Z", "declarer": "N", "tricks": 10}, "strain"),
        ({"contract": "", "declarer": "N", "tricks": 10}, "empty"),
        ({"contract": "4SXXX", "declarer": "N", "tricks": 10}, "doubling"),
        ({"contract": "4S", "declarer": "Q", "tricks": 10}, "declarer"),
        ({"contract": "4S", "declarer": "N", "tricks": 14}, "0 to 13"),
        ({"contract": "4S", "declarer": "N", "tricks": -1}, "0 to 13"),
        ({"contract": "4S", "declarer": "N"}, "tricks"),
        ({"contract": "4S", "declarer": "N", "result": "+4"}, "13"),
        ({"contract": "4S", "declarer": "N", "result": "x"}, "result"),
        ({"contract": "4S", "declarer": "N", "tricks": 10, "lead": "Z9"}, "card"),
    ],
)
def test_bad_results_are_refused_with_the_engines_message(seated, body, fragment):
    tournament, api, _table = seated
    refused(lambda: api.put(result_path(tournament), body), 400, fragment)


def test_unknown_board_and_table_are_404(seated):
    tournament, api, _table = seated
    good = {"contract": "4S", "declarer": "N", "tricks": 10}
    refused(lambda: api.put(result_path(tournament, board=3), good), 404, "board 3")
    refused(lambda: api.put(result_path(tournament, table=9), good), 404, "table 9")
    refused(lambda: api.put(result_path(tournament, round_number=2), good), 404, "table")
    path = "/tournaments/987654/rounds/1/tables/1/boards/1"
    refused(lambda: api.put(path, good), 404)


def test_not_your_table_is_403(seated):
    tournament, api, _table = seated
    good = {"contract": "4S", "declarer": "N", "tricks": 10}
    refused(lambda: api.put(result_path(tournament, table=2), good), 403, "table 2")


def test_after_the_round_closed_results_are_refused_409(seated, organiser_api):
    tournament, api, table = seated
    organiser_api.post(f"/tournaments/{tournament.pk}/rounds/1/close")
    good = {"contract": "4S", "declarer": "N", "tricks": 10}
    body = refused(lambda: api.put(result_path(tournament), good), 409, "round 1 closed")
    assert "no longer" in body["error"]
    # The cut-off board stays not played.
    assert BoardResult.objects.get(table=table, board__number=1).state == "not_played"


def test_after_the_bell_before_the_clock_ticks_is_409(seated):
    tournament, api, _table = seated
    tournament.round_set.filter(number=1).update(
        starts_at=timezone.now() - timedelta(hours=1), ends_at=timezone.now() - timedelta(minutes=1)
    )
    good = {"contract": "4S", "declarer": "N", "tricks": 10}
    refused(lambda: api.put(result_path(tournament), good), 409, "closed")


@pytest.mark.parametrize(
    "raw",
    [
        "{not json",
        '{"contract": "4S", "declarer": "N", "tricks": 10',
        "\u00ff\u00fe",
    ],
)
def test_bad_json_is_400(seated, raw):
    tournament, api, _table = seated
    refused(lambda: api.put(result_path(tournament), raw=raw), 400, "JSON")


@pytest.mark.parametrize(
    "body,field",
    [
        ({"contract": 4, "declarer": "N", "tricks": 10}, "contract"),
        ({"contract": "4S", "declarer": "N", "tricks": "ten"}, "tricks"),
        ({"contract": "4S", "declarer": "N", "tricks": 10.5}, "tricks"),
        ({"contract": "4S", "declarer": ["N"], "tricks": 10}, "declarer"),
        ({"declarer": "N", "tricks": 10}, "contract"),
        ([1, 2, 3], "contract"),
        ("4S", "contract"),
    ],
)
def test_wrong_types_are_422(seated, body, field):
    tournament, api, _table = seated
    refused(lambda: api.put(result_path(tournament), body), 422, field)


@pytest.mark.parametrize("field", ["contract", "declarer", "result", "lead"])
def test_nul_characters_are_422(seated, field):
    tournament, api, _table = seated
    body = {"contract": "4S", "declarer": "N", "tricks": 10, field: "4\x00S"}
    refused(lambda: api.put(result_path(tournament), body), 422, "NUL")


def test_nul_characters_in_setup_are_422(organiser_api, scheduled):
    t, _pairs = scheduled
    refused(lambda: organiser_api.post("/players", {"username": "a\x00b"}), 422, "NUL")
    refused(
        lambda: organiser_api.post("/players", {"username": "ok", "display_name": "\x00"}),
        422,
        "NUL",
    )
    refused(
        lambda: organiser_api.post(f"/tournaments/{t.pk}/pairs", {"players": ["\x00", "b"]}),
        422,
        "NUL",
    )
    refused(lambda: organiser_api.post("/tournaments", base_tournament(name="x\x00")), 422, "NUL")


def test_empty_body_is_422(seated):
    tournament, api, _table = seated
    refused(lambda: api.put(result_path(tournament), raw=""), 422)


# --- registration --------------------------------------------------------------------


@pytest.fixture
def scheduled(make_tournament, register_pairs):
    t = make_tournament(start_at=timezone.now() + timedelta(days=1))
    pairs = register_pairs(t, 2, now=timezone.now())
    return t, pairs


def test_duplicate_pair_is_refused(organiser_api, scheduled):
    t, pairs = scheduled
    players = [pairs[0].player1.username, pairs[0].player2.username]
    refused(
        lambda: organiser_api.post(f"/tournaments/{t.pk}/pairs", {"players": players}),
        400,
        "already in a pair",
    )


@pytest.mark.parametrize(
    "players,fragment",
    [
        (["nobody-here", "nobody-either"], "no player"),
        (["solo"], "exactly two"),
        (["solo", "solo"], "two different"),
        (["a", "b", "c"], "exactly two"),
    ],
)
def test_bad_pairs_are_refused(organiser_api, scheduled, make_user, players, fragment):
    t, _pairs = scheduled
    make_user("solo")
    refused(
        lambda: organiser_api.post(f"/tournaments/{t.pk}/pairs", {"players": players}),
        400,
        fragment,
    )


def test_a_late_entry_after_the_last_round_is_seated_is_refused(
    organiser, organiser_api, api_running, make_user
):
    from tournaments.services import clock

    tournament, _pairs = api_running
    for number in (1, 2):  # round 3 of 3 seated
        clock.close_round_now(tournament=tournament, by=organiser, round_number=number)
    a, b = make_user(), make_user()
    refused(
        lambda: organiser_api.post(
            f"/tournaments/{tournament.pk}/pairs", {"players": [a.username, b.username]}
        ),
        400,
        "last round (round 3)",
    )


def test_withdrawing_twice_is_refused(organiser_api, scheduled):
    t, pairs = scheduled
    organiser_api.post(f"/tournaments/{t.pk}/pairs/{pairs[0].pk}/withdraw")
    refused(
        lambda: organiser_api.post(f"/tournaments/{t.pk}/pairs/{pairs[0].pk}/withdraw"),
        400,
        "already withdrawn",
    )


# --- clock ---------------------------------------------------------------------------


def test_start_twice_or_without_pairs_is_409(organiser_api, api_running, make_tournament):
    tournament, _pairs = api_running
    refused(lambda: organiser_api.post(f"/tournaments/{tournament.pk}/start"), 409, "already")
    empty = make_tournament(start_at=timezone.now() + timedelta(days=1))
    refused(lambda: organiser_api.post(f"/tournaments/{empty.pk}/start"), 409, "two")


def test_closing_a_round_that_is_not_open(organiser_api, api_running, scheduled):
    tournament, _pairs = api_running
    refused(
        lambda: organiser_api.post(f"/tournaments/{tournament.pk}/rounds/2/close"), 404, "round 2"
    )
    t, _ = scheduled
    refused(lambda: organiser_api.post(f"/tournaments/{t.pk}/rounds/1/close"), 404, "round 1")


# --- setup ---------------------------------------------------------------------------


def base_tournament(**overrides):
    body = {
        "name": "Swiss",
        "start_at": (timezone.now() + timedelta(days=1)).isoformat(),
        "rounds": 5,
        "boards_per_round": 4,
        "round_minutes": 28,
    }
    body.update(overrides)
    return body


@pytest.mark.parametrize(
    "overrides,status,fragment",
    [
        ({"name": "  "}, 400, "name"),
        ({"name": "x" * 201}, 400, "200"),
        ({"rounds": 0}, 400, "1 to 50"),
        ({"rounds": 51}, 400, "1 to 50"),
        ({"rounds": 10**30}, 400, "1 to 50"),
        ({"boards_per_round": 37}, 400, "1 to 36"),
        ({"round_minutes": 0}, 400, "round length"),
        ({"round_minutes": 601}, 400, "600"),
        ({"round_minutes": -5}, 400, "round length"),
        ({"gap_minutes": -1}, 400, "gap"),
        ({"completion_threshold": 101}, 400, "1 to 100"),
        ({"completion_threshold": 0}, 400, "1 to 100"),
        ({"completion_threshold": 0.7}, 400, "write 70"),
        ({"start_at": "2001-01-01T00:00:00Z"}, 400, "past"),
        ({"start_at": "9999-12-31T23:59:59-14:00"}, 400, "start time"),
        ({"start_at": "2999-01-01T00:00:00Z"}, 400, "five years"),
        ({"registration_opens_at": "0001-01-01T00:00:00+05:00"}, 400, "registration"),
        ({"registration_opens_at": "2001-01-01T00:00:00Z"}, 400, "a year before"),
        (
            {"registration_opens_at": (timezone.now() + timedelta(days=2)).isoformat()},
            400,
            "before",
        ),
        ({"scoring": "BAM"}, 422, "scoring"),
        ({"unplayed_policy": "zero"}, 422, "unplayed_policy"),
        ({"rounds": "five"}, 422, "rounds"),
        ({"rounds": 2.5}, 422, "rounds"),
        ({"start_at": "tomorrow"}, 422, "start_at"),
        ({"round_minutes": None}, 422, "round_minutes"),
    ],
)
def test_bad_tournament_settings(organiser_api, overrides, status, fragment):
    refused(
        lambda: organiser_api.post("/tournaments", base_tournament(**overrides)), status, fragment
    )


def test_non_finite_minutes_are_refused(organiser_api):
    # Python's json accepts NaN and Infinity literals; they must not reach the database.
    for literal in ("NaN", "Infinity", "-Infinity"):
        body = json.dumps(base_tournament(round_minutes="MINUTES"))
        text = body.replace('"MINUTES"', literal)
        refused(lambda text=text: organiser_api.post("/tournaments", raw=text), 400, "finite")


@pytest.mark.parametrize(
    "body,status,fragment",
    [
        ({"username": ""}, 400, "username"),
        ({"username": "has space"}, 400, "not a valid username"),
        ({"username": "x" * 151}, 400, "150"),
        ({"username": "ok", "display_name": "y" * 81}, 400, "80"),
        ({"display_name": "no username"}, 422, "username"),
        ({"username": 42}, 422, "username"),
    ],
)
def test_bad_players_are_refused(organiser_api, body, status, fragment):
    refused(lambda: organiser_api.post("/players", body), status, fragment)
