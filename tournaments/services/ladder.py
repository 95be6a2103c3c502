"""The team ladder as a running competition (RULES 11, 梯级挑战赛): create a ladder, enter
and withdraw teams, challenge, accept, decline, forfeit, enter a match's result, and the
clock's deadlines.

The rules are the pure core's (`teams.ladder`): every function here takes the ladder's
row lock (the one lock of a ladder), loads the core's state from the rows
(`selectors.ladder.load_ladder`), asks the core, and writes back what it returned — the
positions, the challenges' states and the history entries (`_store`). A refusal (the
core's `TeamsError`, a missing permission, a stale challenge) is a `LadderError` or
`NotAllowed` raised before anything is written, so nothing changes.

`run_deadlines` is the clock's part (`clock.advance` calls it every tick): each due
ladder in its own transaction under its row lock, so callers racing each other close
every due challenge exactly once (the second finds nothing due; the core's `deadlines`
is idempotent).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime
from decimal import Decimal, InvalidOperation

from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from teams import TeamsError
from teams import ladder as core

from .. import validators
from ..errors import NotAllowed, ServiceError, scoring_message
from ..models import (
    Ladder,
    LadderChallenge,
    LadderChallengeState,
    LadderHistory,
    LadderMember,
    LadderTeam,
)
from ..selectors.ladder import Loaded, due_ladder_ids, load_ladder
from .permissions import ADD_TOURNAMENT, DIRECT_RESULTS, MANAGE_PLAYERS, allowed, require

logger = logging.getLogger(__name__)

User = get_user_model()

MIN_PLAYERS = 4  # the captain and three others
MAX_PLAYERS = 6
MAX_BOARDS = 64

#: the state a decided challenge's entry gives its row
_DECIDED = {
    core.KIND_PLAYED: LadderChallengeState.PLAYED,
    core.KIND_FORFEITED: LadderChallengeState.FORFEITED,
    core.KIND_DECLINED: LadderChallengeState.DECLINED,
    core.KIND_LAPSED: LadderChallengeState.LAPSED,
    core.KIND_VOIDED: LadderChallengeState.VOIDED,
}


class LadderError(ServiceError):
    """A ladder request refused; nothing was changed."""

    status_code = 409


def _refused(error: TeamsError) -> LadderError:
    return LadderError(scoring_message(error))


# --- the lock, the core and the rows -----------------------------------------------------


def _lock(ladder_id: int) -> Ladder:
    try:
        return Ladder.objects.select_for_update().get(pk=ladder_id)
    except Ladder.DoesNotExist:
        raise LadderError(_("This ladder no longer exists.")) from None


def _team(ladder: Ladder, team_id: int) -> LadderTeam:
    team = LadderTeam.objects.filter(pk=team_id, ladder=ladder).first()
    if team is None or team.left_at is not None:
        raise LadderError(_("This team is no longer on the ladder."))
    return team


def _pending(challenge: LadderChallenge) -> tuple[Ladder, LadderChallenge]:
    """The ladder's lock, then the challenge as it is now; refused once it is decided."""
    ladder = _lock(challenge.ladder_id)
    fresh = LadderChallenge.objects.filter(pk=challenge.pk, ladder=ladder).first()
    if fresh is None or not fresh.is_pending:
        raise LadderError(_("This challenge is already decided."))
    return ladder, fresh


def _is_captain(user: AbstractBaseUser | None, team: LadderTeam) -> bool:
    return user is not None and user.pk == team.captain_id


