"""Helpers shared by the clock and result tests."""

import time

from django.db import connection

from tournaments.models import Table
from tournaments.services import results


def submit(table: Table, board_number: int, contract: str, declarer: str, tricks, *, now):
    """North of `table` enters a result through the real service."""
    table = Table.objects.select_related("ns_pair__player1").get(pk=table.pk)
    return results.submit_result(
        table=table,
        board_number=board_number,
        entry=results.ContractEntry(contract=contract, declarer=declarer, tricks=tricks),
        user=table.ns_pair.player1,
        now=now,
    )


def wait_for_lock_wait(timeout: float = 10.0) -> None:
    """Block until some other backend of this database is waiting on a row lock."""
    deadline = time.monotonic() + timeout
    with connection.cursor() as cursor:
        while time.monotonic() < deadline:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                "AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()"
            )
            if cursor.fetchone()[0]:
                return
            time.sleep(0.02)
    raise AssertionError("nobody ended up waiting for the lock")
