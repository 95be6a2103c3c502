"""A tournament's movement (RULES 10): read it as data (public, like a round's seating),
and choose it until round 1 starts (organiser)."""

from __future__ import annotations

from django.utils.translation import gettext as _
from ninja import Router

import movements

from .. import round_rules
from ..errors import NotFound
from ..models import Seating
from ..selectors import movements as movement_selectors
from ..services import settings_change
from ..services.formats.movement_pairs import movement_problem
from . import lookups
from .endpoints import _tournament_now
from .errors import write
from .schemas import ErrorOut, MovementIn, MovementOut, TournamentOut

router = Router()


@router.get(
    "/tournaments/{tournament_id}/movement",
    response={200: MovementOut, 404: ErrorOut},
    tags=["tournaments"],
    summary="The movement the rounds are seated by, as data (404 for a Swiss event)",
    description=(
        "From round 1's start the movement stored then (`fixed`); before it, the movement "
        "as it stands for the pairs registered so far, positions in registration order. "
        "404 with the reason when there is none (Swiss seating, or no movement for the "
        "pairs registered)."
    ),
)
def get_movement(request, tournament_id: int):
    t = lookups.get_tournament(tournament_id)
    if t.seating == Seating.SWISS:
        raise NotFound(_("%(t)s is seated by the Swiss rule: it has no movement.") % {"t": t.name})
    movement = movement_selectors.movement_of(t)
    if movement is None:
        raise NotFound(movement_problem(t) or _("%(t)s has no movement yet.") % {"t": t.name})
    held = movement_selectors.positions(t, movement)
    return {
        "seating": t.seating,
        "winners": t.winners,
        "fixed": round_rules.started(t),
        "movement": movements.to_json(movement),
        "positions": [
            {
                "position": position,
                "label": movement.label(position),
                "pair": held.get(position),
                "field": movement_selectors.field_of(t, movement, position),
            }
            for position in range(1, movement.pairs + 1)
        ],
    }


@router.put(
    "/tournaments/{tournament_id}/movement",
    **write(200, TournamentOut),
    tags=["setup"],
    summary="Choose the seating and the movement, until round 1 starts (organiser)",
    description=(
        "Swiss, a Mitchell, a Howell or a movement given as data, with one winner or two. "
        "Refused (400) with the rule a movement breaks, and (409) once round 1 has started."
    ),
)
def put_movement(request, tournament_id: int, payload: MovementIn):
    t = lookups.get_tournament(tournament_id)
    settings_change.change_movement(
        tournament=t,
        by=request.auth,
        seating=payload.seating,
        winners=payload.winners,
        arrow_switch=payload.arrow_switch,
        movement=payload.movement,
        neuberg=payload.neuberg,
        boards_travel=payload.boards_travel,
    )
    return _tournament_now(t)
