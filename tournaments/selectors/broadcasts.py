"""What a broadcast shows (RULES 12, Vugraph): a match's two rooms, or one online table,
as every spectator sees them at a moment.

Built on the server, the same for every spectator (a player of the event is refused
before: `visibility.may_watch_broadcast`): a board's hands, auction, play and result in a
room only once `visibility.board_release_at` has passed; before that, how far each room
has come and nothing of its cards. The match's score counts released boards only, so the
score never tells what a room still playing the board has not seen.

A whole broadcast is read in a fixed number of queries (8), whatever its boards.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db.models import Count, Max, Q

import play
from teams.match import board_imps

from .. import visibility
from ..models import (
    Board,
    BoardResult,
    Broadcast,
    BroadcastComment,
    Match,
    PairSeats,
    PlayAction,
    ResultState,
    Round,
    Table,
    TournamentStatus,
    display_name,
)
from .board_views import KIBITZER, WATCHER, action_of, board_json

ROOM_OPEN, ROOM_CLOSED, ROOM_TABLE = "open", "closed", "table"


@dataclass(frozen=True)
class BroadcastRoom:
    key: str  # ROOM_OPEN, ROOM_CLOSED, or ROOM_TABLE (a broadcast of one table)
    table: Table
    players: dict[str, str]  # seat -> name


def broadcast(broadcast_id: int) -> Broadcast | None:
    """The broadcast with its tournament, match (and teams) and tables, or None."""
    return (
        Broadcast.objects.select_related(
            "tournament",
            "match__home",
            "match__away",
            "match__round",
            "match__open_table__round",
            "match__closed_table__round",
            "table__round",
        )
        .filter(pk=broadcast_id)
        .first()
    )


def broadcast_round(item: Broadcast) -> Round:
    if item.match is not None:
        return item.match.round
    assert item.table is not None
    return item.table.round


def event_over(item: Broadcast) -> bool:
    return item.tournament.status == TournamentStatus.FINISHED


def _rooms(item: Broadcast) -> list[BroadcastRoom]:
    if item.match is not None:
        assert item.match.open_table is not None and item.match.closed_table is not None
        tables = [(ROOM_OPEN, item.match.open_table), (ROOM_CLOSED, item.match.closed_table)]
    else:
        assert item.table is not None
        tables = [(ROOM_TABLE, item.table)]
    loaded = {
        table.pk: table
        for table in Table.objects.filter(pk__in=[t.pk for _k, t in tables]).select_related(
            "ns_pair__player1__profile",
            "ns_pair__player2__profile",
            "ew_pair__player1__profile",
            "ew_pair__player2__profile",
        )
    }
    swapped = set(
        PairSeats.objects.filter(table_id__in=loaded, swapped=True).values_list(
            "table_id", "pair_id"
        )
    )
    rooms = []
    for key, table in tables:
        full = loaded[table.pk]
        names: dict[str, str] = {}
        for first, second, pair in (("N", "S", full.ns_pair), ("E", "W", full.ew_pair)):
            players = [pair.player1, pair.player2]
            if (full.pk, pair.pk) in swapped:
                players.reverse()
            for seat, user in zip((first, second), players, strict=True):
                profile = getattr(user, "profile", None)
                names[seat] = display_name(
                    getattr(profile, "display_name", None), user.get_username()
                )
        rooms.append(BroadcastRoom(key=key, table=full, players=names))
    return rooms


@dataclass(frozen=True)
class _BoardFacts:
    board: Board
    release_at: datetime | None


def _boards(item: Broadcast, round: Round) -> list[_BoardFacts]:
    """The round's boards with their release time (three queries)."""
    boards = list(Board.objects.filter(round=round).order_by("number"))
    tables = Table.objects.filter(round=round).count()
    finished = {
        board_id: (count, last)
        for board_id, count, last in BoardResult.objects.filter(board__round=round)
        .values("board_id")
        .annotate(n=Count("id"), last=Max("entered_at"))
        .values_list("board_id", "n", "last")
    }
    delay = timedelta(minutes=item.delay_minutes)
    facts = []
    for board in boards:
        count, last = finished.get(board.pk, (0, None))
        release_at = visibility.board_release_at(
            round_status=round.status, tables=tables, finished=count, last=last, delay=delay
        )
        facts.append(_BoardFacts(board=board, release_at=release_at))
    return facts


