"""Seats for computer programs that speak the Blue Chip table-manager protocol (SPEC 14).

An organiser (`tournaments.run_clock`) or the seat's own player reserves a seat at a
table played online for a program (`reserve`): the answer holds a ticket, shown once,
which the program sends as its team name (``Connecting "tkt-…" as North using protocol
version 18``). The gateway (`tournaments.bluechip`) binds a connection to the seat with
it (`bind`) and then plays the seat as its player: every call and card goes through
`table_play.act` and every view through `table_play.board_view`, as a socket's do, so the
bell, the history and who sees what are the table's. It reports what the console and the
table's page show: the program connected or gone (`bound`, `dropped`; a connection counts
in `TablePresence` as a player's socket does, so a dropped program is a disconnection),
its think times (`thought`) and each call or card our robot made for it at the
think-time limit (`replaced`).
"""

from __future__ import annotations

import hashlib
import os
import secrets
from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import F
from django.db.models.functions import Greatest
from django.utils import timezone
from django.utils.translation import gettext as _

from bluechip.messages import PROTOCOL_VERSION, SEAT_NAMES
from scoring import SEATS

from ..errors import NotFound, ServiceError
from ..models import (
    PlayMode,
    ProgramSeat,
    Round,
    RoundStatus,
    Table,
    TableDirection,
    TableDirectionKind,
    Tournament,
)
from ..selectors import table_seats
from . import presence
from .permissions import RUN_CLOCK, allowed

TICKET_PREFIX = "tkt-"
# A limit under a few seconds would take the seat from any real program; over ten
# minutes would stall a table for a round.
MIN_THINK_SECONDS, MAX_THINK_SECONDS, THINK_SECONDS = 2, 600, 60
MAX_PROGRAM_NAME = 60


class ProgramRefused(ServiceError):
    """A reservation, or a program's connection, refused: nothing changed."""


class ProgramNotAllowed(ProgramRefused):
    """The person may not give this seat to a program (the API's 403)."""

    status_code = 403


class ProgramSeatBusy(ProgramRefused):
    """The table or the seat refuses it now: not played online, its round closed, a robot
    or a connected program in the seat (the API's 409)."""

    status_code = 409


# Where the gateway listens, as `make run` (config/asgi_embedded.py) reads it: the pages
# and the API tell the person reserving a seat where to point their program.
GATEWAY_HOST, GATEWAY_PORT = "127.0.0.1", 2000


def gateway_address() -> tuple[str, int]:
    """(host, port) a program connects to: `BLUECHIP_GATEWAY_HOST` and
    `BLUECHIP_GATEWAY_PORT` of this process's environment (`make run` sets the port; a
    site running `manage.py bluechip_gateway` apart sets both to what that command was
    given), else the command's defaults."""
    host = os.environ.get("BLUECHIP_GATEWAY_HOST", "").strip() or GATEWAY_HOST
    try:
        port = int(os.environ.get("BLUECHIP_GATEWAY_PORT", "") or GATEWAY_PORT)
    except ValueError:
        port = GATEWAY_PORT
    return host, port if port > 0 else GATEWAY_PORT


def connecting_line(*, ticket: str, seat: str) -> str:
    """The program's first line for `seat` with `ticket` as its team name."""
    return f'Connecting "{ticket}" as {SEAT_NAMES[seat]} using protocol version {PROTOCOL_VERSION}'


@dataclass(frozen=True)
class Binding:
    """A program's connection bound to its seat: who it plays as, and for how long it
    may think."""

    program_seat_id: int
    table: Table
    seat: str
    user: object  # the seat's player: the gateway acts as them
    think_seconds: int
    program: str
    channel: str  # its `TablePresence` row


def digest(ticket: str) -> str:
    return hashlib.sha256(ticket.encode()).hexdigest()


