"""The API of a team event (RULES 11): creating one with its team settings, each round's
matches, a match's score card, the team standings; a room's results entered at its table
through the ordinary result endpoint, and the match's IMPs and VPs read after the bell.
Nothing of a match's score before its round closes."""

from __future__ import annotations

import math
from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from tests.support.api import Api, assert_error, snapshot, token_for
from tests.support.team_events import add_team
from tournaments.models import BoardResult, Match, Team, Tournament

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]

# The IMP scale (RULES 5.2), written out here: the upper bound of each step.
IMP_STEPS = [10, 40, 80, 120, 160, 210, 260, 310, 360, 420, 490, 590, 740, 890, 1090, 1290]
IMP_STEPS += [1490, 1740, 1990, 2240, 2490, 2990, 3490, 3990]


def imps(difference: int) -> int:
    size = abs(difference)
    won = next((i for i, top in enumerate(IMP_STEPS) if size <= top), len(IMP_STEPS))
    return won if difference >= 0 else -won


def wbf_vp(margin: int, boards: int) -> tuple[Decimal, Decimal]:
    """The winner's and the loser's VPs, straight from SPEC 11's formula and correction."""

    def raw(m: int) -> Decimal:
        tau = (math.sqrt(5) - 1) / 2
        blitz = 15 * math.sqrt(boards)
        value = min(20.0, 10 + 10 * (1 - tau ** (3 * m / blitz)) / (1 - tau**3))
        return Decimal(str(round(value, 2))).quantize(Decimal("0.01"))

    top = next(m for m in range(0, 1000) if raw(m) == 20)
    table = [raw(m) for m in range(top + 1)]
    changed = True
    while changed:
        changed = False
        for m in range(1, top):
            if table[m + 1] - table[m] > table[m] - table[m - 1]:
                table[m] += Decimal("0.01")
                changed = True
    winner = table[min(abs(margin), top)]
    return (winner, 20 - winner) if margin >= 0 else (20 - winner, winner)


def creation(**overrides) -> dict:
    now = timezone.now()
    body = {
        "name": "Spring teams",
        "start_at": (now + timedelta(hours=1)).isoformat(),
        "registration_opens_at": (now - timedelta(days=1)).isoformat(),
        "rounds": 3,
        "boards_per_round": 2,
        "round_minutes": 30,
        "contestants": "teams",
        "seating": "swiss",
        "bye_vp": 12.5,
    }
    body.update(overrides)
    return body


@pytest.fixture
def organiser_api(organiser):
    return Api(token_for(organiser))


@pytest.fixture
def team_event(organiser_api):
    response = organiser_api.post("/tournaments", creation())
    assert response.status_code == 201, response.content
    tournament = Tournament.objects.get(pk=response.json()["id"])
    for number in (1, 2, 3):
        add_team(tournament, number, at=timezone.now())
    return tournament


def test_creating_a_team_event_through_the_api(organiser_api, public_api):
    response = organiser_api.post(
        "/tournaments", creation(seating="round_robin", team_scoring="imps", bye_vp="10.25")
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["contestants"], body["seating"], body["team_scoring"]) == (
        "teams",
        "round_robin",
        "imps",
    )
    assert body["bye_vp"] == 10.25
    stored = Tournament.objects.get(pk=body["id"])
    assert stored.is_teams and stored.bye_vp == Decimal("10.25")
    read = public_api.get(f"/tournaments/{body['id']}").json()
    assert (read["contestants"], read["team_scoring"], read["bye_vp"]) == ("teams", "imps", 10.25)
    two = organiser_api.post("/tournaments", creation(name="Stanzas", rounds=4, stanzas=2)).json()
    assert two["stanzas"] == 2 and Tournament.objects.get(pk=two["id"]).stanzas == 2
    # A pairs event says so too, with the defaults.
    pairs = organiser_api.post("/tournaments", creation(contestants="pairs", name="P")).json()
    assert (pairs["contestants"], pairs["team_scoring"], pairs["bye_vp"]) == ("pairs", "vp", 12.5)


@pytest.mark.parametrize(
    ("overrides", "status", "fragment"),
    [
        ({"seating": "mitchell"}, 400, "swiss or as a round robin"),
        ({"bye_vp": 20.5}, 400, "0 to 20 victory points"),
        ({"bye_vp": "12.345"}, 400, "two decimals"),
        ({"contestants": "pairs", "seating": "round_robin"}, 400, "round robin is for teams"),
        ({"boards_travel": True}, 400, "no travelling board sets"),
        ({"stanzas": 2}, 400, "whole number of 2-stanza matches"),
        ({"contestants": "pairs", "stanzas": 3}, 400, "pairs event has none"),
        ({"contestants": "quartets"}, 422, "contestants"),
        ({"team_scoring": "matchpoints"}, 422, "team_scoring"),
    ],
)
def test_team_settings_refused_change_nothing(organiser_api, overrides, status, fragment):
    before = snapshot()
    assert_error(organiser_api.post("/tournaments", creation(**overrides)), status, fragment)
    assert snapshot() == before


def result_path(tournament, table: int, board: int) -> str:
    return f"/tournaments/{tournament.pk}/rounds/1/tables/{table}/boards/{board}"