def _states(
    rooms: list[BroadcastRoom], boards: list[Board]
) -> dict[tuple[int, int], play.BoardState]:
    """Every room's every board replayed from its stored actions (one query)."""
    rows: dict[tuple[int, int], list] = {}
    for row in PlayAction.objects.filter(
        table_id__in=[room.table.pk for room in rooms], board__in=boards
    ).order_by("table_id", "board_id", "seq"):
        rows.setdefault((row.table_id, row.board_id), []).append(row)
    states = {}
    for room in rooms:
        for board in boards:
            actions = map(action_of, rows.get((room.table.pk, board.pk), []))
            states[room.table.pk, board.pk] = play.BoardState.replay(
                board.deal, board.dealer, board.vulnerability, actions
            )
    return states


def _results(rooms: list[BroadcastRoom], boards: list[Board]) -> dict[tuple[int, int], dict]:
    """Each room's stored result of each board (one query): the score that counts, a
    director's ruling included, whatever the cards said."""
    found = {}
    for result in BoardResult.objects.filter(
        table_id__in=[room.table.pk for room in rooms], board__in=boards
    ):
        found[result.table_id, result.board_id] = {
            "state": result.state,
            "contract": result.contract,
            "declarer": result.declarer or None,
            "tricks": result.tricks,
            "ns_score": result.ns_score,
            "adjusted": result.state == ResultState.ADJUSTED,
        }
    return found


def _imps(rooms: list[BroadcastRoom], results: dict, board: Board) -> int | None:
    """The home team's IMPs on `board` (open room's NS minus closed room's NS), None while
    a room has no score (cut off, unplayed, or a one-table broadcast)."""
    if len(rooms) != 2:
        return None
    open_result = results.get((rooms[0].table.pk, board.pk))
    closed_result = results.get((rooms[1].table.pk, board.pk))
    if open_result is None or closed_result is None:
        return None
    if open_result["ns_score"] is None or closed_result["ns_score"] is None:
        return None
    return board_imps(open_result["ns_score"], closed_result["ns_score"])


def _room_board(
    room: BroadcastRoom, board: Board, state: play.BoardState, result: dict | None, shown: bool
) -> dict:
    if shown:
        view = board_json(state, viewer=WATCHER, seat=None, public=True)
        view["stored_result"] = result
        return view
    return board_json(state, viewer=KIBITZER, seat=None)


def _teams(item: Broadcast) -> dict | None:
    match: Match | None = item.match
    if match is None or match.away is None:
        return None
    return {"home": match.home.name, "away": match.away.name, "carry_over": match.carry_over}


def snapshot(*, item: Broadcast, now: datetime) -> dict:
    """The whole broadcast as every spectator sees it at `now` (8 queries)."""
    round = broadcast_round(item)
    rooms = _rooms(item)
    facts = _boards(item, round)
    boards = [fact.board for fact in facts]
    states = _states(rooms, boards)
    results = _results(rooms, boards)
    teams = _teams(item)
    home_imps = away_imps = 0
    board_lines = []
    next_release = None
    for fact in facts:
        board = fact.board
        shown = visibility.released(fact.release_at, now)
        if not shown and fact.release_at is not None:
            next_release = min(next_release or fact.release_at, fact.release_at)
        imps = _imps(rooms, results, board) if shown else None
        if imps is not None:
            home_imps += max(imps, 0)
            away_imps += max(-imps, 0)
        board_lines.append(
            {
                "number": board.number,
                "released": shown,
                "dealer": board.dealer,
                "vulnerability": board.vulnerability,
                "rooms": {
                    room.key: _room_board(
                        room,
                        board,
                        states[room.table.pk, board.pk],
                        results.get((room.table.pk, board.pk)) if shown else None,
                        shown,
                    )
                    for room in rooms
                },
                "imps": imps,
            }
        )
    score = None
    if teams is not None:
        carry = teams["carry_over"]
        score = {
            "home": home_imps + max(carry, 0),
            "away": away_imps + max(-carry, 0),
            "carry_over": carry,
        }
    comments = [
        comment_json(comment)
        for comment in BroadcastComment.objects.filter(broadcast=item)
        .select_related("by__profile")
        .order_by("id")
    ]
    return {
        "id": item.pk,
        "tournament": {"id": item.tournament_id, "name": item.tournament.name},
        "round": round.number,
        "round_status": round.status,
        "delay_minutes": item.delay_minutes,
        "teams": teams,
        "rooms": [
            {
                "key": room.key,
                "table": room.table.number,
                "table_id": room.table.pk,
                "players": room.players,
            }
            for room in rooms
        ],
        "boards": board_lines,
        "score": score,
        "comments": comments,
        "next_release_at": next_release.isoformat() if next_release else None,
        "event_over": event_over(item),
        "at": now.isoformat(),
    }


def comment_json(comment: BroadcastComment) -> dict:
    by = comment.by
    name = ""
    if by is not None:
        profile = getattr(by, "profile", None)
        name = display_name(getattr(profile, "display_name", None), by.get_username())
    return {"id": comment.pk, "at": comment.at.isoformat(), "text": comment.text, "by": name}


