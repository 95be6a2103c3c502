"""Vugraph LIN (RULES 12): a match's two rooms or one table's boards as a LIN file (public
once their round has closed), and LIN files imported as finished matches (an organiser's
token; the imported matches are public)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.http import HttpResponse
from django.utils.translation import gettext as _
from ninja import Field, File, Form, Router, Schema, Status
from ninja.files import UploadedFile

from ..errors import NotFound
from ..exports import lin
from ..models import ImportedMatch, Match, player_name
from ..services import vugraph_import
from . import lookups
from .errors import write
from .schemas import ErrorOut

router = Router(tags=["vugraph"])

_LIN = {
    "responses": {
        200: {
            "description": "A vugraph LIN file (UTF-8)",
            "content": {"text/plain": {"schema": {"type": "string"}}},
        }
    }
}


def _lin(text: str, filename: str) -> HttpResponse:
    response = HttpResponse(text, content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


@router.get(
    "/tournaments/{tournament_id}/matches/{match_id}/export.lin",
    response={404: ErrorOut, 409: ErrorOut},
    openapi_extra=_LIN,
    summary="A match's two rooms as vugraph LIN (its boards once their round has closed)",
)
def match_lin(request, tournament_id: int, match_id: int):
    t = lookups.get_tournament(tournament_id)
    match = (
        Match.objects.filter(round__tournament=t, pk=match_id)
        .select_related("round__tournament", "home", "away")
        .first()
    )
    if match is None:
        raise NotFound(_("%(t)s has no match %(id)s.") % {"t": t.name, "id": match_id})
    return _lin(lin.match_lin(match=match), lin.match_filename(match))


@router.get(
    "/tournaments/{tournament_id}/rounds/{number}/tables/{table}/export.lin",
    response={404: ErrorOut, 409: ErrorOut},
    openapi_extra=_LIN,
    summary="One table's boards as a one-room vugraph LIN (once their round has closed)",
)
def table_lin(request, tournament_id: int, number: int, table: int):
    found = lookups.get_table(tournament_id, number, table)
    return _lin(lin.table_lin(table=found), lin.table_filename(found))


class ImportedRoomOut(Schema):
    accepted: bool
    kind: str | None = Field(description="Why the room is refused (vugraph.KINDS), or null.")
    reason: str | None
    result: dict[str, Any] | None = Field(
        description="The replayed result: state, contract, declarer, tricks, ns_score."
    )
    claimed: str | None = Field(description="The file's rs entry for the room.")
    agrees: bool | None


class ImportedBoardOut(Schema):
    number: int
    imps: int | None = Field(description="IMPs to team 1 (negative: to team 2); null "
                             "unless both rooms are accepted.")  # fmt: skip
    rooms: dict[str, ImportedRoomOut] = Field(description="open and closed")


class ImportedMatchOut(Schema):
    id: int
    title: str
    segment: str
    teams: list[str]
    carry_over: list[float]
    policy: str
    imported_by: str | None
    imported_at: datetime
    imps: list[int] = Field(description="IMPs won by team 1 and team 2 on the scored boards.")
    score: list[float] = Field(description="Each team's carry-over plus its IMPs.")
    refused: int = Field(description="How many rooms are refused (lenient imports only).")
    boards: list[ImportedBoardOut]
    url: str


def _imported(item: ImportedMatch) -> dict:
    outcome = item.outcome
    by = item.imported_by
    return {
        "id": item.pk,
        "title": item.title,
        "segment": item.segment,
        "teams": [item.home_team, item.away_team],
        "carry_over": [float(item.home_carry_over), float(item.away_carry_over)],
        "policy": item.policy,
        "imported_by": player_name(by) if by is not None else None,
        "imported_at": item.imported_at,
        "imps": outcome["imps"],
        "score": [float(value) for value in outcome["score"]],
        "refused": outcome.get("refused", 0),
        "boards": outcome["boards"],
        "url": f"/vugraph/{item.pk}/",
    }


@router.post(
    "/vugraph/imports",
    **write(201, ImportedMatchOut),
    summary="Import a vugraph LIN file as a finished match (multipart: file, policy, title)",
    description=(
        "An organiser's token (the permission to create tournaments). The file: at most "
        "2 MB, UTF-8 (or Latin-1). `policy` strict refuses the whole file at its first bad "
        "room (400, saying the board, the room and why); lenient imports it and marks "
        "the bad rooms. A refusal stores nothing."
    ),
)
def import_lin(
    request,
    file: File[UploadedFile],
    policy: Form[str] = "lenient",
    title: Form[str | None] = None,
):
    data = file.read(vugraph_import.MAX_LIN_BYTES + 1)
    item = vugraph_import.import_lin_file(
        by=request.auth, data=data, policy=policy, title=title or None
    )
    return Status(201, _imported(item))


@router.get(
    "/vugraph/imports/{import_id}",
    response={200: ImportedMatchOut, 404: ErrorOut},
    summary="An imported match: each board's rooms (accepted or refused, and why), IMPs, score",
)
def get_import(request, import_id: int):
    item = ImportedMatch.objects.select_related("imported_by__profile").filter(pk=import_id).first()
    if item is None:
        raise NotFound(_("No such imported match."))
    return _imported(item)
