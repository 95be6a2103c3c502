"""The round clock (RULES 3): start, open, cut off, score, re-seat and finish — exactly once.

`advance(now=…)` moves every tournament to where the clock says it should be. Each
transition is one durable transaction that holds the tournament's row lock, claimed
with SKIP LOCKED so that several workers ticking at once never do the same work
twice; the state each transition checks (tournament status, round status, the
unique round number) makes a repeated tick a no-op. A worker that dies mid-transition
rolls the whole transaction back and the next tick does it again from the start.

Organiser actions (start now, close now, extend, pause/resume, re-score) take the
same lock without SKIP LOCKED and go through the same functions. They need the
`tournaments.run_clock` permission of the user `by`; the clock itself (`advance`) is the
system and needs none.

Lock order, everywhere: the tournament row, then the round row. Result entry holds its
round under the share lock (`sql.round_share_lock`) while it checks the bell and writes,
so a close (round FOR UPDATE) sees every result stored before it and none after it.
"""

from __future__ import annotations

import gc
import logging
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import cast

from django.db import connection, transaction
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext as _

import scoring

from .. import round_rules, sql
from ..deals import generate_deal
from ..errors import ClockError
from ..models import (
    Adjustment,
    Board,
    BoardResult,
    ClockHeartbeat,
    Pair,
    PairStatus,
    ResultState,
    Round,
    RoundStatus,
    Table,
    Tournament,
    TournamentStatus,
    UnplayedPolicy,
)
from . import club_presence, club_week, formats, history, ladder, rescoring
from .announcements import round_changing, round_closing
from .permissions import RUN_CLOCK, require
from .table_director import closing_bell

logger = logging.getLogger(__name__)

# A tick this late after a scheduled bell still keeps the timetable (rounds start on the
# minute); a clock that stalled longer starts the next round from when it woke up. Never
# more than a tenth of a round: otherwise a short round (a 3-second test round, a blitz
# event) could be over before the tick that opens it, and be cut off unplayed.
SCHEDULE_TOLERANCE = timedelta(seconds=60)
SCHEDULE_TOLERANCE_SHARE = 10

# How long a transition waits for a row lock (a result being written holds its round
# in share mode for milliseconds). A transaction stuck holding one must not stall the clock
# of every tournament behind it: the wait fails, the step rolls back, the next tick
# tries again and the other tournaments advance meanwhile.
LOCK_TIMEOUT = timedelta(seconds=5)

CUTOFF: dict[str, tuple[str, str]] = {
    UnplayedPolicy.AVG_MINUS: (Adjustment.AVG_MINUS, Adjustment.AVG_MINUS),
    UnplayedPolicy.AVG: (Adjustment.AVG, Adjustment.AVG),
}


@dataclass
class AdvanceReport:
    events: list[str] = field(default_factory=list)
    moved: list[int] = field(default_factory=list)  # tournaments that changed

    def __bool__(self) -> bool:
        return bool(self.events)


def advance(*, now: datetime | None = None, driver: str = "") -> AdvanceReport:
    """Advance every due tournament; safe to call from any number of workers at once."""
    now = now or timezone.now()
    report = AdvanceReport()
    errors = []
    for tournament_id in due_tournament_ids(now=now):
        try:
            events = advance_tournament(tournament_id=tournament_id, now=now)
            report.events += events
            if events:
                report.moved.append(tournament_id)
        except ClockError as refusal:
            # A refusal the organiser has to act on (no movement for the pairs registered):
            # one line a tick, not a traceback; the console says it too. Nothing changed.
            logger.warning("clock: tournament %s cannot advance: %s", tournament_id, refusal)
            errors.append(f"tournament {tournament_id}: {refusal}")
        except Exception as error:
            # One broken tournament must not stop the clock for the others; its
            # transaction rolled back, so the next tick tries the same step again.
            logger.exception("clock: tournament %s could not advance", tournament_id)
            errors.append(f"tournament {tournament_id}: {error!r}")
    try:  # the club's weeks (RULES 13): each week closed once, in its own transaction
        report.events += club_week.close_due_weeks(now=now)
    except Exception as error:
        logger.exception("clock: a club week could not close")
        errors.append(f"club: {error!r}")
    try:  # the club's lost connections (RULES 13): each outage counted once, a robot in
        report.events += club_presence.check_connections(now=now)
    except Exception as error:
        logger.exception("clock: the club's connections could not be checked")
        errors.append(f"club connections: {error!r}")
    try:  # the ladders' accept and play deadlines (RULES 11), each ladder its own transaction
        report.events += ladder.run_deadlines(now=now)
    except Exception as error:
        logger.exception("clock: the ladders' deadlines could not run")
        errors.append(f"ladders: {error!r}")
    _heartbeat(now=now, driver=driver, error="\n".join(errors))
    return report


