"""The API of a movement event (RULES 10; issue 25 item 5): create one with its seating,
winners and movement as data, read the movement (public, like the seating), change it until
round 1 starts; a Howell played face to face with every result entered through the API."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

import movements
from tests.support.api import assert_error, snapshot
from tournaments.models import Pair, Tournament
from tournaments.services.formats.movement_rules import explain

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]


def body(**overrides) -> dict:
    fields = {
        "name": "Club night",
        "start_at": (timezone.now() + timedelta(hours=2)).isoformat(),
        "rounds": 7,
        "boards_per_round": 2,
        "round_minutes": 20,
        "scoring": "MP",
    }
    fields.update(overrides)
    return fields


def test_a_two_winner_mitchell_is_created_with_neuberg_on(organiser_api):
    response = organiser_api.post("/tournaments", body(seating="mitchell", winners=2))
    assert response.status_code == 201, response.content
    made = response.json()
    assert (made["seating"], made["winners"], made["arrow_switch"], made["neuberg"]) == (
        "mitchell", 2, False, True,
    )  # fmt: skip
    t = Tournament.objects.get(pk=made["id"])
    assert (t.seating, t.winners, t.neuberg, t.movement) == ("mitchell", 2, True, None)


def test_a_movement_given_as_json_is_stored_and_read_back(organiser_api, public_api):
    given = movements.to_json(movements.mitchell(7, 2))
    response = organiser_api.post(
        "/tournaments", body(seating="movement", winners=2, movement=given)
    )
    assert response.status_code == 201, response.content
    read = public_api.get(f"/tournaments/{response.json()['id']}/movement")
    assert read.status_code == 200, read.content
    answer = read.json()
    assert answer["fixed"] is False and answer["winners"] == 2
    assert movements.from_json(answer["movement"]) == movements.from_json(given)
    assert [p["label"] for p in answer["positions"]][:2] == ["1NS", "2NS"]
    assert answer["positions"][7]["label"] == "1EW" and answer["positions"][7]["field"] == "EW"
    assert all(p["pair"] is None for p in answer["positions"])  # nobody registered yet


def test_a_broken_movement_is_refused_with_its_rule_and_nothing_stored(organiser_api):
    mitchell = movements.mitchell(7, 2)
    first, second = mitchell.rounds[0], mitchell.rounds[1]
    again = (first[0], *second[1:])  # table 1 of round 2: round 1's pairs and boards again
    broken = movements.to_json(
        type(mitchell)(**{**mitchell.__dict__, "rounds": (first, again, *mitchell.rounds[2:])})
    )
    with pytest.raises(movements.MovementError) as first_broken:
        movements.verify(movements.from_json(broken))
    before = snapshot()
    response = organiser_api.post("/tournaments", body(seating="movement", movement=broken))
    error = assert_error(response, 400)["error"]
    assert error == explain(first_broken.value)
    assert "round 2" in error, error
    assert snapshot() == before


@pytest.mark.parametrize(
    ("overrides", "says"),
    [
        ({"seating": "howell", "winners": 2}, "Howell"),
        ({"seating": "swiss", "winners": 2}, "Swiss"),
        ({"seating": "movement"}, "needs the movement"),
        ({"seating": "movement", "movement": {"tables": "seven"}}, "malformed"),
    ],
)
def test_refused_settings_store_nothing(organiser_api, overrides, says):
    before = snapshot()
    assert_error(organiser_api.post("/tournaments", body(**overrides)), 400, says)
    assert snapshot() == before


def test_a_swiss_event_has_no_movement(public_api, api_running):
    tournament, _pairs = api_running
    assert_error(public_api.get(f"/tournaments/{tournament.pk}/movement"), 404, "Swiss")


def test_no_movement_for_the_pairs_registered_is_a_404_with_the_reason(organiser_api, public_api):
    made = organiser_api.post("/tournaments", body(seating="mitchell")).json()
    assert_error(public_api.get(f"/tournaments/{made['id']}/movement"), 404, "0 pairs")


def test_the_movement_changes_until_round_1_starts(organiser_api, public_api, register_pairs):
    made = organiser_api.post("/tournaments", body(seating="swiss", rounds=3)).json()
    path = f"/tournaments/{made['id']}/movement"
    changed = organiser_api.put(path, {"seating": "howell"})
    assert changed.status_code == 200, changed.content
    assert (changed.json()["seating"], changed.json()["neuberg"]) == ("howell", True)
    assert_error(public_api.put(path, {"seating": "mitchell"}), 401)
    before = snapshot()
    assert_error(organiser_api.put(path, {"seating": "howell", "winners": 2}), 400, "Howell")
    assert snapshot() == before
    t = Tournament.objects.get(pk=made["id"])
    register_pairs(t, 7, now=timezone.now())
    started = organiser_api.post(f"/tournaments/{t.pk}/start")
    assert started.status_code == 200, started.content
    before = snapshot()
    assert_error(organiser_api.put(path, {"seating": "swiss"}), 409, "has started")
    assert snapshot() == before
    fixed = public_api.get(path).json()
    assert fixed["fixed"] is True
    held = {p["position"]: p["pair"] for p in fixed["positions"]}
    by_registration = list(
        Pair.objects.filter(tournament=t).order_by("registration_no").values_list("pk", flat=True)
    )
    phantom = movements.from_json(fixed["movement"]).phantom
    assert held.pop(phantom) is None
    assert list(held.values()) == by_registration


def test_a_howell_played_face_to_face_with_results_entered_through_the_api(
    organiser_api, public_api
):
    made = organiser_api.post(
        "/tournaments", body(seating="howell", boards_per_round=1, play="entered")
    )
    assert made.status_code == 201, made.content
    tid = made.json()["id"]
    for n in range(8):
        names = [f"howell{n}a", f"howell{n}b"]
        for name in names:
            assert organiser_api.post("/players", {"username": name}).status_code == 201
        assert (
            organiser_api.post(f"/tournaments/{tid}/pairs", {"players": names}).status_code == 201
        )
    assert organiser_api.post(f"/tournaments/{tid}/start").status_code == 200
    movement = movements.from_json(
        public_api.get(f"/tournaments/{tid}/movement").json()["movement"]
    )
    position = dict(Pair.objects.filter(tournament_id=tid).values_list("pk", "position"))
    met = set()
    for number in range(1, 8):
        seating = public_api.get(f"/tournaments/{tid}/rounds/{number}").json()
        tables = {(t["table"], position[t["ns"]], position[t["ew"]]) for t in seating["tables"]}
        assert tables == {(e.table, e.ns, e.ew) for e in movement.round(number)}
        for t in seating["tables"]:
            met.add(frozenset((t["ns"], t["ew"])))
            board = seating["boards"][0]["number"]
            tricks = 7 + (t["table"] * 2 + number) % 5
            entered = organiser_api.put(
                f"/tournaments/{tid}/rounds/{number}/tables/{t['table']}/boards/{board}",
                {"contract": "2S", "declarer": "N", "tricks": tricks},
            )
            assert entered.status_code == 200, entered.content
        closed = organiser_api.post(f"/tournaments/{tid}/rounds/{number}/close")
        assert closed.status_code == 200, closed.content
    assert len(met) == 28  # every pair met every other once
    assert public_api.get(f"/tournaments/{tid}").json()["status"] == "finished"
    standings = public_api.get(f"/tournaments/{tid}/standings").json()
    assert len(standings) == 8
    assert sorted(row["rank"] for row in standings)[-1] > 4  # one list, not two of four
