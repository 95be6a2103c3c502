"""The Rate (牌技指数, RULES 13) at a club week's close: the week's rated boards read
from the stored scores, the `rating` core's close, and every member's figures stored.

Rated boards: every scored result of the members' systems (duplicate, full field in IMPs
or MP; not handicap), NS's fraction X from its NS IMPs or NS percentage; a player with a
disconnection counted on that board gets 0 on it. Robots take part as players of a fixed
Rate (the start Rate) that is never stored: they weigh their partners' and opponents'
results like anyone, and have no Rate.

The parameters are settings (`CLUB_RATE`, RULES 13's defaults), stored with the week
(`ClubWeek.parameters`), and each member rated so far gets a `ClubWeekFigure` row every
week (idle ones too: their weight fades), so `recompute_week` redoes a past week from the
previous week's rows and the week's stored parameters and gets the same Rates.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from django.conf import settings
from django.db import connection

from rating import (
    DEFAULT_PARAMETERS,
    RatingParameters,
    WeekBoards,
    WeekClose,
    close_week,
    imps_to_fraction,
    new_players,
    percentage_to_fraction,
)

from .. import sql
from ..models import (
    BoardResult,
    ClubField,
    ClubPenalty,
    ClubRating,
    ClubScore,
    ClubSystem,
    ClubWeek,
    ClubWeekFigure,
)

RATED_SYSTEMS = (ClubSystem.DUPLICATE, ClubSystem.FULL_FIELD_IMPS, ClubSystem.FULL_FIELD_MP)
IMP_SYSTEMS = (ClubSystem.DUPLICATE, ClubSystem.FULL_FIELD_IMPS)
SEAT_ORDER = "NESW"


def parameters() -> RatingParameters:
    """RULES 13's parameters, as the settings change them (`CLUB_RATE`)."""
    given = getattr(settings, "CLUB_RATE", None) or {}
    return RatingParameters.from_dict({**DEFAULT_PARAMETERS.as_dict(), **given})


@dataclass
class _Week:
    """The week's rated boards with each human's index; robots after them."""

    user_ids: list[int]  # index -> user id, the humans
    boards: WeekBoards
    points: dict[int, float]  # user -> the week's IMP points (penalties included)
    played: dict[int, int]  # user -> the week's boards in IMP systems


# One score row as PostgreSQL's binary COPY sends it (RULES 13's close reads four
# million of them): a field count, then each field's length and big-endian value.
_ROW = np.dtype(
    [
        ("fields", ">i2"),
        ("n1", ">i4"), ("result", ">i8"),
        ("n2", ">i4"), ("seat", ">i4"),
        ("n3", ">i4"), ("user", ">i8"),
        ("n4", ">i4"), ("robot", "?"),
        ("n5", ">i4"), ("points", ">f8"),
        ("n6", ">i4"), ("imps", "?"),
    ]
)  # fmt: skip
_COPY_HEADER = 19  # "PGCOPY\n\377\r\n\0", flags, header extension length
_COPY_TRAILER = 2  # the field count -1


