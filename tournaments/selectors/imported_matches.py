"""An imported vugraph match (RULES 12) in the broadcast's shape (`selectors.broadcasts.
snapshot`), so the broadcast page draws it as a finished record: every board released,
each room's view the room replayed (`vugraph.replay`) and drawn for a watcher of a closed
round (`board_json(viewer=WATCHER, public=True)`), its `stored_result` the replay's, the
board's IMPs and the match score (carry-over included) as the import decided them; a
refused room carries its kind and reason, and shows what was legal before it. No
commentary, no socket: nothing moves any more. One query.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from django.db.models import QuerySet

import play
import vugraph
from scoring import SEATS, board_dealer, board_vulnerability

from ..models import ImportedMatch
from .board_views import WATCHER, board_json

ROOM_KEYS = (vugraph.OPEN, vugraph.CLOSED)


def imported_matches() -> QuerySet[ImportedMatch]:
    """The imported matches, newest first, without their files' text."""
    return ImportedMatch.objects.defer("text", "outcome").order_by("-imported_at", "-id")


def imported_match(match_id: int) -> ImportedMatch | None:
    return ImportedMatch.objects.filter(pk=match_id).first()


def _number(value: Decimal | str | int) -> int | float:
    value = Decimal(value)
    return int(value) if value == value.to_integral_value() else float(value)


def snapshot(*, item: ImportedMatch, now: datetime) -> dict:
    """The whole imported match as everyone sees it (the broadcast snapshot's keys)."""
    match = vugraph.read_lin(item.text)
    outcome = item.outcome
    home_carry, away_carry = _number(item.home_carry_over), _number(item.away_carry_over)
    carry = home_carry - away_carry
    teams = {"home": item.home_team, "away": item.away_team, "carry_over": carry}
    kept = {line["number"]: line for line in outcome["boards"]}
    board_lines = []
    for board in match.boards:
        line = kept.get(board.number)
        if line is None:
            continue  # a placeholder board the import left out
        first = board.open or board.closed
        dealer = (first.dealer if first else None) or board_dealer(board.number)
        vulnerability = (first.vulnerability if first else None) or board_vulnerability(
            board.number
        )
        board_lines.append(
            {
                "number": board.number,
                "released": True,
                "dealer": dealer,
                "vulnerability": vulnerability,
                "rooms": {
                    key: _room_view(board.room(key), board.number, line["rooms"][key])
                    for key in ROOM_KEYS
                },
                "imps": line["imps"],
            }
        )
    home_imps, away_imps = outcome["imps"]
    score = {
        "home": _number(outcome["score"][0]),
        "away": _number(outcome["score"][1]),
        "carry_over": carry,
        "home_carry_over": home_carry,
        "away_carry_over": away_carry,
        "home_imps": home_imps,
        "away_imps": away_imps,
    }
    return {
        "id": item.pk,
        "imported": True,
        "title": item.title,
        "segment": item.segment,
        "policy": item.policy,
        "tournament": {"id": None, "name": item.title},
        "round": None,
        "round_status": "closed",
        "delay_minutes": 0,
        "teams": teams,
        "rooms": [
            {
                "key": key,
                "table": None,
                "table_id": None,
                "players": {seat: match.player(key, seat) for seat in SEATS},
            }
            for key in ROOM_KEYS
        ],
        "boards": board_lines,
        "score": score,
        "refused": outcome.get("refused", 0),
        "comments": [],
        "next_release_at": None,
        "event_over": True,
        "at": now.isoformat(),
    }


def _room_view(room: vugraph.Room | None, number: int, kept: dict) -> dict:
    """One room of a board as a watcher of a finished match sees it; a refused room (or
    one the file does not have) with its kind and reason."""
    state: play.BoardState | None = None
    if room is not None:
        accepted = kept["accepted"]
        state = vugraph.replay(room, number) if accepted else _legal_part(room, number)
    if state is None:
        view = _empty_view(number, room)
    else:
        view = board_json(state, viewer=WATCHER, seat=None, public=True)
    view["stored_result"] = _stored(kept) if kept["accepted"] else None
    view["accepted"] = kept["accepted"]
    view["refused"] = None if kept["accepted"] else {"kind": kept["kind"], "reason": kept["reason"]}
    view["claimed"] = kept.get("claimed")
    return view


def _stored(kept: dict) -> dict | None:
    result = kept.get("result")
    if result is None:
        return None
    return {
        "state": result["state"],
        "contract": result["contract"] or "",
        "declarer": result["declarer"],
        "tricks": result["tricks"],
        "ns_score": result["ns_score"],
        "adjusted": False,
    }


def _legal_part(room: vugraph.Room, number: int) -> play.BoardState | None:
    """A refused room as far as the rules of play take it (LIN's mapping, as
    `vugraph.replay` applies it: calls in turn from the dealer, each card by whoever holds
    it, declarer for dummy); None without a deal the rules accept."""
    if room.hands is None:
        return None
    dealer = room.dealer or board_dealer(number)
    try:
        state = play.BoardState.start(
            dict(zip(SEATS, room.hands, strict=True)),
            dealer,
            room.vulnerability or board_vulnerability(number),
        )
    except play.PlayError:
        return None
    for call in room.calls:
        try:
            state = state.apply(play.Call(state.turn or dealer, call.call, call.explanation))
        except play.PlayError:
            return state
    for card in room.cards:
        holder = next(
            (seat for seat, hand in zip(SEATS, state.hands, strict=True) if card in hand), None
        )
        if holder is None:
            return state
        actor = state.declarer if holder == state.dummy and state.declarer else holder
        try:
            state = state.apply(play.Card(actor, card))
        except play.PlayError:
            return state
    return state


def _empty_view(number: int, room: vugraph.Room | None) -> dict:
    """A room with nothing the rules can show (no deal, or not in the file)."""
    return {
        "seat": None,
        "dealer": (room.dealer if room else None) or board_dealer(number),
        "vulnerability": (room.vulnerability if room else None) or board_vulnerability(number),
        "hands": {},
        "auction": [],
        "play": [],
        "contract": None,
        "declarer": None,
        "next_seq": 1,
        "turn": None,
        "legal": [],
        "over": False,
        "result": None,
        "claim": None,
        "paused": False,
        "kibitzer": False,
    }
