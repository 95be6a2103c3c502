"""Who is connected, as the real socket consumer records it (`services.presence`): a
seated player's socket counts from its snapshot until it closes, in the database, so
the console of any server process sees it; a watcher and a refused socket never count."""

from __future__ import annotations

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from django.utils import timezone

from tests.support.online_ws import (
    board_path,
    connect,
    open_online_round,
    refused_with,
    seated_users,
    token_of,
)
from tournaments.models import TablePresence
from tournaments.selectors import console as console_selectors

pytestmark = pytest.mark.django_db(transaction=True)
TIMEOUT = 10


def _connected(table_id: int) -> dict:
    return console_selectors.connections(table_ids=[table_id], now=timezone.now()).get(table_id, {})


def test_a_seats_sockets_count_until_the_last_one_closes(
    make_tournament, register_pairs, organiser
):
    _first, (table, other) = open_online_round(make_tournament, register_pairs, boards=2)
    users = seated_users(table)
    tokens = {seat: token_of(user) for seat, user in users.items()}
    stranger = token_of(seated_users(other)["N"])
    watcher = token_of(organiser)

    async def scenario():
        seen = {}
        east, _ok = await connect(board_path(table, 1), token=tokens["E"])
        await east.receive_json_from(timeout=TIMEOUT)
        east_again, _ok = await connect(board_path(table, 2), token=tokens["E"])
        await east_again.receive_json_from(timeout=TIMEOUT)
        director, _ok = await connect(board_path(table, 1), token=watcher)
        await director.receive_json_from(timeout=TIMEOUT)
        refused, _ok = await connect(board_path(table, 1), token=stranger)
        await refused_with(refused)
        seen["open"] = await database_sync_to_async(_connected)(table.pk)
        seen["rows"] = await database_sync_to_async(TablePresence.objects.count)()
        await east.disconnect()
        seen["one closed"] = await database_sync_to_async(_connected)(table.pk)
        await east_again.disconnect()
        await director.disconnect()
        seen["all closed"] = await database_sync_to_async(_connected)(table.pk)
        return seen

    seen = async_to_sync(scenario)()
    assert set(seen["open"]) == {"E"}  # the organiser watching and the refused don't count
    assert seen["rows"] == 2
    assert set(seen["one closed"]) == {"E"}
    assert seen["all closed"] == {}
