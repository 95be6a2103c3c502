"""Privacy across the rooms of a team match (RULES 11, docs/SECURITY.md): both rooms play
the same deals, so a closed-room player must receive nothing of a board from the open
room — no call, no card, no contract, no result, no IMPs — until the board is over at
the closed-room table. Here the closed room is two boards behind the open room, and
every message each closed-room socket receives is watched, as are the pages a
closed-room player may open meanwhile."""

from __future__ import annotations

import asyncio
import json

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from django.test import Client
from django.urls import reverse

from tests.support.online_ws import (
    board_path,
    cards_in,
    connect,
    dealt_hands,
    seated_users,
    session_cookie,
)
from tests.support.team_events import two_team_event
from tests.tournaments.test_who_sees_what import _play_to_the_end
from tournaments.models import BoardResult, Match, PlayAction, Round
from tournaments.templatetags.bridge import contract

BOARDS = 4


@pytest.fixture
def match(organiser, db):
    event = two_team_event(organiser=organiser, name="Two rooms", boards=BOARDS, open_now=True)
    assert Round.objects.get(tournament=event).status == "open"
    return Match.objects.select_related("open_table", "closed_table").get(round__tournament=event)


async def _drain(socket, into: list) -> None:
    """Every message the socket has been sent so far, into `into`."""
    while not await socket.receive_nothing(timeout=0.3):
        output = await socket.receive_output(timeout=5)
        if output["type"] == "websocket.send":
            into.append(json.loads(output["text"]))


@pytest.mark.django_db(transaction=True)
def test_the_closed_room_two_boards_behind_receives_nothing_of_the_open_room(match):
    open_room, closed_room = match.open_table, match.closed_table
    closed_players = seated_users(closed_room)
    hands = {n: dealt_hands(closed_room, n) for n in range(1, BOARDS + 1)}
    cookies = {seat: session_cookie(user) for seat, user in closed_players.items()}
    # Both rooms play board 1 to its end; then the open room plays boards 2 and 3 while
    # the closed room is still on board 2, not started.
    _play_to_the_end(open_room, 1)
    _play_to_the_end(closed_room, 1, opening="1D")

    async def scenario():
        sockets = {}
        seen: dict[tuple[str, int], list] = {}
        for seat, cookie in cookies.items():
            for number in (2, 3):
                socket, accepted = await connect(
                    board_path(closed_room, number), cookie=cookie, origin="http://testserver"
                )
                assert accepted, (seat, number)
                sockets[seat, number] = socket
                seen[seat, number] = []
        for key, socket in sockets.items():
            await _drain(socket, seen[key])
        opened = {key: len(messages) for key, messages in seen.items()}
        await sync_to_async(_play_to_the_end)(open_room, 2, "1H")
        await sync_to_async(_play_to_the_end)(open_room, 3, "1S")
        await asyncio.sleep(0.5)
        for key, socket in sockets.items():
            await _drain(socket, seen[key])
        for socket in sockets.values():
            await socket.disconnect()
        return seen, opened

    seen, opened = async_to_sync(scenario)()
    open_actions = PlayAction.objects.filter(table=open_room, board__number__in=(2, 3)).count()
    assert open_actions >= 2 * 52  # the open room really played both boards meanwhile
    for (seat, number), messages in seen.items():
        # Nothing was sent to a closed-room socket while only the open room played.
        assert len(messages) == opened[seat, number], (
            seat,
            number,
            messages[opened[seat, number] :],
        )
        assert any(m.get("type") == "snapshot" for m in messages)
        for message in messages:
            # Its own hand only: the closed room has not called or played on this board.
            assert cards_in(message) <= hands[number][seat], (seat, number)
            view = message.get("view")
            if view is not None:
                # Nothing called, played or scored: the closed room has not started it.
                assert (view["auction"], view["play"], view["result"]) == ([], [], None)
                assert not view["over"]

    # The pages a closed-room player may open meanwhile show no open-room result of a
    # board not yet over at the closed-room table.
    client = Client()
    client.force_login(closed_players["N"])
    open_results = BoardResult.objects.filter(table=open_room, board__number__in=(2, 3))
    assert open_results.count() == 2
    tournament = match.round.tournament
    for number in (2, 3):
        page = client.get(reverse("board", args=[tournament.pk, number]))
        body = page.content.decode()
        for result in open_results:
            assert f">{result.ns_score}<" not in body
            # Its contract as the pages draw it ("1♥"); a bare "1H" could be found in a
            # random CSRF token.
            assert str(contract(result)) not in body
    api = client.get(f"/api/v1/tournaments/{tournament.pk}/boards/2")
    assert api.status_code in (403, 404) or "ns_score" not in api.content.decode()


@pytest.mark.django_db
def test_a_team_player_never_kibitzes_live_and_finds_their_own_table(match):
    """A team's pairs have no `PairMember` rows: the rules that ask "does this user play
    here?" and "where do they sit?" know team players all the same."""
    from tournaments.selectors.seating import current_tables, seat_of_user
    from tournaments.services import table_play

    tournament = match.round.tournament
    for table in (match.open_table, match.closed_table):
        for seat, user in seated_users(table).items():
            assert table_play.plays_in_tournament(tournament_id=tournament.pk, user=user)
            pair, found, side = seat_of_user(tournament=tournament, user=user)
            assert found == table and pair.has_player(user.pk)
            assert side == ("NS" if seat in "NS" else "EW")
            assert current_tables(user=user) == [table]
