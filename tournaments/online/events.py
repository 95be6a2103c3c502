"""Telling connected devices that something happened, after it is committed.

After an action the table's group gets the new state's views, built once by `act`:
each seat's own and an organiser's. The channel layer is the servers' own (Redis on a
private network, or memory in one process): no client reads it. Each socket takes from
the message the one view its user may see (`consumers.BoardConsumer.table_views`: the
user's seat as the message's `seats` names it, an organiser's watching view, or
nothing), so a hand still reaches no one before they may see it (RULES 9).

    group f"table-{table_id}"   {"type": "table.views", "board": n, "seq": s,
                                 "seats": {"N": user_id, …}, "views": {"N": view's
                                 JSON text, …, "*": the organiser's}}
                                {"type": "round.closed", ...} when its round closes
    group f"round-{round_id}"   {"type": "round.closed", "round_id", "tournament_id",
                                 "round": number, "next_round": number | None,
                                 "seats": {pair_id: {"table": t, "direction": "NS"|"EW"|
                                 "BYE"}}}
    both groups                 {"type": "round.changed", "round_id", "round": number,
                                 "starts_at": iso, "ends_at": iso, "status": the
                                 tournament's, "paused": bool} when the bell moves or
                                 the clock stops or starts again (extend, pause,
                                 resume, a late opening)

Without a channel layer (`CHANNEL_LAYERS` unset) these are no-ops, so played-elsewhere
events, tests and commands need no server.
"""

from __future__ import annotations

import asyncio
import json
import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

from ..models import PlayMode, Round, RoundStatus, Table, TournamentStatus
from .db import server_loop

logger = logging.getLogger(__name__)


def table_group(table_id: int) -> str:
    return f"table-{table_id}"


def round_group(round_id: int) -> str:
    return f"round-{round_id}"


def _send(groups: list[str], message: dict) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    loop = server_loop()
    for group in groups:
        if loop is not None:
            # Called by the table server's own pool (`db.table_db`): handed to its event
            # loop without waiting, so the thread is free for the next table's action.
            # Sends of one process keep their order (the loop runs them as handed).
            loop.call_soon_threadsafe(_start_sending, layer, group, message)
            continue
        try:
            async_to_sync(layer.group_send)(group, message)
        except Exception:
            # The action is stored whatever happens here: a device that missed the
            # event catches up with the next snapshot (reconnection, next event).
            logger.exception("online: could not send %s to %s", message.get("type"), group)


def _start_sending(layer, group: str, message: dict) -> None:
    task = asyncio.ensure_future(layer.group_send(group, message))
    task.add_done_callback(lambda done: _log_failure(done, group, message))


def _log_failure(task: asyncio.Future, group: str, message: dict) -> None:
    if not task.cancelled() and task.exception() is not None:
        logger.error(
            "online: could not send %s to %s",
            message.get("type"),
            group,
            exc_info=task.exception(),
        )


def _encoded(views: dict[str, dict]) -> dict[str, str]:
    """Each view's JSON text (`json.dumps`, as a socket would send it). The cards played
    are the same list in every view of a state: encoded once and put in each text."""
    texts = {}
    played: dict[int, str] = {}
    for viewer, view in views.items():
        cards = view.get("play")
        if not isinstance(cards, list):
            texts[viewer] = json.dumps(view)
            continue
        if id(cards) not in played:
            played[id(cards)] = json.dumps(cards)
        # Keys are fixed and come first as `"play": null` at the top level; any text
        # inside the view is escaped, so the first occurrence is the key's.
        text = json.dumps({**view, "play": None})
        texts[viewer] = text.replace('"play": null', '"play": ' + played[id(cards)], 1)
    return texts


