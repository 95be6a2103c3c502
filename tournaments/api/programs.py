"""A seat at an online table for an outside program (SPEC 14; docs/PLAY_PROTOCOL.md,
"Programs: the Blue Chip gateway"): reserve it and get the ticket the program sends as
its team name, or give the seat back. `services.programs` decides who may (an organiser
who runs the clock, or the seat's own player) and what is refused."""

from __future__ import annotations

from django.http import HttpResponse
from ninja import Field, Router, Schema, Status

from ..services import programs
from . import lookups
from .auth import token_auth
from .errors import write
from .schemas import Text

router = Router(tags=["programs"])

SEAT_PROGRAM = "/tournaments/{tournament_id}/rounds/{number}/tables/{table}/seats/{seat}/program"


class ProgramIn(Schema):
    program: Text = Field(
        "",
        description="The program's name as the table's page and the console show it "
        '("BEN", "WBridge5"); one line, at most 60 characters; may be empty.',
    )
    think_seconds: int | None = Field(
        None,
        description="The think-time limit, 2–600 seconds (default 60): past it our robot "
        "makes the call or card for the program.",
    )


class GatewayOut(Schema):
    host: str = Field(description="Where the gateway listens, as this site was told.")
    port: int


class ProgramTicketOut(Schema):
    ticket: str = Field(
        description='The ticket, "tkt-" and 32 hex digits: shown this once (only its hash '
        "is stored). The program sends it as its team name. A new reservation of the "
        "seat gives a new ticket and the old one stops working."
    )
    seat: str
    table: int
    round: int
    program: str
    think_seconds: int
    gateway: GatewayOut
    connecting: str = Field(
        description='The program\'s first line: `Connecting "tkt-…" as North using '
        "protocol version 18`."
    )


@router.post(
    SEAT_PROGRAM,
    **write(201, ProgramTicketOut, auth=token_auth),
    summary="Reserve a seat for a program (Blue Chip) and get its ticket",
    description="An organiser who runs the clock, or the seat's own player, reserves the "
    "seat (N, E, S or W) at a table played online for a program that speaks the Blue Chip "
    "table-manager protocol (version 18). The answer holds the ticket, shown this once, "
    "the gateway's address and the line the program connects with. Anyone else is "
    "refused (403); a table not played online, a closed round or a seat a robot holds "
    "409; a bad seat, name or think time 400. A refusal changes nothing.",
)
def reserve(
    request, response: HttpResponse, tournament_id: int, number: int, table: int, seat: str,
    payload: ProgramIn,
):  # fmt: skip
    found = lookups.get_table(tournament_id, number, table)
    extra = {} if payload.think_seconds is None else {"think_seconds": payload.think_seconds}
    held, ticket = programs.reserve(
        table=found, seat=seat, by=request.auth, program=payload.program, **extra
    )
    response["Cache-Control"] = "no-store"
    host, port = programs.gateway_address()
    return Status(
        201,
        {
            "ticket": ticket,
            "seat": held.seat,
            "table": found.number,
            "round": number,
            "program": held.program,
            "think_seconds": held.think_seconds,
            "gateway": {"host": host, "port": port},
            "connecting": programs.connecting_line(ticket=ticket, seat=held.seat),
        },
    )


@router.delete(
    SEAT_PROGRAM,
    **write(204, None, auth=token_auth),
    summary="Give a program's seat back to its player",
    description="The same people as the reservation; the ticket stops working. Refused "
    "while the program is connected (409) and for a seat no program holds (404).",
)
def cancel(request, tournament_id: int, number: int, table: int, seat: str):
    found = lookups.get_table(tournament_id, number, table)
    programs.cancel(table=found, seat=seat, by=request.auth)
    return Status(204, None)
