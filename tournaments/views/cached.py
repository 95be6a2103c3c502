"""What the busiest pages show, computed once per change of the tournament.

Standings, the results grid, a round's seating and a board's traveller are the same for
every viewer until the tournament moves on (a round opens or closes, a re-score, a
withdrawal): `selectors.live_version` fingerprints exactly that in one query. Keyed by
it, the expensive part is built once per change and process instead of once per
viewer; at the bell of a 2,000-pair event thousands of open pages ask at once.
Per-viewer touches (your row highlighted) are added around the cached parts.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from django.core.cache import cache
from django.template.loader import render_to_string
from django.utils.translation import get_language

from .. import selectors

TIMEOUT = 15 * 60  # a fingerprint never comes back, so old entries only need to expire


def _key(*parts) -> str:
    # Fingerprints hold timestamps and spaces; hash them into a key any backend takes.
    digest = hashlib.sha1("|".join(str(p) for p in parts).encode()).hexdigest()
    return f"pages:{parts[0]}:{digest}"


@dataclass(frozen=True)
class Line:
    """One pair in the standings, as plain data (cheap to cache, no ORM objects)."""

    pair_id: int
    registration_no: int
    names: str
    player_ids: tuple[int, int]
    search: str  # names and usernames, case-folded, for "find a pair"
    position: int
    rank: int | None
    total: float
    boards_completed: int
    completion: float
    completed: bool
    master_points: float
    withdrawn: bool


def standings(tournament, version: str) -> list[Line]:
    key = _key("standings", tournament.pk, version)
    lines = cache.get(key)
    if lines is None:
        lines = [
            Line(
                pair_id=row.pair.id,
                registration_no=row.pair.registration_no,
                names=row.pair.names,
                player_ids=(row.pair.player1_id, row.pair.player2_id),
                search=" ".join(
                    [row.pair.names, row.pair.player1.username, row.pair.player2.username]
                ).casefold(),
                position=row.position,
                rank=row.rank,
                total=row.total,
                boards_completed=row.boards_completed,
                completion=row.completion,
                completed=row.completed,
                master_points=row.master_points,
                withdrawn=row.withdrawn,
            )
            for row in selectors.standings(tournament=tournament)
        ]
        cache.set(key, lines, TIMEOUT)
    return lines


def score_grid(tournament, version: str) -> tuple[list[int], dict]:
    """(closed board numbers, {pair_id: {board: (points, completed, direction)}})."""
    key = _key("grid", tournament.pk, version)
    value = cache.get(key)
    if value is None:
        grid = selectors.board_score_grid(tournament=tournament)
        value = (selectors.closed_board_numbers(tournament), {k: dict(v) for k, v in grid.items()})
        cache.set(key, value, TIMEOUT)
    return value


def seating_html(tournament, round, version: str) -> tuple[str, int]:
    """The seating table of a round (1,000 rows in a big event), rendered once; and the
    number of tables."""
    key = _key("seating", tournament.pk, round.pk, version, get_language())
    value = cache.get(key)
    if value is None:
        seating = selectors.round_seating(round=round)
        html = render_to_string(
            "tournaments/_seating.html",
            {"tournament": tournament, "round": round, "seating": seating},
        )
        value = (html, len(seating))
        cache.set(key, value, TIMEOUT)
    return value


def traveller_html(tournament, board, version: str) -> str:
    """Every result of a board with both sides' scores, rendered once."""
    key = _key("traveller", tournament.pk, board.pk, version, get_language())
    html = cache.get(key)
    if html is None:
        _board, lines = selectors.board_detail(tournament=tournament, number=board.number)
        html = render_to_string(
            "tournaments/_traveller.html",
            {"tournament": tournament, "board": board, "lines": lines},
        )
        cache.set(key, html, TIMEOUT)
    return html
