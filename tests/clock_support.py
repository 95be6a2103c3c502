"""Helpers shared by the clock tests."""

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
