"""The JSON shape of a board at a table as one person may see it (RULES 9).

Built here, server-side, for one viewer at a time: a hand is put in the answer only if
the viewer may see it now, never sent and hidden by the client. The same shape serves
the HTTP API and the WebSocket snapshots and events.

Viewers:
    a seat ("N", "E", "S", "W")  their own hand; dummy after the opening lead; all four
                                 once the board is over at their table; alerts of the
                                 opponents (and their own), never their partner's
    WATCHER                      an organiser watching live, anyone once the round
                                 has closed, or a kibitzer when the organiser lets the
                                 public watch live (`kibitzer=True`): every hand and
                                 every alert
    KIBITZER                     the public watching a running round: no hand, no call,
                                 no card, no result; only how far the board has come
                                 (`progress`)

While the tournament is paused a view says so (`paused: true`) and offers nothing to
do (`legal: []`).
"""

from __future__ import annotations

import play
from scoring import SEATS, side_of

from ..visibility import EVERY_HAND, PROGRESS_ONLY

# Who sees what is `tournaments.visibility`'s rule; this module only draws it.
WATCHER = EVERY_HAND
KIBITZER = PROGRESS_ONLY


def action_of(row) -> play.Action:
    """The `play` action a stored `PlayAction` row (or anything with its fields) holds."""
    kind = row.kind
    if kind == "call":
        return play.Call(row.seat, row.call, row.alert or None)
    if kind == "card":
        return play.Card(row.seat, row.card)
    if kind == "claim":
        return play.Claim(row.seat, row.tricks, getattr(row, "statement", "") or "")
    return play.ClaimResponse(row.seat, kind == "accept")


def _shows_alert(viewer: str, caller: str, *, public: bool) -> bool:
    if public or viewer in (WATCHER, caller):
        return True
    return side_of(viewer) != side_of(caller)


def _all_hands(state: play.BoardState) -> dict[str, list[str]]:
    """Every hand as it is shown: still held, or as dealt once the board is over (so the
    record reads trick by trick)."""
    if state.is_over:
        return {seat: list(play.sort_hand(state.deal[SEATS.index(seat)])) for seat in SEATS}
    return {seat: list(state.hand_of(seat)) for seat in SEATS}


def _hands(
    state: play.BoardState, viewer: str | None, shown: dict[str, list[str]] | None = None
) -> dict[str, list[str]]:
    """The hands `viewer` may see (RULES 9), taken from `shown` (`_all_hands`, built once
    for several viewers) or built here."""
    if viewer is None:
        return {}
    seats = set(SEATS) if viewer == WATCHER else state.visible_seats(viewer)
    if shown is None:
        shown = _all_hands(state)
    return {seat: shown[seat] for seat in SEATS if seat in seats}


def _result(state: play.BoardState) -> dict | None:
    if not state.is_over:
        return None
    result = state.result()
    if result.contract is None:
        return {"contract": "PASS", "declarer": None, "tricks": None, "ns_score": 0}
    return {
        "contract": str(result.contract),
        "declarer": result.declarer,
        "tricks": result.tricks,
        "ns_score": result.ns_score,
    }


def _legal(state: play.BoardState, viewer: str | None) -> list[str]:
    if viewer is None or viewer == WATCHER or state.actor != viewer:
        return []
    if not state.is_auction_over:
        return list(state.legal_calls())
    return list(state.legal_cards())


def _claim(state: play.BoardState) -> dict | None:
    """The claim waiting for its answers, with its sums: what the claimer's side has won,
    its total with the claim, and the contract's outcome if it is accepted."""
    claim = state.pending_claim
    outcome = state.claim_outcome()
    if claim is None or outcome is None:
        return None
    return {
        "seat": claim.seat,
        "tricks": claim.tricks,
        "won": outcome.won,
        "total": outcome.total,
        "statement": claim.statement,
        "awaiting": sorted(state.claim_answers_awaited, key=SEATS.index),
        "contract": str(state.contract),
        "declarer": state.declarer,
        "outcome": (
            {"made": True, "overtricks": outcome.overtricks}
            if outcome.made
            else {"made": False, "undertricks": outcome.undertricks}
        ),
    }


def _progress(state: play.BoardState) -> dict:
    """How far the board has come, and nothing of what was called or played."""
    if state.is_over:
        phase = "over"
    elif state.is_auction_over:
        phase = "play"
    else:
        phase = "auction"
    return {"phase": phase, "tricks_played": len(state.tricks), "turn": state.turn}


