"""The director at one table played online (RULES 3, "Extra time for one table"; RULES 9,
"A robot in an absent player's seat").

`give_extra_time` moves one table's own bell later (`Table.ends_at`): its players call and
play on after the round's bell, while every other table stops there. The round closes —
cut-off, scoring, the Swiss seating of the next round — when the last such table's bell
has rung or it has finished its boards (`closing_bell`, asked by the clock): the next
round's pairing needs every result of this one, so no round closes around a table still
playing.

`seat_robot` puts a robot in the seat of a player who is not connected: the robots'
runner (`tournaments.robots.runner.open_seats`) plays that seat from then on for the
rest of the round, whether or not the player has logged in, until the player acts from
the seat again (the robot then gives it back, as it does to any player).

Each act is appended to the table's history (`TableDirection`) with who, when, before and
after, and why. The power is the clock's (`tournaments.run_clock`), checked here.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count
from django.utils import timezone
from django.utils.translation import gettext as _

from scoring import SEATS

from .. import round_rules, validators
from ..errors import ClockError
from ..models import (
    PlayMode,
    Round,
    RoundStatus,
    Table,
    TableDirection,
    TableDirectionKind,
    TablePresence,
    Tournament,
    TournamentStatus,
)
from ..push.channel import send, table_group
from ..selectors import table_seats
from .permissions import RUN_CLOCK, require

# Extra time is for a slow table, not a second round: at most this much at once.
MAX_EXTRA_MINUTES = 60


REASON_LENGTH = 500  # TableDirection.reason's max_length


def _reason(text: str) -> str:
    """The director's reason, checked as every free text is (`validators.typed_text`)."""
    try:
        return validators.typed_text(text, max_length=REASON_LENGTH, multiline=True)
    except ValidationError as error:
        raise ClockError(error.messages[0]) from None


def give_extra_time(
    *, table: Table, minutes: float, by, reason: str = "", now: datetime | None = None
) -> Table:
    """Give `table` `minutes` more than its bell now (the round's, or its own if it has
    extra time already); answer the table as stored. Refused (nothing changed) without
    `tournaments.run_clock`, for a played-elsewhere event, a round not open, a table whose
    bell has rung or that has finished its boards, and minutes outside 0–60."""
    now = now or timezone.now()
    require(by, RUN_CLOCK)
    if isinstance(minutes, bool) or not isinstance(minutes, int | float):
        raise ClockError(_("Give the extra time in minutes."))
    if not math.isfinite(minutes) or minutes <= 0 or minutes > MAX_EXTRA_MINUTES:
        raise ClockError(
            _("Extra time is a positive number of minutes, at most %(n)s.")
            % {"n": MAX_EXTRA_MINUTES}
        )
    reason = _reason(reason)
    with transaction.atomic():
        tournament, round, table, bell = _in_play(
            table=table,
            now=now,
            elsewhere=_("Extra time for one table is for tables played online; extend the round."),
            too_late=_("Table %(t)s's bell has rung: it is too late to give it extra time."),
            finished=_("Table %(t)s has finished every board: it needs no extra time."),
        )
        before = table.ends_at
        table.ends_at = bell + timedelta(minutes=minutes)
        table.save(update_fields=["ends_at"])
        TableDirection.objects.create(
            table=table,
            kind=TableDirectionKind.EXTRA_TIME,
            by=by,
            at=now,
            before={"ends_at": before.isoformat() if before else None,
                    "round_ends_at": round.ends_at.isoformat()},
            after={"ends_at": table.ends_at.isoformat(), "minutes": minutes},
            reason=reason,
        )  # fmt: skip
        transaction.on_commit(
            lambda: _announce(table=table, round=round, paused=tournament.paused_at is not None)
        )
    return table


