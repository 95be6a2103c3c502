"""Who may hold a table's socket, and for how long (issue 22: items 5, 6 and the socket
parts of 8), through the real ASGI application (`config.asgi`) and Channels'
`WebsocketCommunicator`: the page's whole origin, a cookie only from the site's pages,
a key in the URL revoked, the login and the token read again while the socket is open,
malformed messages answered, and the write limits shared with HTTP.

Transactional: the consumers read the database from their own threads."""

from __future__ import annotations

import asyncio
import json
import time
from datetime import timedelta

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.sessions.models import Session
from django.core.cache import cache
from django.test import Client

from config.asgi import application
from tests.support.online_ws import (
    board_path,
    cards_in,
    connect,
    open_online_round,
    refused_with,
    seated_users,
    session_cookie,
    token_of,
)
from tournaments.models import ApiToken, PlayAction
from tournaments.services import clock
from tournaments.services.tokens import issue_token, revoke_tokens
from tournaments.sockets.auth import socket_address
from tournaments.sockets.consumers import (
    CLOSE_NOT_ALLOWED,
    CLOSE_TOO_BIG,
    CLOSE_TOO_MANY,
    CLOSE_UNAUTHENTICATED,
)

pytestmark = pytest.mark.django_db(transaction=True)
TIMEOUT = 10
SITE = "http://testserver"  # the communicator's own origin: ALLOWED_HOSTS, port 80


@pytest.fixture
def room(make_tournament, register_pairs):
    """The shared `room` (tests/support/online.py) without its tokens: these tests count
    which tokens a user holds."""
    first_round, tables = open_online_round(make_tournament, register_pairs, boards=2)
    table = tables[0]
    users = seated_users(table)
    return {"round": first_round, "table": table, "users": users}


# --- item 6: the whole origin ---------------------------------------------------------


@pytest.mark.parametrize(
    ("origin", "host", "opens"),
    [
        (SITE, None, True),
        ("http://127.0.0.1:8000", "127.0.0.1:8000", True),  # the request's own origin
        ("http://localhost:8000", "127.0.0.1:8000", True),  # another name of the site
        ("http://testserver:9999", None, False),  # wrong port
        ("http://127.0.0.1:9999", "127.0.0.1:8000", False),  # wrong port
        ("http://localhost:3000", "127.0.0.1:8000", False),  # a dev server beside it
        ("https://testserver", None, False),  # wrong scheme
        ("https://127.0.0.1:8000", "127.0.0.1:8000", False),  # wrong scheme
        ("https://evil.example", None, False),  # a foreign host
        ("http://evil.example", "evil.example", False),  # rebound to us: not our host
        ("null", None, False),  # a sandboxed page or a file
    ],
)
def test_the_origin_is_compared_whole_scheme_host_and_port(room, origin, host, opens):
    table, users = room["table"], room["users"]
    cookie = session_cookie(users["S"])

    async def scenario():
        ws, connected = await connect(board_path(table, 1), cookie=cookie, origin=origin, host=host)
        snapshot = await ws.receive_json_from(timeout=TIMEOUT) if connected else None
        await ws.disconnect()
        return connected, snapshot

    connected, snapshot = async_to_sync(scenario)()
    assert connected is opens
    if opens:
        assert snapshot["type"] == "snapshot" and snapshot["view"]["seat"] == "S"


def test_behind_a_tls_proxy_the_origin_is_https_and_trusted_origins_are_whole(room, settings):
    """The scheme is the one the client used: the proxy's header (SECURE_PROXY_SSL_HEADER)
    as Django reads it; CSRF_TRUSTED_ORIGINS entries are compared whole too."""
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    settings.CSRF_TRUSTED_ORIGINS = ["https://tables.example.org", "https://*.club.example"]
    table, users = room["table"], room["users"]
    cookie = session_cookie(users["S"])

    async def opens(origin, host="bridge.example:443", proto="https"):
        ws = WebsocketCommunicator(
            application,
            board_path(table, 1),
            headers=[(b"cookie", cookie.encode()), (b"origin", origin.encode()),
                     (b"host", host.encode()), (b"x-forwarded-proto", proto.encode())],
        )  # fmt: skip
        connected, _ = await ws.connect(timeout=TIMEOUT)
        await ws.disconnect()
        return connected

    settings.ALLOWED_HOSTS = ["bridge.example"]

    async def scenario():
        return {
            "own https": await opens("https://bridge.example"),
            "own, as http": await opens("http://bridge.example"),
            "own, proxy said http": await opens("https://bridge.example", proto="http"),
            "trusted": await opens("https://tables.example.org"),
            "trusted, other port": await opens("https://tables.example.org:8443"),
            "trusted, as http": await opens("http://tables.example.org"),
            "trusted subdomain": await opens("https://north.club.example"),
        }

    assert async_to_sync(scenario)() == {
        "own https": True,
        "own, as http": False,
        "own, proxy said http": False,
        "trusted": True,
        "trusted, other port": False,
        "trusted, as http": False,
        "trusted subdomain": True,
    }


