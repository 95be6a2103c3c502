"""Kibitzers (issue 24, item 9; RULES 2): anyone may watch a table of a running round on
the kibitzer's socket (`ws/tables/<id>/boards/<n>/kibitz/`) and, until the round closes,
receives no hand, no call, no card and no result — only how far the board has come. When
the organiser chooses `kibitz_live` the hands are shown live, except to a player of the
tournament. Every message a kibitzer receives is inspected, card by card."""

from __future__ import annotations

from datetime import timedelta

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from django.contrib.auth.models import AnonymousUser

from scoring import SEATS
from tests.support.online_ws import (
    board_path,
    cards_in,
    connect,
    dealt_hands,
    refused_with,
    robot_action,
    seated_users,
    token_of,
)
from tournaments.errors import ServiceError
from tournaments.models import Round, Tournament
from tournaments.selectors import table_server
from tournaments.services import clock, settings_change, table_play
from tournaments.sockets import consumers
from tournaments.sockets.consumers import CLOSE_NOT_ALLOWED

pytestmark = pytest.mark.django_db(transaction=True)
TIMEOUT = 10


def kibitz_path(table, board: int) -> str:
    return board_path(table, board) + "kibitz/"


async def _watch_while_seats_play(table, tokens, watchers: dict, *, actions: int, close=None):
    """The four seats and `watchers` ({name: connect kwargs}) open board 1; the seats'
    robots take `actions` actions (then `close` runs, the bell): every message each
    watcher received, by name."""
    sockets, views = {}, {}
    for seat in SEATS:
        sockets[seat], _ = await connect(board_path(table, 1), token=tokens[seat])
        views[seat] = (await sockets[seat].receive_json_from(timeout=TIMEOUT))["view"]
    received: dict[str, list] = {}
    watching = {}
    for name, kwargs in watchers.items():
        watching[name], _ = await connect(kibitz_path(table, 1), **kwargs)
        received[name] = [await watching[name].receive_json_from(timeout=TIMEOUT)]
    for _ in range(actions):
        actor = next((seat for seat in SEATS if robot_action(views[seat])), None)
        if actor is None:
            break
        action = robot_action(views[actor])
        await sockets[actor].send_json_to({**action, "type": "action", "action": action["type"]})
        for seat in SEATS:
            views[seat] = (await sockets[seat].receive_json_from(timeout=TIMEOUT))["view"]
        for name, ws in watching.items():
            received[name].append(await ws.receive_json_from(timeout=TIMEOUT))
    if close is not None:
        await database_sync_to_async(close)()
        for name, ws in watching.items():
            received[name].append(await ws.receive_json_from(timeout=TIMEOUT))
    for ws in (*sockets.values(), *watching.values()):
        await ws.disconnect()
    return received


def test_a_kibitzer_of_a_running_round_sees_the_progress_and_no_card_until_the_close(
    room, organiser, make_user
):
    table, tokens = room["table"], room["tokens"]
    round = Round.objects.get(pk=table.round_id)
    staff = make_user("staff-without-direct-results")
    staff.is_staff = True  # staff alone is nobody here (docs/SECURITY.md)
    staff.save(update_fields=["is_staff"])
    other_player = seated_users(room["other"])["N"]
    watchers = {
        "anonymous": {},
        "staff": {"token": token_of(staff)},
        "other table's player": {"token": token_of(other_player)},
    }

    def bell():
        clock.advance(now=round.ends_at + timedelta(seconds=1))

    received = async_to_sync(_watch_while_seats_play)(
        table, tokens, watchers, actions=30, close=bell
    )
    hands = dealt_hands(table, 1)
    for name, messages in received.items():
        *running, closed = messages
        assert running[0]["type"] == "snapshot" and len(running) == 31, name
        phases = []
        for message in running:
            view = message["view"]
            assert message["type"] in ("snapshot", "view"), (name, message)
            assert cards_in(message) == set(), (name, message)  # not one card
            assert view["kibitzer"] is True and view["seat"] is None
            assert view["hands"] == {} and view["auction"] == [] and view["play"] == []
            assert view["contract"] is None and view["result"] is None and view["claim"] is None
            assert view["legal"] == []
            phases.append(view["progress"]["phase"])
        # It follows the board: the auction, then the play, card by card.
        assert phases[0] == "auction" and phases[-1] == "play", (name, phases)
        assert running[-1]["view"]["progress"]["tricks_played"] >= 5
        assert [m["seq"] for m in running] == list(range(31))
        # The bell: the round is closed, the record is everyone's.
        assert closed["type"] == "round_closed"
        assert set(closed["view"]["hands"]) == set(SEATS)
        shown = cards_in(closed["view"]["hands"]) | cards_in(closed["view"]["play"])
        assert shown == set().union(*hands.values())


