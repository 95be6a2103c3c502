"""The live table server's WebSocket protocol (docs/PLAY_PROTOCOL.md), through the real
ASGI application (`config.asgi`: origin check, session and token auth, routing) with
Channels' `WebsocketCommunicator`, on PostgreSQL and the in-memory channel layer.

Transactional: the consumers read the database from their own threads."""

from __future__ import annotations

import json
from datetime import datetime, timedelta

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.utils import timezone

from config.asgi import application
from scoring import SEATS, side_of
from tests.support.online_ws import (
    StatementsSent,
    allowed_cards,
    board_path,
    cards_in,
    connect,
    dealt_hands,
    refused_with,
    robot_action,
    seated_users,
    session_cookie,
    token_of,
)
from tournaments.models import ApiToken, PlayAction, Round
from tournaments.push import channel
from tournaments.selectors import table_server
from tournaments.services import announcements, clock, table_play
from tournaments.sockets import consumers
from tournaments.sockets.consumers import (
    CLOSE_NOT_ALLOWED,
    CLOSE_NOT_FOUND,
    CLOSE_UNAUTHENTICATED,
)

pytestmark = pytest.mark.django_db(transaction=True)
TIMEOUT = 10


def test_a_seat_connects_with_its_token_and_gets_its_snapshot(room):
    table, tokens = room["table"], room["tokens"]
    hands = dealt_hands(table, 1)

    async def scenario():
        ws, connected = await connect(board_path(table, 1), token=tokens["E"])
        assert connected
        snapshot = await ws.receive_json_from(timeout=TIMEOUT)
        await ws.disconnect()
        return snapshot

    snapshot = async_to_sync(scenario)()
    assert snapshot["type"] == "snapshot" and snapshot["board"] == 1 and snapshot["seq"] == 0
    view = snapshot["view"]
    assert view["seat"] == "E" and view["next_seq"] == 1
    assert set(view["hands"]) == {"E"} and set(view["hands"]["E"]) == hands["E"]


def test_a_player_connects_with_the_session_of_their_login(room):
    table, users = room["table"], room["users"]
    cookie = session_cookie(users["S"])

    async def scenario():
        ws, _ = await connect(board_path(table, 1), cookie=cookie, origin="http://testserver")
        snapshot = await ws.receive_json_from(timeout=TIMEOUT)
        await ws.disconnect()
        return snapshot

    assert async_to_sync(scenario)()["view"]["seat"] == "S"


def test_a_table_may_be_named_as_the_http_api_names_it(room):
    table, tokens = room["table"], room["tokens"]
    path = f"/ws/tournaments/{room['round'].tournament_id}/rounds/1/tables/{table.number}/boards/2/"

    async def scenario():
        ws, _ = await connect(path, token=tokens["N"])
        snapshot = await ws.receive_json_from(timeout=TIMEOUT)
        await ws.disconnect()
        missing, _ = await connect(path.replace("/rounds/1/", "/rounds/7/"), token=tokens["N"])
        return snapshot, await refused_with(missing)

    snapshot, (_error, code) = async_to_sync(scenario)()
    assert snapshot["board"] == 2 and snapshot["view"]["seat"] == "N"
    assert code == CLOSE_NOT_FOUND


def test_a_token_wins_over_a_session(room):
    table, users, tokens = room["table"], room["users"], room["tokens"]
    cookie = session_cookie(users["S"])

    async def scenario():
        ws, _ = await connect(board_path(table, 1), cookie=cookie, token=tokens["W"])
        snapshot = await ws.receive_json_from(timeout=TIMEOUT)
        await ws.disconnect()
        return snapshot

    assert async_to_sync(scenario)()["view"]["seat"] == "W"


