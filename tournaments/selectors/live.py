"""The live version: the fingerprint every polling page and the live caches key on."""

from __future__ import annotations

from datetime import datetime

from .. import sql
from ..models import Pair, Round, RoundStatus, Standing, Tournament


def live_version(*, tournament_id: int) -> str | None:
    """A fingerprint of what the live part of a tournament page shows, in one query.

    It changes when the tournament starts, pauses or finishes, when a round opens,
    closes or is extended, when a pair withdraws, and when standings are rewritten (a
    close or a re-score recreates the Standing rows, so their highest id moves).
    Polling pages compare it and re-render only when it moved; the pages also key
    their caches on it. None when there is no such tournament.

    Every open page asks for it every few seconds, so it is one fixed statement: the
    ORM would spend longer composing the subqueries than PostgreSQL spends running them.
    The current round is `RoundQuerySet.current`'s, written in SQL (highest number).
    """
    tournaments, rounds = sql.quote(Tournament._meta.db_table), sql.quote(Round._meta.db_table)
    row = sql.fetch_one(
        "SELECT t.status, t.paused_at, t.start_at,"
        " r.id, r.status, r.starts_at, r.ends_at,"
        f" (SELECT max(s.id) FROM {sql.quote(Standing._meta.db_table)} s"
        f"   WHERE s.round_id = (SELECT c.id FROM {rounds} c"
        "     WHERE c.tournament_id = t.id AND c.status = %s"
        "     ORDER BY c.number DESC LIMIT 1)),"
        f" (SELECT count(*) FROM {sql.quote(Pair._meta.db_table)} p"
        "   WHERE p.tournament_id = t.id AND p.withdrawn_at IS NOT NULL)"
        f" FROM {tournaments} t"
        f" LEFT JOIN {rounds} r ON r.id = (SELECT l.id FROM {rounds} l"
        "   WHERE l.tournament_id = t.id ORDER BY l.number DESC LIMIT 1)"
        " WHERE t.id = %s",
        [RoundStatus.CLOSED.value, tournament_id],
    )
    if row is None:
        return None
    return "|".join(v.isoformat() if isinstance(v, datetime) else str(v) for v in row)