def test_a_cookie_without_origin_is_refused_but_a_token_without_one_works(room):
    """Browsers always send Origin: a socket without one is a program's, which proves who
    it is by its token (the robots do), never by a cookie."""
    table, users = room["table"], room["users"]
    cookie = session_cookie(users["S"])
    token = token_of(users["N"])

    async def scenario():
        by_cookie, _ = await connect(board_path(table, 1), cookie=cookie)
        refused = await refused_with(by_cookie)
        by_token, _ = await connect(board_path(table, 1), token=token)
        snapshot = await by_token.receive_json_from(timeout=TIMEOUT)
        await by_token.disconnect()
        return refused, snapshot

    (error, code), snapshot = async_to_sync(scenario)()
    assert code == CLOSE_UNAUTHENTICATED
    assert "Authorization" in error["error"] and not cards_in(error)
    assert snapshot["type"] == "snapshot" and snapshot["view"]["seat"] == "N"


# --- item 8: a key in the URL ---------------------------------------------------------


def test_a_key_sent_in_the_url_is_refused_and_revoked(room):
    """Whatever the parameter's name: the key may be in a log now, so it stops working,
    and the client is told why. An unknown key in the URL is refused the same way."""
    table, users = room["table"], room["users"]
    keys = {name: token_of(users[seat]) for name, seat in (("key", "N"), ("t", "E"))}
    token_of(users["S"])  # a key of the same table never sent in a URL

    async def scenario():
        outcomes = {}
        for name, key in keys.items():
            ws, _ = await connect(board_path(table, 1), query=f"?{name}={key}")
            outcomes[name] = await refused_with(ws)
        ws, _ = await connect(board_path(table, 1), query="?api_key=" + "0" * 40)
        outcomes["unknown"] = await refused_with(ws)
        ws, _ = await connect(board_path(table, 1), token=keys["key"])  # the header now
        outcomes["afterwards"] = await refused_with(ws)
        return outcomes

    outcomes = async_to_sync(scenario)()
    for name in keys:
        error, code = outcomes[name]
        assert code == CLOSE_UNAUTHENTICATED, name
        assert "Authorization header" in error["error"] and "revoked" in error["error"]
    error, code = outcomes["unknown"]
    assert code == CLOSE_UNAUTHENTICATED and "revoked" not in error["error"]
    error, code = outcomes["afterwards"]
    assert code == CLOSE_UNAUTHENTICATED and "revoked" in error["error"]
    assert ApiToken.objects.filter(user__in=[users["N"], users["E"]], revoked_at=None).count() == 0
    assert ApiToken.objects.filter(user=users["S"], revoked_at=None).count() == 1


# --- item 5: the login and the token, read again ----------------------------------------


@pytest.fixture
def quick_recheck(settings):
    settings.SOCKET_RECHECK_SECONDS = 0.3
    return 0.3


def test_logging_out_closes_the_socket_of_that_login(room, quick_recheck):
    table, users = room["table"], room["users"]
    client = Client()
    client.force_login(users["S"])
    cookie = f"sessionid={client.cookies['sessionid'].value}"

    async def scenario():
        ws, _ = await connect(board_path(table, 1), cookie=cookie, origin=SITE)
        snapshot = await ws.receive_json_from(timeout=TIMEOUT)
        # Still open after a few periods while the login holds.
        assert await ws.receive_nothing(timeout=quick_recheck * 3)
        await database_sync_to_async(client.logout)()  # the session row is deleted
        loop = asyncio.get_running_loop()
        logged_out_at = loop.time()
        ended = await refused_with(ws)
        return snapshot, ended, loop.time() - logged_out_at

    snapshot, (error, code), took = async_to_sync(scenario)()
    assert snapshot["type"] == "snapshot"
    assert code == CLOSE_UNAUTHENTICATED and "log in again" in error["error"]
    assert not cards_in(error)
    assert took <= quick_recheck + 1.0  # within the period (and a slow machine's margin)


