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
                                {"type": "round.closed", …} when its round closes:
                                 each table its own (`table_server.bell_news`), so
                                 every socket answers the bell without a read
                                {"type": "round.changed", "round_id", "round": number,
                                 "starts_at": iso, "ends_at": iso, "status": the
                                 tournament's, "paused": bool} when the bell moves or
                                 the clock stops or starts again (extend, pause,
                                 resume, a late opening)

    group f"broadcast-{id}"     a broadcast's spectators (RULES 12), none of it a card:
                                {"type": "broadcast.progress", "table_id", "board",
                                 "progress"} after each action in one of its rooms;
                                {"type": "broadcast.release", "board", "release_at"}
                                 when the last table that plays a board has finished
                                 it (each socket shows it at that time);
                                {"type": "broadcast.comment", "comment"};
                                {"type": "broadcast.reload", "at"} when every board is
                                 released at once (the bell) or the broadcast changed

The sending is `push`'s; what is sent, and when, is decided here.
Without a channel layer (`CHANNEL_LAYERS` unset) these are no-ops, so played-elsewhere
events, tests and commands need no server.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from ..models import PlayMode, Round, RoundStatus, Table, TournamentStatus
from ..push.channel import broadcast_group, encoded_views, send, send_each, table_group
from ..selectors import broadcasts as broadcast_reads
from ..selectors.table_server import bell_news


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
        "views": encoded_views(views),
        # The stored row (`replays.Row`): other processes bring their kept board up to
        # date with it instead of reading it (`replays.follow`).
        "board_id": board_id,
        "action": list(action) if action is not None else None,
    }
    send([table_group(table_id)], message)


def round_closed(*, round_id: int) -> None:
    """A round closed (called after the commit): each of its tables hears it, with all a
    socket there answers from without a read (`table_server.bell_news`): who sits where,
    where each player sits next, and what is stored of each board. Its broadcasts show
    every board now."""
    send_each(
        [(table_group(table_id), news) for table_id, news in bell_news(closed_round_id=round_id)]
        + [
            (broadcast_group(broadcast_id), _reload())
            for broadcast_id in broadcast_reads.broadcasts_of_round(round_id=round_id)
        ]
    )


def board_played(
    *,
    tournament_id: int,
    table_id: int,
    board_id: int,
    board_number: int,
    progress: dict | None,
    over: bool,
) -> None:
    """An action was stored at a table's board (called after the commit): the broadcasts
    whose room it is hear how far it has come (`progress`, given when it moved on: the
    auction over, a trick complete); when it finished the board there, every
    broadcast of the board's round learns when it may show it (`visibility`). Nothing is
    read unless the tournament broadcasts something."""
    rooms = broadcast_reads.broadcasting(tournament_id)
    if not rooms:
        return
    messages = [
        (
            broadcast_group(broadcast_id),
            {
                "type": "broadcast.progress",
                "table_id": table_id,
                "board": board_number,
                "progress": progress,
            },
        )
        for broadcast_id in (rooms.get(table_id, ()) if progress is not None else ())
    ]
    if over:
        for broadcast_id, number, release_at in broadcast_reads.broadcasts_of_board(
            board_id=board_id
        ):
            if release_at is not None:
                messages.append(
                    (
                        broadcast_group(broadcast_id),
                        {
                            "type": "broadcast.release",
                            "board": number,
                            "release_at": release_at.isoformat(),
                        },
                    )
                )
    send_each(messages)


def broadcast_comment(*, broadcast_id: int, comment: dict) -> None:
    send([broadcast_group(broadcast_id)], {"type": "broadcast.comment", "comment": comment})


def broadcast_changed(*, broadcast_id: int) -> None:
    """The broadcast's delay changed or it ended: its spectators read it again."""
    send([broadcast_group(broadcast_id)], _reload())


def _reload() -> dict:
    # `at`: the spectators' sockets of a process share one read made after it.
    return {"type": "broadcast.reload", "at": timezone.now().isoformat()}


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
    tables = list(Table.objects.filter(round_id=round_id).values_list("id", "ends_at"))
    send([table_group(t) for t, own in tables if own is None or own <= changed.ends_at], message)
    # A table with extra time hears its own bell (`services.table_director`).
    for t, own in tables:
        if own is not None and own > changed.ends_at:
            send([table_group(t)], {**message, "ends_at": own.isoformat()})


def round_changing(*, tournament, round) -> None:
    """The clock's hook where it moves a round's bell (extend, resume, a late opening)
    or stops the clock (pause): announce the round's clock once the change has
    committed, so an open table page follows without a reload (RULES 3, 9). Nothing for
    a played-elsewhere tournament, no round, or a closed one."""
    if tournament.play != PlayMode.ONLINE or round is None or round.status == RoundStatus.CLOSED:
        return
    round_id = round.pk
    transaction.on_commit(lambda: round_changed(round_id=round_id))
