"""Playing a board at a system table: what one person may see, and one action at a time.

`act` is the only writer. Inside one transaction it takes the round's share lock (like
result entry: the close takes it FOR UPDATE, so an action either commits before the
close and is counted, or sees the round closed and is refused — never both), then the
table row, so actions at one table are decided one after the other on the stored
state. An accepted action is one `PlayAction` row numbered `seq` (unique in the
database); when it ends the board, the result is stored in the same transaction as an
entered-and-confirmed `BoardResult` marked `played_online`, so scoring, standings,
pages, the API and the exports read it like any other result.

The board itself comes from `replays` (this process's replayed state, brought up to date
with the rows it has not seen), and after the commit the five views of the new state —
each seat's and an organiser's — are built once and sent to the table's group
(`announcements.views_stored`); no socket reads the database to follow the play.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from functools import cache

from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

import play

from .. import round_rules, sql, validators, visibility
from ..errors import NotAllowed, NotFound, PlayRefused, scoring_message
from ..models import (
    Board,
    BoardResult,
    FormatKey,
    PairMember,
    PairSeats,
    PlayAction,
    PlayMode,
    ResultChangeKind,
    ResultState,
    Round,
    RoundStatus,
    Table,
    TeamMember,
    Tournament,
    TournamentStatus,
    format_key_of,
)
from ..selectors import replays, table_seats, table_server
from ..selectors.board_views import KIBITZER, WATCHER, board_json, table_views
from . import announcements, formats, history, seats

KINDS = ("call", "card", "claim", "accept", "reject")
MAX_ALERT: int = PlayAction._meta.get_field("alert").max_length  # type: ignore[assignment]  # set on the field
MAX_STATEMENT: int = PlayAction._meta.get_field("statement").max_length  # type: ignore[assignment]  # set on the field


@dataclass(frozen=True)
class _Context:
    """The round, tournament and board: what does not change while a table plays it
    (the round's status apart, which the round's share lock holds still in `act`)."""

    round_number: int
    round_status: str
    starts_at: datetime
    ends_at: datetime
    closed_at: datetime | None
    tournament_status: str
    play: str
    board_id: int | None
    deal: str
    dealer: str
    vulnerability: str
    paused_at: datetime | None  # when the tournament was paused (None while it runs)
    tournament_id: int
    kibitz_live: bool  # the organiser lets kibitzers see the hands live
    format_key: FormatKey  # the format a stored result is handed to (`board_finished`)

    @property
    def paused(self) -> bool:
        return self.tournament_status == TournamentStatus.PAUSED

    def clock(self, now: datetime) -> dict:
        return round_rules.clock_state(
            round_number=self.round_number,
            round_status=self.round_status,
            starts_at=self.starts_at,
            ends_at=self.ends_at,
            paused=self.paused,
            now=now,
        )


@cache
def _context_sql(lock: bool) -> str:
    # With `lock`: the round's share lock (result entry does the same: the close takes it
    # FOR UPDATE, so an action commits before the close or sees the round closed) and
    # the table FOR NO KEY UPDATE (actions and swaps at one table in turn; the close's
    # cut-off results, whose foreign key only needs KEY SHARE, are not held up).
    table = f" JOIN {Table._meta.db_table} tb ON tb.id = %s AND tb.round_id = r.id" if lock else ""
    locks = f"{sql.round_share_lock('r')} FOR NO KEY UPDATE OF tb" if lock else ""
    return (
        "SELECT r.number, r.status, r.starts_at, r.ends_at, r.closed_at, t.status, t.play,"
        " b.id, b.deal, b.dealer, b.vulnerability, t.paused_at, t.id, t.kibitz_live,"
        " t.contestants, t.seating,"
        # The table's own bell, if the director gave it extra time (round_rules.table_bell).
        f" (SELECT x.ends_at FROM {Table._meta.db_table} x WHERE x.id = %s)"
        f" FROM {Round._meta.db_table} r"
        f" JOIN {Tournament._meta.db_table} t ON t.id = r.tournament_id{table}"
        f" LEFT JOIN {Board._meta.db_table} b ON b.round_id = r.id AND b.number = %s"
        f" WHERE r.id = %s{locks}"
    )


def _context(*, table: Table, board_number: int, lock: bool) -> _Context:
    """The round, tournament and board in one statement; with `lock` (PostgreSQL), the
    round and the table locked by it too."""
    if not sql.storable(board_number):
        board_number = 0  # no board has it: answered "not played in this round"
    lock = lock and connection.vendor == "postgresql"
    params = [table.pk] if lock else []
    row = sql.fetch_one_prepared(
        _context_sql(lock), [table.pk, *params, board_number, table.round_id]
    )
    if row is None:
        raise NotFound(_("This table's round no longer exists."))
    number, status, starts_at, ends_at, closed_at, t_status, mode, board_id, *dealt = row
    (
        deal,
        dealer,
        vulnerability,
        paused_at,
        tournament_id,
        kibitz_live,
        contestants,
        seating,
        own_bell,
    ) = dealt
    context = _Context(
        round_number=number,
        round_status=status,
        starts_at=sql.timestamp(starts_at),
        ends_at=round_rules.table_bell(
            round_ends_at=sql.timestamp(ends_at), table_ends_at=sql.timestamp(own_bell)
        ),
        closed_at=sql.timestamp(closed_at),
        tournament_status=t_status,
        play=mode,
        board_id=board_id,
        deal=deal,
        dealer=dealer,
        vulnerability=vulnerability,
        paused_at=sql.timestamp(paused_at),
        tournament_id=tournament_id,
        kibitz_live=bool(kibitz_live),
        format_key=format_key_of(contestants=contestants, seating=seating),
    )
    if context.play != PlayMode.ONLINE:
        raise NotFound(
            _("This tournament is played elsewhere: its boards are not played at our tables.")
        )
    if context.board_id is None:
        raise NotFound(
            _("Board %(b)s is not played in round %(n)s.") % {"b": board_number, "n": number}
        )
    return context


@dataclass(frozen=True)
class _TableNow:
    """What play at the table has changed so far. In `act` it is read once the table's
    lock is held, so it is what the previous action committed."""

    stored: replays.Stored  # this board's actions
    earlier_unfinished: int | None  # the first earlier board of the round not over here
    result_state: str | None  # this board's result, if any
    result_online: bool | None
    swapped: frozenset[int]  # the pairs that swapped their seats
    fixed: frozenset[int]  # the pairs whose seats are fixed for the round (`PairSeats`)


@cache
def _table_now_sql() -> str:
    action, result, board, seats = PlayAction, BoardResult, Board, PairSeats

    def col(model, name: str) -> str:
        return sql.column(model, name)

    def result_field(name: str) -> str:
        return (
            f"(SELECT {col(result, name)} FROM {sql.table(result)}"
            f" WHERE {col(result, 'board')} = %s AND {col(result, 'table')} = %s)"
        )

    def pair_has(condition: str) -> str:
        return (
            f"EXISTS (SELECT 1 FROM {sql.table(seats)}"
            f" WHERE {col(seats, 'table')} = %s AND {col(seats, 'pair')} = %s AND {condition})"
        )

    swapped = pair_has(col(seats, "swapped"))
    fixed = pair_has(f"{col(seats, 'fixed_at')} IS NOT NULL")
    # The last action by its seq: a backward step of the (table, board, seq) index, however
    # many actions the other tables of the round have stored.
    last = (
        f"SELECT {{}} FROM {sql.table(action)}"
        f" WHERE {col(action, 'table')} = %s AND {col(action, 'board')} = %s"
        f" ORDER BY {col(action, 'seq')} DESC LIMIT 1"
    )
    return (
        f"SELECT COALESCE(({last.format(col(action, 'seq'))}), 0),"
        f" COALESCE(({last.format(col(action, 'id'))}), 0),"
        # Boards are played in order (RULES 9): the first earlier board with no result.
        f" (SELECT MIN(b.{col(board, 'number')}) FROM {sql.table(board)} b"
        f"  WHERE b.{col(board, 'round')} = %s AND b.{col(board, 'number')} < %s"
        f"  AND NOT EXISTS (SELECT 1 FROM {sql.table(result)} br"
        f"   WHERE br.{col(result, 'board')} = b.{col(board, 'id')}"
        f"   AND br.{col(result, 'table')} = %s)),"
        f" {result_field('state')}, {result_field('played_online')}, {swapped}, {swapped},"
        f" {fixed}, {fixed}"
    )


def _table_now(*, table: Table, board_number: int, context: _Context) -> _TableNow:
    last = [table.pk, context.board_id]
    result = [context.board_id, table.pk]
    row = sql.fetch_one_prepared(
        _table_now_sql(),
        [
            *last,
            *last,
            table.round_id,
            board_number,
            table.pk,
            *result,
            *result,
            table.pk,
            table.ns_pair_id,
            table.pk,
            table.ew_pair_id,
            table.pk,
            table.ns_pair_id,
            table.pk,
            table.ew_pair_id,
        ],  # fmt: skip
    )
    assert row is not None  # a SELECT without FROM answers one row
    count, last_id, earlier, state, online, ns_swapped, ew_swapped, ns_fixed, ew_fixed = row

    def pairs(ns: bool, ew: bool) -> frozenset[int]:
        return frozenset(p for p, flag in ((table.ns_pair_id, ns), (table.ew_pair_id, ew)) if flag)

    return _TableNow(
        stored=replays.Stored(count, last_id),
        earlier_unfinished=earlier,
        result_state=state,
        result_online=None if online is None else bool(online),
        swapped=pairs(ns_swapped, ew_swapped),
        fixed=pairs(ns_fixed, ew_fixed),
    )


@cache
def _insert_action_sql() -> str:
    names = (
        "table", "board", "seq", "seat", "kind", "call", "alert", "card", "tricks", "statement",
        "by",
    )  # fmt: skip
    columns = ", ".join(sql.column(PlayAction, name) for name in (*names, "stored_at"))
    return (
        f"INSERT INTO {sql.table(PlayAction)} ({columns})"
        f" VALUES ({', '.join(['%s'] * (len(names) + 1))}) RETURNING {sql.column(PlayAction, 'id')}"
    )


def _store_action(
    *, table: Table, board_id: int, seq: int, fields: dict, user, now: datetime
) -> int:
    """One `PlayAction` row (fixed SQL: this is the statement of every call and card);
    its id."""
    row = sql.fetch_one_prepared(
        _insert_action_sql(),
        [
            table.pk,
            board_id,
            seq,
            fields["seat"],
            fields["kind"],
            fields["call"],
            fields["alert"],
            fields["card"],
            fields["tricks"],
            fields["statement"],
            user.pk,
            connection.ops.adapt_datetimefield_value(now),
        ],  # fmt: skip
    )
    assert row is not None  # RETURNING answers the new row
    return row[0]


def _board(*, table: Table, context: _Context, now_at: _TableNow) -> play.BoardState:
    assert context.board_id is not None  # `_context` refuses a board not in the round
    return replays.board_state(
        table_id=table.pk,
        board_id=context.board_id,
        stored=now_at.stored,
        deal=context.deal,
        dealer=context.dealer,
        vulnerability=context.vulnerability,
    )


def plays_in_tournament(*, tournament_id: int, user) -> bool:
    """Whether `user` plays in the tournament: a member of one of its pairs, or a
    confirmed member of one of its teams (whose pairs have no `PairMember` rows)."""
    user_id = getattr(user, "pk", None)
    if user_id is None or not getattr(user, "is_authenticated", False):
        return False
    return (
        PairMember.objects.filter(tournament_id=tournament_id, user_id=user_id).exists()
        or TeamMember.objects.filter(
            tournament_id=tournament_id, user_id=user_id, confirmed_at__isnull=False
        ).exists()
    )


def _viewer(
    *, table: Table, user, context: _Context, now_at: _TableNow, kibitz: bool = False
) -> tuple[str, str | None, bool, bool]:
    """(viewer for `board_json`, the user's own seat, whether the record is public,
    whether they kibitz): `visibility.table_viewer` decides; whoever it gives nothing is
    refused."""
    seat = table_seats.seat_of(table, user, set(now_at.swapped))
    public = visibility.deal_public_status(context.round_status)
    # Asked only of a kibitzer who would see the hands live: a player of the event never does.
    playing = (
        kibitz
        and seat is None
        and not public
        and context.kibitz_live
        and plays_in_tournament(tournament_id=context.tournament_id, user=user)
    )
    library = formats.FORMATS[context.format_key].library_deals
    viewer = visibility.table_viewer(
        user=user,
        round=context.round_status,
        seat=seat,
        kibitz=kibitz,
        kibitz_live=context.kibitz_live,
        plays_in_tournament=playing,
        library=library,
    )
    if viewer is not None:
        kibitzer = viewer == visibility.PROGRESS_ONLY or visibility.kibitzes_live(
            viewer, seat=seat, user=user, round_status=context.round_status, library=library
        )
        return viewer, seat, public, kibitzer
    raise table_seats.watch_refused(table, context.round_number)


def board_view(*, table: Table, board_number: int, user, kibitz: bool = False) -> dict:
    """What `user` may see of `board_number` at `table` now (RULES 9): a seated player
    their own view, an organiser (`tournaments.direct_results`) every hand, anyone once
    the round has closed; with `kibitz`, anyone else a kibitzer's view (the progress of
    the board, or every hand when the organiser lets kibitzers watch live); anyone else
    is refused (`NotAllowed`) and sees nothing. While the tournament is paused the view
    says so and offers nothing to do."""
    return _snapshot(
        table=table, board_number=board_number, user=user, kibitz=kibitz, told_next=False
    )[0]


def board_snapshot(
    *, table: Table, board_number: int, user, kibitz: bool = False
) -> tuple[dict, dict, dict | None, dict | None]:
    """(`board_view`'s view, the round's clock as the server has it, and once the round
    has closed what the bell made of the board if it cut it off — `round_closed`'s
    `cut_off` — and what comes next — its `next`, `tournament_over` and `results_url` —
    for a socket that missed that message): a socket's snapshot carries all four, read
    together."""
    return _snapshot(
        table=table, board_number=board_number, user=user, kibitz=kibitz, told_next=True
    )


def _snapshot(
    *, table: Table, board_number: int, user, kibitz: bool, told_next: bool
) -> tuple[dict, dict, dict | None, dict | None]:
    table = table_seats.with_pairs(table)
    context = _context(table=table, board_number=board_number, lock=False)
    now_at = _table_now(table=table, board_number=board_number, context=context)
    viewer, seat, public, kibitzer = _viewer(
        table=table, user=user, context=context, now_at=now_at, kibitz=kibitz
    )
    pair_id = _pair_id(table, user) if seat is not None else None
    if not public and pair_id is not None and pair_id not in now_at.fixed:
        # The first hand of the round this pair is sent here: its seats are fixed first,
        # and the seat is read again under the table's lock (a swap may just have won it).
        with transaction.atomic():
            seats.fix_seats(table=table, pair_id=pair_id, now=timezone.now())
            now_at = _table_now(table=table, board_number=board_number, context=context)
            viewer, seat, public, kibitzer = _viewer(
                table=table, user=user, context=context, now_at=now_at, kibitz=kibitz
            )
    state = _board(table=table, context=context, now_at=now_at)
    paused = context.paused and not public
    view = board_json(
        state, viewer=viewer, seat=seat, public=public, paused=paused, kibitzer=kibitzer
    )
    cut_off, after = None, None
    if public:
        cut_off = table_server.stored_cut_off(table=table, board_number=board_number)
        if told_next:
            after = table_server.after_the_bell(table=table, user_id=getattr(user, "pk", None))
    return view, context.clock(timezone.now()), cut_off, after


def _pair_id(table: Table, user) -> int | None:
    side = table.side_of(getattr(user, "pk", None))
    if side is None:
        return None
    return table.ns_pair_id if side == "NS" else table.ew_pair_id


def _bell_refusal(context: _Context, now: datetime) -> str | None:
    paused = context.tournament_status == TournamentStatus.PAUSED
    if round_rules.bell_rung(
        status=context.round_status,
        ends_at=context.ends_at,
        tournament_status=context.tournament_status,
        paused_at=context.paused_at,
        now=now,
    ):
        when = round_rules.bell_time(
            status=context.round_status, ends_at=context.ends_at, closed_at=context.closed_at
        )
        return _("Round %(n)s closed at %(t)s: no more calls or cards.") % {
            "n": context.round_number,
            "t": timezone.localtime(when).strftime("%H:%M:%S"),
        }
    if paused:
        return _("The tournament is paused: play resumes when the director resumes it.")
    if now < context.starts_at or context.round_status != RoundStatus.OPEN:
        return _("Round %(n)s has not started yet.") % {"n": context.round_number}
    return None


def _parse(action: Mapping, seat: str) -> tuple[int, dict, play.Action]:
    """(seq, the row's fields, the `play` action) of a request; refused if malformed."""
    if not isinstance(action, Mapping):
        raise PlayRefused(_("An action is an object with “seq” and “type”."))
    seq = action.get("seq")
    if isinstance(seq, bool) or not isinstance(seq, int) or not sql.storable(seq) or seq < 1:
        raise PlayRefused(_("Give the action's sequence number “seq” (the view's next_seq)."))
    kind = action.get("type")
    if kind not in KINDS:
        raise PlayRefused(_("The type of an action is call, card, claim, accept or reject."))
    fields = {
        "seat": seat, "kind": kind, "call": "", "alert": "", "card": "", "tricks": None,
        "statement": "",
    }  # fmt: skip
    made: play.Action
    try:
        if kind == "call":
            alert = action.get("alert") or None
            if alert is not None:
                if not isinstance(alert, str):
                    raise PlayRefused(_("An alert is a text."))
                try:
                    alert = validators.typed_text(alert, max_length=MAX_ALERT) or None
                except ValidationError as error:
                    raise PlayRefused(error.messages[0]) from None
            call = play.Call(seat, action.get("call"), alert)  # type: ignore[arg-type]  # play refuses
            fields.update(call=call.call, alert=call.alert or "")
            made = call
        elif kind == "card":
            card = play.Card(seat, action.get("card"))  # type: ignore[arg-type]  # play refuses
            fields.update(card=card.card)
            made = card
        elif kind == "claim":
            statement = _statement(action.get("statement"))
            claim = play.Claim(seat, action.get("tricks"), statement)  # type: ignore[arg-type]  # play refuses
            if claim.tricks > 13:
                raise PlayRefused(_("A claim is of at most 13 tricks."))
            fields.update(tricks=claim.tricks, statement=claim.statement)
            made = claim
        else:
            made = play.ClaimResponse(seat, kind == "accept")
    except play.IllegalAction as error:
        raise PlayRefused(scoring_message(error)) from None
    return seq, fields, made


def _statement(value: object) -> str:
    """A claim's statement as stored: one line of plain text, at most MAX_STATEMENT
    characters (refused, not cut, when longer: the claimer's words are the claim's)."""
    if value is None or value == "":
        return ""
    if not isinstance(value, str):
        raise PlayRefused(_("A claim's statement is a text."))
    try:
        text = validators.typed_text(value, max_length=MAX_STATEMENT + 1)
    except ValidationError as error:
        raise PlayRefused(error.messages[0]) from None
    if len(text) > MAX_STATEMENT:
        raise PlayRefused(
            _("A claim's statement is at most %(n)s characters.") % {"n": MAX_STATEMENT}
        )
    return text


def _store_result(
    *, table: Table, board_id: int, state: play.BoardState, user, now: datetime
) -> BoardResult:
    result = state.result()
    passed_out = result.contract is None
    stored = BoardResult.objects.create(
        table_id=table.pk,
        board_id=board_id,
        state=ResultState.PASSED_OUT if passed_out else ResultState.PLAYED,
        contract="PASS" if passed_out else str(result.contract),
        declarer=result.declarer or "",
        lead=result.lead or "",
        tricks=None if passed_out else result.tricks,
        ns_score=result.ns_score,
        entered_by=user,
        entered_at=now,
        # Played at our tables: nothing to confirm, the cards are the record.
        confirmed_by=user,
        confirmed_at=now,
        played_online=True,
    )
    # The cards are the entry: its history line as a player's entry's (RULES 3).
    history.record(result=stored, kind=ResultChangeKind.ENTRY, by=user, at=now, before=None)
    return stored


def act(
    *, table: Table, board_number: int, user, action: Mapping, now: datetime | None = None
) -> dict:
    """Store one call, card, claim or answer to a claim by `user` at `table` and answer
    their new view (`board_view`'s shape).

    `action` is {"seq": next_seq, "type": "call"|"card"|"claim"|"accept"|"reject",
    "call", "alert", "card", "tricks", "statement" (a claim's line of play, optional)}.
    Refused with `PlayRefused` (nothing stored) when illegal, out of turn, with a stale
    `seq`, at/after the bell or while paused; a resend of an action already stored with
    the same `seq` and content answers the current view and changes nothing. After the
    commit, `announcements.views_stored` tells the table.
    """
    now = now or timezone.now()
    table = table_seats.with_pairs(table)
    if table.side_of(getattr(user, "pk", None)) is None:
        raise NotAllowed(
            _("Only the players at table %(t)s can play its boards.") % {"t": table.number}
        )
    with transaction.atomic():
        context = _context(table=table, board_number=board_number, lock=True)
        now_at = _table_now(table=table, board_number=board_number, context=context)
        taken = table_seats.table_seats(table, set(now_at.swapped))
        seat = next(seat for seat, player in taken.items() if player == user.pk)
        seq, fields, made = _parse(action, seat)
        state = _board(table=table, context=context, now_at=now_at)
        stored = now_at.stored.actions
        public = visibility.deal_public_status(context.round_status)
        if seq <= stored and state.actions[seq - 1] == made:
            # A resend (a lost answer, a second device): already stored, nothing to do.
            viewer = WATCHER if public else seat
            paused = context.paused and not public
            return board_json(state, viewer=viewer, seat=seat, public=public, paused=paused)
        refusal = _bell_refusal(context, now)
        if refusal:
            raise PlayRefused(refusal)
        if seq != stored + 1:
            raise PlayRefused(
                _(
                    "Action %(seq)s is out of date: the board is at action %(next)s. "
                    "Look at the board again before you act."
                )
                % {"seq": seq, "next": stored + 1}
            )
        if now_at.result_state is not None and not now_at.result_online:
            raise PlayRefused(_("The director has set this board's result: it is not played."))
        if now_at.earlier_unfinished is not None:
            raise PlayRefused(
                _("Board %(b)s is still in play at your table: boards are played in order.")
                % {"b": now_at.earlier_unfinished}
            )
        try:
            after = state.apply(made)
        except play.IllegalAction as error:
            raise PlayRefused(scoring_message(error)) from None
        assert context.board_id is not None
        action_id = _store_action(
            table=table, board_id=context.board_id, seq=seq, fields=fields, user=user, now=now
        )
        if after.is_over:
            result = _store_result(
                table=table, board_id=context.board_id, state=after, user=user, now=now
            )
            formats.FORMATS[context.format_key].board_finished(
                result=result, play_table=table, now=now
            )
        views = table_views(after)
        table_id, board_id = table.pk, context.board_id
        stored_row = replays.Row(
            action_id, seq, *(fields[name] for name in replays.Row._fields[2:])
        )
        dealt = (context.deal, context.dealer, context.vulnerability)
        tournament_id, progress = context.tournament_id, views[KIBITZER]["progress"]
        # A broadcast's spectators hear a room's progress by phase and trick, not card.
        moved_on = (
            len(after.tricks) != len(state.tricks)
            or after.is_auction_over != state.is_auction_over
            or after.is_over
        )
        assert board_id is not None

        def announce() -> None:
            # After the commit only: a rolled-back action is never kept nor announced.
            replays.remember(
                table_id=table_id,
                board_id=board_id,
                stored=replays.Stored(seq, action_id),
                deal=dealt,
                state=after,
            )
            announcements.views_stored(
                table_id=table_id,
                board_number=board_number,
                seq=seq,
                seats=taken,
                views=views,
                board_id=board_id,
                action=stored_row,
            )
            announcements.board_played(
                tournament_id=tournament_id,
                table_id=table_id,
                board_id=board_id,
                board_number=board_number,
                progress=progress if moved_on else None,
                over=after.is_over,
            )

        transaction.on_commit(announce)
        return views[seat]
