"""The standings and the results grid: what the tournament and results pages, the API
and the exports list, as plain data (cheap to cache, no ORM objects)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from django.contrib.auth import get_user_model

import scoring

from ..models import (
    Direction,
    Pair,
    PairBoardScore,
    PairStatus,
    RoundStatus,
    Tournament,
    TournamentStatus,
    listed_in_results,
    pair_names,
)
from .common import PlayerName, player
from .pair_labels import pair_labels


@dataclass(frozen=True)
class StandingRow:
    """One pair in the standings as plain data: what the pages, the API and the exports
    show, and cheap to cache (no ORM objects)."""

    pair_id: int
    registration_no: int
    players: tuple[PlayerName, PlayerName]
    user_ids: tuple[int, int]
    position: int
    rank: int | None
    total: float
    boards_completed: int
    completion: float
    completed: bool
    master_points: float
    withdrawn: bool
    names: str
    search: str  # names and usernames, case-folded, for "find a pair"
    # Equal on total with a neighbour in the list: the tie-break that placed this pair
    # (`scoring.TIE_BOARDS` or `TIE_REGISTRATION`, RULES 6), None when not tied.
    tie_break: str | None = None
    # Two winners (RULES 10): the field the pair is ranked in, "NS" or "EW"; `position`
    # and `rank` are within it. One winner: "".
    field: str = ""
    # The number the pages print for the pair (`pair_labels`): "3NS" / "3EW" / "3" in an
    # event seated by a movement, else the registration number.
    label: str = ""


# The fields of a two-winner event in the order the results list them (RULES 10).
FIELDS = (Direction.NS.value, Direction.EW.value)


@dataclass(frozen=True)
class FieldStandings:
    """One list of the results: a two-winner event's NS or EW pairs ("NS", "EW"), or
    every pair of a one-winner event (field "")."""

    field: str
    rows: list[StandingRow]


def by_field(rows: list[StandingRow]) -> list[FieldStandings]:
    """`standings` rows as the lists the pages show: one for a one-winner event, NS then
    EW for two winners (the rows keep their order in each). A filtered list may leave a
    field empty: it is then not listed."""
    if not any(row.field for row in rows):
        return [FieldStandings(field="", rows=list(rows))]
    groups: dict[str, list[StandingRow]] = {}
    for row in rows:
        groups.setdefault(row.field, []).append(row)
    return [FieldStandings(field=field, rows=members) for field, members in groups.items()]


def standings(*, tournament: Tournament) -> list[StandingRow]:
    """Live standings (after the last closed round) or the final ranking. One query.

    Read as plain values: at 2,000 pairs, building the pairs, users and profiles as
    model instances was most of the time of the first page view after a close.

    Two winners (RULES 10): the NS pairs, then the EW pairs, each field its own list
    (positions, ranks and tie-breaks within it); `by_field` splits them.
    """
    username = get_user_model().USERNAME_FIELD
    # A pair withdrawn before it was ever seated is not listed (RULES 1).
    listed = Pair.objects.filter(listed_in_results(), tournament=tournament)
    pairs = listed.filter(status=PairStatus.CONFIRMED).values_list(
        "id", "registration_no", "total", "boards_completed", "rank", "completed",
        "master_points", "withdrawn_at", "field", "position",
        "player1_id", f"player1__{username}", "player1__profile__display_name",
        "player2_id", f"player2__{username}", "player2__profile__display_name",
    )  # fmt: skip
    finished = tournament.status == TournamentStatus.FINISHED
    total_boards = tournament.total_boards
    threshold = float(tournament.completion_threshold) / 100.0
    two_fields = tournament.winners == 2
    labels = pair_labels(tournament)

    def field_of(p: tuple) -> str:
        return p[8] if two_fields else ""

    def order(p: tuple) -> tuple:
        _id, number, total, boards, rank = p[:5]
        key = scoring.standing_key(total, boards, number)
        if finished:
            # Completers by rank, then non-completers in the same order (RULES 6).
            key = (rank is None, rank or 0, *key)
        if two_fields:
            field = field_of(p)
            key = (FIELDS.index(field) if field in FIELDS else len(FIELDS), field, *key)
        return key

    ordered = sorted(pairs, key=order)
    ties = _tie_breaks(ordered, finished, [field_of(p) for p in ordered])
    positions: dict[str, int] = {}
    rows = []
    for pair in ordered:
        (pair_id, number, total, boards, rank, completed, master_points, withdrawn_at, _field,
         movement_position, user1, username1, shown1, user2, username2, shown2) = pair  # fmt: skip
        field = field_of(pair)
        positions[field] = position = positions.get(field, 0) + 1
        completion = scoring.completion(boards, total_boards)
        players = (player(username1, shown1), player(username2, shown2))
        names = pair_names(players[0].name, players[1].name)
        rows.append(
            StandingRow(
                pair_id=pair_id,
                registration_no=number,
                players=players,
                names=names,
                search=" ".join([names, username1, username2]).casefold(),
                user_ids=(user1, user2),
                position=position,
                rank=rank if finished else None,
                total=total,
                boards_completed=boards,
                completion=completion,
                completed=completed if finished else completion + 1e-9 >= threshold,
                master_points=float(master_points),
                withdrawn=withdrawn_at is not None,
                tie_break=ties[pair_id],
                field=field,
                label=labels.label(position=movement_position, registration_no=number),
            )
        )
    return rows


def _tie_breaks(ordered: list[tuple], finished: bool, fields: list[str]) -> dict[int, str | None]:
    """{pair_id: the tie-break that placed it, or None} for pairs equal on total with a
    neighbour (`scoring.tie_break`): against the pair above when tied with it, else the
    pair below. Once finished, ranked pairs and non-completers are separate lists; so
    are the fields of a two-winner event (`fields`, the pairs' fields in order)."""
    keys = [scoring.standing_key(p[2], p[3], p[1]) for p in ordered]
    groups = [(field, finished and p[4] is None) for p, field in zip(ordered, fields, strict=True)]
    ties: dict[int, str | None] = {}
    for i, pair in enumerate(ordered):
        above = below = None
        if i > 0 and groups[i - 1] == groups[i]:
            above = scoring.tie_break(keys[i - 1], keys[i])
        if i + 1 < len(ordered) and groups[i + 1] == groups[i]:
            below = scoring.tie_break(keys[i], keys[i + 1])
        ties[pair[0]] = above or below
    return ties


# `adjusted` of a grid cell whose score the director set on a played board (an assigned
# score, RULES 5.4), beside the artificial codes "A+", "A", "A-".
DIRECTOR_SET = "D"


def board_score_grid(*, tournament: Tournament) -> dict[int, dict[int, tuple]]:
    """{pair_id: {board_number: (points, completed, direction, adjusted)}} for the
    results page (one query). `adjusted` marks a score the travellers mark (RULES 5.4):
    the artificial score's code ("A+", "A", "A-": Law 12C2, the bell's policy, a
    withdrawal), DIRECTOR_SET for a result the director set, "" otherwise (a bye's
    average is shown as a bye, not marked)."""
    grid: dict[int, dict[int, tuple]] = defaultdict(dict)
    rows = PairBoardScore.objects.filter(
        pair__tournament=tournament, board__round__status=RoundStatus.CLOSED
    ).values_list(
        "pair_id",
        "board__number",
        "points",
        "completed",
        "direction",
        "artificial",
        "result__adjusted_by_id",
    )
    for pair_id, number, points, completed, direction, artificial, adjusted_by in rows:
        adjusted = ""
        if direction != Direction.BYE and completed:
            adjusted = artificial or (DIRECTOR_SET if adjusted_by is not None else "")
        grid[pair_id][number] = (points, completed, direction, adjusted)
    return grid
