"""The API of a team event's registration (RULES 11): propose, confirm, decline, cancel,
the list (line-ups to the team and the organisers only), the line-up, the withdrawal.
Every refusal is a 4xx `{"error": …}` and changes nothing."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from tests.support.api import Api, assert_error, snapshot, token_for
from tournaments.models import Team, TeamMember

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]


def full_snapshot():
    data = snapshot()
    data["Team"] = list(Team.objects.order_by("pk").values())
    data["TeamMember"] = list(TeamMember.objects.order_by("pk").values())
    return data


def refused(call, status: int, fragment: str = ""):
    before = full_snapshot()
    body = assert_error(call(), status, fragment)
    assert full_snapshot() == before, "a refused request changed the database"
    return body


@pytest.fixture
def event(make_tournament):
    return make_tournament(
        contestants="teams",
        seating="swiss",
        start_at=timezone.now() + timedelta(hours=2),
        registration_opens_at=timezone.now() - timedelta(days=1),
    )


@pytest.fixture
def people(make_user):
    users = [make_user(name=f"Player {i}") for i in range(8)]
    for user in users:  # their tokens, issued before any refusal's snapshot
        token_for(user)
    return users


def api_of(user) -> Api:
    return Api(token_for(user))


def teams_path(event) -> str:
    return f"/tournaments/{event.pk}/teams"


def propose(event, captain, others, name="Lions"):
    return api_of(captain).post(
        teams_path(event), {"name": name, "members": [u.username for u in others]}
    )


def registered(event, members, name="Lions") -> dict:
    body = propose(event, members[0], members[1:], name=name).json()
    for user in members[1:4]:
        response = api_of(user).post(f"{teams_path(event)}/{body['id']}/confirm")
        assert response.status_code == 200, response.content
        body = response.json()
    return body


def test_propose_confirm_register(event, people):
    a, b, c, d, e = people[:5]
    response = propose(event, a, [b, c, d, e])
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["status"] == "pending" and body["registration_no"] is None
    assert [(m["username"], m["confirmed"], m["captain"]) for m in body["members"]] == [
        (a.username, True, True),
        (b.username, False, False),
        (c.username, False, False),
        (d.username, False, False),
        (e.username, False, False),
    ]
    assert body["members"][1]["name"] == "Player 1"
    assert body["line_up"] is None
    path = f"{teams_path(event)}/{body['id']}"
    assert api_of(e).post(path + "/decline").json()["members"][-1]["username"] == d.username
    for user in (b, c):
        body = api_of(user).post(path + "/confirm").json()
        assert body["status"] == "pending"
    body = api_of(d).post(path + "/confirm").json()
    assert body["status"] == "confirmed" and body["registration_no"] == 1
    assert body["line_up"] == {
        "open_pair": [
            {"username": a.username, "name": "Player 0"},
            {"username": b.username, "name": "Player 1"},
        ],
        "closed_pair": [
            {"username": c.username, "name": "Player 2"},
            {"username": d.username, "name": "Player 3"},
        ],
    }


def test_the_list_shows_the_line_up_to_the_team_and_the_organisers(
    event, people, organiser, public_api
):
    lions = registered(event, people[:4])
    tigers = registered(event, people[4:8], name="Tigers")

    def line_ups(api):
        response = api.get(teams_path(event))
        assert response.status_code == 200, response.content
        return {t["name"]: t["line_up"] is not None for t in response.json()}

    assert line_ups(public_api) == {"Lions": False, "Tigers": False}
    assert line_ups(api_of(people[1])) == {"Lions": True, "Tigers": False}
    assert line_ups(api_of(people[5])) == {"Lions": False, "Tigers": True}
    assert line_ups(api_of(organiser)) == {"Lions": True, "Tigers": True}
    listed = public_api.get(teams_path(event)).json()
    assert [(t["name"], t["registration_no"]) for t in listed] == [("Lions", 1), ("Tigers", 2)]
    one = public_api.get(f"{teams_path(event)}/{tigers['id']}").json()
    assert one["line_up"] is None and len(one["members"]) == 4
    mine = api_of(people[0]).get(f"{teams_path(event)}/{lions['id']}").json()
    assert mine["line_up"]["open_pair"][0]["username"] == people[0].username


def test_line_up_and_withdrawal(event, people, organiser):
    a, b, c, d = people[:4]
    team = registered(event, people[:4])
    path = f"{teams_path(event)}/{team['id']}"
    response = api_of(a).put(
        path + "/line-up",
        {"open_pair": [d.username, c.username], "closed_pair": [b.username, a.username]},
    )
    assert response.status_code == 200, response.content
    line_up = response.json()["line_up"]
    # The team's pair of c and d again (one pair whichever order they are named in).
    assert {p["username"] for p in line_up["open_pair"]} == {c.username, d.username}
    assert {p["username"] for p in line_up["closed_pair"]} == {a.username, b.username}
    # An organiser sets it too.
    response = api_of(organiser).put(
        path + "/line-up",
        {"open_pair": [a.username, b.username], "closed_pair": [c.username, d.username]},
    )
    assert response.status_code == 200, response.content
    refused(lambda: api_of(b).post(path + "/withdraw"), 403, "captain or an organiser")
    response = api_of(a).post(path + "/withdraw")
    assert response.status_code == 200 and response.json()["withdrawn_at"]
    refused(lambda: api_of(a).post(path + "/withdraw"), 400, "already withdrawn")


def test_cancel(event, people):
    body = propose(event, people[0], people[1:4]).json()
    path = f"{teams_path(event)}/{body['id']}"
    refused(lambda: api_of(people[1]).post(path + "/cancel"), 403, "captain")
    response = api_of(people[0]).post(path + "/cancel")
    assert response.status_code == 204
    assert not Team.objects.exists()
    refused(lambda: api_of(people[1]).post(path + "/confirm"), 404, "no team")


def test_refusals_change_nothing(event, people, make_tournament, public_api):
    a, b, c, d, e, f, g, h = people
    team = registered(event, [a, b, c, d])
    path = f"{teams_path(event)}/{team['id']}"
    pairs_event = make_tournament(
        start_at=timezone.now() + timedelta(hours=2),
        registration_opens_at=timezone.now() - timedelta(days=1),
    )
    others = [f.username, g.username, h.username]
    refused(lambda: propose(event, e, [f, g]), 400, "4 to 6 players")
    refused(lambda: propose(event, e, [f, g, b]), 400, "already in a team")
    refused(lambda: propose(event, e, [f, g, h], name="lions"), 400, "already a team called")
    refused(lambda: propose(pairs_event, e, [f, g, h]), 400, "pairs event")
    refused(lambda: public_api.post(teams_path(event), {"name": "X", "members": others}), 401)
    refused(lambda: api_of(e).post(teams_path(event), {"name": "X"}), 422, "members")
    refused(
        lambda: api_of(e).post("/tournaments/999999/teams", {"name": "X", "members": others}),
        404,
    )
    refused(lambda: api_of(e).post(path + "/confirm"), 403, "invited")
    refused(lambda: api_of(b).post(path + "/confirm"), 400, "already a member")
    refused(lambda: api_of(b).post(path + "/decline"), 400, "already confirmed")
    refused(
        lambda: api_of(e).put(
            path + "/line-up",
            {"open_pair": [a.username, b.username], "closed_pair": [c.username, d.username]},
        ),
        403,
        "captain",
    )
    refused(
        lambda: api_of(a).put(
            path + "/line-up",
            {"open_pair": [a.username, b.username], "closed_pair": [c.username, e.username]},
        ),
        400,
        "not a confirmed member",
    )
    refused(
        lambda: api_of(a).put(
            path + "/line-up", {"open_pair": [a.username], "closed_pair": [c.username, d.username]}
        ),
        400,
        "two players",
    )
    refused(lambda: api_of(a).post(path + "/cancel"), 400, "withdraw it instead")
    refused(lambda: public_api.get(f"{teams_path(event)}/999999"), 404, "no team")