def due_tournament_ids(*, now: datetime) -> list[int]:
    running = Q(status=TournamentStatus.RUNNING) & (
        Q(round_set__status=RoundStatus.OPEN, round_set__ends_at__lte=now)
        | Q(round_set__status=RoundStatus.SCHEDULED, round_set__starts_at__lte=now)
    )
    starting = Q(status=TournamentStatus.SCHEDULED, start_at__lte=now)
    return list(
        # The club's weeks have no rounds to open or ring (`EVENT_FORMATS`).
        Tournament.objects.events()
        .filter(running | starting)
        .values_list("id", flat=True)
        .distinct()
        .order_by("id")
    )


def advance_tournament(*, tournament_id: int, now: datetime) -> list[str]:
    events: list[str] = []
    # Each step is its own transaction; a tournament is never more than a few steps
    # behind (start, open, close+seat), the bound only guards against a logic loop.
    for _step in range(10):
        with transaction.atomic(durable=True):
            _limit_lock_waits()
            tournament = (
                Tournament.objects.select_for_update(skip_locked=True)
                .filter(pk=tournament_id)
                .first()
            )
            if tournament is None:  # another worker holds it and will do the work
                break
            event = _next_transition(tournament, now)
        if event is None:
            break
        events.append(event)
        logger.info("clock: %s", event)
    return events


def _limit_lock_waits() -> None:
    if connection.vendor == "postgresql":
        milliseconds = int(LOCK_TIMEOUT.total_seconds() * 1000)
        with connection.cursor() as cursor:
            cursor.execute(f"SET LOCAL lock_timeout = {milliseconds}")


def _next_transition(tournament: Tournament, now: datetime) -> str | None:
    if tournament.status == TournamentStatus.SCHEDULED:
        if tournament.start_at > now:
            return None
        if formats.format_of(tournament).contestants(tournament).count() < 2:
            return None  # nothing to play yet; the organiser sees it in admin
        return _start(tournament, now)
    if tournament.status != TournamentStatus.RUNNING:
        return None
    current = _current_round(tournament, lock=True)
    if current is None:
        return None
    if current.status == RoundStatus.SCHEDULED and current.starts_at <= now:
        starts_at = _on_schedule(tournament, current.starts_at, now)
        if starts_at != current.starts_at:
            # The clock stalled through the gap: the round still gets its full length
            # (and any extension) instead of being cut off before anyone could play.
            _note(current, _late_start_note(current.starts_at, now))
            current.ends_at = starts_at + (current.ends_at - current.starts_at)
            current.starts_at = starts_at
        current.status = RoundStatus.OPEN
        current.save(update_fields=["status", "starts_at", "ends_at", "clock_note"])
        round_changing(tournament=tournament, round=current)
        return f"{tournament.name}: round {current.number} opened"
    if current.status == RoundStatus.OPEN and current.ends_at <= now:
        # A table given extra time plays on: the round closes at the last bell (RULES 3).
        bell = closing_bell(round=current, boards=tournament.boards_per_round, now=now)
        if bell is None:
            return None
        return _close(tournament, current, now, bell=bell)
    return None


