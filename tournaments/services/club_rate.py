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

from collections import defaultdict
from dataclasses import dataclass

import numpy as np
from django.conf import settings

from rating import (
    DEFAULT_PARAMETERS,
    RatingParameters,
    WeekBoards,
    close_week,
    imps_to_fraction,
    new_players,
    percentage_to_fraction,
)

from ..models import (
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


def _read_week(week: ClubWeek, params: RatingParameters) -> _Week:
    rows = (
        ClubScore.objects.filter(field__week=week, field__system__in=RATED_SYSTEMS, scored=True)
        .order_by("result_id", "seat")
        .values_list(
            "result_id", "seat", "user_id", "robot", "points", "field__system", "result__board_id"
        )  # fmt: skip
    )
    lost = set(
        ClubPenalty.objects.filter(field__week=week, field__system__in=RATED_SYSTEMS).values_list(
            "board_id", "user_id"
        )
    )
    results: dict[int, dict] = defaultdict(dict)
    meta: dict[int, tuple[str, int]] = {}
    points: dict[int, float] = defaultdict(float)
    played: dict[int, int] = defaultdict(int)
    for result_id, seat, user_id, robot, value, system, board_id in rows.iterator(
        chunk_size=20_000
    ):
        results[result_id][seat] = (user_id, robot, value)
        meta[result_id] = (system, board_id)
        if not robot and system in IMP_SYSTEMS:
            points[user_id] += value
            played[user_id] += 1
    for user_id, value in ClubPenalty.objects.filter(field__week=week).values_list(
        "user_id", "points"
    ):
        points[user_id] += value
    index: dict[int, int] = {}
    robot_index: dict[int, int] = {}
    seated: list[list[int]] = []
    keys: list[list[int]] = []
    imps: list[float] = []
    kinds: list[bool] = []
    disconnected: list[list[bool]] = []
    for result_id, seats in results.items():
        if len(seats) != 4:
            continue  # not a whole table (cannot happen: four rows a result)
        system, board_id = meta[result_id]
        row, users = [], []
        for seat in SEAT_ORDER:
            user_id, robot, _value = seats[seat]
            if robot:
                row.append(-1 - robot_index.setdefault(user_id, len(robot_index)))
            else:
                row.append(index.setdefault(user_id, len(index)))
            users.append(user_id)
        seated.append(row)
        keys.append(users)
        imps.append(seats["N"][2])
        kinds.append(system in IMP_SYSTEMS)
        disconnected.append([(board_id, u) in lost for u in users])
    humans = len(index)
    players = np.array(seated, dtype=np.intp).reshape(-1, 4)
    players[players < 0] = humans - 1 - players[players < 0]  # robots after the humans
    values = np.array(imps, dtype=np.float64)
    is_imps = np.array(kinds, dtype=np.bool_)
    fraction = np.empty_like(values)
    fraction[is_imps] = imps_to_fraction(values[is_imps], params)
    fraction[~is_imps] = percentage_to_fraction(values[~is_imps])
    user_ids = [0] * humans
    for user_id, i in index.items():
        user_ids[i] = user_id
    lost_flags = np.array(disconnected, dtype=np.bool_).reshape(-1, 4)
    return _Week(
        user_ids=user_ids,
        boards=WeekBoards(players, fraction, lost_flags),
        points=dict(points),
        played=dict(played),
    )


def _robot_count(boards: WeekBoards, humans: int) -> int:
    return int(boards.players.max()) + 1 - humans if len(boards) else 0


def close_rates(*, week: ClubWeek) -> int:
    """The week's Rates (inside the week's close): every member's new Rate and figures
    stored, the parameters recorded with the week. Answers how many members it rated."""
    params = parameters()
    data = _read_week(week, params)
    current = {r.user_id: r for r in ClubRating.objects.all()}
    everyone = list(dict.fromkeys([*data.user_ids, *current]))
    position = {user_id: i for i, user_id in enumerate(everyone)}
    humans = len(data.user_ids)
    robots_seen = _robot_count(data.boards, humans)
    start_rates, start_weights = new_players(len(everyone) + robots_seen, params)
    for user_id, rating in current.items():
        start_rates[position[user_id]] = rating.rate
        start_weights[position[user_id]] = rating.carried
    # The boards' indices: humans are `everyone`'s first rows in the week's order;
    # robots come after everyone.
    remap = np.array(
        [position[u] for u in data.user_ids] + [len(everyone) + k for k in range(robots_seen)],
        dtype=np.intp,
    )
    boards = WeekBoards(
        remap[data.boards.players] if len(data.boards) else data.boards.players,
        data.boards.ns_fraction,
        data.boards.disconnected,
    )
    closed = close_week(boards, start_rates, start_weights, params)
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
    previous = {f.user_id: f for f in ClubWeekFigure.objects.filter(week=before)} if before else {}
    everyone = list(dict.fromkeys([*data.user_ids, *previous]))
    position = {user_id: i for i, user_id in enumerate(everyone)}
    humans = len(data.user_ids)
    robots_seen = _robot_count(data.boards, humans)
    rates, weights = new_players(len(everyone) + robots_seen, params)
    for user_id, figure in previous.items():
        rates[position[user_id]] = figure.rate
        weights[position[user_id]] = figure.carried
    remap = np.array(
        [position[u] for u in data.user_ids] + [len(everyone) + k for k in range(robots_seen)],
        dtype=np.intp,
    )
    boards = WeekBoards(
        remap[data.boards.players] if len(data.boards) else data.boards.players,
        data.boards.ns_fraction,
        data.boards.disconnected,
    )
    closed = close_week(boards, rates, weights, params)
    return {user_id: float(closed.rates[i]) for user_id, i in position.items()}