def _score_rows(week: ClubWeek) -> np.ndarray:
    """The week's scored rows of the rated systems, one record a player and result (in
    no order). On PostgreSQL a binary COPY read straight into a numpy record array (fixed
    width: no field is NULL); elsewhere (SQLite, the embedded default) through the ORM."""
    rated = list(
        ClubField.objects.filter(week=week, system__in=RATED_SYSTEMS).values_list("pk", "system")
    )
    imp_fields = [pk for pk, system in rated if system in IMP_SYSTEMS]
    fields = [pk for pk, _system in rated]
    if connection.vendor != "postgresql":
        rows = ClubScore.objects.filter(field_id__in=fields, scored=True).values_list(
            "result_id", "seat", "user_id", "robot", "points", "field_id"
        )
        out = np.zeros(len(rows), dtype=_ROW)
        for k, (result, seat, user, robot, points, field) in enumerate(rows):
            out[k] = (6, 8, result, 4, SEAT_ORDER.index(seat), 8, user, 1, robot, 8, points,
                      1, field in imp_fields)  # fmt: skip
        return out
    score = sql.table(ClubScore)
    columns = (
        f"s.{sql.column(ClubScore, 'result')}::int8,"
        f" strpos('{SEAT_ORDER}', s.{sql.column(ClubScore, 'seat')})::int4 - 1,"
        f" s.{sql.column(ClubScore, 'user')}::int8, s.{sql.column(ClubScore, 'robot')},"
        f" s.{sql.column(ClubScore, 'points')}::float8,"
        f" s.{sql.column(ClubScore, 'field')} = ANY(%s)"
    )
    statement = (
        f"COPY (SELECT {columns} FROM {score} s"
        f" WHERE s.{sql.column(ClubScore, 'field')} = ANY(%s)"
        f" AND s.{sql.column(ClubScore, 'scored')}) TO STDOUT (FORMAT BINARY)"
    )
    chunks: list[bytes] = []
    with connection.cursor() as cursor, cursor.cursor.copy(statement, [imp_fields, fields]) as copy:
        for block in copy:
            chunks.append(bytes(block))
    data = b"".join(chunks)
    body = data[_COPY_HEADER : len(data) - _COPY_TRAILER]
    return np.frombuffer(body, dtype=_ROW)


def _read_week(week: ClubWeek, params: RatingParameters) -> _Week:
    """The week's rated boards as arrays: the score rows read in one COPY and folded into
    a row a result (N, E, S, W) with numpy — a million results without a Python loop."""
    rows = _score_rows(week)
    order = np.lexsort((rows["seat"], rows["result"]))
    rows = rows[order]
    counts = np.unique(rows["result"], return_counts=True)[1]
    whole = np.repeat(counts == 4, counts)  # a result with its four players' rows
    rows = rows[whole]
    count = int((counts == 4).sum())
    result_ids = rows["result"][::4].astype(np.int64)
    users = rows["user"].astype(np.int64).reshape(count, 4)
    robot = rows["robot"].astype(np.bool_).reshape(count, 4)
    ns_points = rows["points"][::4].astype(np.float64)  # seat 0: North
    is_imps = rows["imps"][::4].astype(np.bool_)
    # Humans are indexed in order of their user id, robots after them.
    human_ids = np.unique(users[~robot])
    robot_ids = np.unique(users[robot])
    players = np.empty(users.shape, dtype=np.intp)
    players[~robot] = np.searchsorted(human_ids, users[~robot])
    players[robot] = len(human_ids) + np.searchsorted(robot_ids, users[robot])
    fraction = np.empty(count)
    fraction[is_imps] = imps_to_fraction(ns_points[is_imps], params)
    fraction[~is_imps] = percentage_to_fraction(ns_points[~is_imps])
    # A disconnection counted on a board: 0 for that player on that board's result.
    lost_pairs = list(
        ClubPenalty.objects.filter(field__week=week, field__system__in=RATED_SYSTEMS).values_list(
            "board_id", "user_id"
        )
    )
    disconnected = np.zeros(users.shape, dtype=np.bool_)
    if lost_pairs:
        on_board = dict(
            BoardResult.objects.filter(
                board_id__in={board for board, _user in lost_pairs}, club_scores__field__week=week
            ).values_list("pk", "board_id")
        )
        wanted = set(lost_pairs)
        boards = [on_board.get(int(r), -1) for r in result_ids]
        for k in range(4):
            disconnected[:, k] = [
                (b, int(u)) in wanted for b, u in zip(boards, users[:, k], strict=True)
            ]
    # The week's points and boards (IMP systems, humans): NS players their NS IMPs, EW
    # players the negative; then each player's penalties.
    humans = len(human_ids)
    signed = np.stack([ns_points, -ns_points, ns_points, -ns_points], axis=1)
    counted = (~robot) & is_imps[:, None]
    points_sum = np.bincount(players[counted], weights=signed[counted], minlength=humans)
    played_sum = np.bincount(players[counted], minlength=humans)
    points = {int(u): float(points_sum[i]) for i, u in enumerate(human_ids)}
    played = {int(u): int(played_sum[i]) for i, u in enumerate(human_ids)}
    for user_id, value in ClubPenalty.objects.filter(field__week=week).values_list(
        "user_id", "points"
    ):
        points[user_id] = points.get(user_id, 0.0) + value
    return _Week(
        user_ids=[int(u) for u in human_ids],
        boards=WeekBoards(players, fraction, disconnected),
        points=points,
        played=played,
    )


