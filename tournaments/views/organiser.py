"""What every page of the director's console shares: who may open it, and which of its
buttons the organiser's powers light up.

A staff account only opens the console; every action's power is a Django permission the
service checks again (SECURITY). The console, its ladder and broadcast pages and the
club's membership page all ask here.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest
from django.utils.translation import gettext as _

from ..services.permissions import (
    ADD_TOURNAMENT,
    CHANGE_TOURNAMENT,
    DIRECT_RESULTS,
    MANAGE_PLAYERS,
    RUN_CLOCK,
)


def console_page(view: Callable) -> Callable:
    """A console page: organisers (staff accounts) only; the services check each power."""

    @login_required
    @wraps(view)
    def wrapped(request: HttpRequest, *args, **kwargs):
        if not request.user.is_staff:
            raise PermissionDenied(_("The director's console is for tournament directors."))
        return view(request, *args, **kwargs)

    return wrapped


def console_powers(user) -> dict[str, bool]:
    """The powers the console's pages show buttons for."""
    return {
        "run_clock": user.has_perm(RUN_CLOCK),
        "direct_results": user.has_perm(DIRECT_RESULTS),
        "add_tournament": user.has_perm(ADD_TOURNAMENT),
        "manage_players": user.has_perm(MANAGE_PLAYERS),
        "change_tournament": user.has_perm(CHANGE_TOURNAMENT),
    }