def test_a_token_in_the_url_is_refused_and_says_to_use_the_header(room):
    """Servers log URLs: a key there is refused (valid or not, with a session or not),
    and the client is told where to send it instead."""
    table, users, tokens = room["table"], room["users"], room["tokens"]
    cookie = session_cookie(users["S"])

    async def scenario():
        outcomes = []
        for kwargs in (
            {"query_token": tokens["W"]},
            {"query_token": tokens["W"], "cookie": cookie, "origin": "http://testserver"},
            {"query_token": "", "token": tokens["W"]},
            {"query_token": "f" * 40},
        ):
            ws, connected = await connect(board_path(table, 1), **kwargs)
            assert connected
            outcomes.append(await refused_with(ws))
        return outcomes

    for error, code in async_to_sync(scenario)():
        assert code == CLOSE_UNAUTHENTICATED
        assert error["type"] == "error" and "Authorization header" in error["error"]
        assert "view" not in error and not cards_in(error)


def test_refusals_say_why_and_close_with_a_code(room):
    table, other_player = room["table"], room["other_player"]
    other_token = token_of(other_player)
    revoked = token_of(room["users"]["N"])
    ApiToken.objects.filter(user=room["users"]["N"]).update(revoked_at=timezone.now())

    async def scenario():
        outcomes = {}
        for name, kwargs, path in (
            ("anonymous", {}, board_path(table, 1)),
            ("other table's player", {"token": other_token}, board_path(table, 1)),
            ("unknown token", {"token": "f" * 40}, board_path(table, 1)),
            ("revoked token", {"token": revoked}, board_path(table, 1)),
            ("no such table", {"token": other_token}, "/ws/tables/999999/boards/1/"),
            ("no such board", {"token": other_token}, f"/ws/tables/{room['other'].pk}/boards/9/"),
        ):
            ws, _ = await connect(path, **kwargs)
            outcomes[name] = await refused_with(ws)
        return outcomes

    outcomes = async_to_sync(scenario)()
    assert outcomes["anonymous"][1] == CLOSE_NOT_ALLOWED
    assert outcomes["other table's player"][1] == CLOSE_NOT_ALLOWED
    assert outcomes["unknown token"][1] == CLOSE_UNAUTHENTICATED
    assert outcomes["revoked token"][1] == CLOSE_UNAUTHENTICATED
    assert "revoked" in outcomes["revoked token"][0]["error"]
    assert outcomes["no such table"][1] == CLOSE_NOT_FOUND
    assert outcomes["no such board"][1] == CLOSE_NOT_FOUND
    for error, _code in outcomes.values():
        assert error["type"] == "error" and error["error"] and "view" not in error
        assert not cards_in(error)


def test_a_page_of_another_site_cannot_open_a_players_socket(room):
    table, users = room["table"], room["users"]
    cookie = session_cookie(users["S"])

    async def scenario():
        ws = WebsocketCommunicator(
            application,
            board_path(table, 1),
            headers=[(b"cookie", cookie.encode()), (b"origin", b"https://evil.example")],
        )
        connected, _ = await ws.connect(timeout=TIMEOUT)
        return connected

    assert async_to_sync(scenario)() is False


def test_an_action_is_answered_to_its_seat_and_told_to_the_others_once(room):
    table, tokens = room["table"], room["tokens"]

    async def scenario():
        sockets = {}
        snapshots = {}
        for seat in SEATS:
            sockets[seat], _ = await connect(board_path(table, 1), token=tokens[seat])
            snapshots[seat] = await sockets[seat].receive_json_from(timeout=TIMEOUT)
        dealer = snapshots["N"]["view"]["dealer"]
        await sockets[dealer].send_json_to(
            {"type": "action", "seq": 1, "action": "call", "call": "1N"}
        )
        received = {seat: await sockets[seat].receive_json_from(timeout=TIMEOUT) for seat in SEATS}
        quiet = {seat: await sockets[seat].receive_nothing(timeout=0.3) for seat in SEATS}
        for ws in sockets.values():
            await ws.disconnect()
        return dealer, received, quiet

    dealer, received, quiet = async_to_sync(scenario)()
    assert all(quiet.values())  # each seat got the action exactly once
    for seat, message in received.items():
        assert message["type"] == "view" and message["seq"] == 1, (seat, message)
        view = message["view"]
        assert view["seat"] == seat
        assert view["auction"] == [{"seat": dealer, "call": "1NT"}]
        assert view["next_seq"] == 2
        assert set(view["hands"]) == {seat}
    assert PlayAction.objects.filter(table=table).count() == 1