def _auction(state: play.BoardState, viewer: str | None, *, public: bool) -> list[dict]:
    auction = []
    for call in state.calls:
        entry = {"seat": call.seat, "call": call.call}
        if call.alert and viewer is not None and _shows_alert(viewer, call.seat, public=public):
            entry["alert"] = call.alert
        auction.append(entry)
    return auction


def _common(state: play.BoardState) -> dict:
    """What every viewer of the board sees alike (the auction apart: alerts differ)."""
    cards = []
    for trick in (*state.tricks, *((state.current_trick,) if state.current_trick else ())):
        cards += [{"seat": who, "card": card} for who, card in trick.plays]
    return {
        "dealer": state.dealer,
        "vulnerability": state.vulnerability,
        "play": cards,
        "contract": str(state.contract) if state.contract else None,
        "declarer": state.declarer,
        "next_seq": len(state.actions) + 1,
        "turn": state.turn,
        "over": state.is_over,
        "result": _result(state),
        "claim": _claim(state),
    }


def _view(
    state: play.BoardState,
    common: dict,
    auction: list[dict],
    *,
    viewer: str | None,
    seat: str | None,
    shown: dict[str, list[str]] | None = None,
    paused: bool = False,
    kibitzer: bool = False,
) -> dict:
    return {
        "seat": seat,
        "dealer": common["dealer"],
        "vulnerability": common["vulnerability"],
        "hands": _hands(state, viewer, shown),
        "auction": auction,
        "play": common["play"],
        "contract": common["contract"],
        "declarer": common["declarer"],
        "next_seq": common["next_seq"],
        "turn": common["turn"],
        "legal": [] if paused else _legal(state, viewer),
        "over": common["over"],
        "result": common["result"],
        "claim": common["claim"],
        "paused": paused,
        "kibitzer": kibitzer,
    }


def _kibitzer_view(state: play.BoardState, *, paused: bool = False) -> dict:
    """The public's view of a running round's board: the board's frame and how far it
    has come, no hand, call, card, claim or result (RULES 2)."""
    return {
        "seat": None,
        "dealer": state.dealer,
        "vulnerability": state.vulnerability,
        "hands": {},
        "auction": [],
        "play": [],
        "contract": None,
        "declarer": None,
        "next_seq": len(state.actions) + 1,
        "turn": state.turn,
        "legal": [],
        "over": state.is_over,
        "result": None,
        "claim": None,
        "paused": paused,
        "kibitzer": True,
        "progress": _progress(state),
    }


def board_json(
    state: play.BoardState,
    *,
    viewer: str | None,
    seat: str | None,
    public: bool = False,
    paused: bool = False,
    kibitzer: bool = False,
) -> dict:
    """The board as `viewer` (a seat, WATCHER, KIBITZER or None: no hand at all) sees it.

    `seat` is the caller's own seat (None if they do not play at the table); `public`
    means the round has closed and the table's record is everyone's; `paused`, that the
    tournament is paused (nothing may be done); `kibitzer`, that a kibitzer watches
    (with WATCHER: the organiser lets the public see the hands live).
    """
    if viewer == KIBITZER:
        return _kibitzer_view(state, paused=paused)
    auction = _auction(state, viewer, public=public)
    view = _view(state, _common(state), auction, viewer=viewer, seat=seat, paused=paused)
    if kibitzer:
        view["kibitzer"] = True
    return view


def table_views(state: play.BoardState) -> dict[str, dict]:
    """While the round is open: each seat's own view (`board_json(viewer=seat,
    seat=seat)`), an organiser's (`viewer=WATCHER, seat=None`) and a kibitzer's (the
    progress only), keyed by seat, WATCHER and KIBITZER. Built together after each
    action, so what all of them share is built once. The six go to the table's server
    processes only; each socket sends on the one its user may see
    (`consumers.BoardConsumer.table_views`)."""
    common = _common(state)
    shown = _all_hands(state)
    plain = None if any(call.alert for call in state.calls) else _auction(state, None, public=False)
    views = {}
    for viewer in (*SEATS, WATCHER):
        auction = plain if plain is not None else _auction(state, viewer, public=False)
        seat = None if viewer == WATCHER else viewer
        views[viewer] = _view(state, common, auction, viewer=viewer, seat=seat, shown=shown)
    views[KIBITZER] = _kibitzer_view(state)
    return views
