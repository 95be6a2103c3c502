"""The API's operations: each finds what the URL names, calls a service or selector, and
shapes the answer. Reads are public; writes need a token, most an organiser's."""

from __future__ import annotations

from django.http import HttpResponse
from django.utils.translation import gettext as _
from ninja import Query, Router, Status

from .. import round_rules, selectors, visibility
from ..errors import ClockError
from ..live import cached
from ..live.schemas import StandingOut
from ..models import RoundStatus, Tournament
from ..selectors.boards import board_numbers_at
from ..services import clock, registration, results, setup
from . import lookups
from .auth import token_auth
from .errors import write
from .schemas import (
    AdjustmentIn,
    BoardDetailOut,
    ClosedOut,
    ErrorOut,
    PairIn,
    PairOut,
    PlayerCreatedOut,
    PlayerIn,
    ResultIn,
    ResultOut,
    RoundOut,
    StartedOut,
    TournamentIn,
    TournamentOut,
)

router = Router()


# --- shaping answers -----------------------------------------------------------------


def _player(user) -> dict:
    profile = getattr(user, "profile", None)
    return {"username": user.get_username(), "name": profile.name if profile else user.username}


def _pair(pair) -> dict:
    return {
        "id": pair.id,
        "registration_no": pair.registration_no,
        "players": [_player(pair.player1), _player(pair.player2)],
        "withdrawn_at": pair.withdrawn_at,
    }


def _round_summary(round) -> dict | None:
    if round is None:
        return None
    return {
        "number": round.number,
        "status": round.status,
        "starts_at": round.starts_at,
        "ends_at": round.ends_at,
    }


def _tournament(t: Tournament, *, current_round=None, pair_count: int | None = None) -> dict:
    if pair_count is None:
        pair_count = selectors.confirmed_pairs(t).count()
    return {
        "id": t.id,
        "name": t.name,
        "status": t.status,
        "start_at": t.start_at,
        "registration_opens_at": t.registration_opens_at,
        "rounds": t.rounds,
        "boards_per_round": t.boards_per_round,
        "round_minutes": t.round_length.total_seconds() / 60,
        "gap_minutes": t.gap_length.total_seconds() / 60,
        "scoring": t.scoring_method,
        "completion_threshold": float(t.completion_threshold),
        "unplayed_policy": t.unplayed_policy,
        "play": t.play,
        "seating": t.seating,
        "winners": t.winners,
        "arrow_switch": t.arrow_switch,
        "boards_travel": t.boards_travel,
        "datum_rounding": t.datum_rounding,
        "neuberg": t.neuberg,
        "contestants": t.contestants,
        "team_scoring": t.team_scoring,
        "bye_vp": float(t.bye_vp),
        "stanzas": t.stanzas,
        "pair_count": pair_count,
        "current_round": _round_summary(current_round),
        "finished_at": t.finished_at,
    }


def _tournament_now(t: Tournament) -> dict:
    t.refresh_from_db()
    return _tournament(t, current_round=t.round_set.current())


def _result(result, *, table: int, board: int) -> dict:
    # Numbers passed in: result.table would cost the hot path another query.
    return {
        "table": table,
        "board": board,
        "state": result.state,
        "ns_adjustment": result.ns_adjustment,
        "ew_adjustment": result.ew_adjustment,
        "contract": result.contract,
        "declarer": result.declarer,
        "tricks": result.tricks,
        "result": result.result_relative,
        "lead": result.lead,
        "ns_score": result.ns_score,
        "entered_by": result.entered_by.get_username() if result.entered_by else None,
        "entered_at": result.entered_at,
    }


# --- players and tournaments ---------------------------------------------------------


@router.post(
    "/players",
    **write(201, PlayerCreatedOut),
    tags=["setup"],
    summary="Create a player (organiser)",
)
def create_player(request, payload: PlayerIn):
    user = setup.create_player(
        username=payload.username, display_name=payload.display_name, by=request.auth
    )
    return Status(
        201, {"id": user.id, "username": user.username, "display_name": payload.display_name}
    )


@router.post(
    "/tournaments",
    **write(201, TournamentOut),
    tags=["setup"],
    summary="Create a tournament (organiser)",
)
def create_tournament(request, payload: TournamentIn):
    t = setup.create_tournament(
        name=payload.name,
        start_at=payload.start_at,
        registration_opens_at=payload.registration_opens_at,
        rounds=payload.rounds,
        boards_per_round=payload.boards_per_round,
        round_minutes=payload.round_minutes,
        gap_minutes=payload.gap_minutes,
        scoring=payload.scoring,
        completion_threshold=payload.completion_threshold,
        unplayed_policy=payload.unplayed_policy,
        play=payload.play,
        seating=payload.seating,
        winners=payload.winners,
        arrow_switch=payload.arrow_switch,
        movement=payload.movement,
        neuberg=payload.neuberg,
        boards_travel=payload.boards_travel,
        datum_rounding=payload.datum_rounding,
        contestants=payload.contestants,
        team_scoring=payload.team_scoring,
        bye_vp=payload.bye_vp,
        stanzas=payload.stanzas,
        by=request.auth,
    )
    return Status(201, _tournament(t, pair_count=0))


