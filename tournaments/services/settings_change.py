"""Settings that decide scores, locked once round 1 has started (RULES 3).

Scoring method, completion threshold, unplayed-board policy, Neuberg, rounds and boards
per round decide every score and rank. Before the event starts they are edited like any
other setting; once round 1 has started admin shows them read-only and the only way to
change one is `change_scoring_settings`: "change settings and re-score the whole event".
It re-applies the unplayed-board policy to the boards the bell cut off, re-scores every
closed round, the totals, the standings, and (once the results are out) the ranking, the
master points and the players' master-point totals, all in one transaction, and records
who changed what, when and why (`SettingsChange`, append-only).

Round length and gap stay editable: they only time rounds not yet opened
(`change_schedule`, also called by admin's form for a started event).

Who may: `tournaments.change_tournament` (the organiser's power to edit a tournament;
docs/SECURITY.md).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

import movements

from .. import round_rules, validators
from ..errors import ServiceError
from ..models import (
    Board,
    BoardResult,
    ResultChangeKind,
    ResultState,
    Round,
    RoundStatus,
    ScoringMethod,
    Seating,
    SettingsChange,
    Tournament,
    TournamentStatus,
    UnplayedPolicy,
)
from . import history, rescoring
from .announcements import round_changing
from .clock import CUTOFF
from .formats import movement_rules
from .permissions import CHANGE_TOURNAMENT, require
from .setup import checked_datum_rounding, checked_kibitz_live, completion_threshold_percent

# The settings that decide scores: read-only once the event has started.
LOCKED_FIELDS = (
    "scoring_method",
    "completion_threshold",
    "unplayed_policy",
    "neuberg",
    "datum_rounding",
    "rounds",
    "boards_per_round",
)
REASON_MAX = 500


class SettingsLocked(ServiceError):
    """A change that contradicts what has been played, or a locked setting changed the
    plain way."""

    status_code = 409


class SettingsInvalid(ServiceError):
    pass


def settings_snapshot(tournament: Tournament) -> dict[str, Any]:
    """The locked settings as plain JSON values (the record's before / after)."""
    return {
        "scoring_method": tournament.scoring_method,
        "completion_threshold": str(Decimal(tournament.completion_threshold)),
        "unplayed_policy": tournament.unplayed_policy,
        "neuberg": bool(tournament.neuberg),
        "datum_rounding": tournament.datum_rounding,
        "rounds": tournament.rounds,
        "boards_per_round": tournament.boards_per_round,
    }


def _checked(validator, value) -> None:
    try:
        validator(value)
    except ValidationError as error:
        raise SettingsInvalid(error.messages[0]) from None


def _whole(value, validator) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float | Decimal):
        _checked(validator, None)
    if not math.isfinite(float(value)) or float(value) != int(value):
        _checked(validator, None)
    whole = int(value)
    _checked(validator, whole)
    return whole


def clean_changes(changes: Mapping[str, Any]) -> dict[str, Any]:
    """Each named setting checked and converted to what the model stores; refuses unknown
    names and values out of range with the same messages as creating a tournament."""
    unknown = sorted(set(changes) - set(LOCKED_FIELDS))
    if unknown:
        raise SettingsInvalid(
            _("Only these settings change this way: %(fields)s (not %(unknown)s).")
            % {"fields": ", ".join(LOCKED_FIELDS), "unknown": ", ".join(unknown)}
        )
    clean: dict[str, Any] = {}
    for name, value in changes.items():
        if name == "scoring_method":
            if value not in ScoringMethod.values:
                raise SettingsInvalid(
                    _("The scoring method is one of %(choices)s.")
                    % {"choices": ", ".join(ScoringMethod.values)}
                )
            clean[name] = ScoringMethod(value)
        elif name == "unplayed_policy":
            if value not in UnplayedPolicy.values:
                raise SettingsInvalid(
                    _("The unplayed-board policy is one of %(choices)s.")
                    % {"choices": ", ".join(UnplayedPolicy.values)}
                )
            clean[name] = UnplayedPolicy(value)
        elif name == "neuberg":
            if not isinstance(value, bool):
                raise SettingsInvalid(_("Neuberg is on or off (true or false)."))
            clean[name] = value
        elif name == "datum_rounding":
            try:
                clean[name] = checked_datum_rounding(value)
            except ServiceError as error:
                raise SettingsInvalid(str(error)) from None
        elif name == "completion_threshold":
            try:
                clean[name] = completion_threshold_percent(value)
            except ServiceError as error:
                raise SettingsInvalid(str(error)) from None
        elif name == "rounds":
            clean[name] = _whole(value, validators.validate_rounds)
        else:
            clean[name] = _whole(value, validators.validate_boards_per_round)
    return clean


