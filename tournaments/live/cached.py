"""What the busiest pages, the API and the exports show, computed once per change of the
tournament.

Standings, the results grid, a round's seating, a board's traveller, the API's standings
and the export files are the same for every viewer until the tournament moves on (a
round opens or closes, a re-score, a withdrawal): `selectors.live_version` fingerprints
exactly that in one query. Keyed by it, the expensive part is built once per change
instead of once per viewer (`cache`); at the bell of a 2,000-pair event thousands of open
pages ask at once. Per-viewer touches (your row highlighted) are added around the cached
parts, by the views.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.conf import settings
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.translation import get_language
from pydantic import TypeAdapter

from .. import exports, selectors
from ..models import Board, Round, RoundStatus, Tournament
from ..selectors.pair_labels import pair_labels
from . import cache
from .schemas import StandingOut

logger = logging.getLogger(__name__)

_STANDINGS = TypeAdapter(list[StandingOut])
_EXPORTS: dict[str, Callable[..., str | bytes]] = {
    "pbn": exports.pbn_export,
    "usebio": exports.usebio_export,
}


def standings(tournament: Tournament, version: str) -> list[selectors.StandingRow]:
    return cache.get_or_build(
        cache.key("standings", tournament.pk, version),
        lambda: selectors.standings(tournament=tournament),
    )


def score_grid(tournament: Tournament, version: str) -> tuple[list[int], dict]:
    """(closed board numbers, {pair_id: {board: (points, completed, direction)}})."""

    def build() -> tuple[list[int], dict]:
        grid = selectors.board_score_grid(tournament=tournament)
        return selectors.closed_board_numbers(tournament), {k: dict(v) for k, v in grid.items()}

    return cache.get_or_build(cache.key("grid", tournament.pk, version), build)


def seating_html(tournament: Tournament, round: Round, version: str) -> tuple[str, int]:
    """The seating table of a round (1,000 rows in a big event), rendered once; and the
    number of tables."""

    def build() -> tuple[str, int]:
        seating = selectors.round_seating(round=round)
        html = render_to_string(
            "tournaments/_seating.html",
            {"tournament": tournament, "round": round, "seating": seating},
        )
        return html, len(seating)

    key = cache.key("seating", tournament.pk, round.pk, version, get_language())
    return cache.get_or_build(key, build)


def traveller_html(tournament: Tournament, board: Board, version: str) -> str:
    """Every result of a board with both sides' scores, rendered once."""

    def build() -> str:
        _board, lines = selectors.board_detail(tournament=tournament, number=board.number)
        return render_to_string(
            "tournaments/_traveller.html",
            {
                "tournament": tournament,
                "board": board,
                "lines": lines,
                "labels": pair_labels(tournament),
            },
        )

    key = cache.key("traveller", tournament.pk, board.pk, version, get_language())
    return cache.get_or_build(key, build)


def standings_json(tournament: Tournament, version: str) -> bytes:
    """The API's standings answer (`schemas.StandingOut` rows), serialised once per live
    version from the rows the pages already built for it, not a second read."""
    return cache.get_or_build(
        cache.key("api-standings", tournament.pk, version),
        lambda: _STANDINGS.dump_json(
            _STANDINGS.validate_python(_standings_rows(tournament, version))
        ),
    )


def _standings_rows(tournament: Tournament, version: str) -> list[dict]:
    return [
        {
            "pair": row.pair_id,
            "registration_no": row.registration_no,
            "players": [player_json(p) for p in row.players],
            "position": row.position,
            "rank": row.rank,
            "total": row.total,
            "boards_completed": row.boards_completed,
            "completion": round(row.completion * 100, 2),
            "completed": row.completed,
            "master_points": row.master_points,
            "withdrawn": row.withdrawn,
            "field": row.field,
            "label": row.label,
        }
        for row in standings(tournament, version)
    ]


def player_json(player: selectors.PlayerName) -> dict:
    """A player as the API shows one (`schemas.PlayerOut`)."""
    return {"username": player.username, "name": player.name}


def export(tournament: Tournament, version: str, kind: str) -> str | bytes:
    """A PBN ("pbn") or USEBIO ("usebio") export, built once per live version: building
    one reads and formats every closed board of the event (0.3–0.6 s at 200 tables), and
    what it contains (closed rounds, standings) only changes with the version. The
    tournament's name is part of the key because the file carries it and the version
    does not; a refused export (nothing closed yet) raises and is not kept."""
    build = _EXPORTS[kind]
    key = cache.key(f"export-{kind}", tournament.pk, version, tournament.name)
    return cache.get_or_build(key, lambda: build(tournament=tournament))


def warm(*, tournament_id: int) -> bool:
    """Build what the live pages and the API will ask for after the clock moved a
    tournament (a close, a new round), before the first of hundreds of viewers asks.

    Only worth doing where the cache is shared (Redis in production, where the clock runs
    in a Celery worker): a process-local cache would keep it from every web process.
    Returns whether anything was built; a failure is logged, never raised, because the
    pages build the same values themselves when asked.
    """
    if not cache.is_shared():
        return False
    try:
        tournament = Tournament.objects.filter(pk=tournament_id).first()
        version = selectors.live_version(tournament_id=tournament_id)
        if tournament is None or version is None:
            return False
        round = tournament.round_set.current()
        if round is not None and (round.number > 1 or round.status == RoundStatus.CLOSED):
            standings(tournament, version)
            score_grid(tournament, version)
            standings_json(tournament, version)
        if round is not None and round.status != RoundStatus.CLOSED:
            for language, _name in settings.LANGUAGES:
                with translation.override(language):
                    seating_html(tournament, round, version)
        return True
    except Exception:
        logger.exception("pages: warming tournament %s failed", tournament_id)
        return False
