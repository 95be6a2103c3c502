"""A seat for an outside program (SPEC 14), from the console or the table's page: the
form (seat, program, think-time limit), and the answer that shows the ticket this once
with the line the program connects with and where the gateway listens. Thin:
`services.programs.reserve` decides who may and what is refused; the views only say
which seats the form offers and where "Back" goes."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from ..console_forms import ProgramForm
from ..errors import ServiceError
from ..models import Table
from ..services import programs


def seat_program(
    request: HttpRequest,
    *,
    table: Table,
    seats: list[str] | None,
    back_url: str,
    console: bool,
    powers: dict | None = None,
) -> HttpResponse:
    """GET: the form. POST: the reservation, then the ticket page (never cached: the
    ticket is not kept anywhere it could be shown again), or the form with the
    service's refusal."""
    chosen = request.GET.get("seat", "")
    form = ProgramForm(
        request.POST or None, seats=seats, initial={"seat": chosen} if chosen else None
    )
    round = table.round
    context = {
        "tournament": round.tournament,
        "round": round,
        "table": table,
        "back_url": back_url,
        "console": console,
        "powers": powers or {},
    }
    error = ""
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            held, ticket = programs.reserve(
                table=table,
                seat=data["seat"],
                by=request.user,
                program=data["program"] or "",
                think_seconds=data["think_seconds"],
            )
        except ServiceError as refusal:
            error = str(refusal)
        else:
            host, port = programs.gateway_address()
            line = programs.connecting_line(ticket=ticket, seat=held.seat)
            context.update(
                held=held,
                ticket=ticket,
                # Around the ticket, which a phone's line must not break.
                connecting=line.partition(ticket),
                gateway_host=host,
                gateway_port=port,
            )
            return render(request, "tournaments/program_ticket.html", context)
    context.update(form=form, error=error)
    return render(
        request,
        "tournaments/program_seat.html",
        context,
        status=400 if request.method == "POST" else 200,
    )
