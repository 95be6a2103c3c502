"""Entering, confirming, disputing and adjusting board results (RULES 3, 5.4).

The cut-off race: a submission holds a shared lock on its round's row while it checks
the bell and writes; the round close takes that row FOR UPDATE. So a submission that
got in before the close is stored and then scored, and one that comes after sees the
round closed and is refused — never half of each. Confirmations and disputes take the
same share lock, so once a round is closed only the director changes its results.

A director's ruling takes the round FOR UPDATE and then the result row, so it waits for
entries, confirmations and disputes in flight and decides on what they wrote; an entry
that waited for the ruling cannot replace an adjusted score it never saw (the upsert is
guarded in SQL).

Every write here appends to the result's history (`services.history`) in the same
transaction, after the row is locked: who, when, before, after and the reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import cast

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

import scoring

from .. import round_rules, sql, validators
from ..errors import (
    NotAllowed,
    NotFound,
    ResultRefused,
    RoundClosed,
    ServiceError,
    scoring_message,
)
from ..models import (
    Adjustment,
    Board,
    BoardResult,
    PlayMode,
    ResultChangeKind,
    ResultState,
    Round,
    RoundStatus,
    Table,
    Tournament,
    TournamentStatus,
)
from ..selectors.boards import boards_at
from . import history
from .permissions import DIRECT_RESULTS, allowed, require

LEAD_SUITS = {
    "S": "S",
    "H": "H",
    "D": "D",
    "C": "C",
    "♠": "S",
    "♥": "H",
    "♦": "D",
    "♣": "C",
    "♤": "S",
    "♡": "H",
    "♢": "D",
    "♧": "C",
}
LEAD_RANKS = scoring.RANKS
_LEAD_RE = re.compile(r"^\s*(\S)\s*(10|[AKQJT2-9])\s*$", re.IGNORECASE)


def parse_lead(text: str | None) -> str:
    """'SA', '♠A', 'h10', 'DT' → 'SA', 'HT', 'DT'; '' when no lead was given."""
    if not text or not text.strip():
        return ""
    match = _LEAD_RE.match(text)
    suit = LEAD_SUITS.get(match.group(1).upper()) if match else None
    if not match or suit is None:
        raise ResultRefused(
            _("“%(lead)s” is not a card: write the suit then the rank, e.g. SA, H10, ♦7.")
            % {"lead": text}
        )
    rank = match.group(2).upper()
    return suit + ("T" if rank == "10" else rank)


@dataclass(frozen=True)
class ContractEntry:
    contract: str  # as typed: "4S", "3NTX", "PASS"
    declarer: str = ""
    tricks: int | None = None
    result: str | None = None  # "=", "+1", "-2": an alternative to tricks
    lead: str = ""


def _local(when: datetime) -> str:
    return timezone.localtime(when).strftime("%H:%M:%S")


def _entry_refusal(
    *, number, status, starts_at, ends_at, closed_at, tournament_status, paused_at, now
) -> str | None:
    if round_rules.bell_rung(
        status=status,
        ends_at=ends_at,
        tournament_status=tournament_status,
        paused_at=paused_at,
        now=now,
    ):
        # Entry stopped at the bell even when the clock's tick came a moment later;
        # a round the director closed early stopped then.
        when = round_rules.bell_time(status=status, ends_at=ends_at, closed_at=closed_at)
        return _("Round %(n)s closed at %(t)s; results can no longer be entered.") % {
            "n": number,
            "t": _local(when),
        }
    if tournament_status == TournamentStatus.PAUSED:
        return _("The tournament is paused; results can be entered when it resumes.")
    # A round whose start has come is open for entries even before the clock's tick
    # marks it open: the tick may come a second later, and nobody should be refused.
    if now < starts_at:
        return _("Round %(n)s has not started yet; it starts at %(t)s.") % {
            "n": number,
            "t": _local(starts_at),
        }
    return None


def _entry_context(*, round_id: int, table_id: int, board_number: int) -> tuple | None:
    """Lock the round for entry and read what the checks need, in one statement.

    The round in share mode (`sql.round_share_lock`): submissions don't block each other,
    only the close (FOR UPDATE), which then waits for every submission already in
    flight. Returns (round number, round status, starts_at, ends_at, closed_at,
    tournament status, board id, vulnerability, state of this table's existing result,
    play mode, the tournament's paused_at) — board and result None when absent.
    """
    if not sql.storable(board_number):
        board_number = 0  # no board has it: the checks answer "not played in this round"
    row = sql.fetch_one(
        "SELECT r.number, r.status, r.starts_at, r.ends_at, r.closed_at, t.status,"
        " b.id, b.vulnerability, br.state, t.play, t.paused_at"
        f" FROM {sql.table(Round)} r"
        f" JOIN {sql.table(Tournament)} t ON t.id = r.tournament_id"
        f" JOIN {sql.table(Table)} tb ON tb.id = %s AND tb.round_id = r.id"
        # The board by its number (the unique index), if this table plays it: its round's
        # board, or one of its own set when board sets travel (`Table.first_board` …).
        f" LEFT JOIN {sql.table(Board)} b ON b.tournament_id = r.tournament_id AND b.number = %s"
        "   AND CASE WHEN tb.first_board IS NULL THEN b.round_id = r.id"
        "   ELSE b.number BETWEEN tb.first_board AND tb.last_board END"
        f" LEFT JOIN {sql.table(BoardResult)} br"
        "   ON br.board_id = b.id AND br.table_id = tb.id"
        f" WHERE r.id = %s{sql.round_share_lock('r')}",
        [table_id, board_number, round_id],
    )
    if row is None:
        return None
    number, status, starts_at, ends_at, closed_at, *rest, paused_at = row
    times = (sql.timestamp(v) for v in (starts_at, ends_at, closed_at))
    return (number, status, *times, *rest, sql.timestamp(paused_at))


# --- who may enter, confirm or dispute (the table page shows what these allow) ---------


def may_enter(
    *, table: Table, user, round: Round, now: datetime, result_state: str | None = None
) -> ServiceError | None:
    """Why `user` may not enter or correct a result at `table` now, or None when they may.

    The players at the table (or a director) while the round is open (RULES 3); over a
    director's adjusted score, only a director. `table` needs its pairs, `round` its
    tournament; `result_state` is the state of the board's stored result, if any. It takes
    no lock and writes nothing: `submit_result` calls it under the round's share lock, the
    table page to decide what to show.
    """
    if table.side_of(user.pk) is None and not allowed(user, DIRECT_RESULTS):
        return NotAllowed(
            _("Only the players at table %(t)s can enter its results.") % {"t": table.number}
        )
    refusal = _entry_refusal(
        number=round.number, status=round.status, starts_at=round.starts_at,
        ends_at=round.ends_at, closed_at=round.closed_at,
        tournament_status=round.tournament.status, paused_at=round.tournament.paused_at,
        now=now,
    )  # fmt: skip
    if refusal:
        return RoundClosed(refusal)
    if result_state == ResultState.ADJUSTED and not allowed(user, DIRECT_RESULTS):
        return NotAllowed(_("The director has adjusted this board; ask the director."))
    return None


def may_dispute(
    *, table: Table, result: BoardResult, user, round: Round, now: datetime
) -> ServiceError | None:
    """Why `user` may not dispute `result` (of `table`, in `round`) now, or None.

    The other side from the one that entered it, while entries are open: after the round
    closed (or its bell rang) only the director changes its results. `table` needs its
    pairs, `round` its tournament.
    """
    side = table.side_of(user.pk)
    if side is None:
        return NotAllowed(_("Only the players at this table can confirm or dispute its results."))
    if result.entered_by_id is not None and table.side_of(result.entered_by_id) == side:
        return NotAllowed(_("The other side confirms a result; you entered this one."))
    closed = _closed_refusal(
        number=round.number, status=round.status, ends_at=round.ends_at,
        closed_at=round.closed_at, tournament_status=round.tournament.status,
        paused_at=round.tournament.paused_at, now=now,
    )  # fmt: skip
    if closed:
        return RoundClosed(closed)
    return None


def may_confirm(
    *, table: Table, result: BoardResult, user, round: Round, now: datetime
) -> ServiceError | None:
    """Why `user` may not confirm `result` now, or None: as `may_dispute`, and only a
    played (or passed-out) result is confirmed."""
    refusal = may_dispute(table=table, result=result, user=user, round=round, now=now)
    if refusal is None and result.state not in (ResultState.PLAYED, ResultState.PASSED_OUT):
        return ResultRefused(_("There is no played result to confirm."))
    return refusal


def validate_entry(entry: ContractEntry) -> dict:
    """Validate a typed result with the scoring engine: the fields to store, but the score.

    Nothing here depends on the board, so result entry refuses bad input before it takes
    any lock.
    """
    contract = scoring.parse_contract(entry.contract)
    if contract is None:
        return {"state": ResultState.PASSED_OUT, "contract": "PASS", "declarer": "",
                "tricks": None, "lead": ""}  # fmt: skip
    declarer = scoring.validate_declarer(entry.declarer or "")
    if entry.result not in (None, ""):
        tricks = scoring.tricks_from_result(contract, entry.result)
        # Both given and disagreeing: either could be the typo, so neither is guessed.
        if entry.tricks is not None and scoring.validate_tricks(entry.tricks) != tricks:
            raise ResultRefused(
                _(
                    "The result %(result)s and %(given)s tricks disagree: %(result)s in "
                    "%(contract)s is %(tricks)s tricks. Give one of them, or both alike."
                )
                % {
                    "result": entry.result.strip(),
                    "given": entry.tricks,
                    "contract": str(contract),
                    "tricks": tricks,
                }
            )
    elif entry.tricks is None:
        raise ResultRefused(_("Give the tricks taken by declarer, or the result (=, +1, -2)."))
    else:
        tricks = scoring.validate_tricks(entry.tricks)
    return {
        "state": ResultState.PLAYED,
        "contract": str(contract),
        "declarer": declarer,
        "tricks": tricks,
        "lead": parse_lead(entry.lead),
    }


def _with_score(fields: dict, vulnerability: str) -> dict:
    if fields["state"] == ResultState.PASSED_OUT:
        return {**fields, "ns_score": 0}
    score = scoring.contract_score(
        fields["contract"], fields["declarer"], fields["tricks"], vulnerability
    )
    return {**fields, "ns_score": score}


def score_entry(entry: ContractEntry, vulnerability: str) -> dict:
    """Validate a typed result and score it on a board of `vulnerability`."""
    return _with_score(validate_entry(entry), vulnerability)


def _board_of(table: Table, round: Round, board_number: int) -> Board:
    """The board `board_number` if `table` (of `round`) plays it (`boards_at`)."""
    try:
        return boards_at(table, tournament_id=round.tournament_id).get(number=board_number)
    except Board.DoesNotExist:
        raise NotFound(
            _("Board %(b)s is not played in round %(n)s.") % {"b": board_number, "n": round.number}
        ) from None


RESULT_ENTRY_FIELDS = (
    "state", "contract", "declarer", "lead", "tricks", "ns_score", "ns_adjustment",
    "ew_adjustment", "entered_by", "entered_at", "confirmed_by", "confirmed_at",
    "disputed", "dispute_note", "disputed_at", "adjusted_by", "adjustment_reason",
)  # fmt: skip


def submit_result(
    *,
    table: Table,
    board_number: int,
    entry: ContractEntry,
    user,
    now: datetime | None = None,
) -> BoardResult:
    """A seated player (or a director: `tournaments.direct_results`) enters or corrects
    a table's result while the round is open. After the bell it is refused with the
    clock's message.

    This is the hot path of the last minute of a round (every table at once), so it is
    three statements inside the transaction: the round lock that also reads the checks'
    data, an upsert of the result, and its line in the result's history
    (`history.record_entry`).
    """
    now = now or timezone.now()
    try:
        validated = validate_entry(entry)  # refuse a malformed entry before any lock
    except scoring.ScoringError as error:
        raise ResultRefused(scoring_message(error)) from None
    if not (Table.ns_pair.is_cached(table) and Table.ew_pair.is_cached(table)):
        # Seatings never change once made, so pairs read before the lock stay right.
        table = Table.objects.select_related("ns_pair", "ew_pair").get(pk=table.pk)
    with transaction.atomic():
        context = _entry_context(
            round_id=table.round_id, table_id=table.pk, board_number=board_number
        )
        if context is None:
            raise NotFound(_("This table's round no longer exists."))
        (number, status, starts_at, ends_at, closed_at, t_status, board_id, vul, existing, play,
         paused_at) = context  # fmt: skip
        if play == PlayMode.ONLINE and not allowed(user, DIRECT_RESULTS):
            raise ResultRefused(_("This tournament is played online: results are stored by play."))
        # The round as locked, for the one rule of who may enter (no query: built here).
        locked = Round(
            id=table.round_id, number=number, status=status, starts_at=starts_at,
            ends_at=ends_at, closed_at=closed_at,
            tournament=Tournament(status=t_status, paused_at=paused_at),
        )  # fmt: skip
        refusal = may_enter(table=table, user=user, round=locked, now=now, result_state=existing)
        if refusal is not None:
            raise refusal
        if board_id is None:
            raise NotFound(
                _("Board %(b)s is not played in round %(n)s.") % {"b": board_number, "n": number}
            )
        fields = _with_score(validated, vul)
        # A new or changed result needs the other side's confirmation (again).
        result = BoardResult(
            table=table,
            board_id=board_id,
            entered_by=user,
            entered_at=now,
            confirmed_by=None,
            confirmed_at=None,
            disputed=False,
            dispute_note="",
            disputed_at=None,
            adjusted_by=None,  # an organiser re-entering over an adjusted score replaces it
            adjustment_reason="",
            ns_adjustment="",
            ew_adjustment="",
            **fields,
        )
        # The state was read with the round lock, but a director's adjustment may have
        # committed while this entry waited for that lock: the read does not show it. So
        # the upsert itself leaves an adjusted row alone unless this entry saw it (only an
        # organiser gets here then) — the same statement, no further round-trip.
        seen = existing == ResultState.ADJUSTED
        stored = sql.upsert(
            result,
            unique_fields=("table", "board"),
            update_fields=RESULT_ENTRY_FIELDS,
            unless=None if seen else ("state", ResultState.ADJUSTED),
        )
        if stored is None:
            raise NotAllowed(_("The director has adjusted this board; ask the director."))
        # The upsert holds the row's lock: the history records this change in its place.
        history.record_entry(result=result, by=user, at=now, existed=existing is not None)
        return result


def _lock_round_of_result(result_id: int) -> None:
    """Lock the result's round in share mode, as an entry does (NotFound when the result is
    gone).

    The share lock orders a confirmation or dispute with the close (FOR UPDATE): one that
    got in first is kept, one that comes after sees the round closed.
    """
    row = sql.fetch_one(
        "SELECT r.id"
        f" FROM {sql.table(BoardResult)} br"
        f" JOIN {sql.table(Table)} tb ON tb.id = br.table_id"
        f" JOIN {sql.table(Round)} r ON r.id = tb.round_id"
        f" WHERE br.id = %s{sql.round_share_lock('r')}",
        [result_id],
    )
    if row is None:
        raise NotFound(_("This result no longer exists."))


def _closed_refusal(
    *, number, status, ends_at, closed_at, tournament_status, paused_at, now: datetime
) -> str | None:
    """Why a result can no longer be confirmed or disputed (its round closed, or the bell
    rang), or None."""
    if not round_rules.bell_rung(
        status=status,
        ends_at=ends_at,
        tournament_status=tournament_status,
        paused_at=paused_at,
        now=now,
    ):
        return None
    when = round_rules.bell_time(status=status, ends_at=ends_at, closed_at=closed_at)
    return _(
        "Round %(n)s closed at %(t)s; its results can no longer be confirmed or disputed. "
        "Ask the director."
    ) % {"n": number, "t": _local(when)}


def _result_for_opponent(result_id: int, user, now: datetime, *, confirming: bool) -> BoardResult:
    _lock_round_of_result(result_id)
    result = (
        BoardResult.objects.select_for_update(of=("self",))
        .select_related("table__ns_pair", "table__ew_pair", "table__round__tournament")
        .get(pk=result_id)
    )
    rule = may_confirm if confirming else may_dispute
    refusal = rule(table=result.table, result=result, user=user, round=result.table.round, now=now)
    if refusal is not None:
        raise refusal
    return result


DISPUTE_FIELDS = ("disputed", "dispute_note", "disputed_at")


def confirm_result(*, result: BoardResult, user, now: datetime | None = None) -> BoardResult:
    now = now or timezone.now()
    with transaction.atomic():
        result = _result_for_opponent(result.pk, user, now, confirming=True)
        before = history.snapshot(result)
        result.confirmed_by = user
        result.confirmed_at = now
        result.disputed = False
        result.dispute_note = ""
        result.disputed_at = None
        result.save(update_fields=["confirmed_by", "confirmed_at", *DISPUTE_FIELDS])
        history.record(
            result=result, kind=ResultChangeKind.CONFIRMATION, by=user, at=now, before=before
        )
        return result


NOTE_LENGTH = 500  # BoardResult.dispute_note's and adjustment_reason's max_length


def _typed(text: str) -> str:
    """A note or reason a person typed, checked as every free text is
    (`validators.typed_text`); a refusal changes nothing."""
    try:
        return validators.typed_text(text, max_length=NOTE_LENGTH, multiline=True)
    except ValidationError as error:
        raise ResultRefused(error.messages[0]) from None


def dispute_result(
    *, result: BoardResult, user, note: str = "", now: datetime | None = None
) -> BoardResult:
    """The other side disagrees: the result stays as entered, flagged for the director
    with who (the side that is not the entering one), why and when."""
    now = now or timezone.now()
    with transaction.atomic():
        result = _result_for_opponent(result.pk, user, now, confirming=False)
        before = history.snapshot(result)
        result.disputed = True
        result.dispute_note = _typed(note)
        result.disputed_at = now
        result.confirmed_by = None
        result.confirmed_at = None
        result.save(update_fields=[*DISPUTE_FIELDS, "confirmed_by", "confirmed_at"])
        history.record(
            result=result,
            kind=ResultChangeKind.DISPUTE,
            by=user,
            at=now,
            before=before,
            reason=result.dispute_note,
        )
        return result


# gettext_noop: translated where it is used, in the person's language.
CLOSED_ROUND_REASON = gettext_noop(
    "Round %(n)s is closed: say why its result is changed; the reason is kept in the "
    "result's history."
)


def director_set_result(
    *,
    table: Table,
    board_number: int,
    by,
    entry: ContractEntry | None = None,
    ns_adjustment: str = "",
    ew_adjustment: str = "",
    reason: str = "",
    now: datetime | None = None,
) -> BoardResult:
    """The director records a result or an artificial adjusted score, at any time.

    In a closed round the round is re-scored at once, so totals (and final results)
    follow; later seatings stay as they were. A change to a result of a closed round
    needs a reason, as every adjusted score does (RULES 3, 5.4). The original entry's
    who and when stay on the result (`adjusted_by` names the director); every ruling
    is kept in the result's history with what it replaced.
    """
    # clock imports this module (the bell cuts off results), so this import waits.
    from .clock import rescore_closed_round

    now = now or timezone.now()
    require(by, DIRECT_RESULTS)
    adjusting = bool(ns_adjustment or ew_adjustment)
    if adjusting == (entry is not None):
        raise ResultRefused(_("Give either a played result or an adjusted score, not both."))
    if adjusting:
        valid = set(Adjustment.values)
        if ns_adjustment not in valid or ew_adjustment not in valid:
            raise ResultRefused(
                _(
                    "An adjusted score is A+, A or A- for each side (average plus, average, "
                    "average minus)."
                )
            )
        if not reason.strip():
            raise ResultRefused(_("Say why the score is adjusted; it is kept with the result."))
    with transaction.atomic():
        # Lock order as the clock's: tournament, then round. Re-scoring a closed round
        # needs the tournament lock, and taking it second could deadlock with the clock.
        tournament_id = Round.objects.values_list("tournament_id", flat=True).get(pk=table.round_id)
        Tournament.objects.select_for_update().only("id").get(pk=tournament_id)
        round = (
            Round.objects.select_for_update().select_related("tournament").get(pk=table.round_id)
        )
        if round.status == RoundStatus.CLOSED and not reason.strip():
            raise ResultRefused(_(CLOSED_ROUND_REASON) % {"n": round.number})
        board = _board_of(table, round, board_number)
        # Locked before deciding: a confirmation or dispute in flight is waited for and
        # then seen, not overwritten by this save from a stale copy.
        result = BoardResult.objects.select_for_update().filter(table=table, board=board).first()
        before = history.snapshot(result) if result is not None else None
        result = result or BoardResult(table=table, board=board, entered_by=by, entered_at=now)
        if adjusting:
            result.state = ResultState.ADJUSTED
            result.contract = result.declarer = result.lead = ""
            result.tricks = result.ns_score = None
            result.ns_adjustment, result.ew_adjustment = ns_adjustment, ew_adjustment
        else:
            try:
                fields = score_entry(cast(ContractEntry, entry), vulnerability=board.vulnerability)
            except scoring.ScoringError as error:
                raise ResultRefused(scoring_message(error)) from None
            for name, value in fields.items():
                setattr(result, name, value)
            result.ns_adjustment = result.ew_adjustment = ""
        result.adjusted_by = by
        result.adjustment_reason = _typed(reason)
        # The director's ruling settles a dispute; its note and time stay as the record
        # of what was disputed.
        result.disputed = False
        result.save()
        history.record(
            result=result,
            kind=ResultChangeKind.ADJUSTMENT if adjusting else ResultChangeKind.DIRECTOR_RESULT,
            by=by,
            at=now,
            before=before,
            reason=result.adjustment_reason,
        )
        # The board's round is re-scored (a travelling board's last, once it has closed).
        scored = (
            Round.objects.filter(pk=board.round_id, status=RoundStatus.CLOSED).first()
            if board.round_id is not None
            else None
        )
        if scored is not None:
            rescore_closed_round(round=scored, now=now, by=by, reason=result.adjustment_reason)
        return result


def director_result_problem(
    *, table: Table, board_number: int, by, entry: ContractEntry, reason: str = ""
) -> str | None:
    """Why `director_set_result` would refuse this played result, or None when it would
    take it. Writes nothing and takes no lock: a form asks before saving, so that a
    refusal is an error on the form (the admin's result change form)."""
    try:
        require(by, DIRECT_RESULTS)
        board = _board_of(table, table.round, board_number)
        score_entry(entry, vulnerability=board.vulnerability)
        if table.round.status == RoundStatus.CLOSED and not reason.strip():
            return _(CLOSED_ROUND_REASON) % {"n": table.round.number}
    except scoring.ScoringError as error:
        return scoring_message(error)
    except (NotAllowed, NotFound, ResultRefused) as error:
        return str(error)
    return None