def _check_positions() -> None:
    """Check the deferred unique position now (PostgreSQL), not only at the commit: a
    write-back that left two teams on one position fails here, inside the service."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute('SET CONSTRAINTS "ladderteam_unique_position" IMMEDIATE')
            cursor.execute('SET CONSTRAINTS "ladderteam_unique_position" DEFERRED')


def _store(ladder: Ladder, loaded: Loaded, step: core.Step, *, now: datetime) -> None:
    """Write back what the core returned: positions, challenges, history entries."""
    after, entries = step
    before = loaded.state
    # Positions (the unique position is deferred: several teams move at once).
    standing = {t.pk: t for t in LadderTeam.objects.filter(ladder=ladder, left_at__isnull=True)}
    changed = []
    for i, team_id in enumerate(after.teams):
        team = standing[team_id]
        if team.position != i + 1:
            team.position = i + 1
            changed.append(team)
    for team_id in set(before.teams) - set(after.teams):
        team = standing[team_id]
        team.position, team.left_at = None, now
        changed.append(team)
        LadderMember.objects.filter(team=team, left_at__isnull=True).update(left_at=now)
    if changed:
        LadderTeam.objects.bulk_update(changed, ["position", "left_at"])
        _check_positions()
    # Challenges: decided (gone from the state), accepted, or new.
    old = {(c.challenger, c.challenged): c for c in before.challenges}
    new = {(c.challenger, c.challenged): c for c in after.challenges}
    rows = dict(loaded.pending)
    for key in old.keys() - new.keys():
        row = rows[key]
        decision = next(e for e in entries if e.kind in _DECIDED and (e.team, e.opponent) == key)
        row.state = _DECIDED[decision.kind]
        row.decided_at = now
        row.challenger_vp = decision.challenger_vp
        row.forfeited_by_id = decision.forfeited_by
        row.save(update_fields=["state", "decided_at", "challenger_vp", "forfeited_by"])
    for key in old.keys() & new.keys():
        c = new[key]
        if c.accepted and not old[key].accepted:
            row = rows[key]
            row.state = LadderChallengeState.ACCEPTED
            row.accepted_at, row.play_by = c.accepted_at, c.play_by
            row.save(update_fields=["state", "accepted_at", "play_by"])
    for key in new.keys() - old.keys():
        c = new[key]
        rows[key] = LadderChallenge.objects.create(
            ladder=ladder,
            challenger_id=c.challenger,
            challenged_id=c.challenged,
            issued_at=c.issued_at,
            accept_by=c.accept_by,
        )
    LadderHistory.objects.bulk_create(
        LadderHistory(
            ladder=ladder,
            kind=e.kind,
            at=e.at,
            team_id=e.team,
            before=e.before,
            after=e.after,
            opponent_id=e.opponent,
            opponent_before=e.opponent_before,
            opponent_after=e.opponent_after,
            challenger_vp=e.challenger_vp,
            forfeited_by_id=e.forfeited_by,
            challenge=rows.get((e.team, e.opponent)) if e.opponent is not None else None,
        )
        for e in entries
    )


def _apply(ladder: Ladder, now: datetime, operation) -> None:
    """Load the state, run ``operation(state)`` (a core call), store what it returns."""
    loaded = load_ladder(ladder, now=now)
    try:
        step = operation(loaded.state)
    except TeamsError as error:
        raise _refused(error) from None
    _store(ladder, loaded, step, now=now)


def _challenge_row(ladder: Ladder, challenger_id: int, challenged_id: int) -> LadderChallenge:
    return LadderChallenge.objects.filter(
        ladder=ladder, challenger_id=challenger_id, challenged_id=challenged_id
    ).latest("id")


# --- a ladder and its teams ----------------------------------------------------------------


def create_ladder(
    *,
    name: str,
    by: AbstractBaseUser | None,
    challenge_range: int = 3,
    accept_days: int = 4,
    play_days: int = 7,
    rematch_days: int = 14,
    boards_per_match: int = 16,
) -> Ladder:
    """A new, empty ladder (an organiser holding ``add_tournament``)."""
    require(by, ADD_TOURNAMENT)
    try:
        core.LadderSettings(
            range=challenge_range,
            accept_days=accept_days,
            play_days=play_days,
            rematch_days=rematch_days,
        )
    except TeamsError as error:
        raise _refused(error) from None
    if isinstance(boards_per_match, bool) or not 1 <= boards_per_match <= MAX_BOARDS:
        raise LadderError(_("A ladder match has 1 to 64 boards."))
    name = (name or "").strip()
    try:
        validators.validate_name(name)
    except ValidationError as error:
        raise LadderError(" ".join(error.messages)) from None
    if not name:
        raise LadderError(_("A ladder needs a name."))
    try:
        with transaction.atomic():
            return Ladder.objects.create(
                name=name,
                challenge_range=challenge_range,
                accept_days=accept_days,
                play_days=play_days,
                rematch_days=rematch_days,
                boards_per_match=boards_per_match,
                created_by_id=by.pk if by is not None else None,
            )
    except IntegrityError:
        raise LadderError(_("A ladder with this name already exists.")) from None


def _players(members: Sequence[str | AbstractBaseUser]) -> list[AbstractBaseUser]:
    found: list[AbstractBaseUser] = []
    for member in members:
        if isinstance(member, str):
            user = User.objects.filter(username=member.strip(), is_active=True).first()
            if user is None:
                raise LadderError(_("No player is called %(name)s.") % {"name": member})
            found.append(user)
        else:
            found.append(member)
    return found


def enter_team(
    *,
    ladder: Ladder,
    captain: AbstractBaseUser,
    name: str,
    members: Sequence[str | AbstractBaseUser],
) -> LadderTeam:
    """The captain enters a team of the captain and 3–5 other players; it stands at the
    bottom. A player is in at most one standing team of a ladder."""
    if captain is None or not captain.is_authenticated:
        raise NotAllowed(_("Sign in to enter a team."))
    now = timezone.now()
    name = (name or "").strip()
    if not name:
        raise LadderError(_("A team needs a name."))
    try:
        validators.validate_name(name)
    except ValidationError as error:
        raise LadderError(" ".join(error.messages)) from None
    with transaction.atomic():
        ladder = _lock(ladder.pk)
        players = [captain, *_players(members)]
        if len({p.pk for p in players}) != len(players):
            raise LadderError(_("A player is named twice in this team."))
        if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
            raise LadderError(_("A team is the captain and 3 to 5 other players (4 to 6 in all)."))
        taken = (
            LadderMember.objects.filter(
                ladder=ladder, user__in=[p.pk for p in players], left_at__isnull=True
            )
            .select_related("user")
            .first()
        )
        if taken is not None:
            raise LadderError(
                _("%(player)s already plays in a team on this ladder.")
                % {"player": taken.user.get_username()}
            )
        if LadderTeam.objects.filter(ladder=ladder, name=name, left_at__isnull=True).exists():
            raise LadderError(_("A team with this name is already on the ladder."))
        loaded = load_ladder(ladder, now=now)
        team = LadderTeam.objects.create(
            ladder=ladder,
            name=name,
            captain_id=captain.pk,
            position=len(loaded.state.teams) + 1,
            entered_at=now,
        )
        LadderMember.objects.bulk_create(
            LadderMember(ladder=ladder, team=team, user_id=p.pk) for p in players
        )
        try:
            step = core.enter(loaded.state, team.pk, now)
        except TeamsError as error:
            raise _refused(error) from None
        _store(ladder, loaded, step, now=now)
        team.refresh_from_db()
        return team


def leave(*, team: LadderTeam, by: AbstractBaseUser | None) -> None:
    """``team`` withdraws (its captain, or an organiser managing players): its open
    challenge is void and every team below moves up one."""
    now = timezone.now()
    with transaction.atomic():
        ladder = _lock(team.ladder_id)
        team = _team(ladder, team.pk)
        if not _is_captain(by, team) and not allowed(by, MANAGE_PLAYERS):
            raise NotAllowed(_("Only the team's captain or a director can withdraw it."))
        _apply(ladder, now, lambda state: core.leave(state, team.pk, now))


# --- challenges -------------------------------------------------------------------------


def challenge(
    *, challenger: LadderTeam, challenged: LadderTeam, by: AbstractBaseUser | None
) -> LadderChallenge:
    """The challenger's captain challenges a team above it, within the range."""
    now = timezone.now()
    with transaction.atomic():
        ladder = _lock(challenger.ladder_id)
        challenger = _team(ladder, challenger.pk)
        challenged = _team(ladder, challenged.pk)
        if not _is_captain(by, challenger):
            raise NotAllowed(_("Only the team's captain can challenge for it."))
        _apply(ladder, now, lambda s: core.challenge(s, challenger.pk, challenged.pk, now))
        return _challenge_row(ladder, challenger.pk, challenged.pk)


