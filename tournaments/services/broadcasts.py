"""Broadcasts (RULES 12, Vugraph): an organiser shows a match's two rooms, or one online
table, to spectators; a commentator adds lines to its stream.

What a spectator sees, and when, is `visibility`'s rule and `selectors.broadcasts`'
drawing; the spectators' sockets hear what changed from `announcements` after each
commit. Every service here is one transaction that refuses with a `ServiceError` and
changes nothing.
"""

from __future__ import annotations

from datetime import datetime

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from ..errors import NotAllowed, NotFound, ServiceError
from ..models import (
    Broadcast,
    BroadcastComment,
    Match,
    PlayMode,
    Table,
    Tournament,
    TournamentStatus,
)
from ..selectors import broadcasts as broadcast_reads
from ..validators import typed_text
from . import announcements
from .formats import format_of
from .permissions import CHANGE_TOURNAMENT, COMMENT_BROADCASTS, require

MAX_DELAY_MINUTES = 240
COMMENT_MAX_LENGTH = 500


def _checked_delay(delay_minutes: object) -> int:
    if isinstance(delay_minutes, bool) or not isinstance(delay_minutes, int):
        raise ServiceError(_("The delay is a whole number of minutes."))
    if not 0 <= delay_minutes <= MAX_DELAY_MINUTES:
        raise ServiceError(
            _("The delay is from 0 to %(max)s minutes.") % {"max": MAX_DELAY_MINUTES}
        )
    return delay_minutes


def start_broadcast(
    *,
    by,
    tournament: Tournament,
    match: Match | None = None,
    table: Table | None = None,
    delay_minutes: int = 0,
    now: datetime | None = None,
) -> Broadcast:
    """Show `match` (both its rooms) or one `table` of `tournament` to spectators, each
    board `delay_minutes` after the last table that plays it has finished it."""
    require(by, CHANGE_TOURNAMENT)
    delay = _checked_delay(delay_minutes)
    if (match is None) == (table is None):
        raise ServiceError(_("A broadcast shows one match or one table."))
    if tournament.play != PlayMode.ONLINE:
        raise ServiceError(
            _(
                "Only an event played at the system's tables can be broadcast: "
                "its boards are played elsewhere."
            )
        )
    if tournament.status == TournamentStatus.FINISHED:
        raise ServiceError(_("The event has finished: its boards are on its results pages."))
    if format_of(tournament).library_deals:
        raise ServiceError(
            _("This event's tables are not broadcast: their deals are still given to other tables.")
        )
    with transaction.atomic():
        if match is not None:
            round_id = (
                Match.objects.filter(pk=match.pk)
                .values_list("round__tournament_id", flat=True)
                .first()
            )
            if round_id != tournament.pk:
                raise NotFound(_("No such match in this event."))
            if match.away_id is None:
                raise ServiceError(_("A bye has no tables to broadcast."))
            if Broadcast.objects.filter(match=match).exists():
                raise ServiceError(_("This match is broadcast already."))
        if table is not None:
            owner = (
                Table.objects.filter(pk=table.pk)
                .values_list("round__tournament_id", flat=True)
                .first()
            )
            if owner != tournament.pk:
                raise NotFound(_("No such table in this event."))
            if Broadcast.objects.filter(table=table).exists():
                raise ServiceError(_("This table is broadcast already."))
        item = Broadcast.objects.create(
            tournament=tournament,
            match=match,
            table=table,
            delay_minutes=delay,
            created_by=by,
            created_at=now or timezone.now(),
        )
    broadcast_reads.forget_broadcasting(tournament.pk)
    return item


def change_delay(*, by, broadcast: Broadcast, delay_minutes: int) -> Broadcast:
    """A new delay, from now on: a board already shown stays shown."""
    require(by, CHANGE_TOURNAMENT)
    delay = _checked_delay(delay_minutes)
    with transaction.atomic():
        if not Broadcast.objects.filter(pk=broadcast.pk).update(delay_minutes=delay):
            raise NotFound(_("No such broadcast."))
        broadcast.delay_minutes = delay
        transaction.on_commit(lambda: announcements.broadcast_changed(broadcast_id=broadcast.pk))
    return broadcast


def end_broadcast(*, by, broadcast: Broadcast) -> None:
    """Stop showing it (its commentary goes with it); its spectators are told."""
    require(by, CHANGE_TOURNAMENT)
    broadcast_id, tournament_id = broadcast.pk, broadcast.tournament_id
    with transaction.atomic():
        deleted, _rows = Broadcast.objects.filter(pk=broadcast_id).delete()
        if not deleted:
            raise NotFound(_("No such broadcast."))
        transaction.on_commit(lambda: announcements.broadcast_changed(broadcast_id=broadcast_id))
    broadcast_reads.forget_broadcasting(tournament_id)


def add_comment(
    *, by, broadcast: Broadcast, text: str, now: datetime | None = None
) -> BroadcastComment:
    """A line of commentary, time-stamped, in the broadcast's stream at once."""
    require(by, COMMENT_BROADCASTS)
    if by is None or not getattr(by, "is_authenticated", False):
        raise NotAllowed(_("Only a commentator can add commentary to a broadcast."))
    try:
        clean = typed_text(text, max_length=COMMENT_MAX_LENGTH + 1)
    except ValidationError as error:
        raise ServiceError(" ".join(error.messages)) from None
    if not clean:
        raise ServiceError(_("Write the commentary first."))
    if len(clean) > COMMENT_MAX_LENGTH:
        raise ServiceError(
            _("A line of commentary is at most %(n)s characters.") % {"n": COMMENT_MAX_LENGTH}
        )
    with transaction.atomic():
        if not Broadcast.objects.filter(pk=broadcast.pk).exists():
            raise NotFound(_("No such broadcast."))
        comment = BroadcastComment.objects.create(
            broadcast=broadcast, by=by, at=now or timezone.now(), text=clean
        )
        said = broadcast_reads.comment_json(comment)
        transaction.on_commit(
            lambda: announcements.broadcast_comment(broadcast_id=broadcast.pk, comment=said)
        )
    return comment