def test_a_refused_action_goes_to_its_sender_only_with_the_view_and_changes_nothing(room):
    table, tokens = room["table"], room["tokens"]

    async def scenario():
        sockets = {}
        for seat in SEATS:
            sockets[seat], _ = await connect(board_path(table, 1), token=tokens[seat])
            await sockets[seat].receive_json_from(timeout=TIMEOUT)
        dealer = await database_sync_to_async(lambda: table.round.boards.get(number=1).dealer)()
        out_of_turn = SEATS[(SEATS.index(dealer) + 1) % 4]
        answers = []
        for message in (
            {"type": "action", "seq": 1, "action": "call", "call": "1C"},  # not your turn
            {"type": "action", "seq": 7, "action": "call", "call": "1C"},  # stale seq
            {"type": "hello"},  # not an action
        ):
            await sockets[out_of_turn].send_json_to(message)
            answers.append(await sockets[out_of_turn].receive_json_from(timeout=TIMEOUT))
        await sockets[out_of_turn].send_to(text_data="{not json")
        answers.append(await sockets[out_of_turn].receive_json_from(timeout=TIMEOUT))
        quiet = [await sockets[seat].receive_nothing(timeout=0.3) for seat in SEATS]
        for ws in sockets.values():
            await ws.disconnect()
        return out_of_turn, answers, quiet

    seat, answers, quiet = async_to_sync(scenario)()
    for answer in answers:
        assert answer["type"] == "error" and answer["error"], answer
        assert answer["view"]["seat"] == seat and answer["view"]["next_seq"] == 1
        assert answer["seq"] == 0
    assert all(quiet)
    assert not PlayAction.objects.filter(table=table).exists()


async def _seats_play(table, tokens, *, actions: int):
    """The four seats of `table` connect to board 1 and their robots take `actions`
    actions; (the sockets, each seat's last view) by seat."""
    sockets, views = {}, {}
    for seat in SEATS:
        sockets[seat], _ = await connect(board_path(table, 1), token=tokens[seat])
        views[seat] = (await sockets[seat].receive_json_from(timeout=TIMEOUT))["view"]
    for _ in range(actions):
        actor = next(seat for seat in SEATS if robot_action(views[seat]))
        action = robot_action(views[actor])
        await sockets[actor].send_json_to({**action, "type": "action", "action": action["type"]})
        for seat in SEATS:
            views[seat] = (await sockets[seat].receive_json_from(timeout=TIMEOUT))["view"]
    return sockets, views


def test_a_seat_that_reconnects_gets_the_same_state(room):
    table, tokens = room["table"], room["tokens"]

    async def scenario():
        sockets, views = await _seats_play(table, tokens, actions=6)  # auction, opening lead
        await sockets["S"].disconnect()
        again, _ = await connect(board_path(table, 1), token=tokens["S"])
        snapshot = await again.receive_json_from(timeout=TIMEOUT)
        second_device, _ = await connect(board_path(table, 1), token=tokens["S"])
        second = await second_device.receive_json_from(timeout=TIMEOUT)
        for ws in (*sockets.values(), again, second_device):
            await ws.disconnect()
        return views["S"], snapshot, second

    before, snapshot, second = async_to_sync(scenario)()
    assert snapshot["type"] == "snapshot" and snapshot["view"] == before
    assert snapshot["seq"] == before["next_seq"] - 1 == 6
    assert second["view"] == before


