"""A program's seat over the API (SPEC 14): who may reserve it, the ticket shown once with
the gateway's address and the line the program connects with, and the refusals, which
change nothing."""

from __future__ import annotations

import pytest

from tests.support.api import Api, assert_error, table_of, token_for
from tests.support.online_ws import open_online_round, seated_users
from tournaments.models import ProgramSeat
from tournaments.services import programs

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]


@pytest.fixture
def table(make_tournament, register_pairs):
    _round, tables = open_online_round(make_tournament, register_pairs, boards=1, rounds=1)
    return tables[0]


def path(table, seat: str) -> str:
    t, r = table.round.tournament_id, table.round.number
    return f"/tournaments/{t}/rounds/{r}/tables/{table.number}/seats/{seat}/program"


def reservations() -> list:
    return list(ProgramSeat.objects.order_by("pk").values())


def refused(response, status: int, fragment: str, before: list) -> None:
    assert_error(response, status, fragment)
    assert reservations() == before, "a refused reservation changed a seat"


def test_a_director_reserves_any_seat_and_sees_the_ticket_once(table, director, monkeypatch):
    monkeypatch.setenv("BLUECHIP_GATEWAY_PORT", "2000")
    response = Api(token_for(director)).post(
        path(table, "W"), {"program": "  WBridge5 ", "think_seconds": 30}
    )
    assert response.status_code == 201, response.content
    assert response["Cache-Control"] == "no-store"
    body = response.json()
    ticket = body["ticket"]
    assert ticket.startswith("tkt-") and len(ticket) == 36
    assert body["connecting"] == f'Connecting "{ticket}" as West using protocol version 18'
    assert body["gateway"] == {"host": "127.0.0.1", "port": 2000}
    assert (body["seat"], body["table"], body["round"]) == ("W", table.number, 1)
    assert (body["program"], body["think_seconds"]) == ("WBridge5", 30)
    held = ProgramSeat.objects.get()
    assert held.ticket_digest == programs.digest(ticket) and ticket not in str(held.__dict__)
    # The ticket binds the seat as the gateway would.
    binding = programs.bind(ticket=ticket, seat="W", address="127.0.0.1", connection="a")
    assert binding.seat == "W" and binding.think_seconds == 30


def test_the_seat_s_player_reserves_their_own_seat_only(table):
    users = seated_users(table)
    east = Api(token_for(users["E"]))
    response = east.post(path(table, "E"), {"program": "BEN"})
    assert response.status_code == 201, response.content
    assert response.json()["think_seconds"] == programs.THINK_SECONDS
    before = reservations()
    refused(east.post(path(table, "W"), {"program": "BEN"}), 403, "seat W", before)
    # Nor may the partner or an opponent take East's seat.
    for other in ("W", "N"):
        refused(Api(token_for(users[other])).post(path(table, "E"), {}), 403, "seat E", before)


def test_refusals_say_why_and_change_nothing(table, director):
    api = Api(token_for(director))
    before = reservations()
    refused(api.post(path(table, "X"), {}), 400, "N, E, S or W", before)
    for bad in (0, 1, 601, 10_000):
        refused(api.post(path(table, "N"), {"think_seconds": bad}), 400, "2 to 600", before)
    refused(api.post(path(table, "N"), {"think_seconds": "soon"}), 422, "think_seconds", before)
    refused(api.post(path(table, "N"), {"program": "x" * 61}), 400, "60 characters", before)
    refused(api.post(path(table, "N"), {}, token="no-such-key"), 401, "", before)
    wrong = path(table, "N").replace(f"/tables/{table.number}/", "/tables/99/")
    refused(api.post(wrong, {}), 404, "no table 99", before)


def test_a_table_not_played_online_is_refused(api_running, organiser):
    tournament, _pairs = api_running
    table = table_of(tournament, 1, 1)
    assert tournament.play != "online"
    refused(
        Api(token_for(organiser)).post(path(table, "N"), {"program": "GIB"}),
        409,
        "online",
        reservations(),
    )


def test_the_seat_is_given_back_while_no_program_is_connected(table, director):
    users = seated_users(table)
    api = Api(token_for(users["S"]))
    ticket = api.post(path(table, "S"), {"program": "Jack"}).json()["ticket"]
    client, headers = api.client, {"HTTP_AUTHORIZATION": f"Bearer {token_for(users['N'])}"}
    before = reservations()
    refused(client.delete("/api/v1" + path(table, "S"), **headers), 403, "seat S", before)
    binding = programs.bind(ticket=ticket, seat=None, address="127.0.0.1", connection="a")
    mine = {"HTTP_AUTHORIZATION": f"Bearer {token_for(users['S'])}"}
    before = reservations()
    refused(client.delete("/api/v1" + path(table, "S"), **mine), 409, "connected", before)
    programs.dropped(binding=binding)
    assert client.delete("/api/v1" + path(table, "S"), **mine).status_code == 204
    assert not ProgramSeat.objects.exists()
    with pytest.raises(programs.ProgramRefused):
        programs.bind(ticket=ticket, seat=None, address="127.0.0.1", connection="b")
    directors = {"HTTP_AUTHORIZATION": f"Bearer {token_for(director)}"}
    refused(client.delete("/api/v1" + path(table, "S"), **directors), 404, "no program", [])