def _current_round(tournament: Tournament, *, lock: bool = False) -> Round | None:
    rounds = tournament.round_set
    return rounds.current_for_update() if lock else rounds.current()


def _tolerance(tournament: Tournament) -> timedelta:
    return min(SCHEDULE_TOLERANCE, tournament.round_length / SCHEDULE_TOLERANCE_SHARE)


def _on_schedule(tournament: Tournament, scheduled: datetime, now: datetime) -> datetime:
    return scheduled if now - scheduled <= _tolerance(tournament) else now


def _hhmm(moment: datetime) -> str:
    return timezone.localtime(moment).strftime("%H:%M")


def _note(round: Round, text: str) -> None:
    """Add to what the round's page in admin says the clock did (RULES 3)."""
    field = Round._meta.get_field("clock_note")
    limit = cast(int, field.max_length)
    round.clock_note = " ".join(filter(None, [round.clock_note, text]))[:limit]


def _late_start_note(scheduled: datetime, now: datetime) -> str:
    return _(
        "Scheduled to start at %(planned)s; the clock stalled and woke at %(woke)s, so the "
        "round started then with its full length."
    ) % {"planned": _hhmm(scheduled), "woke": _hhmm(now)}


def _start(tournament: Tournament, now: datetime) -> str:
    """Close registration, seat round 1 as the format seats it and open it."""
    # Proposals still waiting for the partner lapse when play starts.
    Pair.objects.filter(tournament=tournament, status=PairStatus.PENDING).delete()
    event_format = formats.format_of(tournament)
    seating = event_format.seat(tournament=tournament, round_number=1)
    starts_at = _on_schedule(tournament, tournament.start_at, now)
    tournament.status = TournamentStatus.RUNNING
    tournament.save(update_fields=["status", "draw_seed"])  # the draw's seed, if any
    round = _create_round(tournament, 1, starts_at, seating, now, event_format)
    event_format.seated(round=round, now=now)
    seed = tournament.draw_seed
    draw = f", random draw seed {seed}" if seed is not None else ""
    return f"{tournament.name}: started, round 1 seated ({len(seating.tables)} tables{draw})"


def _create_round(
    tournament: Tournament,
    number: int,
    starts_at: datetime,
    seating,
    now: datetime,
    event_format: formats.Format,
) -> Round:
    boards = event_format.boards(tournament=tournament, round_number=number, seating=seating)
    round = Round.objects.create(
        tournament=tournament,
        number=number,
        status=RoundStatus.OPEN if starts_at <= now else RoundStatus.SCHEDULED,
        starts_at=starts_at,
        ends_at=starts_at + tournament.round_length,
        bye_pair_id=seating.bye,
        rematches=seating.rematches,
    )
    completed = set(boards.completed)
    Board.objects.bulk_create(
        [
            Board(
                tournament=tournament,
                # A travelling board played again in a later round has no round until
                # that one is seated (`Board.round`).
                round=round if n in completed else None,
                number=n,
                dealer=scoring.board_dealer(n),
                vulnerability=scoring.board_vulnerability(n),
                deal=generate_deal(),
            )
            for n in boards.dealt
        ]
    )
    if completed - set(boards.dealt):
        Board.objects.filter(
            tournament=tournament, number__in=completed, round__isnull=True
        ).update(round=round)
    if boards.sets is None:
        sql.copy_rows(
            Table,
            ("round", "number", "ns_pair", "ew_pair"),
            [(round.id, t.number, t.ns, t.ew) for t in seating.tables],
        )
    else:
        sets = boards.sets
        sql.copy_rows(
            Table,
            ("round", "number", "ns_pair", "ew_pair", "first_board", "last_board"),
            [(round.id, t.number, t.ns, t.ew, *sets[t.number]) for t in seating.tables],
        )
    return round


