"""Helpers of the live table server's tests: an online round open now, its seats, a
simple robot that plays whatever its view says is legal, and the leak inspector."""

from __future__ import annotations

import time
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

import play
from scoring import SEATS, partner_of
from tournaments.models import Board, Round, Table
from tournaments.selectors import table_seats
from tournaments.services import clock
from tournaments.services.tokens import issue_token

SUITS = "SHDC"


def open_online_round(
    make_tournament,
    register_pairs,
    *,
    pairs=4,
    boards=2,
    rounds=2,
    round_length=timedelta(hours=1),
    **settings,
):
    """An online tournament whose round 1 is open now (for an hour): (round, tables).
    `settings`: more of the tournament's fields (a movement's `seating`, `winners`)."""
    now = timezone.now()
    tournament = make_tournament(
        play="online",
        registration_opens_at=now - timedelta(days=1),
        start_at=now - timedelta(seconds=1),
        rounds=rounds,
        boards_per_round=boards,
        round_length=round_length,
        gap_length=timedelta(0),
        **settings,
    )
    register_pairs(tournament, pairs, now=now - timedelta(minutes=10))
    clock.advance(now=now)
    # A server started by the test may run its own clock on this database: where it
    # holds the tournament, this advance skips it (`skip_locked`) and that clock opens
    # round 1 instead, a moment later.
    deadline = time.monotonic() + 15
    while True:
        first = Round.objects.filter(tournament=tournament, number=1).first()
        if (first is not None and first.status == "open") or time.monotonic() > deadline:
            break
        time.sleep(0.05)
        clock.advance(now=now)
    assert first is not None and first.status == "open", first and first.status
    tables = list(
        Table.objects.filter(round=first).select_related("ns_pair", "ew_pair").order_by("number")
    )
    return first, tables


def seated_users(table: Table) -> dict:
    """seat -> the user sitting there."""
    by_id = get_user_model().objects.in_bulk(table_seats.table_seats(table).values())
    return {seat: by_id[user_id] for seat, user_id in table_seats.table_seats(table).items()}


def token_of(user) -> str:
    return issue_token(user=user)[1]


def session_cookie(user) -> str:
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}"


def board_path(table: Table, board_number: int) -> str:
    return f"/ws/tables/{table.pk}/boards/{board_number}/"


def dealt_hands(table: Table, board_number: int) -> dict[str, set[str]]:
    board = Board.objects.get(round_id=table.round_id, number=board_number)
    state = play.BoardState.start(board.deal, board.dealer, board.vulnerability)
    return {seat: set(state.hand_of(seat)) for seat in SEATS}


def is_card(text) -> bool:
    return (
        isinstance(text, str) and len(text) == 2 and text[0] in SUITS and text[1] in "AKQJT98765432"
    )


def robot_action(view: dict) -> dict | None:
    """The action a seat's robot takes from its view: the first caller opens 1C and
    everyone else passes, then the first legal card. None when it is not to act."""
    legal = view.get("legal") or []
    if not legal:
        return None
    seq = view["next_seq"]
    if is_card(legal[0]):
        return {"seq": seq, "type": "card", "card": legal[0]}
    if not view["auction"] and "1C" in legal:
        # Alerted, so the leak test can check partner never sees it.
        return {"seq": seq, "type": "call", "call": "1C", "alert": "could be short"}
    return {"seq": seq, "type": "call", "call": "P" if "P" in legal else legal[0]}


def cards_in(message) -> set[str]:
    """Every card named anywhere in a message (hands, play, legal, anything)."""
    found: set[str] = set()
    if isinstance(message, dict):
        for value in message.values():
            found |= cards_in(value)
    elif isinstance(message, list | tuple):
        for value in message:
            found |= cards_in(value)
    elif is_card(message):
        found.add(message)
    return found


def allowed_cards(viewer: str | None, view: dict | None, hands: dict[str, set[str]]) -> set[str]:
    """What `viewer` (a seat, or None: no seat) may see given the state the message
    shows: the cards played so far, its own hand, dummy after the opening lead, all
    four once the board is over. Computed from the deal, not from the message's hands."""
    if view is None:
        return set()
    played = {entry["card"] for entry in view["play"]}
    if viewer is None:
        return played
    allowed = played | hands[viewer]
    if played:
        auction = [play.Call(entry["seat"], entry["call"]) for entry in view["auction"]]
        state = play.BoardState.replay(
            {seat: sorted(cards) for seat, cards in hands.items()},
            view["dealer"],
            view["vulnerability"],
            auction,
        )
        allowed |= hands[partner_of(state.declarer)]
    if len(played) == 52:
        allowed = set().union(*hands.values())
    return allowed


# --- a socket of the real ASGI application (Channels' communicator) --------------------

SOCKET_TIMEOUT = 10


async def connect(path, *, token=None, cookie=None, origin=None, host=None, query="",
                  query_token=None):  # fmt: skip
    """A socket opened on `path` through `config.asgi` (origin check, auth, routing):
    (the communicator, whether the handshake was accepted)."""
    from channels.testing import WebsocketCommunicator

    from config.asgi import application

    headers = []
    if token is not None:
        headers.append((b"authorization", f"Bearer {token}".encode()))
    if cookie is not None:
        headers.append((b"cookie", cookie.encode()))
    if origin is not None:
        headers.append((b"origin", origin.encode()))
    if host is not None:
        headers.append((b"host", host.encode()))
    if query_token is not None:
        query = f"?token={query_token}"
    communicator = WebsocketCommunicator(application, path + query, headers=headers)
    connected, _code = await communicator.connect(timeout=SOCKET_TIMEOUT)
    return communicator, connected


async def refused_with(communicator) -> tuple[dict, int]:
    """(the error message, the close code) of a refused or ended connection."""
    error = await communicator.receive_json_from(timeout=SOCKET_TIMEOUT)
    closed = await communicator.receive_output(timeout=SOCKET_TIMEOUT)
    assert closed["type"] == "websocket.close", closed
    return error, closed["code"]


class StatementsSent:
    """Counts every statement this process sends to the database, from any thread (the
    table server's pool threads too, and prepared statements that bypass Django's
    cursor wrappers): psycopg's own cursor methods, wrapped while the block runs."""

    METHODS = ("execute", "executemany", "stream", "copy")

    def __init__(self) -> None:
        self.statements: list[str] = []

    def __enter__(self) -> StatementsSent:
        import psycopg

        self._saved = {name: getattr(psycopg.Cursor, name) for name in self.METHODS}
        for name, method in self._saved.items():
            setattr(psycopg.Cursor, name, self._counting(method))
        return self

    def _counting(self, method):
        statements = self.statements

        def counted(cursor, query, *args, **kwargs):
            statements.append(str(query))
            return method(cursor, query, *args, **kwargs)

        return counted

    def __exit__(self, *exc) -> None:
        import psycopg

        for name, method in self._saved.items():
            setattr(psycopg.Cursor, name, method)
