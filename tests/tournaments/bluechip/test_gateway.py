"""Programs from outside (SPEC 14): four seats of a real online table played through the
Blue Chip gateway, running in a real uvicorn (`config.asgi_embedded`, as `make run` runs
it), by a Blue Chip client written in the tests from the protocol document
(tests/support/bluechip_client.py): a whole board bid, played and scored, with a program
declaring (playing dummy's cards) and a program as dummy; a passed-out board; a late
program replaced at the think-time limit; a person's claim against programs, answered
double dummy; and no program ever told a hand but its own and dummy's."""

from __future__ import annotations

import asyncio
import json
import socket
import time
import urllib.request

import pytest

from tests.support.bluechip_client import Program
from tests.support.online_ws import dealt_hands, open_online_round, seated_users, token_of
from tests.support.uvicorn import EMBEDDED, free_port, start_server, stop, wait_until_listening
from tournaments.models import Board, BoardResult, PlayAction, ProgramSeat, TablePresence
from tournaments.services import programs

NAMES = {"N": "North", "E": "East", "S": "South", "W": "West"}


@pytest.fixture(scope="module")
def servers(django_db_setup, django_db_blocker, tmp_path_factory):
    """One uvicorn for the module, the gateway inside it: (site port, gateway port)."""
    port, gateway = free_port(), free_port()
    log_path = tmp_path_factory.mktemp("bluechip") / "server.log"
    with django_db_blocker.unblock():
        server = start_server(
            port=port,
            log=log_path.open("w"),
            extra_env={"BLUECHIP_GATEWAY_PORT": str(gateway)},
            **EMBEDDED,
        )
    try:
        wait_until_listening(port, server, log_path)
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", gateway), timeout=0.5).close()
                break
            except OSError:
                assert time.monotonic() < deadline, log_path.read_text()[-3000:]
                time.sleep(0.1)
        yield port, gateway, log_path
    finally:
        stop(server)


def run(*coroutines, timeout=90):
    async def together():
        return await asyncio.wait_for(asyncio.gather(*coroutines), timeout)

    return asyncio.run(together())


def reserve(table, seats, by, **options) -> dict[str, str]:
    return {
        seat: programs.reserve(table=table, seat=seat, by=by, program="test client", **options)[1]
        for seat in seats
    }


@pytest.mark.django_db(transaction=True)
def test_four_programs_play_a_board_out_and_pass_one_out(
    servers, make_tournament, register_pairs, organiser
):
    _port, gateway, log_path = servers
    _round, tables = open_online_round(make_tournament, register_pairs, boards=2, rounds=1)
    table = tables[0]
    tickets = reserve(table, "NESW", organiser)
    board_1 = Board.objects.get(round_id=table.round_id, number=1)
    assert board_1.dealer == "N"
    # Board 1: North opens 1NT, all pass: North declares and plays dummy's (South's)
    # cards; South is the program as dummy. Board 2: passed out.
    clients = {
        "N": Program(gateway, tickets["N"], "North", calls=["1NT"]),
        "E": Program(gateway, tickets["E"], "East", shout=True),  # WBridge5 writes capitals
        "S": Program(gateway, tickets["S"], "South"),
        "W": Program(gateway, tickets["W"], "ANYPL"),  # given the seat its ticket holds
    }
    run(*(client.run() for client in clients.values()))

    assert clients["W"].seat == "W"
    first = BoardResult.objects.get(table=table, board=board_1)
    assert first.played_online and first.contract == "1NT" and first.declarer == "N"
    assert (
        first.tricks is not None
        and PlayAction.objects.filter(table=table, board=board_1).count() == 4 + 52
    )
    second = BoardResult.objects.get(table=table, board__number=2, board__round=table.round_id)
    assert second.contract == "PASS"
    hands = dealt_hands(table, 1)
    for seat, client in clients.items():
        assert client.boards_ended == ["timing", "timing"], (seat, client.received[-5:])
        assert client.received[-1] == "End of session"
        # Its own hand each board; dummy's (South's) on board 1 unless it is dummy.
        shown = [whose for whose, _cards in client.hands_seen]
        assert shown == ([seat, "S", seat] if seat != "S" else ["S", "S"])
        assert set().union(*(cards for whose, cards in client.hands_seen if whose == "S")) <= (
            hands["S"] | dealt_hands(table, 2)["S"]
        )
        for line in client.received:
            if "'s cards : " in line:
                assert line.startswith((f"{NAMES[seat]}'s", "Dummy's")), line
    assert "Dummy to lead" in clients["N"].received or "North to lead" in clients["N"].received
    # Connected while they played; a disconnection once they left (the gateway notes it
    # as it closes the connection, just after the program has read its last line).
    deadline = time.monotonic() + 10
    while TablePresence.objects.filter(table=table).exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not TablePresence.objects.filter(table=table).exists()
    while (
        ProgramSeat.objects.filter(table=table, disconnected_at__isnull=False).count() < 4
        and time.monotonic() < deadline
    ):
        time.sleep(0.1)
    assert ProgramSeat.objects.filter(table=table, disconnected_at__isnull=False).count() == 4
    # North: 1NT and 26 cards (its own and dummy's) on board 1, a pass on board 2.
    assert ProgramSeat.objects.get(table=table, seat="N").moves == 1 + 26 + 1