def _check_against_play(tournament: Tournament, clean: Mapping[str, Any]) -> None:
    """Refuse what would contradict the rounds already played (RULES 3), or the movement
    the tournament is seated by (RULES 10: its rounds and boards per round are fixed)."""
    if tournament.movement is not None and (
        clean.get("rounds", tournament.rounds) != tournament.rounds
        or clean.get("boards_per_round", tournament.boards_per_round) != tournament.boards_per_round
    ):
        movement = movements.from_json(tournament.movement)
        new_rounds = clean.get("rounds", tournament.rounds)
        if round_rules.started(tournament):
            # A running event may stop early (its first rounds are a partial movement),
            # never play rounds the movement does not have.
            if new_rounds > movement.round_count:
                raise SettingsLocked(
                    _("The movement has %(m)s rounds: the tournament cannot have %(t)s.")
                    % {"m": movement.round_count, "t": new_rounds}
                )
        else:
            try:
                movement_rules.check_given(
                    movement,
                    rounds=new_rounds,
                    boards_per_round=clean.get("boards_per_round", tournament.boards_per_round),
                )
            except ServiceError as error:
                raise SettingsLocked(str(error)) from None
    rounds = Round.objects.filter(tournament=tournament)
    new_boards = clean.get("boards_per_round", tournament.boards_per_round)
    if new_boards != tournament.boards_per_round and rounds.exists():
        raise SettingsLocked(
            _(
                "Boards per round cannot change once round 1 has started: its boards "
                "(%(n)s a round) have been dealt and played."
            )
            % {"n": tournament.boards_per_round}
        )
    if "rounds" in clean and clean["rounds"] != tournament.rounds:
        seated = rounds.order_by("-number").values_list("number", flat=True).first() or 0
        if clean["rounds"] < seated:
            raise SettingsLocked(
                _(
                    "Round %(n)s has already been seated: the tournament cannot have fewer "
                    "than %(n)s rounds now."
                )
                % {"n": seated}
            )
        if tournament.status == TournamentStatus.FINISHED and clean["rounds"] > tournament.rounds:
            raise SettingsLocked(
                _("%(t)s is finished: rounds cannot be added after the results are out.")
                % {"t": tournament.name}
            )


def change_scoring_settings(
    *,
    tournament: Tournament,
    by,
    changes: Mapping[str, Any],
    reason: str,
    now: datetime | None = None,
) -> SettingsChange:
    """Change locked settings and re-score the whole event in one transaction; the record.

    `changes` maps names of `LOCKED_FIELDS` to new values; `reason` is required. Refuses
    (and changes nothing) when `by` lacks `change_tournament`, a value is invalid, nothing
    would change, or the change contradicts rounds already played.
    """
    now = now or timezone.now()
    require(by, CHANGE_TOURNAMENT)
    reason = reason.strip() if isinstance(reason, str) else ""
    if not reason:
        raise SettingsInvalid(_("Say why the settings change: the reason is recorded."))
    if len(reason) > REASON_MAX:
        raise SettingsInvalid(_("A reason has at most %(n)s characters.") % {"n": REASON_MAX})
    _checked(validators.validate_name, reason)
    clean = clean_changes(changes)
    with transaction.atomic():
        # The tournament row first, as the clock does: no bell rings while we re-score.
        tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
        before = settings_snapshot(tournament)
        _check_against_play(tournament, clean)
        for name, value in clean.items():
            setattr(tournament, name, value)
        after = settings_snapshot(tournament)
        if after == before:
            raise SettingsInvalid(_("These are the settings already in force: nothing to change."))
        tournament.save(update_fields=list(clean))
        if before["unplayed_policy"] != after["unplayed_policy"]:
            _reapply_cutoff(tournament, by=by, now=now, reason=reason)
        rescore_event(tournament=tournament, by=by, now=now, reason=reason)
        return SettingsChange.objects.create(
            tournament=tournament,
            changed_by=by,
            changed_at=now,
            before={k: v for k, v in before.items() if before[k] != after[k]},
            after={k: v for k, v in after.items() if before[k] != after[k]},
            reason=reason,
        )