def test_the_close_tells_each_seat_and_where_it_sits_next(room):
    table, tokens, first_round = room["table"], room["tokens"], room["round"]

    async def scenario():
        sockets = {}
        for seat in SEATS:
            sockets[seat], _ = await connect(board_path(table, 1), token=tokens[seat])
            await sockets[seat].receive_json_from(timeout=TIMEOUT)
        ends_at = await database_sync_to_async(
            lambda: Round.objects.get(pk=first_round.pk).ends_at
        )()
        await database_sync_to_async(clock.advance)(now=ends_at + timedelta(seconds=1))
        told = {seat: await sockets[seat].receive_json_from(timeout=TIMEOUT) for seat in SEATS}
        # Once the round has closed anyone may replay the table: anonymous too.
        public, _ = await connect(board_path(table, 1))
        told["public"] = await public.receive_json_from(timeout=TIMEOUT)
        for ws in (*sockets.values(), public):
            await ws.disconnect()
        return told

    told = async_to_sync(scenario)()
    public = told.pop("public")
    assert public["type"] == "snapshot" and public["view"]["seat"] is None
    assert cards_in(public["view"]["hands"]) == set().union(*dealt_hands(table, 1).values())
    following = Round.objects.get(tournament=first_round.tournament, number=2)
    for seat, message in told.items():
        assert message["type"] == "round_closed" and message["round"] == 1
        user = room["users"][seat]
        assert message["next"]["round"] == 2
        seated = following.tables.select_related("ns_pair", "ew_pair").get(
            pk=message["next"]["table"]
        )
        assert seated.side_of(user.pk) == message["next"]["direction"]
        assert seated.number == message["next"]["table_number"]


def test_a_seat_that_opens_its_next_board_after_the_bell_hears_where_to_sit_next(room):
    """A player moving to the next board as the bell rang (its old socket closed, the new
    one not yet in the table's group) hears no `round_closed`: the snapshot says what it
    would have, its next table included, and an anonymous one hears no next seat."""
    table, tokens, first_round = room["table"], room["tokens"], room["round"]

    async def scenario():
        ends_at = await database_sync_to_async(
            lambda: Round.objects.get(pk=first_round.pk).ends_at
        )()
        await database_sync_to_async(clock.advance)(now=ends_at + timedelta(seconds=1))
        late = {}
        for seat in ("N", "E"):
            ws, _ = await connect(board_path(table, 2), token=tokens[seat])
            late[seat] = await ws.receive_json_from(timeout=TIMEOUT)
            await ws.disconnect()
        ws, _ = await connect(board_path(table, 2))
        late["public"] = await ws.receive_json_from(timeout=TIMEOUT)
        await ws.disconnect()
        return late

    late = async_to_sync(scenario)()
    following = Round.objects.get(tournament=first_round.tournament, number=2)
    for seat in ("N", "E"):
        message = late[seat]
        assert message["type"] == "snapshot" and message["clock"]["status"] == "closed"
        assert message["tournament_over"] is False and message["results_url"] is None
        seated = following.tables.select_related("ns_pair", "ew_pair").get(
            pk=message["next"]["table"]
        )
        assert seated.side_of(room["users"][seat].pk) == message["next"]["direction"]
        assert (message["next"]["round"], message["next"]["table_number"]) == (2, seated.number)
    assert late["public"]["type"] == "snapshot" and late["public"]["next"] is None


