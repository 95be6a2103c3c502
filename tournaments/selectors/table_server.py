"""Reads the table server and the table's page need besides the board view: the table a
socket names, what the bell tells each table, the board in play at a table, and the user
as stored now."""

from __future__ import annotations

from functools import cache

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser
from django.db.models import Count, F, Q, Window
from django.db.models.functions import RowNumber
from django.urls import reverse
from django.utils.translation import gettext as _

from .. import sql, visibility
from ..errors import NotFound
from ..models import Board, BoardResult, Pair, PairSeats, PlayAction, PlayMode, Round, Table
from . import replays, table_seats

# How many of each board's last actions the bell carries (`bell_news`'s "last_rows").
BELL_ROWS = 3

# The results the bell itself stored (`clock._cut_off_unplayed`): nobody entered them and
# no board was played to them.
_BELLS = Q(played_online=False, entered_by__isnull=True)


@cache
def _table_sql(by_id: bool) -> str:
    """Table, its round's number and both pairs' players: one prepared statement (every
    seat opens one socket per board)."""
    t, r, p = (sql.table(m) for m in (Table, Round, Pair))

    def col(model, name: str) -> str:
        return sql.column(model, name)

    pair = [col(Pair, "id"), col(Pair, "player1"), col(Pair, "player2")]
    where = (
        f"tb.{col(Table, 'id')} = %s"
        if by_id
        else f"r.{col(Round, 'tournament')} = %s AND r.{col(Round, 'number')} = %s"
        f" AND tb.{col(Table, 'number')} = %s"
    )
    return (
        f"SELECT tb.{col(Table, 'id')}, tb.{col(Table, 'number')}, r.{col(Round, 'id')},"
        f" r.{col(Round, 'number')}, r.{col(Round, 'tournament')},"
        f" {', '.join(f'ns.{c}' for c in pair)}, {', '.join(f'ew.{c}' for c in pair)}"
        f" FROM {t} tb JOIN {r} r ON r.{col(Round, 'id')} = tb.{col(Table, 'round')}"
        f" JOIN {p} ns ON ns.{col(Pair, 'id')} = tb.{col(Table, 'ns_pair')}"
        f" JOIN {p} ew ON ew.{col(Pair, 'id')} = tb.{col(Table, 'ew_pair')}"
        f" WHERE {where}"
    )


def table_for_socket(
    *,
    table_id: int | None = None,
    tournament_id: int | None = None,
    round_number: int | None = None,
    table_number: int | None = None,
) -> Table | None:
    """The table a socket names, by id or as the HTTP API does (tournament, round
    number, table number), with what the board view and the seat checks read (its
    round's number, both pairs' players); None if there is none."""
    if table_id is not None:
        row = sql.fetch_one_prepared(_table_sql(True), [table_id])
    else:
        row = sql.fetch_one_prepared(_table_sql(False), [tournament_id, round_number, table_number])
    if row is None:
        return None
    pk, number, round_id, round_number, tournament, *players = row
    pairs = [
        sql.instance(Pair, ("id", "player1_id", "player2_id"), players[i : i + 3]) for i in (0, 3)
    ]
    table = sql.instance(
        Table,
        ("id", "round_id", "number", "ns_pair_id", "ew_pair_id"),
        (pk, round_id, number, pairs[0].pk, pairs[1].pk),
    )
    Table.round.field.set_cached_value(
        table,
        sql.instance(
            Round, ("id", "tournament_id", "number"), (round_id, tournament, round_number)
        ),
    )
    Table.ns_pair.field.set_cached_value(table, pairs[0])
    Table.ew_pair.field.set_cached_value(table, pairs[1])
    return table