def test_revoking_a_token_closes_its_sockets(room, quick_recheck):
    table, users = room["table"], room["users"]
    token, key = issue_token(user=users["W"])

    async def scenario():
        ws, _ = await connect(board_path(table, 1), token=key)
        snapshot = await ws.receive_json_from(timeout=TIMEOUT)
        await database_sync_to_async(revoke_tokens)(tokens=[token])
        loop = asyncio.get_running_loop()
        revoked_at = loop.time()
        ended = await refused_with(ws)
        return snapshot, ended, loop.time() - revoked_at

    snapshot, (error, code), took = async_to_sync(scenario)()
    assert snapshot["view"]["seat"] == "W"
    assert code == CLOSE_UNAUTHENTICATED and "revoked" in error["error"]
    assert took <= quick_recheck + 1.0


def test_an_action_after_the_login_ended_is_not_stored(room, settings):
    """A long period (no timer in the way): the credential is read again before a
    message once it is due, and the action of a closed session is not stored."""
    settings.SOCKET_RECHECK_SECONDS = 0.2
    table, users = room["table"], room["users"]
    client = Client()
    client.force_login(users["N"])  # North deals board 1: the first to call
    cookie = f"sessionid={client.cookies['sessionid'].value}"

    async def scenario():
        ws, _ = await connect(board_path(table, 1), cookie=cookie, origin=SITE)
        snapshot = await ws.receive_json_from(timeout=TIMEOUT)
        await database_sync_to_async(Session.objects.all().delete)()
        settings.SOCKET_RECHECK_SECONDS = 0.01  # due at once; the timer waits longer
        action = {"type": "action", "seq": 1, "action": "call", "call": "P"}
        await asyncio.sleep(0.05)
        await ws.send_json_to(action)
        return snapshot, await refused_with(ws)

    snapshot, (error, code) = async_to_sync(scenario)()
    assert snapshot["view"]["turn"] == "N"
    assert code == CLOSE_UNAUTHENTICATED
    assert not PlayAction.objects.filter(table=table).exists()


# --- item 8: malformed messages ---------------------------------------------------------


def test_binary_and_too_deep_messages_are_answered_and_the_socket_stays(room):
    table, users = room["table"], room["users"]
    key = token_of(users["N"])

    async def scenario():
        ws, _ = await connect(board_path(table, 1), token=key)
        await ws.receive_json_from(timeout=TIMEOUT)
        answers = []
        await ws.send_to(bytes_data=b"\x00\x01binary")
        answers.append(await ws.receive_json_from(timeout=TIMEOUT))
        await ws.send_to(text_data="[" * 1500 + "]" * 1500)  # deeper than Python reads
        answers.append(await ws.receive_json_from(timeout=TIMEOUT))
        await ws.send_to(text_data='{"type": "action", "seq": ' + "[" * 1200 + "]" * 1200 + "}")
        answers.append(await ws.receive_json_from(timeout=TIMEOUT))
        # Still playing: North's pass is stored and answered.
        await ws.send_json_to({"type": "action", "seq": 1, "action": "call", "call": "P"})
        answers.append(await ws.receive_json_from(timeout=TIMEOUT))
        await ws.disconnect()
        return answers

    *errors, played = async_to_sync(scenario)()
    for error in errors:
        assert error["type"] == "error" and error["error"] and error["view"]["seat"] == "N"
    assert "JSON text" in errors[0]["error"]
    assert played["type"] == "view" and played["seq"] == 1


def test_a_message_longer_than_the_cap_closes_with_1009_unread(room, settings):
    settings.SOCKET_MAX_MESSAGE_CHARS = 1000
    table, users = room["table"], room["users"]
    key = token_of(users["N"])

    async def scenario():
        ws, _ = await connect(board_path(table, 1), token=key)
        await ws.receive_json_from(timeout=TIMEOUT)
        action = {"type": "action", "seq": 1, "action": "call", "call": "P"}
        await ws.send_to(text_data=json.dumps({**action, "alert": "x" * 1000}))
        return await refused_with(ws)

    error, code = async_to_sync(scenario)()
    assert code == CLOSE_TOO_BIG and "too long" in error["error"]
    assert not PlayAction.objects.filter(table=table).exists()