def test_both_rooms_entered_through_the_api_then_the_vps_after_the_bell(
    team_event, organiser_api, public_api
):
    t = team_event
    started = organiser_api.post(f"/tournaments/{t.pk}/start")
    assert started.status_code == 200, started.content

    listed = public_api.get(f"/tournaments/{t.pk}/matches")
    assert listed.status_code == 200, listed.content
    (round_one,) = listed.json()
    assert (round_one["round"], round_one["status"]) == (1, "open")
    played = [m for m in round_one["matches"] if m["away"] is not None]
    byes = [m for m in round_one["matches"] if m["away"] is None]
    assert len(played) == 1 and len(byes) == 1  # three teams: one sits out
    match = played[0]
    assert (match["home"]["registration_no"], match["away"]["registration_no"]) == (1, 2)
    assert byes[0]["open_table"] is None and byes[0]["home_vp"] is None
    stored = Match.objects.select_related("open_table", "closed_table").get(pk=match["id"])
    assert (match["open_table"], match["closed_table"]) == (
        stored.open_table.number,
        stored.closed_table.number,
    )
    # The open room: the home team NS; the closed room: the home team EW.
    home = Team.objects.get(pk=match["home"]["id"])
    assert stored.open_table.ns_pair.team_id == home.pk
    assert stored.closed_table.ew_pair.team_id == home.pk
    assert match["public"] is False
    assert (match["home_imps"], match["home_vp"], match["away_vp"]) == (None, None, None)

    # Each room's results at its own table, through the ordinary result endpoint.
    entries = {
        (match["open_table"], 1): {"contract": "4S", "declarer": "S", "result": "+1"},
        (match["open_table"], 2): {"contract": "3NT", "declarer": "N", "tricks": 8},
        (match["closed_table"], 1): {"contract": "2S", "declarer": "S", "result": "+2"},
        (match["closed_table"], 2): {"contract": "PASS"},
    }
    for (table, board), body in entries.items():
        response = organiser_api.put(result_path(t, table, board), body)
        assert response.status_code == 200, response.content

    # While the round runs the card has no line and the match no score.
    card = public_api.get(f"/tournaments/{t.pk}/matches/{match['id']}").json()
    assert card["boards"] == [] and card["match"]["public"] is False
    assert card["match"]["home_imps"] is None

    closed = organiser_api.post(f"/tournaments/{t.pk}/rounds/1/close")
    assert closed.status_code == 200, closed.content

    (round_one, _round_two) = public_api.get(f"/tournaments/{t.pk}/matches").json()
    after = next(m for m in round_one["matches"] if m["id"] == match["id"])
    bye = next(m for m in round_one["matches"] if m["away"] is None)
    assert after["public"] is True and bye["home_vp"] == 12.5

    # Independently: each board's home score is the open room's NS score minus the
    # closed room's, IMPed; the margin converted once into VPs.
    margin = 0
    for board in (1, 2):
        open_ns = BoardResult.objects.get(
            table__number=after["open_table"], board__number=board, table__round__tournament=t
        ).ns_score
        closed_ns = BoardResult.objects.get(
            table__number=after["closed_table"], board__number=board, table__round__tournament=t
        ).ns_score
        margin += imps(open_ns - closed_ns)
    assert after["home_imps"] - after["away_imps"] == margin
    home_vp, away_vp = wbf_vp(margin, 2)
    assert (Decimal(str(after["home_vp"])), Decimal(str(after["away_vp"]))) == (home_vp, away_vp)
    assert after["home_vp"] + after["away_vp"] == 20

    card = public_api.get(f"/tournaments/{t.pk}/matches/{match['id']}").json()
    assert card["round"] == 1 and card["match"]["home_vp"] == after["home_vp"]
    assert [line["board"] for line in card["boards"]] == [1, 2]
    running = 0
    for line in card["boards"]:
        entry_open = entries[(after["open_table"], line["board"])]
        assert line["open_room"]["table"] == after["open_table"]
        assert line["closed_room"]["table"] == after["closed_table"]
        assert line["open_room"]["contract"] == entry_open["contract"]
        difference = line["open_room"]["ns_score"] - line["closed_room"]["ns_score"]
        assert line["home_imps"] == imps(difference) == -line["away_imps"]
        running += line["home_imps"]
        assert line["running"] == running
    assert card["boards"][1]["closed_room"]["state"] == "passed_out"

    standings = public_api.get(f"/tournaments/{t.pk}/team-standings")
    assert standings.status_code == 200, standings.content
    lines = standings.json()
    assert [line["position"] for line in lines] == [1, 2, 3]
    by_team = {line["team"]["id"]: line for line in lines}
    assert by_team[home.pk]["vp"] == after["home_vp"]
    assert by_team[bye["home"]["id"]]["vp"] == 12.5
    assert all(line["matches"] == 1 for line in lines)
    vps = [line["vp"] for line in lines]
    assert vps == sorted(vps, reverse=True)


def test_the_reads_on_unknown_ids_and_on_a_pairs_event(team_event, public_api, api_running):
    assert_error(public_api.get(f"/tournaments/{team_event.pk}/matches/999999"), 404, "no match")
    assert_error(public_api.get("/tournaments/999999/team-standings"), 404, "no tournament")
    assert public_api.get(f"/tournaments/{team_event.pk}/matches").json() == []
    standings = public_api.get(f"/tournaments/{team_event.pk}/team-standings").json()
    assert [(line["position"], line["quotient"]) for line in standings] == [(None, None)] * 3
    pairs_event, _pairs = api_running
    assert public_api.get(f"/tournaments/{pairs_event.pk}/team-standings").json() == []
    (round_one,) = public_api.get(f"/tournaments/{pairs_event.pk}/matches").json()
    assert round_one["matches"] == []