def test_the_bell_is_answered_by_every_socket_without_a_single_statement(room, monkeypatch):
    """Issue 23: a socket answers the bell from the message (`table_server.bell_news`) and
    the board its process keeps: its closing view and next seat need no read. The view is
    the one the service gives after the close."""
    table, tokens, users = room["table"], room["tokens"], room["users"]

    async def scenario():
        sockets, _views = await _seats_play(table, tokens, actions=5)  # the auction, the lead
        round = await database_sync_to_async(Round.objects.get)(pk=table.round_id)
        # The close itself, with its announcement held back: the bell's message is sent
        # below, while every statement is counted.
        with monkeypatch.context() as held:
            held.setattr(announcements, "round_closed", lambda **_: None)
            await database_sync_to_async(clock.advance)(now=round.ends_at + timedelta(seconds=1))
        layer = get_channel_layer()
        news = dict(
            await database_sync_to_async(table_server.bell_news)(closed_round_id=table.round_id)
        )
        with StatementsSent() as sent:
            await layer.group_send(channel.table_group(table.pk), news[table.pk])
            told = {seat: await sockets[seat].receive_json_from(timeout=TIMEOUT) for seat in SEATS}
        for ws in sockets.values():
            await ws.disconnect()
        return told, sent.statements

    told, statements = async_to_sync(scenario)()
    assert statements == []
    following = Round.objects.get(tournament=room["round"].tournament, number=2)
    for seat, message in told.items():
        assert message["type"] == "round_closed" and message["round"] == 1
        assert message["view"] == table_play.board_view(
            table=table, board_number=1, user=users[seat]
        )
        assert message["view"]["seat"] == seat and len(message["view"]["hands"]) == 4
        assert message["view"]["next_seq"] == 6
        seated = following.tables.get(pk=message["next"]["table"])
        assert seated.side_of(users[seat].pk) == message["next"]["direction"]


def _leak_check(received, *, viewer, hands_by_board, alert_seat):
    """Every message `viewer` received names no card it was not allowed to see, and
    shows an alert only to the caller's opponents."""
    for message in received:
        view = message.get("view")
        board = message.get("board", 1)
        hands = hands_by_board[board]
        seen = cards_in(message)
        allowed = allowed_cards(viewer if viewer != "*" else None, view, hands)
        if viewer == "*":
            allowed = set().union(*hands.values())
        assert seen <= allowed, (viewer, sorted(seen - allowed), message)
        text = json.dumps(message)
        if view is not None and viewer in SEATS and alert_seat is not None and view["auction"]:
            should_see = viewer == alert_seat or side_of(viewer) != side_of(alert_seat)
            assert ("could be short" in text) == should_see, (viewer, message)


def test_no_seat_and_no_watcher_ever_receives_a_card_it_may_not_see(room, organiser):
    """Four seats, the organiser, an anonymous watcher and a player of the other table
    follow two whole boards; every message each of them received is inspected."""
    table, tokens = room["table"], room["tokens"]
    hands_by_board = {n: dealt_hands(table, n) for n in (1, 2)}
    other_token = token_of(room["other_player"])
    organiser_token = token_of(organiser)

    async def scenario():
        received = {seat: [] for seat in (*SEATS, "*", "anonymous", "other")}
        dealers = {}
        for board in (1, 2):
            sockets = {}
            views = {}
            for seat in SEATS:
                sockets[seat], _ = await connect(board_path(table, board), token=tokens[seat])
                message = await sockets[seat].receive_json_from(timeout=TIMEOUT)
                received[seat].append(message)
                views[seat] = message["view"]
            dealers[board] = views["N"]["dealer"]
            sockets["*"], _ = await connect(board_path(table, board), token=organiser_token)
            received["*"].append(await sockets["*"].receive_json_from(timeout=TIMEOUT))
            for name, kwargs in (("anonymous", {}), ("other", {"token": other_token})):
                ws, _ = await connect(board_path(table, board), **kwargs)
                error, code = await refused_with(ws)
                assert code == CLOSE_NOT_ALLOWED
                received[name].append(error)
            while not views["N"]["over"]:
                actor = next(seat for seat in SEATS if robot_action(views[seat]))
                action = robot_action(views[actor])
                await sockets[actor].send_json_to(
                    {**action, "type": "action", "action": action["type"]}
                )
                for seat in (*SEATS, "*"):
                    message = await sockets[seat].receive_json_from(timeout=TIMEOUT)
                    assert message["seq"] == action["seq"], (seat, message)
                    received[seat].append(message)
                    if seat in SEATS:
                        views[seat] = message["view"]
            for seat, ws in sockets.items():
                assert await ws.receive_nothing(timeout=0.2), seat
                await ws.disconnect()
        return received, dealers

    received, dealers = async_to_sync(scenario)()
    for seat in SEATS:
        # Two snapshots and every action of both boards, each once.
        assert [m["seq"] for m in received[seat] if m["board"] == 1][:3] == [0, 1, 2]
        assert received[seat][-1]["view"]["over"]
        assert len(received[seat]) == 2 + PlayAction.objects.filter(table=table).count()
        for board in (1, 2):
            board_messages = [m for m in received[seat] if m["board"] == board]
            _leak_check(
                board_messages,
                viewer=seat,
                hands_by_board=hands_by_board,
                alert_seat=dealers[board],
            )
        # The test can fail: a seat does see cards of others (played ones, dummy, all at the end).
        assert cards_in(received[seat][-1]) == set().union(*hands_by_board[2].values())
    _leak_check(received["*"], viewer="*", hands_by_board=hands_by_board, alert_seat=None)
    for name in ("anonymous", "other"):
        assert all(message["type"] == "error" for message in received[name])
        assert not any(cards_in(message) for message in received[name])


