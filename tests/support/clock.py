"""Helpers shared by the clock and result tests."""

from __future__ import annotations

import threading
import time

from django.db import connection, transaction

from tournaments.models import Round, Table
from tournaments.services import results


def rounds_of(tournament, *more: str) -> list[tuple]:
    """Each round of `tournament` in order: (number, status, starts_at, ends_at, *more)."""
    return list(
        Round.objects.filter(tournament=tournament)
        .order_by("number")
        .values_list("number", "status", "starts_at", "ends_at", *more)
    )


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


class Held:
    """Runs `work` in its own thread and connection, inside a transaction that stays
    open (locks held, nothing committed) until `release()`."""

    def __init__(self, work, name: str):
        self.work = work
        self.inside = threading.Event()
        self.proceed = threading.Event()
        self.outcome = None
        self.thread = threading.Thread(target=self._run, name=name)

    def _run(self) -> None:
        try:
            with transaction.atomic():
                self.outcome = self.work()
                self.inside.set()
                assert self.proceed.wait(timeout=30), "never released"
        except BaseException as error:  # reported to the test, never lost in a thread
            self.outcome = error
        finally:
            self.inside.set()
            connection.close()

    def start(self) -> Held:
        self.thread.start()
        assert self.inside.wait(timeout=30)
        assert not isinstance(self.outcome, BaseException), self.outcome
        return self

    def release(self) -> None:
        self.proceed.set()
        self.thread.join(timeout=60)
        assert not self.thread.is_alive()