def reserve(
    *,
    table: Table,
    seat: str,
    by,
    program: str = "",
    think_seconds: int = THINK_SECONDS,
    now: datetime | None = None,
) -> tuple[ProgramSeat, str]:
    """Reserve `seat` at `table` for a program; answer the reservation and its ticket
    (shown this once). A seat reserved before gets a new ticket (the old stops working).
    Refused (nothing changed) unless `by` is an organiser who runs the clock or the
    seat's player, for a table not played online or whose round has closed, a seat not
    N/E/S/W, a think-time limit outside 2–600 s, and a seat a director gave our robot.
    (A new ticket is also how a seat left marked connected by a gateway that died is
    freed: the program connects again with it.)"""
    now = now or timezone.now()
    if seat not in SEATS:
        raise ProgramRefused(_("A seat is N, E, S or W."))
    if (
        isinstance(think_seconds, bool)
        or not isinstance(think_seconds, int)
        or not MIN_THINK_SECONDS <= think_seconds <= MAX_THINK_SECONDS
    ):
        raise ProgramRefused(
            _("The think-time limit is a whole number of seconds from %(low)s to %(high)s.")
            % {"low": MIN_THINK_SECONDS, "high": MAX_THINK_SECONDS}
        )
    name = " ".join(str(program or "").split())
    if len(name) > MAX_PROGRAM_NAME or not name.isprintable():
        raise ProgramRefused(
            _("A program's name is one line of at most %(n)s characters.") % {"n": MAX_PROGRAM_NAME}
        )
    table = table_seats.with_pairs(table)
    _may_seat(table=table, seat=seat, by=by)
    with transaction.atomic():
        _open_round(table)
        if TableDirection.objects.filter(
            table=table, seat=seat, kind=TableDirectionKind.ROBOT
        ).exists():
            raise ProgramSeatBusy(_("A robot already holds seat %(s)s.") % {"s": seat})
        held = ProgramSeat.objects.select_for_update().filter(table=table, seat=seat).first()
        # Lower-case hex: a program that writes its team name in capitals still matches.
        ticket = TICKET_PREFIX + secrets.token_hex(16)
        values = {
            "program": name, "ticket_digest": digest(ticket), "reserved_by": by,
            "reserved_at": now, "think_seconds": think_seconds, "connected_at": None,
            "disconnected_at": None, "address": "", "moves": 0, "think_total": 0,
            "think_max": 0, "replaced": 0, "replaced_last": None,
        }  # fmt: skip
        if held is None:
            reserved = ProgramSeat.objects.create(table=table, seat=seat, **values)
        else:
            for field, value in values.items():
                setattr(held, field, value)
            held.save()
            reserved = held
    return reserved, ticket


def _may_seat(*, table: Table, seat: str, by) -> None:
    player = table_seats.table_seats(table).get(seat)
    if not (allowed(by, RUN_CLOCK) or (player is not None and getattr(by, "pk", None) == player)):
        raise ProgramNotAllowed(
            _("Only the player in seat %(s)s or a director may give it to a program.") % {"s": seat}
        )


def _open_round(table: Table) -> Round:
    """The table's round, locked, if programs may sit down there now."""
    round = Round.objects.select_for_update().get(pk=table.round_id)
    tournament = Tournament.objects.get(pk=round.tournament_id)
    if tournament.play != PlayMode.ONLINE:
        raise ProgramSeatBusy(_("Programs play only at tables played online."))
    if round.status == RoundStatus.CLOSED:
        raise ProgramSeatBusy(
            _("Round %(n)s has closed: no program can sit down there now.") % {"n": round.number}
        )
    return round