def _answer(challenge: LadderChallenge, by: AbstractBaseUser | None, operation) -> LadderChallenge:
    now = timezone.now()
    with transaction.atomic():
        ladder, row = _pending(challenge)
        challenged = _team(ladder, row.challenged_id)
        if not _is_captain(by, challenged):
            raise NotAllowed(_("Only the challenged team's captain can answer a challenge."))
        _apply(ladder, now, lambda s: operation(s, challenged.pk, now))
        row.refresh_from_db()
        return row


def accept(*, challenge: LadderChallenge, by: AbstractBaseUser | None) -> LadderChallenge:
    """The challenged captain accepts before the accept deadline; the play deadline runs."""
    return _answer(challenge, by, core.accept)


def decline(*, challenge: LadderChallenge, by: AbstractBaseUser | None) -> LadderChallenge:
    """The challenged captain declines: a forfeit, the challenger takes its position."""
    return _answer(challenge, by, core.decline)


def forfeit(
    *, challenge: LadderChallenge, team: LadderTeam, by: AbstractBaseUser | None
) -> LadderChallenge:
    """``team`` concedes its open challenge (its captain, or a director)."""
    now = timezone.now()
    with transaction.atomic():
        ladder, row = _pending(challenge)
        if team.pk not in (row.challenger_id, row.challenged_id):
            raise LadderError(_("This team is not in this challenge."))
        team = _team(ladder, team.pk)
        if not _is_captain(by, team) and not allowed(by, DIRECT_RESULTS):
            raise NotAllowed(_("Only the team's captain or a director can concede for it."))
        _apply(ladder, now, lambda s: core.forfeit(s, team.pk, now))
        row.refresh_from_db()
        return row