def test_an_extension_and_a_pause_reach_every_open_socket_of_the_round(room, organiser):
    """The organiser extends the round, pauses and resumes: every seat, the organiser
    watching and the other table's players hear the round's new end (RULES 3, 9)."""
    table, other, tokens = room["table"], room["other"], room["tokens"]
    first_round, organiser_token = room["round"], token_of(organiser)
    other_token = token_of(seated_users(other)["E"])
    tournament = first_round.tournament
    t0 = timezone.now()

    async def scenario():
        sockets = {}
        for seat in SEATS:
            sockets[seat], _ = await connect(board_path(table, 1), token=tokens[seat])
        sockets["organiser"], _ = await connect(board_path(table, 2), token=organiser_token)
        sockets["other table"], _ = await connect(board_path(other, 1), token=other_token)
        for ws in sockets.values():
            assert (await ws.receive_json_from(timeout=TIMEOUT))["type"] == "snapshot"
        heard = {}
        for name, change in (
            ("extend", lambda: clock.extend_round(tournament=tournament, minutes=5, by=organiser)),
            ("pause", lambda: clock.pause(tournament=tournament, by=organiser, now=t0)),
            (
                "resume",
                lambda: clock.resume(
                    tournament=tournament, by=organiser, now=t0 + timedelta(minutes=2)
                ),
            ),
        ):
            await database_sync_to_async(change)()
            heard[name] = {
                who: await ws.receive_json_from(timeout=TIMEOUT) for who, ws in sockets.items()
            }
        quiet = [await ws.receive_nothing(timeout=0.3) for ws in sockets.values()]
        for ws in sockets.values():
            await ws.disconnect()
        return heard, quiet

    before = first_round.ends_at
    heard, quiet = async_to_sync(scenario)()
    assert all(quiet)  # one message per change, no view (nothing was played)
    expected = {
        "extend": (before + timedelta(minutes=5), False),
        "pause": (before + timedelta(minutes=5), True),
        "resume": (before + timedelta(minutes=7), False),
    }
    for name, (ends_at, paused) in expected.items():
        for who, message in heard[name].items():
            now = message.pop("now")  # the server's time, for the page's countdown
            assert abs(datetime.fromisoformat(now) - timezone.now()) < timedelta(minutes=1)
            assert message == {
                "type": "round",
                "round": 1,
                "status": "running",
                "starts_at": first_round.starts_at.isoformat(),
                "ends_at": ends_at.isoformat(),
                "paused": paused,
            }, (name, who)
    assert Round.objects.get(pk=first_round.pk).ends_at == before + timedelta(minutes=7)