def _robot_count(boards: WeekBoards, humans: int) -> int:
    return int(boards.players.max()) + 1 - humans if len(boards) else 0


def _close(
    data: _Week, start: dict[int, tuple[float, float]], params: RatingParameters
) -> tuple[dict[int, int], WeekClose]:
    """The engine's close of `data` from each rated member's (Rate, weight) at the start
    of the week (`start`; anyone else starts as a new player): {user id: row} and the
    close. Humans are the rows in the week's order then the idle members; robots come
    after everyone, at the start Rate, and are not answered."""
    everyone = list(dict.fromkeys([*data.user_ids, *start]))
    position = {user_id: i for i, user_id in enumerate(everyone)}
    robots_seen = _robot_count(data.boards, len(data.user_ids))
    rates, weights = new_players(len(everyone) + robots_seen, params)
    for user_id, (rate, carried) in start.items():
        rates[position[user_id]] = rate
        weights[position[user_id]] = carried
    remap = np.array(
        [position[u] for u in data.user_ids] + [len(everyone) + k for k in range(robots_seen)],
        dtype=np.intp,
    )
    boards = WeekBoards(
        remap[data.boards.players] if len(data.boards) else data.boards.players,
        data.boards.ns_fraction,
        data.boards.disconnected,
    )
    return position, close_week(boards, rates, weights, params)


def close_rates(*, week: ClubWeek) -> int:
    """The week's Rates (inside the week's close): every member's new Rate and figures
    stored, the parameters recorded with the week. Answers how many members it rated."""
    params = parameters()
    data = _read_week(week, params)
    current = {r.user_id: r for r in ClubRating.objects.all()}
    position, closed = _close(data, {u: (r.rate, r.carried) for u, r in current.items()}, params)
    ClubRating.objects.filter(user_id__in=list(current)).delete()
    ratings, figures = [], []
    for user_id, i in position.items():
        rated = int(closed.boards[i])
        total = (current[user_id].total_boards if user_id in current else 0) + rated
        rate, carried = float(closed.rates[i]), float(closed.weights[i])
        ratings.append(
            ClubRating(user_id=user_id, rate=rate, carried=carried, total_boards=total, week=week)
        )
        w = float(closed.week_rates[i])
        figures.append(
            ClubWeekFigure(
                week=week,
                user_id=user_id,
                rate=rate,
                carried=carried,
                week_rate=None if np.isnan(w) else w,
                rated_boards=rated,
                total_boards=total,
                points=data.points.get(user_id, 0.0),
                boards=data.played.get(user_id, 0),
            )
        )
    ClubRating.objects.bulk_create(ratings, batch_size=5_000)
    ClubWeekFigure.objects.bulk_create(figures, batch_size=5_000)
    week.parameters = params.as_dict()
    week.save(update_fields=["parameters"])
    return len(position)


def recompute_week(*, week: ClubWeek) -> dict[int, float]:
    """A closed week's Rates computed again from its stored results, the previous week's
    figures and the parameters stored with it: {user id: Rate}. Equal to the stored
    figures unless a result was changed since."""
    params = RatingParameters.from_dict(week.parameters) if week.parameters else parameters()
    data = _read_week(week, params)
    before = (
        ClubWeek.objects.filter(starts_at__lt=week.starts_at, closed_at__isnull=False)
        .order_by("-starts_at")
        .first()
    )
    previous = ClubWeekFigure.objects.filter(week=before) if before else []
    position, closed = _close(data, {f.user_id: (f.rate, f.carried) for f in previous}, params)
    return {user_id: float(closed.rates[i]) for user_id, i in position.items()}