def _in_play(*, table: Table, now: datetime, elsewhere: str, too_late: str, finished: str):
    """(tournament, round, table, the table's bell), locked in the clock's order (the
    tournament, the round, then the table); refused unless the table is played online
    in the open round, its bell has not rung and it has boards to play."""
    tournament = Tournament.objects.select_for_update().get(
        pk=Round.objects.filter(pk=table.round_id).values("tournament_id")[:1]
    )
    round = Round.objects.select_for_update().get(pk=table.round_id)
    table = Table.objects.select_for_update().select_related("ns_pair", "ew_pair").get(pk=table.pk)
    if tournament.play != PlayMode.ONLINE:
        raise ClockError(elsewhere)
    if round.status != RoundStatus.OPEN or tournament.status not in (
        TournamentStatus.RUNNING,
        TournamentStatus.PAUSED,
    ):
        raise ClockError(_("Round %(n)s is not in play.") % {"n": round.number})
    bell = round_rules.table_bell(round_ends_at=round.ends_at, table_ends_at=table.ends_at)
    if round_rules.bell_rung(
        status=round.status,
        ends_at=bell,
        tournament_status=tournament.status,
        paused_at=tournament.paused_at,
        now=now,
    ):
        raise ClockError(too_late % {"t": table.number})
    if table.results.count() >= tournament.boards_per_round:
        raise ClockError(finished % {"t": table.number})
    return tournament, round, table, bell


def seat_robot(
    *, table: Table, seat: str, by, reason: str = "", now: datetime | None = None
) -> TableDirection:
    """A robot takes `seat` at `table` for the rest of the round: its player is not
    connected (`TablePresence`). Refused (nothing changed) without `tournaments.run_clock`,
    for a seat that is not N/E/S/W, a connected player, a seat a robot already holds, and
    as `give_extra_time` for the table (played elsewhere, not in play, bell rung,
    finished)."""
    now = now or timezone.now()
    require(by, RUN_CLOCK)
    if seat not in SEATS:
        raise ClockError(_("A seat is N, E, S or W."))
    reason = _reason(reason)
    with transaction.atomic():
        _tournament, round, table, _bell = _in_play(
            table=table,
            now=now,
            elsewhere=_("Robots play only at tables played online."),
            too_late=_("Table %(t)s's bell has rung: no robot can sit down there now."),
            finished=_("Table %(t)s has finished every board: it needs no robot."),
        )
        if TablePresence.objects.filter(table=table, seat=seat).exists():
            raise ClockError(
                _("The player in seat %(s)s is connected: a robot takes only an absent "
                  "player's seat.") % {"s": seat}
            )  # fmt: skip
        if TableDirection.objects.filter(
            table=table, seat=seat, kind=TableDirectionKind.ROBOT
        ).exists():
            raise ClockError(_("A robot already holds seat %(s)s.") % {"s": seat})
        player = table_seats.table_seats(table).get(seat)
        return TableDirection.objects.create(
            table=table,
            kind=TableDirectionKind.ROBOT,
            seat=seat,
            by=by,
            at=now,
            before={"player": player},
            after={"robot": True},
            reason=reason,
        )


def _announce(*, table: Table, round: Round, paused: bool) -> None:
    """The table's pages hear their new bell as a `round` message (docs/PLAY_PROTOCOL.md),
    the same as an extension of the whole round would send them."""
    message = {
        "type": "round.changed",
        "round_id": round.pk,
        "round": round.number,
        "starts_at": round.starts_at.isoformat(),
        "ends_at": round_rules.table_bell(
            round_ends_at=round.ends_at, table_ends_at=table.ends_at
        ).isoformat(),
        "status": TournamentStatus.PAUSED if paused else TournamentStatus.RUNNING,
        "paused": paused,
    }
    send([table_group(table.pk)], message)


def closing_bell(*, round: Round, boards: int, now: datetime) -> datetime | None:
    """When the open `round`, whose own bell has rung, closes: None while a table given
    extra time is still within it with boards to play (the clock waits), else the last
    bell that rang (the round's, or a table's own). One query."""
    own: list[tuple[datetime, int]] = [
        (ends_at, done)
        for ends_at, done in Table.objects.filter(round=round, ends_at__gt=round.ends_at)
        .annotate(done=Count("results"))
        .values_list("ends_at", "done")
        if ends_at is not None
    ]
    if any(ends_at > now and done < boards for ends_at, done in own):
        return None
    return min(now, max([round.ends_at, *(ends_at for ends_at, _done in own)]))