@router.get(
    "/tournaments",
    response={200: list[TournamentOut], 422: ErrorOut},
    tags=["tournaments"],
    summary="Running, upcoming and recent tournaments",
)
def list_tournaments(request, limit: int = Query(20, ge=1, le=100)):
    groups = selectors.tournament_cards(limit=limit)
    cards = groups["running"] + groups["upcoming"] + groups["finished"]
    return [
        _tournament(card.tournament, current_round=card.round, pair_count=card.pair_count)
        for card in cards
    ]


@router.get(
    "/tournaments/{tournament_id}",
    response={200: TournamentOut, 404: ErrorOut},
    tags=["tournaments"],
    summary="A tournament: status, current round, settings",
)
def get_tournament(request, tournament_id: int):
    return _tournament_now(lookups.get_tournament(tournament_id))


# --- registration and the clock ------------------------------------------------------


@router.post(
    "/tournaments/{tournament_id}/pairs",
    **write(201, PairOut),
    tags=["setup"],
    summary="Register a confirmed pair; once play has started, a late entry (organiser)",
    description=(
        "Before round 1 the pair is registered. Once the tournament is running it joins "
        "as a late entry: seated from the next round, the rounds it missed not played; "
        "refused once the last round is seated."
    ),
)
def register_pair(request, tournament_id: int, payload: PairIn):
    t = lookups.get_tournament(tournament_id)
    add = registration.add_late_pair if round_rules.started(t) else registration.register_pair
    pair = add(tournament=t, usernames=payload.players, by=request.auth)
    return Status(201, _pair(pair))


@router.post(
    "/tournaments/{tournament_id}/pairs/{pair_id}/withdraw",
    **write(200, PairOut),
    tags=["setup"],
    summary="Withdraw a pair from the next seating on (organiser)",
)
def withdraw_pair(request, tournament_id: int, pair_id: int):
    t = lookups.get_tournament(tournament_id)
    pair = registration.withdraw_pair(pair=lookups.get_pair(t, pair_id), by=request.auth)
    return _pair(pair)


@router.post(
    "/tournaments/{tournament_id}/start",
    **write(200, StartedOut),
    tags=["clock"],
    summary="Start now: seat and open round 1 (organiser)",
)
def start_tournament(request, tournament_id: int):
    t = lookups.get_tournament(tournament_id)
    report = clock.start_now(tournament=t, by=request.auth)
    return {"tournament": _tournament_now(t), "events": list(report.messages)}


@router.post(
    "/tournaments/{tournament_id}/rounds/{number}/close",
    **write(200, ClosedOut),
    tags=["clock"],
    summary="Close the open round now, as the bell would (organiser)",
)
def close_round(request, tournament_id: int, number: int):
    t = lookups.get_tournament(tournament_id)
    round = lookups.get_round(t, number)
    # Naming the round keeps a retried request from closing the next one; the service
    # re-checks the number under its lock, so the bell can't slip in between.
    if round.status != RoundStatus.OPEN:
        raise ClockError(_("Round %(n)s is not the open round.") % {"n": number})
    report = clock.close_round_now(tournament=t, round_number=number, by=request.auth)
    return {"message": report.text, "tournament": _tournament_now(t)}


# --- play ----------------------------------------------------------------------------


@router.get(
    "/tournaments/{tournament_id}/rounds/{number}",
    response={200: RoundOut, 404: ErrorOut},
    tags=["play"],
    summary="A round: times, boards, seating and bye",
)
def get_round(request, tournament_id: int, number: int):
    t = lookups.get_tournament(tournament_id)
    round = lookups.get_round_with_boards(t, number)
    tables = selectors.round_seating(round=round)
    played = selectors.boards_played(round=round, tables=tables)
    return {
        "number": round.number,
        "status": round.status,
        "starts_at": round.starts_at,
        "ends_at": round.ends_at,
        "closed_at": round.closed_at,
        "boards": [
            {"number": b.number, "dealer": b.dealer, "vulnerability": b.vulnerability}
            for b in played
        ],
        "tables": [
            {
                "table": table.number,
                "boards": list(board_numbers_at(table, t, round.number)),
                "ns": table.ns_pair.id,
                "ew": table.ew_pair.id,
                "ns_players": [cached.player_json(p) for p in table.ns_pair.players],
                "ew_players": [cached.player_json(p) for p in table.ew_pair.players],
            }
            for table in tables
        ],
        "bye": round.bye_pair_id,
    }