def test_a_director_taken_out_of_the_directors_group_stops_receiving_the_hands(
    room, director, monkeypatch
):
    """RULES 9: an organiser's right to watch is read again before a view is sent once
    `WATCHER_RECHECK_SECONDS` have passed (0 here: before every view). In the group, the
    director receives the first action's view with every hand; taken out of it, the
    next action brings a refusal and the 4403 close, and no card."""
    monkeypatch.setattr(consumers, "WATCHER_RECHECK_SECONDS", 0)
    table, tokens = room["table"], room["tokens"]
    director_token = token_of(director)

    async def play_one(sockets, views):
        actor = next(seat for seat in SEATS if robot_action(views[seat]))
        action = robot_action(views[actor])
        await sockets[actor].send_json_to({**action, "type": "action", "action": action["type"]})
        for seat in SEATS:
            views[seat] = (await sockets[seat].receive_json_from(timeout=TIMEOUT))["view"]

    async def scenario():
        sockets, views = {}, {}
        for seat in SEATS:
            sockets[seat], _ = await connect(board_path(table, 1), token=tokens[seat])
            views[seat] = (await sockets[seat].receive_json_from(timeout=TIMEOUT))["view"]
        watching, _ = await connect(board_path(table, 1), token=director_token)
        snapshot = await watching.receive_json_from(timeout=TIMEOUT)
        await play_one(sockets, views)
        in_group = await watching.receive_json_from(timeout=TIMEOUT)
        await database_sync_to_async(director.groups.clear)()
        await play_one(sockets, views)
        refused = await watching.receive_json_from(timeout=TIMEOUT)
        closed = await watching.receive_output(timeout=TIMEOUT)
        for ws in sockets.values():
            await ws.disconnect()
        return snapshot, in_group, refused, closed

    snapshot, in_group, refused, closed = async_to_sync(scenario)()
    every_card = set().union(*dealt_hands(table, 1).values())
    assert snapshot["type"] == "snapshot" and cards_in(snapshot) == every_card
    assert in_group["type"] == "view" and in_group["seq"] == 1
    assert cards_in(in_group) == every_card
    assert refused["type"] == "error" and not cards_in(refused)
    assert closed == {"type": "websocket.close", "code": CLOSE_NOT_ALLOWED}


def test_an_event_that_overtook_an_earlier_one_waits_for_it(room, monkeypatch):
    """Two server processes publish independently, so action 2's event can reach a socket
    before action 1's (a seat whose snapshot held action 1 acted at once, on the other
    process). The socket sends 1, then 2; a gap never filled is given up after
    `REORDER_WAIT_SECONDS` and the later view goes out alone; the late one is dropped."""
    monkeypatch.setattr(consumers, "REORDER_WAIT_SECONDS", 1.0)  # far above the waits below
    table, north = room["table"], room["users"]["N"]

    def event(seq):
        view = json.dumps({"next_seq": seq + 1, "marker": seq})
        return {"type": "table.views", "board": 1, "seq": seq, "seats": {"N": north.pk},
                "views": {"N": view}, "board_id": None, "action": None}  # fmt: skip

    async def scenario():
        layer = get_channel_layer()
        group = channel.table_group(table.pk)
        ws, _ = await connect(board_path(table, 1), token=room["tokens"]["N"])
        assert (await ws.receive_json_from(timeout=TIMEOUT))["seq"] == 0
        await layer.group_send(group, event(2))
        held = await ws.receive_nothing(timeout=0.1)
        await layer.group_send(group, event(1))
        in_order = [await ws.receive_json_from(timeout=TIMEOUT) for _ in range(2)]
        await layer.group_send(group, event(4))  # 3 never comes in time
        held_for_3 = await ws.receive_nothing(timeout=0.1)
        given_up = await ws.receive_json_from(timeout=TIMEOUT)
        await layer.group_send(group, event(3))
        late_dropped = await ws.receive_nothing(timeout=0.5)
        await ws.disconnect()
        return held, in_order, held_for_3, given_up, late_dropped

    held, in_order, held_for_3, given_up, late_dropped = async_to_sync(scenario)()
    assert held and held_for_3 and late_dropped
    assert [(m["seq"], m["view"]["marker"]) for m in in_order] == [(1, 1), (2, 2)]
    assert (given_up["type"], given_up["seq"], given_up["view"]["marker"]) == ("view", 4, 4)