def views_stored(
    *,
    table_id: int,
    board_number: int,
    seq: int,
    seats: dict[str, int],
    views: dict[str, dict],
    board_id: int | None = None,
    action: tuple | None = None,
) -> None:
    """Action `seq` was stored at a table's board (called after the commit): `views` are
    the board after it as each seat and an organiser see it, `seats` who sits where,
    `action` the stored row (`replays.Row`) of board `board_id`.

    Each view travels as its JSON text, encoded once here: every socket of the table
    sends its own on as it is, instead of each decoding the whole message and encoding
    its view again."""
    message = {
        "type": "table.views",
        "board": board_number,
        "seq": seq,
        "seats": seats,
        "views": _encoded(views),
        # The stored row (`replays.Row`): other processes bring their kept board up to
        # date with it instead of reading it (`replays.follow`).
        "board_id": board_id,
        "action": list(action) if action is not None else None,
    }
    _send([table_group(table_id)], message)


def next_seats(*, round_id: int) -> tuple[int | None, dict[str, dict]]:
    """(next round's number or None, pair id -> where it sits in that round)."""

    closed = Round.objects.only("tournament_id", "number").get(pk=round_id)
    following = (
        Round.objects.filter(tournament_id=closed.tournament_id, number=closed.number + 1)
        .only("id", "number", "bye_pair_id")
        .first()
    )
    if following is None:
        return None, {}
    seats: dict[str, dict] = {}
    for number, ns, ew in Table.objects.filter(round=following).values_list(
        "number", "ns_pair_id", "ew_pair_id"
    ):
        seats[str(ns)] = {"table": number, "direction": "NS"}
        seats[str(ew)] = {"table": number, "direction": "EW"}
    if following.bye_pair_id is not None:
        seats[str(following.bye_pair_id)] = {"table": None, "direction": "BYE"}
    return following.number, seats


def round_closed(*, round_id: int, **extra) -> None:
    """A round closed (called after the commit): its tables and its round group hear
    it, with where each pair sits next."""

    closed = Round.objects.only("tournament_id", "number").get(pk=round_id)
    next_round, seats = next_seats(round_id=round_id)
    message = {
        "type": "round.closed",
        "round_id": round_id,
        "tournament_id": closed.tournament_id,
        "round": closed.number,
        "next_round": next_round,
        "seats": seats,
        **extra,
    }
    tables = Table.objects.filter(round_id=round_id).values_list("id", flat=True)
    _send([round_group(round_id), *(table_group(t) for t in tables)], message)


def round_closing(*, tournament, round) -> None:
    """The clock's hook inside the close: announce it once the close has committed (a
    close that rolls back announces nothing). Only online tournaments are announced."""
    if tournament.play != "online":
        return
    round_id = round.pk
    transaction.on_commit(lambda: round_closed(round_id=round_id))


def round_changed(*, round_id: int) -> None:
    """The round's clock changed (called after the commit): its tables and its round
    group hear the end time and whether the clock is stopped, as stored now."""

    changed = Round.objects.select_related("tournament").get(pk=round_id)
    if changed.status == RoundStatus.CLOSED:
        return  # closed in the same transaction (close now while paused): round.closed says it
    status = changed.tournament.status
    message = {
        "type": "round.changed",
        "round_id": round_id,
        "round": changed.number,
        "starts_at": changed.starts_at.isoformat(),
        "ends_at": changed.ends_at.isoformat(),
        "status": status,
        "paused": status == TournamentStatus.PAUSED,
    }
    tables = Table.objects.filter(round_id=round_id).values_list("id", flat=True)
    _send([round_group(round_id), *(table_group(t) for t in tables)], message)


def round_changing(*, tournament, round) -> None:
    """The clock's hook where it moves a round's bell (extend, resume, a late opening)
    or stops the clock (pause): announce the round's clock once the change has
    committed, so an open table page follows without a reload (RULES 3, 9). Nothing for
    a played-elsewhere tournament, no round, or a closed one."""
    if tournament.play != PlayMode.ONLINE or round is None or round.status == RoundStatus.CLOSED:
        return
    round_id = round.pk
    transaction.on_commit(lambda: round_changed(round_id=round_id))