@router.put(
    "/tournaments/{tournament_id}/rounds/{number}/tables/{table}/boards/{board}",
    **write(200, ResultOut, auth=token_auth),
    tags=["play"],
    summary="Enter or correct a table's result (a player of the table, or an organiser)",
)
def submit_result(
    request, tournament_id: int, number: int, table: int, board: int, payload: ResultIn
):
    found = lookups.get_table(tournament_id, number, table)
    entry = results.ContractEntry(
        contract=payload.contract,
        declarer=payload.declarer or "",
        tricks=payload.tricks,
        result=payload.result,
        lead=payload.lead or "",
    )
    stored = results.submit_result(table=found, board_number=board, entry=entry, user=request.auth)
    return _result(stored, table=found.number, board=board)


@router.put(
    "/tournaments/{tournament_id}/rounds/{number}/tables/{table}/boards/{board}/adjustment",
    **write(200, ResultOut),
    tags=["play"],
    summary="A director's adjusted score for a table's board (A+, A or A- a side)",
)
def adjust_result(
    request, tournament_id: int, number: int, table: int, board: int, payload: AdjustmentIn
):
    found = lookups.get_table(tournament_id, number, table)
    stored = results.director_set_result(
        table=found,
        board_number=board,
        by=request.auth,
        ns_adjustment=payload.ns,
        ew_adjustment=payload.ew,
        reason=payload.reason,
    )
    return _result(stored, table=found.number, board=board)


# --- results -------------------------------------------------------------------------


@router.get(
    "/tournaments/{tournament_id}/standings",
    response={200: list[StandingOut], 404: ErrorOut},
    tags=["results"],
    summary="Live standings after the last closed round, or the final ranking",
)
def get_standings(request, tournament_id: int):
    t = lookups.get_tournament(tournament_id)
    # Standings only change at a close, a re-score or a withdrawal (the live version);
    # readers poll them all through a round, so each version is serialised once.
    version = selectors.live_version(tournament_id=t.pk)
    return HttpResponse(cached.standings_json(t, version), content_type="application/json")


@router.get(
    "/tournaments/{tournament_id}/boards/{board}",
    response={200: BoardDetailOut, 404: ErrorOut},
    tags=["results"],
    summary="A board: dealer, vulnerability, deal and traveller (once its round closed)",
)
def get_board(request, tournament_id: int, board: int):
    t = lookups.get_tournament(tournament_id)
    found, lines = selectors.board_detail(tournament=t, number=board)
    visible = visibility.deal_public(found.round)
    return {
        "number": found.number,
        "round": found.round.number if found.round is not None else None,
        "dealer": found.dealer,
        "vulnerability": found.vulnerability,
        "deal": found.deal if visible else None,
        "datum": found.datum if visible else None,
        "results": [
            {
                "round": line.table.round.number,
                "table": line.table.number,
                "ns": line.table.ns_pair_id,
                "ew": line.table.ew_pair_id,
                "contract": line.result.contract,
                "declarer": line.result.declarer,
                "tricks": line.result.tricks,
                "result": line.result.result_relative,
                "lead": line.result.lead,
                "ns_score": line.result.ns_score,
                "ns_points": line.ns_points,
                "ew_points": line.ew_points,
                "state": line.result.state,
                "ns_adjustment": line.result.ns_adjustment,
                "ew_adjustment": line.result.ew_adjustment,
            }
            for line in (lines if visible else [])
        ],
    }


# --- exports -------------------------------------------------------------------------


def _download(content, *, filename: str, content_type: str) -> HttpResponse:
    response = HttpResponse(content, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def _file_response(media_type: str, description: str) -> dict:
    return {
        "responses": {
            200: {
                "description": description,
                "content": {media_type: {"schema": {"type": "string"}}},
            }
        }
    }


@router.get(
    "/tournaments/{tournament_id}/export.pbn",
    response={404: ErrorOut, 409: ErrorOut},
    openapi_extra=_file_response("text/plain", "PBN 2.1 file (UTF-8)"),
    tags=["exports"],
    summary="Deals, travellers and ranking as PBN 2.1",
)
def export_pbn(request, tournament_id: int):
    t = lookups.get_tournament(tournament_id)
    return _download(
        cached.export(t, selectors.live_version(tournament_id=t.pk), "pbn"),
        filename=f"tournament-{t.pk}.pbn",
        content_type="text/plain; charset=utf-8",
    )


@router.get(
    "/tournaments/{tournament_id}/export.xml",
    response={404: ErrorOut, 409: ErrorOut},
    openapi_extra=_file_response("application/xml", "USEBIO 1.2 XML"),
    tags=["exports"],
    summary="Results as USEBIO 1.2 XML (national federations' masterpoint systems)",
)
def export_usebio(request, tournament_id: int):
    t = lookups.get_tournament(tournament_id)
    return _download(
        cached.export(t, selectors.live_version(tournament_id=t.pk), "usebio"),
        filename=f"tournament-{t.pk}-usebio.xml",
        content_type="application/xml; charset=utf-8",
    )