@contextmanager
def _cyclic_gc_paused():
    """CPython's cycle collector off for the bell's work, on again after (unless it was
    off already). The close holds some 10^5 rows as tuples, lists and the seating's
    states at 10,000 pairs, none of them in a cycle; the collector's passes over the
    process's heap that their allocations set off cost 0.15–0.2 s of the close's CPU and
    freed nothing. Reference counting frees as usual; a cycle made meanwhile waits for
    the next collection."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@_cyclic_gc_paused()
def _close(tournament: Tournament, round: Round, now: datetime, *, bell: datetime) -> str:
    """The bell: cut off, score, total, then seat the next round or publish the results."""
    round_closing(tournament=tournament, round=round)  # told to the tables after the commit
    _cut_off_unplayed(tournament, round, now)
    round.status = RoundStatus.CLOSED
    round.closed_at = now
    round.save(update_fields=["status", "closed_at"])
    event_format = formats.format_of(tournament)
    event_format.score(round=round)
    final = round.number >= tournament.rounds
    event_format.rank(
        tournament=tournament, from_round=round, now=now, final=final, at_the_bell=True
    )
    if final:
        tournament.status = TournamentStatus.FINISHED
        tournament.finished_at = now
        tournament.save(update_fields=["status", "finished_at"])
        return f"{tournament.name}: round {round.number} closed, results published"
    # The timetable is kept where it can be: a clock that woke late in the gap still
    # starts the next round as planned; only when that time has passed does it start
    # now, with its full length (RULES 3).
    planned = bell + tournament.gap_length
    next_start = _on_schedule(tournament, planned, now)
    seating = event_format.seat(tournament=tournament, round_number=round.number + 1)
    created = _create_round(tournament, round.number + 1, next_start, seating, now, event_format)
    event_format.seated(round=created, now=now)
    if now - bell > _tolerance(tournament):
        late = _(
            "The bell of %(bell)s rang at %(woke)s: the clock had stalled; results entered "
            "by %(bell)s count."
        ) % {"bell": _hhmm(bell), "woke": _hhmm(now)}
        _note(round, late)
        round.save(update_fields=["clock_note"])
        if next_start == planned:
            _note(created, _("The clock woke late in the gap; the round starts as planned."))
        else:
            _note(created, _late_start_note(planned, now))
        created.save(update_fields=["clock_note"])
    return f"{tournament.name}: round {round.number} closed, round {round.number + 1} seated"


def _cut_off_unplayed(tournament: Tournament, round: Round, now: datetime) -> int:
    adjustment = CUTOFF.get(tournament.unplayed_policy)
    state = ResultState.ADJUSTED if adjustment else ResultState.NOT_PLAYED
    ns_adj, ew_adj = adjustment or ("", "")
    reason = str(_("Cut off at the bell")) if adjustment else ""
    stored = _store_missing_results(
        round,
        {
            "state": state,
            "contract": "",
            "declarer": "",
            "lead": "",
            "ns_adjustment": ns_adj,
            "ew_adjustment": ew_adj,
            "adjustment_reason": reason,
            "entered_at": now,
            "disputed": False,
            "dispute_note": "",
        },
    )
    # The history of the cut-off: one more statement, whatever the field size.
    history.record_cut_off(
        result_ids=stored,
        at=now,
        stored_as=BoardResult(
            state=state, ns_adjustment=ns_adj, ew_adjustment=ew_adj,
            adjustment_reason=reason, entered_at=now,
        ),
        reason=reason,
    )  # fmt: skip
    return len(stored)


def _store_missing_results(round: Round, values: dict[str, object]) -> list[int]:
    """Store a result of `values` for every table and board of `round` that has none, in
    one statement (under the round lock the close holds, no result can arrive
    meanwhile): the round's (table, board) pairs EXCEPT those of its results, a set
    operation (hashed or sorted), which no planner's statistics can turn into a nested
    loop; the results are reached by the board index (the round's boards as one array
    on PostgreSQL). Nothing is read into Python. The new results' ids, in table then
    board order."""
    result, table, board = sql.table(BoardResult), sql.table(Table), sql.table(Board)
    fields = [sql.concrete_field(BoardResult, name) for name in values]
    r_table, r_board = sql.column(BoardResult, "table"), sql.column(BoardResult, "board")
    columns = ", ".join((r_table, r_board, *(sql.column(BoardResult, n) for n in values)))
    marks = ", ".join(["%s"] * len(values))
    t_id, b_id, b_round = (
        sql.column(Table, "id"),
        sql.column(Board, "id"),
        sql.column(Board, "round"),
    )
    t_round = sql.column(Table, "round")
    if round.tournament.boards_travel:
        # Each table's own board set (`Table.first_board` … `last_board`), and the
        # results of the round's tables: a board of the set may have results from other
        # rounds' tables.
        first, last = sql.column(Table, "first_board"), sql.column(Table, "last_board")
        tables = f"SELECT t2.{t_id} FROM {table} AS t2 WHERE t2.{t_round} = %s"
        missing = (
            f"SELECT t.{t_id} AS table_id, b.{b_id} AS board_id FROM {table} AS t JOIN {board}"
            f" AS b ON b.{sql.column(Board, 'tournament')} = %s"
            f" AND b.{sql.column(Board, 'number')} BETWEEN t.{first} AND t.{last}"
            f" WHERE t.{t_round} = %s"
            f" EXCEPT SELECT r.{r_table}, r.{r_board} FROM {result} AS r"
            f" WHERE r.{r_table} IN ({tables})"
        )
        keys = [round.tournament_id, round.pk, round.pk]
    else:
        boards = f"SELECT b.{b_id} FROM {board} AS b WHERE b.{b_round} = %s"
        of_round = (
            f"= ANY(ARRAY({boards}))" if connection.vendor == "postgresql" else f"IN ({boards})"
        )
        missing = (
            f"SELECT t.{t_id} AS table_id, b.{b_id} AS board_id FROM {table} AS t, {board} AS b"
            f" WHERE t.{t_round} = %s AND b.{b_round} = %s"
            f" EXCEPT SELECT r.{r_table}, r.{r_board} FROM {result} AS r"
            f" WHERE r.{r_board} {of_round}"
        )
        keys = [round.pk, round.pk, round.pk]
    statement = (
        f"INSERT INTO {result} ({columns}) SELECT m.table_id, m.board_id, {marks}"
        f" FROM ({missing}) AS m"
        # A round's tables and boards are stored in number order, so their ids are too.
        " ORDER BY m.table_id, m.board_id"
        f" RETURNING {sql.column(BoardResult, 'id')}"
    )
    params = [
        f.get_db_prep_save(value, connection)
        for f, value in zip(fields, values.values(), strict=True)
    ]
    with connection.cursor() as cursor:
        cursor.execute(statement, [*params, *keys])
        return sorted(rid for (rid,) in cursor.fetchall())


def _heartbeat(*, now: datetime, driver: str, error: str = "") -> None:
    updated = ClockHeartbeat.objects.filter(name="clock").update(
        last_tick_at=now, last_driver=driver[:40], last_error=error, ticks=F("ticks") + 1
    )
    if not updated:
        ClockHeartbeat.objects.get_or_create(
            name="clock",
            defaults={
                "last_tick_at": now,
                "last_driver": driver[:40],
                "last_error": error,
                "ticks": 1,
            },
        )


# --- Organiser actions -----------------------------------------------------------------


@dataclass(frozen=True)
class ActionReport:
    """What an organiser action did: one shape for all of them, so callers read fields
    instead of guessing from the type.

    `tournament` as the action left it; `round` the round it acted on (the one closed,
    extended or re-scored; None for start, pause and resume); `messages` the clock's event
    texts, one per transition the action made (start now, close now), else empty.
    """

    tournament: Tournament
    round: Round | None = None
    messages: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        """The messages as one line."""
        return "; ".join(self.messages)


def _lock(tournament_id: int) -> Tournament:
    return Tournament.objects.select_for_update().get(pk=tournament_id)


def start_now(*, tournament: Tournament, by, now: datetime | None = None) -> ActionReport:
    now = now or timezone.now()
    require(by, RUN_CLOCK)
    with transaction.atomic():
        tournament = _lock(tournament.pk)
        if tournament.status == TournamentStatus.PAUSED:
            raise ClockError(_("%(t)s is paused; resume it first.") % {"t": tournament.name})
        if tournament.status != TournamentStatus.SCHEDULED:
            raise ClockError(_("%(t)s has already started.") % {"t": tournament.name})
        if formats.format_of(tournament).contestants(tournament).count() < 2:
            raise ClockError(_("A tournament needs at least two registered pairs to start."))
        tournament.start_at = now
        tournament.save(update_fields=["start_at"])
    events = advance_tournament(tournament_id=tournament.pk, now=now)
    tournament.refresh_from_db()  # the clock's transitions saved their own copy
    return ActionReport(tournament=tournament, messages=tuple(events))


def _check_round_number(current: Round, round_number: int | None) -> None:
    """Refuse when the round in play is not the one the organiser was looking at.

    The bell may ring between the page and the click: without this, "close round 2
    now" would close round 3 the moment it opened and cut off all of its boards.
    """
    if round_number is not None and current.number != round_number:
        raise ClockError(
            _("Round %(asked)s is no longer in play (round %(n)s is); nothing was changed.")
            % {"asked": round_number, "n": current.number}
        )


def close_round_now(
    *,
    tournament: Tournament,
    by,
    now: datetime | None = None,
    round_number: int | None = None,
) -> ActionReport:
    """The director closes the open round early (e.g. every table has finished).

    `round_number`, when given, must be the open round's number (see _check_round_number).
    """
    now = now or timezone.now()
    require(by, RUN_CLOCK)
    with transaction.atomic(durable=True):
        tournament = _lock(tournament.pk)
        if tournament.status not in (TournamentStatus.RUNNING, TournamentStatus.PAUSED):
            raise ClockError(_("%(t)s has no round in play.") % {"t": tournament.name})
        current = _current_round(tournament, lock=True)
        if current is None or current.status != RoundStatus.OPEN:
            raise ClockError(_("There is no open round to close."))
        _check_round_number(current, round_number)
        if tournament.status == TournamentStatus.PAUSED:
            _resume(tournament, now)
        event = _close(tournament, current, now, bell=now)
        return ActionReport(tournament=tournament, round=current, messages=(event,))


def extend_round(
    *,
    tournament: Tournament,
    minutes: float,
    by,
    now: datetime | None = None,
    round_number: int | None = None,
) -> ActionReport:
    """Move the bell of the round in play `minutes` later (`round_number` as for close)."""
    now = now or timezone.now()
    require(by, RUN_CLOCK)
    if not minutes or minutes <= 0 or minutes > 24 * 60:
        raise ClockError(_("Extend by a positive number of minutes (at most a day)."))
    with transaction.atomic():
        tournament = _lock(tournament.pk)
        current = _current_round(tournament, lock=True)
        if current is None or current.status == RoundStatus.CLOSED:
            raise ClockError(_("There is no round in play to extend."))
        _check_round_number(current, round_number)
        # While paused the bell has not rung: resume moves it by the pause's length, so a
        # bell that passed during the pause can still be moved (RULES 3). Only one that
        # rang before the pause is too late.
        if current.status == RoundStatus.OPEN and round_rules.bell_rung(
            status=current.status,
            ends_at=current.ends_at,
            tournament_status=tournament.status,
            paused_at=tournament.paused_at,
            now=now,
        ):
            raise ClockError(_("Round %(n)s has already reached its bell.") % {"n": current.number})
        current.ends_at += timedelta(minutes=minutes)
        current.save(update_fields=["ends_at"])
        round_changing(tournament=tournament, round=current)
        return ActionReport(tournament=tournament, round=current)


def pause(*, tournament: Tournament, by, now: datetime | None = None) -> ActionReport:
    now = now or timezone.now()
    require(by, RUN_CLOCK)
    with transaction.atomic():
        tournament = _lock(tournament.pk)
        if tournament.status not in (TournamentStatus.SCHEDULED, TournamentStatus.RUNNING):
            raise ClockError(_("Only a scheduled or running tournament can be paused."))
        tournament.paused_at = now
        tournament.status = TournamentStatus.PAUSED
        tournament.save(update_fields=["paused_at", "status"])
        round_changing(tournament=tournament, round=_current_round(tournament))
        return ActionReport(tournament=tournament)


def resume(*, tournament: Tournament, by, now: datetime | None = None) -> ActionReport:
    now = now or timezone.now()
    require(by, RUN_CLOCK)
    with transaction.atomic():
        tournament = _lock(tournament.pk)
        if tournament.status != TournamentStatus.PAUSED:
            raise ClockError(_("%(t)s is not paused.") % {"t": tournament.name})
        _resume(tournament, now)
        return ActionReport(tournament=tournament)


def _resume(tournament: Tournament, now: datetime) -> None:
    """Every deadline still ahead moves by the length of the pause."""
    paused_at = cast(datetime, tournament.paused_at)  # only a paused tournament resumes
    paused_for = now - paused_at
    current = _current_round(tournament, lock=True)
    if current is None:
        tournament.status = TournamentStatus.SCHEDULED
        if tournament.start_at > paused_at:
            tournament.start_at += paused_for
    else:
        tournament.status = TournamentStatus.RUNNING
        if current.status != RoundStatus.CLOSED:
            if current.starts_at > paused_at:
                current.starts_at += paused_for
            # A bell still ahead at the pause moves by its length; one that had rung
            # stays rung (round_rules.bell_rung), and the next tick closes the round.
            if current.ends_at > paused_at:
                current.ends_at += paused_for
            current.save(update_fields=["starts_at", "ends_at"])
            # A table's own bell (extra time) still ahead moves the same.
            Table.objects.filter(round=current, ends_at__gt=paused_at).update(
                ends_at=F("ends_at") + paused_for
            )
        round_changing(tournament=tournament, round=current)
    tournament.paused_at = None
    tournament.save(update_fields=["status", "start_at", "paused_at"])


def rescore_round(*, round: Round, by, now: datetime | None = None) -> ActionReport:
    """Score a closed round again from its stored results.

    Totals and the standings of this and later rounds are recomputed; seatings already
    made stay as they are; final results and master points follow if the event is over.
    """
    require(by, RUN_CLOCK)
    return rescore_closed_round(round=round, now=now or timezone.now(), by=by)


def rescore_closed_round(*, round: Round, now: datetime, by=None, reason: str = "") -> ActionReport:
    """`rescore_round` for a service that already checked its own permission: a
    director's result in a closed round re-scores it (`results.director_set_result`).

    Every result whose scores across the field change is recorded in its history, with
    `by` and `reason` (the organiser and the ruling that caused the re-score)."""
    with transaction.atomic():
        tournament = _lock(round.tournament_id)
        round = Round.objects.select_related("tournament").get(pk=round.pk)
        if round.status != RoundStatus.CLOSED:
            raise ClockError(_("Only a closed round can be re-scored."))
        rescoring.rescore(tournament=tournament, rounds=[round], by=by, now=now, reason=reason)
        return ActionReport(tournament=tournament, round=round)