def record_result(
    *, challenge: LadderChallenge, challenger_vp: Decimal | int | str, by: AbstractBaseUser | None
) -> LadderChallenge:
    """A director enters the match's result, the challenger's VPs (0–20), before the play
    deadline: above 10 the challenger takes the challenged team's position."""
    require(by, DIRECT_RESULTS)
    try:
        vp = Decimal(str(challenger_vp))
    except (InvalidOperation, ValueError):
        raise LadderError(_("A match's VPs are a number from 0 to 20.")) from None
    if vp.is_finite() and vp != vp.quantize(Decimal("0.01")):
        raise LadderError(_("VPs have at most two decimals."))
    now = timezone.now()
    with transaction.atomic():
        ladder, row = _pending(challenge)
        _apply(ladder, now, lambda s: core.result(s, row.challenger_id, vp, now))
        row.refresh_from_db()
        return row


def record_showed(
    *,
    challenge: LadderChallenge,
    team: LadderTeam,
    by: AbstractBaseUser | None,
    showed: bool = True,
) -> LadderChallenge:
    """A director notes that ``team`` turned up for an accepted challenge's match: at the
    play deadline without a result, the side that did not show forfeits."""
    require(by, DIRECT_RESULTS)
    with transaction.atomic():
        _ladder, row = _pending(challenge)
        if row.state != LadderChallengeState.ACCEPTED:
            raise LadderError(_("This challenge is not accepted yet."))
        if team.pk == row.challenger_id:
            row.challenger_showed = showed
        elif team.pk == row.challenged_id:
            row.challenged_showed = showed
        else:
            raise LadderError(_("This team is not in this challenge."))
        row.save(update_fields=["challenger_showed", "challenged_showed"])
        return row


# --- the clock ------------------------------------------------------------------------


def run_deadlines(*, now: datetime | None = None) -> list[str]:
    """Close every challenge whose deadline has passed, on every ladder, exactly once:
    each ladder in its own transaction under its row lock. Returns one line per ladder
    that changed; a ladder that fails is logged and left for the next tick."""
    now = now or timezone.now()
    events: list[str] = []
    for ladder_id in due_ladder_ids(now=now):
        try:
            with transaction.atomic():
                ladder = _lock(ladder_id)
                loaded = load_ladder(ladder, now=now)
                shown = {
                    team
                    for row in loaded.pending.values()
                    for team, showed in (
                        (row.challenger_id, row.challenger_showed),
                        (row.challenged_id, row.challenged_showed),
                    )
                    if showed
                }
                step = core.deadlines(loaded.state, now, shown)
                if step[1]:
                    _store(ladder, loaded, step, now=now)
                    closed = sum(1 for e in step[1] if e.kind in _DECIDED)
                    events.append(f"ladder {ladder.name}: {closed} challenge(s) closed")
        except Exception:
            logger.exception("clock: the deadlines of ladder %s could not run", ladder_id)
    return events