def bell_news(*, closed_round_id: int) -> list[tuple[int, dict]]:
    """What each table of a closed round is told at the bell (`announcements.round_closed`),
    as (table id, message), in a fixed number of queries whatever the field's size: who
    sits where at the table, where each of its players sits in the next round, and what
    is stored of each board there, so that every socket answers from the message and the
    board its process keeps (`replays.kept_state`) without reading anything.

    The message: {"type": "round.closed", "round_id", "tournament_id", "round",
    "status" (the round's, for `visibility`), "seats": {seat: user id}, "next": {user
    id: {"round", "table", "table_number", "direction"} or None (a bye, or no next
    round)}, "boards": {board number: [board id, actions stored, id of the last]},
    "last_rows": {board number: its last `BELL_ROWS` actions as `replays.Row`s, oldest
    first (boards with none are left out)},
    "cut_off": {board number: {"state", "ns", "ew"}: the result the bell gave each board
    not over there, by the unplayed-board policy}, "policy" (that policy),
    "tournament_over" (it was the last round), "results_url" (then, else None)}."""
    closed = (
        Round.objects.filter(pk=closed_round_id)
        .values(
            "tournament_id", "number", "status", "tournament__rounds",
            "tournament__unplayed_policy",
        )
        .first()
    )  # fmt: skip
    if closed is None:
        return []
    over = closed["number"] >= closed["tournament__rounds"]
    results_url = reverse("results", args=[closed["tournament_id"]]) if over else None
    # The bell's own results: the cut-off boards (no one entered them, none was played).
    cut_off: dict[int, dict[str, dict[str, str]]] = {}
    for at_table, board_number, state, ns_adj, ew_adj in (
        BoardResult.objects.filter(_BELLS, board__round_id=closed_round_id)
        .values_list("table_id", "board__number", "state", "ns_adjustment", "ew_adjustment")
        .order_by()
    ):
        cut_off.setdefault(at_table, {})[str(board_number)] = {
            "state": state, "ns": ns_adj, "ew": ew_adj,
        }  # fmt: skip
    players = ("player1_id", "player2_id")
    tables = list(
        Table.objects.filter(round_id=closed_round_id).values_list(
            "id", "ns_pair_id", "ew_pair_id",
            *(f"ns_pair__{p}" for p in players), *(f"ew_pair__{p}" for p in players),
        )
    )  # fmt: skip
    swapped = set(
        PairSeats.objects.filter(table__round_id=closed_round_id, swapped=True).values_list(
            "table_id", "pair_id"
        )
    )
    following = (
        Round.objects.filter(tournament_id=closed["tournament_id"], number=closed["number"] + 1)
        .values("id", "number")
        .first()
    )
    next_of_pair: dict[int, dict] = {}
    if following is not None:
        for table_id, number, ns, ew in Table.objects.filter(round_id=following["id"]).values_list(
            "id", "number", "ns_pair_id", "ew_pair_id"
        ):
            for pair_id, direction in ((ns, "NS"), (ew, "EW")):
                next_of_pair[pair_id] = {
                    "round": following["number"],
                    "table": table_id,
                    "table_number": number,
                    "direction": direction,
                }
    numbers = dict(Board.objects.filter(round_id=closed_round_id).values_list("id", "number"))
    stored: dict[int, dict[str, list[int]]] = {}
    # The last BELL_ROWS actions of each board, oldest first: a process whose kept board
    # is that little behind (the last actions' events not yet heard: its loop, or the
    # other process's publishing, was slow) catches up from them without a read.
    last_rows: dict[int, dict[str, list[list]]] = {}
    each_board = [F("table_id"), F("board_id")]
    for table_id, board_id, count, *row in (
        PlayAction.objects.filter(table__round_id=closed_round_id)
        .annotate(
            stored_count=Window(Count("id"), partition_by=each_board),
            back=Window(RowNumber(), partition_by=each_board, order_by=F("seq").desc()),
        )
        .filter(back__lte=BELL_ROWS)
        .order_by("table_id", "board_id", "seq")
        .values_list("table_id", "board_id", "stored_count", *replays.Row._fields)
    ):
        played_at = str(numbers[board_id])
        # In the order of `seq`: the last row written is the last action's.
        stored.setdefault(table_id, {})[played_at] = [board_id, count, row[0]]
        last_rows.setdefault(table_id, {}).setdefault(played_at, []).append(row)
    news = []
    for table_id, ns_id, ew_id, ns1, ns2, ew1, ew2 in tables:
        seats = {}
        for (first, second), pair_id, pair in (
            (("N", "S"), ns_id, (ns1, ns2)),
            (("E", "W"), ew_id, (ew1, ew2)),
        ):
            in_order = pair[::-1] if (table_id, pair_id) in swapped else pair
            seats[first], seats[second] = in_order
        boards = {str(n): [board_id, 0, 0] for board_id, n in numbers.items()}
        boards.update(stored.get(table_id, {}))
        news.append(
            (
                table_id,
                {
                    "type": "round.closed",
                    "round_id": closed_round_id,
                    "tournament_id": closed["tournament_id"],
                    "round": closed["number"],
                    "status": closed["status"],
                    "seats": seats,
                    "next": {
                        str(user_id): next_of_pair.get(pair_id)
                        for pair_id, pair in ((ns_id, (ns1, ns2)), (ew_id, (ew1, ew2)))
                        for user_id in pair
                    },
                    "boards": boards,
                    "last_rows": last_rows.get(table_id, {}),
                    "cut_off": cut_off.get(table_id, {}),
                    "policy": closed["tournament__unplayed_policy"],
                    "tournament_over": over,
                    "results_url": results_url,
                },
            )
        )
    return news