def cancel(*, table: Table, seat: str, by) -> None:
    """Give a seat reserved for a program back to its player: the ticket stops working.
    Refused (nothing changed) on the same terms as `reserve`, for a seat not reserved,
    and while the program is connected (it plays on until it leaves: the seat would be
    played by a program nobody sees)."""
    if seat not in SEATS:
        raise ProgramRefused(_("A seat is N, E, S or W."))
    table = table_seats.with_pairs(table)
    _may_seat(table=table, seat=seat, by=by)
    with transaction.atomic():
        _open_round(table)
        held = ProgramSeat.objects.select_for_update().filter(table=table, seat=seat).first()
        if held is None:
            raise NotFound(_("No program has seat %(s)s at this table.") % {"s": seat})
        if held.connected_at is not None and held.disconnected_at is None:
            raise ProgramSeatBusy(
                _("The program in seat %(s)s is connected: it must leave the table first.")
                % {"s": seat}
            )
        held.delete()


def reserved_seats(*, table_ids) -> set[tuple[int, str]]:
    """(table id, seat) of every seat reserved for a program: our own robots leave them."""
    return set(
        ProgramSeat.objects.filter(table_id__in=list(table_ids)).values_list("table_id", "seat")
    )


def bind(
    *, ticket: str, seat: str | None, address: str, connection: str, now: datetime | None = None
) -> Binding:
    """The seat `ticket` reserved, for a program connecting from `address` as `seat`
    (None: ANYPL, whatever seat the ticket holds). Refused for an unknown ticket, another
    seat, a round that has closed, and a seat whose program is connected already."""
    now = now or timezone.now()
    with transaction.atomic():
        held = (
            ProgramSeat.objects.select_for_update()
            .select_related("table__round", "table__ns_pair", "table__ew_pair")
            .filter(ticket_digest=digest(ticket.strip().lower()))
            .first()
        )
        if held is None:
            raise ProgramRefused(
                _("Unknown ticket: ask the organiser or the seat's player for one.")
            )
        if seat is not None and seat != held.seat:
            raise ProgramRefused(
                _("This ticket is for seat %(s)s: connect as that seat or as ANYPL.")
                % {"s": held.seat}
            )
        if held.table.round.status == RoundStatus.CLOSED:
            raise ProgramRefused(_("This table's round has closed."))
        if held.connected_at is not None and held.disconnected_at is None:
            raise ProgramRefused(_("A program is connected to this seat already."))
        player = table_seats.table_seats(held.table)[held.seat]
        user = get_user_model().objects.get(pk=player)
        held.connected_at, held.disconnected_at, held.address = now, None, address[:64]
        held.save(update_fields=["connected_at", "disconnected_at", "address"])
    channel = f"bluechip.{held.pk}.{connection}"
    presence.connected(
        channel=channel, table_id=held.table_id, seat=held.seat, user_id=player, now=now
    )
    return Binding(
        program_seat_id=held.pk,
        table=held.table,
        seat=held.seat,
        user=user,
        think_seconds=held.think_seconds,
        program=held.program,
        channel=channel,
    )


def dropped(*, binding: Binding, now: datetime | None = None) -> None:
    """The program's connection closed (it left, or dropped: a disconnection)."""
    ProgramSeat.objects.filter(pk=binding.program_seat_id).update(
        disconnected_at=now or timezone.now()
    )
    presence.disconnected(channel=binding.channel)


def thought(*, binding: Binding, seconds: float) -> None:
    """The program made a call or card after thinking `seconds`."""
    seconds = max(0.0, float(seconds))
    ProgramSeat.objects.filter(pk=binding.program_seat_id).update(
        moves=F("moves") + 1,
        think_total=F("think_total") + seconds,
        think_max=Greatest(F("think_max"), seconds),
    )


def replaced(*, binding: Binding, board: int, action: dict, why: str) -> None:
    """Our robot made `action` (its protocol shape) for the program on `board`: `why` is
    "late" (past the think-time limit), "refused" (the program's own was illegal) or
    "absent" (the program was not playing this board)."""
    made = action.get("call") or action.get("card") or action.get("type", "")
    ProgramSeat.objects.filter(pk=binding.program_seat_id).update(
        replaced=F("replaced") + 1,
        replaced_last={"board": board, "made": made, "why": why, "at": timezone.now().isoformat()},
    )
