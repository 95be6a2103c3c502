"""A club result scored against its deal's field (RULES 13), in the transaction that
stores it; and the disconnection penalties.

`board_finished` runs inside `table_play.act`'s transaction once a club board's result is
stored: it takes the library deal's row lock (so the deal's results are scored one after
another: exactly one is the sixth), asks the `club` core what the arrival changes, writes
the four players' `ClubScore` rows (and, for duplicate's sixth or a full-field arrival,
rewrites the deal's earlier ones: at most 39 results, 156 rows), counts the result and
retires the deal at 40, then deals the table's next board (or closes the table, when a
player left it mid-board). One short transaction
whatever the number of tables: it touches one deal's rows and one table's.
"""

from __future__ import annotations

from collections.abc import Hashable
from datetime import datetime

from django.db.models import Sum

import club
import play
from club.handicap import score_handicap
from club.penalties import DUPLICATE, FULL_FIELD, HANDICAP, disconnection_penalty

from ..models import (
    Board,
    BoardResult,
    ClubDeal,
    ClubField,
    ClubPenalty,
    ClubScore,
    ClubSystem,
    ClubTable,
    ClubTableStatus,
    Table,
)
from ..selectors import table_seats
from . import club as club_tables

# The core's penalty systems, by the club's system.
PENALTY_SYSTEM = {
    ClubSystem.DUPLICATE: DUPLICATE,
    ClubSystem.FULL_FIELD_IMPS: FULL_FIELD,
    ClubSystem.FULL_FIELD_MP: FULL_FIELD,
    ClubSystem.HANDICAP: HANDICAP,
}


def _key(row: ClubScore) -> Hashable:
    # A robot sits at many tables that play the deal: a key per result and seat.
    return ("robot", row.result_id, row.seat) if row.robot else row.user_id


def _table_result(rows: list[ClubScore], ns_score: int) -> club.TableResult:
    by_seat = {row.seat: _key(row) for row in rows}
    return club.TableResult(ns_score, by_seat["N"], by_seat["E"], by_seat["S"], by_seat["W"])


def board_finished(*, result: BoardResult, play_table: Table, now: datetime) -> None:
    """Score `result` (just stored, a club board's) and deal the table's next board."""
    board = Board.objects.only("club_deal_id").get(pk=result.board_id)
    if board.club_deal_id is None:
        return
    deal = ClubDeal.objects.select_for_update(no_key=True).get(pk=board.club_deal_id)
    field = ClubField.objects.get(pk=deal.field_id)
    robots = club_tables.robot_user_ids()
    arrival = deal.results + 1
    seats = table_seats.table_seats(play_table)
    new_rows = [
        ClubScore(
            result=result,
            deal=deal,
            field=field,
            user_id=user_id,
            seat=seat,
            arrival=arrival,
            robot=user_id in robots,
        )
        for seat, user_id in seats.items()
    ]
    stored = list(ClubScore.objects.filter(deal=deal).select_related("result").order_by("arrival"))
    by_arrival: dict[int, list[ClubScore]] = {}
    for row in stored:
        by_arrival.setdefault(row.arrival, []).append(row)
    earlier = [
        _table_result(rows, rows[0].result.ns_score or 0) for _n, rows in sorted(by_arrival.items())
    ]
    new = _table_result(new_rows, result.ns_score or 0)
    changed: list[ClubScore] = []
    if field.system == ClubSystem.HANDICAP:
        scored = score_handicap(play.parse_deal(deal.deal), deal.vulnerability, new)
        for row in new_rows:
            row.points, row.scored = scored.points[_key(row)], True
    elif field.system == ClubSystem.DUPLICATE:
        arrived = club.duplicate_arrival(earlier, new)
        for row in new_rows:
            row.points, row.scored = arrived.points.get(_key(row), 0), bool(arrived.scored)
        if arrived.count == club.duplicate.SCORED_AT:
            for row in stored:  # the first five are scored with the sixth, once
                row.points, row.scored = arrived.points[_key(row)], True
                changed.append(row)
    else:
        scores = club.full_field_scores([*earlier, new])
        points = scores.percentages if field.system == ClubSystem.FULL_FIELD_MP else scores.imps
        for row in [*stored, *new_rows]:
            value = float(points[_key(row)])
            if row.pk is None or row.points != value or not row.scored:
                row.points, row.scored = value, True
                if row.pk is not None:
                    changed.append(row)
    ClubScore.objects.bulk_create(new_rows)
    if changed:
        ClubScore.objects.bulk_update(changed, ["points", "scored"])
    deal.results = arrival
    fields = ["results"]
    if arrival >= club_tables.MOST_RESULTS:
        deal.retired_at = now
        fields.append("retired_at")
    deal.save(update_fields=fields)
    club_table = (
        ClubTable.objects.select_for_update(no_key=True, of=("self",))
        .select_related("field__week", "field__tournament", "table")
        .filter(table=play_table, status=ClubTableStatus.PLAYING)
        .first()
    )
    if club_table is not None and club_table.closes_after_board:
        club_tables.close_table(table=club_table, now=now)  # a player left mid-board
    elif club_table is not None and now < club_table.field.week.ends_at:
        club_tables.deal_next_board(club_table=club_table, now=now)


def count_leaving(*, club_table: ClubTable, seat: str, user, now: datetime) -> ClubPenalty | None:
    """A player who leaves a playing table while a board is in play there is counted
    disconnected once (RULES 13)."""
    assert club_table.table is not None
    board = club_tables.unfinished_board(club_table.table)
    if board is None or not board.play_actions.filter(table=club_table.table).exists():
        return None  # between boards (the next not started): leaving costs nothing
    return penalise(club_table=club_table, board=board, seat=seat, user=user, lost_at=now, now=now)


def penalise(
    *, club_table: ClubTable, board: Board, seat: str, user, lost_at: datetime, now: datetime
) -> ClubPenalty | None:
    """Count `user`'s disconnection from `club_table` on `board` once (RULES 13): the new
    penalty, or None if this outage was already counted (one row an outage, the unique
    key on (table, player) while `back_at` is empty: two clocks at once count it once)."""
    points = disconnection_penalty(PENALTY_SYSTEM[ClubSystem(club_table.field.system)], 1)
    penalty, created = ClubPenalty.objects.get_or_create(
        club_table=club_table,
        user=user,
        back_at=None,
        defaults={
            "field": club_table.field,
            "board": board,
            "seat": seat,
            "points": points,
            "lost_at": lost_at,
            "counted_at": now,
        },
    )
    return penalty if created else None


def penalty_points(*, field: ClubField, user_id: int) -> int:
    return (
        ClubPenalty.objects.filter(field=field, user_id=user_id).aggregate(p=Sum("points"))["p"]
        or 0
    )


__all__ = ["board_finished", "count_leaving", "penalise", "penalty_points"]