def test_the_plain_socket_still_refuses_whoever_is_not_at_the_table(room):
    table = room["table"]

    async def scenario():
        ws, _ = await connect(board_path(table, 1))
        return await refused_with(ws)

    error, code = async_to_sync(scenario)()
    assert code == CLOSE_NOT_ALLOWED and cards_in(error) == set()


def test_with_kibitz_live_the_public_sees_the_hands_but_a_player_of_the_tournament_never(
    room, organiser
):
    table, tokens = room["table"], room["tokens"]
    settings_change.set_kibitz_live(tournament=room["tournament"], by=organiser, kibitz_live=True)
    other_player = seated_users(room["other"])["N"]
    watchers = {"anonymous": {}, "other table's player": {"token": token_of(other_player)}}
    received = async_to_sync(_watch_while_seats_play)(table, tokens, watchers, actions=8)
    hands = dealt_hands(table, 1)
    for message in received["anonymous"]:
        view = message["view"]
        assert view["kibitzer"] is True and view["seat"] is None and "progress" not in view
        assert set(view["hands"]) == set(SEATS)  # as on Vugraph: every hand live
    assert cards_in(received["anonymous"][0]) == set().union(*hands.values())
    assert len(received["anonymous"][-1]["view"]["auction"]) >= 4
    for message in received["other table's player"]:
        assert cards_in(message) == set(), message  # plays this round: never live
        assert message["view"]["progress"] is not None


def test_kibitzers_stop_seeing_the_hands_soon_after_live_kibitzing_is_turned_off(
    room, organiser, monkeypatch
):
    """A live kibitzer's right is read again as an organiser's is (at most every
    WATCHER_RECHECK_SECONDS; here at every view)."""
    monkeypatch.setattr(consumers, "WATCHER_RECHECK_SECONDS", 0.0)
    table, tokens, tournament = room["table"], room["tokens"], room["tournament"]
    settings_change.set_kibitz_live(tournament=tournament, by=organiser, kibitz_live=True)

    async def scenario():
        sockets, views = {}, {}
        for seat in SEATS:
            sockets[seat], _ = await connect(board_path(table, 1), token=tokens[seat])
            views[seat] = (await sockets[seat].receive_json_from(timeout=TIMEOUT))["view"]
        kibitzer, _ = await connect(kibitz_path(table, 1))
        heard = [await kibitzer.receive_json_from(timeout=TIMEOUT)]
        for step in range(6):
            if step == 3:
                await database_sync_to_async(settings_change.set_kibitz_live)(
                    tournament=tournament, by=organiser, kibitz_live=False
                )
            actor = next(seat for seat in SEATS if robot_action(views[seat]))
            action = robot_action(views[actor])
            await sockets[actor].send_json_to(
                {**action, "type": "action", "action": action["type"]}
            )
            for seat in SEATS:
                views[seat] = (await sockets[seat].receive_json_from(timeout=TIMEOUT))["view"]
            heard.append(await kibitzer.receive_json_from(timeout=TIMEOUT))
        for ws in (*sockets.values(), kibitzer):
            await ws.disconnect()
        return heard

    heard = async_to_sync(scenario)()
    assert all(len(m["view"]["hands"]) == 4 for m in heard[:4])
    for message in heard[4:]:  # the views of the actions after it was turned off
        assert cards_in(message) == set() and message["view"]["progress"] is not None


def test_the_service_gives_a_kibitzer_the_progress_only_and_nothing_without_asking(room):
    table = room["table"]
    view = table_play.board_view(table=table, board_number=1, user=AnonymousUser(), kibitz=True)
    assert view["kibitzer"] is True and view["hands"] == {} and cards_in(view) == set()
    assert view["progress"] == {"phase": "auction", "tricks_played": 0, "turn": "N"}
    numbers, current = table_server.board_in_play(table=table, user=AnonymousUser(), kibitz=True)
    assert (numbers, current) == ([1, 2], 1)
    with pytest.raises(ServiceError):
        table_play.board_view(table=table, board_number=1, user=AnonymousUser())


def test_live_kibitzing_is_the_organisers_choice_for_an_online_tournament_only(
    room, organiser, make_user, make_tournament
):
    tournament = room["tournament"]
    player = room["users"]["N"]
    with pytest.raises(ServiceError):
        settings_change.set_kibitz_live(tournament=tournament, by=player, kibitz_live=True)
    with pytest.raises(ServiceError):
        settings_change.set_kibitz_live(tournament=tournament, by=organiser, kibitz_live="yes")
    elsewhere = make_tournament()
    with pytest.raises(ServiceError):
        settings_change.set_kibitz_live(tournament=elsewhere, by=organiser, kibitz_live=True)
    assert not Tournament.objects.filter(kibitz_live=True).exists()  # nothing changed
    settings_change.set_kibitz_live(tournament=tournament, by=organiser, kibitz_live=True)
    assert Tournament.objects.get(pk=tournament.pk).kibitz_live is True