def _cutoff_rows(tournament: Tournament):
    """The results the bell wrote for boards with no result in closed rounds: nobody
    entered or adjusted them, and they hold what a cut-off policy gives (both sides the
    same code, or not played)."""
    policy_codes = {codes for codes in CUTOFF.values()}
    by_policy = Q(state=ResultState.NOT_PLAYED)
    for ns_code, ew_code in policy_codes:
        by_policy |= Q(state=ResultState.ADJUSTED, ns_adjustment=ns_code, ew_adjustment=ew_code)
    # By the table's round, whose bell wrote them (a travelling board's may be later).
    return BoardResult.objects.filter(
        by_policy,
        table__round__tournament=tournament,
        table__round__status=RoundStatus.CLOSED,
        entered_by__isnull=True,
        adjusted_by__isnull=True,
    )


def _reapply_cutoff(tournament: Tournament, *, by, now: datetime, reason: str) -> int:
    """What the new unplayed-board policy would have given at each bell (RULES 5.4),
    each changed result's history line appended (RULES 3)."""
    adjustment = CUTOFF.get(tournament.unplayed_policy)
    if adjustment is None:
        fields = {
            "state": ResultState.NOT_PLAYED,
            "ns_adjustment": "",
            "ew_adjustment": "",
            "adjustment_reason": "",
        }
    else:
        fields = {
            "state": ResultState.ADJUSTED,
            "ns_adjustment": adjustment[0],
            "ew_adjustment": adjustment[1],
            "adjustment_reason": str(_("Cut off at the bell")),
        }
    rows = list(_cutoff_rows(tournament))
    before = {row.pk: history.snapshot(row) for row in rows}
    BoardResult.objects.filter(pk__in=list(before)).update(**fields)
    for row in rows:
        for name, value in fields.items():
            setattr(row, name, value)
    history.record_many(
        results=rows, kind=ResultChangeKind.CUT_OFF, by=by, at=now, before=before, reason=reason
    )
    return len(rows)


def rescore_event(*, tournament: Tournament, by, now: datetime, reason: str) -> None:
    """Every closed round scored again through the one re-score path (`rescoring`), each
    changed result's history line carrying the organiser and the reason. The caller
    holds the tournament's lock inside a transaction."""
    if tournament.scoring_method != ScoringMethod.XIMP:
        # A datum belongs to cross-IMPs alone: scored otherwise, the boards keep none.
        Board.objects.filter(tournament=tournament, datum__isnull=False).update(datum=None)
    closed = list(
        Round.objects.filter(tournament=tournament, status=RoundStatus.CLOSED)
        .select_related("tournament")
        .order_by("number")
    )
    rescoring.rescore(tournament=tournament, rounds=closed, by=by, now=now, reason=reason)


# --- the seating: Swiss or a movement, until round 1 starts ---------------------------