@pytest.mark.django_db(transaction=True)
def test_a_late_program_is_replaced_by_our_robot_and_the_table_s_page_says_so(
    servers, make_tournament, register_pairs, organiser
):
    port, gateway, _log = servers
    _round, tables = open_online_round(make_tournament, register_pairs, boards=2, rounds=1)
    table = tables[0]
    tickets = reserve(table, "NSW", organiser)
    tickets["E"] = programs.reserve(table=table, seat="E", by=organiser, program="Sleepy 1.0",
                                    think_seconds=2)[1]  # fmt: skip
    clients = {
        seat: Program(
            gateway, tickets[seat], NAMES[seat], late_first_call=2.6 if seat == "E" else 0
        )
        for seat in "NESW"
    }
    run(*(client.run() for client in clients.values()))

    east = ProgramSeat.objects.get(table=table, seat="E")
    assert east.replaced >= 1 and east.replaced_last["why"] == "late"
    assert east.replaced_last["board"] == 1
    # East's board 1 was aborted (the next "Start of board"); it played board 2 itself.
    assert clients["E"].boards_ended == ["aborted", "timing"]
    assert BoardResult.objects.filter(table=table).count() == 2
    # The table's page names the programs and says our robot played for East.
    player = seated_users(table)["N"]
    opener = urllib.request.build_opener()
    from tests.support.online_ws import session_cookie

    opener.addheaders = [("Cookie", session_cookie(player))]
    page = (
        opener.open(
            f"http://127.0.0.1:{port}/t/{table.round.tournament_id}/rounds/1/tables/{table.number}/play/"
        )
        .read()
        .decode()
    )
    assert "Sleepy 1.0" in page and "think-time limit" in page


DEAL = (
    # North (dummy) and South (the person, declarer) weak; East and West hold the tops.
    "N:5432.5432.432.32 AKQJ.AKQ.AKQ.AKQ 876.876.8765.876 T9.JT9.JT9.JT954"
)


@pytest.mark.django_db(transaction=True)
def test_a_person_s_claim_against_programs_is_checked_double_dummy(
    servers, make_tournament, register_pairs, organiser
):
    port, gateway, _log = servers
    _round, tables = open_online_round(make_tournament, register_pairs, boards=1, rounds=1)
    table = tables[0]
    Board.objects.filter(round_id=table.round_id, number=1).update(deal=DEAL, dealer="N")
    tickets = reserve(table, "NEW", organiser)
    south = seated_users(table)["S"]
    token = token_of(south)
    base = (
        f"http://127.0.0.1:{port}/api/v1/tournaments/{table.round.tournament_id}"
        f"/rounds/1/tables/{table.number}/boards/1"
    )

    def http(path, body=None):
        request = urllib.request.Request(
            base + path,
            data=None if body is None else json.dumps(body).encode(),
            headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request) as answer:
                return json.loads(answer.read())
        except urllib.error.HTTPError as error:
            return {"status": error.code, **json.loads(error.read())}

    async def person():
        """South bids 1NT when its turn comes, then claims all 13 after the opening
        lead (rejected: East-West take tricks double dummy), then concedes the rest."""
        loop = asyncio.get_running_loop()

        async def view_when(condition):
            for _ in range(600):
                view = await loop.run_in_executor(None, http, "/view")
                if condition(view):
                    return view
                await asyncio.sleep(0.1)
            raise AssertionError(view)

        view = await view_when(lambda v: v["turn"] == "S")
        await loop.run_in_executor(
            None, http, "/actions", {"seq": view["next_seq"], "type": "call", "call": "1NT"}
        )
        view = await view_when(lambda v: len(v["play"]) == 1)
        # The person's view: their own hand and dummy's only.
        assert set(view["hands"]) == {"S", "N"}
        answer = await loop.run_in_executor(
            None, http, "/actions", {"seq": view["next_seq"], "type": "claim", "tricks": 13}
        )
        assert answer.get("claim")
        rejected = await view_when(lambda v: not v.get("claim"))
        assert not rejected["over"]
        await loop.run_in_executor(
            None, http, "/actions", {"seq": rejected["next_seq"], "type": "claim", "tricks": 0}
        )
        return await view_when(lambda v: v["over"])

    clients = [Program(gateway, tickets[seat], NAMES[seat]) for seat in "NEW"]
    *_, last = run(*(client.run() for client in clients), person())

    assert (
        last["over"] and last["result"]["contract"] == "1NT" and last["result"]["declarer"] == "S"
    )
    assert last["result"]["tricks"] == 0
    answers = list(
        PlayAction.objects.filter(table=table, kind__in=["accept", "reject"])
        .order_by("seq")
        .values_list("seat", "kind")
    )
    # The claim of all 13 rejected for a program (East-West take tricks double dummy);
    # the concession accepted by both.
    assert ("E", "reject") in answers or ("W", "reject") in answers
    assert answers[-2:] in ([("E", "accept"), ("W", "accept")], [("W", "accept"), ("E", "accept")])
    for client in clients:
        assert client.boards_ended == ["aborted"] and client.received[-1] == "End of session"
        # The claimer's hand was shown at the table while the claim waited (Law 68): the
        # programs were never sent it.
        assert not any(line.startswith("South's cards") for line in client.received)