# --- item 3: the write limits, shared with HTTP; anonymous sockets per address ---------------


def test_socket_messages_share_the_write_limit_with_the_api(room, settings):
    """The user's budget is one: writes over HTTP use it up, and the socket's next
    message is refused with the reason and closed with 4429 (at once, not after more)."""
    settings.API_WRITE_RATE_PER_USER = "6/hour"
    settings.API_WRITE_RATE_PER_ADDRESS = ""
    cache.clear()
    while time.time() % 3600 > 3590:  # not across the fixed window's end
        time.sleep(0.5)
    table, users = room["table"], room["users"]
    key = token_of(users["E"])
    tournament_id = room["round"].tournament_id
    http = Client(HTTP_AUTHORIZATION=f"Bearer {key}")
    actions = f"/api/v1/tournaments/{tournament_id}/rounds/1/tables/{table.number}/boards/1/actions"
    statuses = [
        http.post(actions, {"seq": 1, "type": "call", "call": "P"}, "application/json").status_code
        for _ in range(4)
    ]  # East is not to call: refused (409), and counted

    async def scenario():
        ws, _ = await connect(board_path(table, 1), token=key)  # the fifth write
        snapshot = await ws.receive_json_from(timeout=TIMEOUT)
        messages = []
        for _ in range(3):  # the sixth is answered; the seventh is over the limit
            await ws.send_json_to({"type": "action", "seq": 1, "action": "call", "call": "P"})
            messages.append(await ws.receive_json_from(timeout=TIMEOUT))
            if messages[-1]["error"].startswith("Too many"):
                break
        closed = await ws.receive_output(timeout=TIMEOUT)
        again, _ = await connect(board_path(table, 1), token=key)
        return snapshot, messages, closed, await refused_with(again)

    snapshot, messages, closed, (again, again_code) = async_to_sync(scenario)()
    assert statuses == [409] * 4
    assert snapshot["type"] == "snapshot"
    assert [m["type"] for m in messages] == ["error", "error"]
    assert "Too many requests" in messages[1]["error"] and "view" not in messages[1]
    assert closed == {"type": "websocket.close", "code": CLOSE_TOO_MANY}
    assert again_code == CLOSE_TOO_MANY and "Too many requests" in again["error"]
    assert http.post(actions, {}, "application/json").status_code == 429  # and HTTP too


def test_anonymous_sockets_per_address_are_capped(room, settings):
    """Before the close anonymous sockets are refused (4403) and give their place back;
    the ones held open count, and the next one past the cap is refused with 4429."""
    settings.ANONYMOUS_SOCKETS_PER_ADDRESS = 2
    cache.clear()
    table = room["table"]

    async def scenario():
        refused = []
        for _ in range(3):  # round open: refused, and not held
            ws, _ = await connect(board_path(table, 1))
            refused.append((await refused_with(ws))[1])
        await database_sync_to_async(clock.advance)(
            now=room["round"].ends_at + timedelta(seconds=1)
        )
        held = []
        for _ in range(2):
            ws, _ = await connect(board_path(table, 1))
            assert (await ws.receive_json_from(timeout=TIMEOUT))["type"] == "snapshot"
            held.append(ws)
        third, _ = await connect(board_path(table, 1))
        over = await refused_with(third)
        await held[0].disconnect()  # gives its place back
        await asyncio.sleep(0.2)
        fourth, _ = await connect(board_path(table, 1))
        after = (await fourth.receive_json_from(timeout=TIMEOUT))["type"]
        for ws in (held[1], fourth):
            await ws.disconnect()
        return refused, over, after

    refused, (error, code), after = async_to_sync(scenario)()
    assert refused == [CLOSE_NOT_ALLOWED] * 3
    assert code == CLOSE_TOO_MANY and "Too many connections" in error["error"]
    assert after == "snapshot"


def test_a_sockets_address_is_the_http_sides(settings):
    scope = {
        "client": ("10.1.2.3", 5555),
        "headers": [(b"x-forwarded-for", b"6.6.6.6, 203.0.113.9")],
    }
    settings.TRUSTED_PROXIES = 0
    assert socket_address(scope) == "10.1.2.3"
    settings.TRUSTED_PROXIES = 1
    assert socket_address(scope) == "203.0.113.9"  # what the one trusted proxy saw
    assert socket_address({"headers": []}) == ""