@dataclass(frozen=True)
class Listed:
    """A broadcast as a list names it (the tournament page, the home page, the console)."""

    id: int
    tournament_id: int
    tournament_name: str
    round: int
    match_id: int | None
    match_number: int | None
    home: str | None
    away: str | None
    table_id: int | None  # a one-table broadcast's table
    table_number: int | None
    delay_minutes: int
    live: bool  # its event still runs


def listed(*, tournament_id: int | None = None, live_only: bool = False) -> list[Listed]:
    """The broadcasts of a tournament (or of every tournament), newest first; with
    `live_only`, those of events still running. One query."""
    found = Broadcast.objects.select_related(
        "tournament", "match__home", "match__away", "match__round", "table__round"
    )
    if tournament_id is not None:
        found = found.filter(tournament_id=tournament_id)
    if live_only:
        found = found.exclude(tournament__status=TournamentStatus.FINISHED)
    rows = []
    for item in found.order_by("-created_at", "-id")[:50]:
        match, table = item.match, item.table
        rows.append(
            Listed(
                id=item.pk,
                tournament_id=item.tournament_id,
                tournament_name=item.tournament.name,
                round=broadcast_round(item).number,
                match_id=match.pk if match is not None else None,
                match_number=match.number if match is not None else None,
                home=match.home.name if match is not None else None,
                away=match.away.name if match is not None and match.away is not None else None,
                table_id=table.pk if table is not None else None,
                table_number=table.number if table is not None else None,
                delay_minutes=item.delay_minutes,
                live=not event_over(item),
            )
        )
    return rows


def broadcasts_of_board(*, board_id: int) -> list[tuple[int, int, datetime | None]]:
    """(broadcast id, board number, release time) of every broadcast showing the board `board_id`
    (a match or table of the board's round): asked when a table finishes the board, so
    each broadcast's spectators learn when to see it. Three queries; none when the
    tournament broadcasts nothing."""
    board = Board.objects.select_related("round").filter(pk=board_id).first()
    if board is None or board.round is None:
        return []
    round = board.round
    found = list(
        Broadcast.objects.filter(tournament_id=board.tournament_id).values_list(
            "pk", "delay_minutes", "match__round_id", "table__round_id"
        )
    )
    found = [row for row in found if round.pk in (row[2], row[3])]
    if not found:
        return []
    tables = Table.objects.filter(round=round).count()
    done = BoardResult.objects.filter(board_id=board_id).aggregate(
        n=Count("id"), last=Max("entered_at")
    )
    return [
        (
            broadcast_id,
            board.number,
            visibility.board_release_at(
                round_status=round.status,
                tables=tables,
                finished=done["n"],
                last=done["last"],
                delay=timedelta(minutes=delay),
            ),
        )
        for broadcast_id, delay, _match_round, _table_round in found
    ]


def broadcasts_of_round(*, round_id: int) -> list[int]:
    """The broadcasts showing a round's tables (told when its bell releases every board)."""
    return list(
        Broadcast.objects.filter(
            Q(match__round_id=round_id) | Q(table__round_id=round_id)
        ).values_list("pk", flat=True)
    )


# Which tables of a tournament are a broadcast's rooms, as this process last read it:
# asked after every action at every table (a room tells its spectators how far it has
# come), so it is read at most once every few seconds per tournament, not per action.
_BROADCASTING_SECONDS = 3.0
_broadcasting: dict[int, tuple[float, dict[int, list[int]]]] = {}


def broadcasting(tournament_id: int) -> dict[int, list[int]]:
    """{table id: the broadcasts it is a room of} of the tournament; empty when it
    broadcasts nothing (kept a few seconds: a new broadcast's rooms tell their progress
    from then on; its releases and snapshots never depend on this)."""
    kept = _broadcasting.get(tournament_id)
    now = time.monotonic()
    if kept is not None and kept[0] > now:
        return kept[1]
    rooms: dict[int, list[int]] = {}
    for broadcast_id, table_id, open_id, closed_id in Broadcast.objects.filter(
        tournament_id=tournament_id
    ).values_list("pk", "table_id", "match__open_table_id", "match__closed_table_id"):
        for room in (table_id, open_id, closed_id):
            if room is not None:
                rooms.setdefault(room, []).append(broadcast_id)
    _broadcasting[tournament_id] = (now + _BROADCASTING_SECONDS, rooms)
    return rooms


def forget_broadcasting(tournament_id: int | None = None) -> None:
    if tournament_id is None:
        _broadcasting.clear()
    else:
        _broadcasting.pop(tournament_id, None)