def after_the_bell(*, table: Table, user_id: int | None) -> dict:
    """What `round_closed` tells a socket about what comes next, for one that opened after
    its round's bell (it was connecting, or moving to its next board, when the bell was
    sent, and so heard none): {"next": where this user sits in the next round, as
    `bell_news` says it, or None (a bye, the last round, not a player here),
    "tournament_over", "results_url"}. Three queries; only such a late socket asks."""
    closed = (
        Round.objects.filter(pk=table.round_id)
        .values("tournament_id", "number", "tournament__rounds")
        .first()
    )
    if closed is None:
        return {"next": None, "tournament_over": False, "results_url": None}
    over = closed["number"] >= closed["tournament__rounds"]
    following = None
    pair_id = None
    if user_id is not None:
        pair_id = (
            Pair.objects.filter(pk__in=(table.ns_pair_id, table.ew_pair_id))
            .filter(Q(player1_id=user_id) | Q(player2_id=user_id))
            .values_list("id", flat=True)
            .first()
        )
    if pair_id is not None and not over:
        row = (
            Table.objects.filter(
                round__tournament_id=closed["tournament_id"],
                round__number=closed["number"] + 1,
            )
            .filter(Q(ns_pair_id=pair_id) | Q(ew_pair_id=pair_id))
            .values_list("id", "number", "ns_pair_id", "round__number")
            .first()
        )
        if row is not None:
            table_id, number, ns_id, round_number = row
            following = {
                "round": round_number,
                "table": table_id,
                "table_number": number,
                "direction": "NS" if ns_id == pair_id else "EW",
            }
    return {
        "next": following,
        "tournament_over": over,
        "results_url": reverse("results", args=[closed["tournament_id"]]) if over else None,
    }


def user_afresh(user):
    """`user` as stored now, so that their permissions are read again (a socket keeps
    the user it was opened by, whose permissions Django caches): an account closed or
    removed since is anonymous, and an anonymous user stays one."""
    if not getattr(user, "is_authenticated", False):
        return user
    stored = get_user_model().objects.filter(pk=user.pk, is_active=True).first()
    return stored if stored is not None else AnonymousUser()


def board_in_play(
    *, table: Table, user, kibitz: bool = False, library: bool = False
) -> tuple[list[int], int]:
    """The numbers of the round's boards and the one in play at `table` (the first with no
    result there: boards are played in order), for whoever may watch the table
    (`visibility.table_viewer`; with `kibitz`, anyone: as a kibitzer; `library`: the
    format's `library_deals`, where a director is anyone); `NotAllowed` otherwise. Builds
    no view and sends no hand, so opening the table's page leaves the seats as they are."""
    table = table_seats.with_pairs(table)
    round = Round.objects.select_related("tournament").get(pk=table.round_id)
    if round.tournament.play != PlayMode.ONLINE:
        raise NotFound(
            _("This tournament is played elsewhere: its boards are not played at our tables.")
        )
    seat = table_seats.seat_of(table, user)
    if (
        visibility.table_viewer(user=user, round=round, seat=seat, kibitz=kibitz, library=library)
        is None
    ):
        raise table_seats.watch_refused(table, round.number)
    numbers = list(
        Board.objects.filter(round=round).order_by("number").values_list("number", flat=True)
    )
    if not numbers:
        raise NotFound(_("No boards are played in this round."))
    # A board the bell cut off is not done: it was in play when the bell rang, and the
    # page opened after the close shows it (and what the bell made of it, `cut_off`).
    done = set(
        BoardResult.objects.filter(table_id=table.pk)
        .exclude(_BELLS)
        .values_list("board__number", flat=True)
    )
    return numbers, next((n for n in numbers if n not in done), numbers[-1])


def cut_off_text(board_number: int, result: dict) -> str:
    """A board the bell cut off, as the player is told it (RULES 3: the unplayed-board
    policy's score): the bell's message and the page opened after it say the same."""
    adjustments = (result.get("ns"), result.get("ew"))
    if result.get("state") == "not_played" or not any(adjustments):
        return _("Board %(b)s was not finished at the bell: it is not scored (not played).") % {
            "b": board_number
        }
    if adjustments == ("A", "A"):
        return _("Board %(b)s was not finished at the bell: scored as average (A=).") % {
            "b": board_number
        }
    if adjustments == ("A-", "A-"):
        return _(
            "Board %(b)s was not finished at the bell: scored as average minus (A−) to both"
            " sides."
        ) % {"b": board_number}  # fmt: skip
    return _("Board %(b)s was not finished at the bell: the director's adjusted score.") % {
        "b": board_number
    }


def cut_off(*, board_number: int, policy: str | None, result: dict) -> dict:
    """The `cut_off` of the protocol (docs/PLAY_PROTOCOL.md, the bell): what the bell made
    of a board not over, said in the user's language."""
    return {
        "board": board_number,
        "policy": policy,
        "text": cut_off_text(board_number, result),
        "result": result,
    }


def stored_cut_off(*, table: Table, board_number: int) -> dict | None:
    """`cut_off` for `board_number` at `table` from the result the bell stored, or None
    when the bell did not cut it off (played out, entered, or the round not closed)."""
    stored = (
        BoardResult.objects.filter(_BELLS, table_id=table.pk, board__number=board_number)
        .values_list(
            "state", "ns_adjustment", "ew_adjustment", "board__round__tournament__unplayed_policy"
        )
        .first()
    )
    if stored is None:
        return None
    state, ns_adj, ew_adj, policy = stored
    result = {"state": state, "ns": ns_adj, "ew": ew_adj}
    return cut_off(board_number=board_number, policy=policy, result=result)