def change_movement(
    *,
    tournament: Tournament,
    by,
    seating: str,
    winners: int | None = None,
    arrow_switch: bool = False,
    movement: dict | str | bytes | None = None,
    neuberg: bool | None = None,
    boards_travel: bool | None = None,
) -> Tournament:
    """How the rounds are seated (Swiss, a Mitchell, a Howell or a movement given as data)
    and whether the event has one winner or two: changeable until round 1 starts (RULES
    10), refused after it (the movement is fixed then). Checked as creating a tournament
    checks them (`formats.movement_rules.checked_seating`), refused with the rule broken
    and nothing stored. `neuberg` None: on when the event moves from Swiss to a movement,
    off the other way, else unchanged (SPEC 10's default)."""
    require(by, CHANGE_TOURNAMENT)
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
        if round_rules.started(tournament):
            raise SettingsLocked(
                _(
                    "%(t)s has started: its seating was fixed when round 1 was seated and "
                    "no longer changes."
                )
                % {"t": tournament.name}
            )
        fields = movement_rules.checked_seating(
            seating=seating,
            winners=winners,
            arrow_switch=arrow_switch,
            movement=movement,
            rounds=tournament.rounds,
            boards_per_round=tournament.boards_per_round,
            # None: as it is, unless the seating becomes Swiss (which plays no sets).
            boards_travel=(
                tournament.boards_travel and seating != Seating.SWISS
                if boards_travel is None
                else boards_travel
            ),
            play=tournament.play,
        )
        was_swiss = tournament.seating == Seating.SWISS
        if neuberg is None:
            if was_swiss != (fields["seating"] == Seating.SWISS):
                neuberg = fields["seating"] != Seating.SWISS
            else:
                neuberg = tournament.neuberg
        elif not isinstance(neuberg, bool):
            raise SettingsInvalid(_("Neuberg is on or off (true or false)."))
        fields["neuberg"] = neuberg
        for name, value in fields.items():
            setattr(tournament, name, value)
        tournament.save(update_fields=list(fields))
        return tournament


# --- round length and gap ------------------------------------------------------------


def minutes(value: float | None, name: str) -> timedelta | None:
    """Minutes from the API as a duration for `name` ("round_length" or "gap_length"),
    refused with the field's own message when not a finite number in range."""
    if value is None:
        return None
    validator = {
        "round_length": validators.validate_round_length,
        "gap_length": validators.validate_gap_length,
    }[name]
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        _checked(validator, None)
    try:
        length = timedelta(seconds=round(value * 60))
    except OverflowError:
        length = timedelta.max if value > 0 else timedelta.min
    _checked(validator, length)
    return length


def set_kibitz_live(*, tournament: Tournament, by, kibitz_live: object) -> Tournament:
    """Whether kibitzers of a running round see every hand live (as on Vugraph) or only
    the progress until the round closes (RULES 2; never live for the tournament's own
    players: `tournaments.visibility`). Changeable at any time, before or during the
    event: it decides what the public sees, not a score. Kibitzers watching when it is
    turned off stop receiving the hands within seconds (their sockets read it again)."""
    require(by, CHANGE_TOURNAMENT)
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
        try:
            value = checked_kibitz_live(kibitz_live, tournament.play)
        except ServiceError as error:
            raise SettingsInvalid(str(error)) from None
        if value != tournament.kibitz_live:
            tournament.kibitz_live = value
            tournament.save(update_fields=["kibitz_live"])
        return tournament


def change_schedule(
    *,
    tournament: Tournament,
    by,
    round_length: timedelta | None = None,
    gap_length: timedelta | None = None,
) -> Tournament:
    """New round length and / or gap; they time only rounds not yet opened (RULES 3).

    A round already seated but not yet open takes the new length (its bell moves) and
    the new gap (its start moves by the difference, never into the past of the round
    before's bell). Open and closed rounds keep their times.
    """
    require(by, CHANGE_TOURNAMENT)
    if round_length is not None:
        _checked(validators.validate_round_length, round_length)
    if gap_length is not None:
        _checked(validators.validate_gap_length, gap_length)
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
        if tournament.status == TournamentStatus.FINISHED:
            raise SettingsLocked(
                _("%(t)s is finished: its timetable no longer changes.") % {"t": tournament.name}
            )
        fields = []
        old_gap = tournament.gap_length
        if round_length is not None and round_length != tournament.round_length:
            tournament.round_length = round_length
            fields.append("round_length")
        if gap_length is not None and gap_length != tournament.gap_length:
            tournament.gap_length = gap_length
            fields.append("gap_length")
        if not fields:
            return tournament
        tournament.save(update_fields=fields)
        waiting = (
            Round.objects.select_for_update()
            .filter(tournament=tournament, status=RoundStatus.SCHEDULED)
            .first()
        )
        if waiting is not None:
            if "gap_length" in fields:
                waiting.starts_at += tournament.gap_length - old_gap
            waiting.ends_at = waiting.starts_at + tournament.round_length
            waiting.save(update_fields=["starts_at", "ends_at"])
            # Pages already open at the next round's tables show its new times.
            round_changing(tournament=tournament, round=waiting)
        return tournament
