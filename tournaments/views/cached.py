"""What the busiest pages show, computed once per change of the tournament.

Standings, the results grid, a round's seating and a board's traveller are the same for
every viewer until the tournament moves on (a round opens or closes, a re-score, a
withdrawal): `selectors.live_version` fingerprints exactly that in one query. Keyed by
it, the expensive part is built once per change instead of once per viewer
(`live_cache`); at the bell of a 2,000-pair event thousands of open pages ask at once.
Per-viewer touches (your row highlighted) are added around the cached parts.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.translation import get_language

from .. import exports, live_cache, selectors
from ..models import RoundStatus, Tournament

logger = logging.getLogger(__name__)


def standings(tournament, version: str) -> list[selectors.StandingRow]:
    return live_cache.get_or_build(
        live_cache.key("standings", tournament.pk, version),
        lambda: selectors.standings(tournament=tournament),
    )


def score_grid(tournament, version: str) -> tuple[list[int], dict]:
    """(closed board numbers, {pair_id: {board: (points, completed, direction)}})."""

    def build():
        grid = selectors.board_score_grid(tournament=tournament)
        return selectors.closed_board_numbers(tournament), {k: dict(v) for k, v in grid.items()}

    return live_cache.get_or_build(live_cache.key("grid", tournament.pk, version), build)


def seating_html(tournament, round, version: str) -> tuple[str, int]:
    """The seating table of a round (1,000 rows in a big event), rendered once; and the
    number of tables."""

    def build():
        seating = selectors.round_seating(round=round)
        html = render_to_string(
            "tournaments/_seating.html",
            {"tournament": tournament, "round": round, "seating": seating},
        )
        return html, len(seating)

    key = live_cache.key("seating", tournament.pk, round.pk, version, get_language())
    return live_cache.get_or_build(key, build)


def traveller_html(tournament, board, version: str) -> str:
    """Every result of a board with both sides' scores, rendered once."""

    def build():
        _board, lines = selectors.board_detail(tournament=tournament, number=board.number)
        return render_to_string(
            "tournaments/_traveller.html",
            {"tournament": tournament, "board": board, "lines": lines},
        )

    key = live_cache.key("traveller", tournament.pk, board.pk, version, get_language())
    return live_cache.get_or_build(key, build)


def export(tournament, version: str, kind: str) -> str | bytes:
    """A PBN ("pbn") or USEBIO ("usebio") export, built once per live version: building
    one reads and formats every closed board of the event (0.3–0.6 s at 200 tables), and
    what it contains (closed rounds, standings) only changes with the version. The
    tournament's name is part of the key because the file carries it and the version
    does not; a refused export (nothing closed yet) raises and is not kept."""
    build = {"pbn": exports.pbn_export, "usebio": exports.usebio_export}[kind]
    key = live_cache.key(f"export-{kind}", tournament.pk, version, tournament.name)
    return live_cache.get_or_build(key, lambda: build(tournament=tournament))


def warm(*, tournament_id: int) -> bool:
    """Build what the live pages and the API will ask for after the clock moved a
    tournament (a close, a new round), before the first of hundreds of viewers asks.

    Only worth doing where the cache is shared (Redis in production, where the clock runs
    in a Celery worker): a process-local cache would keep it from every web process.
    Returns whether anything was built; a failure is logged, never raised, because the
    pages build the same values themselves when asked.
    """
    if not live_cache.is_shared():
        return False
    try:
        tournament = Tournament.objects.filter(pk=tournament_id).first()
        version = selectors.live_version(tournament_id=tournament_id)
        if tournament is None or version is None:
            return False
        from ..api.endpoints import standings_json

        round = selectors.current_round(tournament)
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
