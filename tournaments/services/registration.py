"""Registration (RULES 1): propose a pair, partner confirms, cancel, withdraw, late entry.

Every function refuses bad input with a `RegistrationError` and leaves the database
as it was. A pending proposal reserves nothing: a player may have several, made and
received, and only a confirmed pair holds its two players. That holding is the
`PairMember` rows, written when a pair is confirmed, whose unique key ("one pair per
player per tournament") two racing requests cannot both pass. Confirming a pair cancels
both players' other pending proposals in the tournament; the clock's start lapses any
still pending (`clock._start`).

A withdrawal while the pair is seated in a round still in play gives its table's
unfinished boards A+ to the opponents and A- to the pair, in the same transaction
(`withdraw_pair`); a late entry (`add_late_pair`) joins a running tournament from the
next seating, until the last round is seated.
"""

from __future__ import annotations

from datetime import datetime

from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.db.models import Max, Q
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from .. import round_rules
from ..errors import NotAllowed, RegistrationError, ServiceError
from ..models import (
    Adjustment,
    BoardResult,
    Direction,
    Pair,
    PairMember,
    PairStatus,
    ResultChangeKind,
    ResultState,
    Table,
    Tournament,
    TournamentStatus,
    player_name,
)
from ..selectors.boards import boards_at
from ..timezones import zone_label
from . import history
from .permissions import MANAGE_PLAYERS, allowed, require

User = get_user_model()
PLAYERS = ("tournament", "player1", "player2")


def before_start(tournament: Tournament) -> bool:
    """Round 1 has not been seated (`round_rules.started`): registration's window. A
    tournament paused before it starts still takes registrations (RULES 1)."""
    return not round_rules.started(tournament)


def registration_problem(tournament: Tournament, now: datetime) -> str | None:
    """Why registration is not open right now, or None when it is."""
    if not before_start(tournament):
        return _("Registration for %(t)s is closed: the tournament has started.") % {
            "t": tournament.name
        }
    if now < tournament.registration_opens_at:
        local = timezone.localtime(tournament.registration_opens_at)
        return _("Registration for %(t)s opens at %(when)s.") % {
            "t": tournament.name,
            "when": local.strftime("%Y-%m-%d %H:%M") + " " + zone_label(local),
        }
    return None


def pairs_only_problem(tournament: Tournament) -> str | None:
    """A team event (RULES 11) registers teams, never pairs: why, or None."""
    if tournament.is_teams:
        return _("%(t)s is a team event: register a team, not a pair.") % {"t": tournament.name}
    return None


def _pairs_only(tournament: Tournament) -> None:
    problem = pairs_only_problem(tournament)
    if problem:
        raise RegistrationError(problem)


def _find_player(username: str) -> AbstractBaseUser:
    username = (username or "").strip()
    if not username:
        raise RegistrationError(_("Name your partner by their username."))
    try:
        return User.objects.get(username__iexact=username, is_active=True)
    except User.DoesNotExist:
        raise RegistrationError(_("There is no player called “%(u)s”.") % {"u": username}) from None


def _lock_tournament(tournament_id: int) -> Tournament:
    return Tournament.objects.select_for_update().get(pk=tournament_id)


def _already_in_pair_message(tournament: Tournament, users: list) -> str:
    """Names the players by the name every page shows them by (their display name)."""
    taken = PairMember.objects.filter(tournament=tournament, user__in=users).select_related(
        "user__profile"
    )
    names = sorted(player_name(m.user) for m in taken) or ["?"]
    return ngettext(
        "%(names)s is already in a pair in this tournament.",
        "%(names)s are already in a pair in this tournament.",
        len(names),
    ) % {"names": _(" and ").join(names)}


def pair_problem(*, tournament: Tournament, player1, player2) -> str | None:
    """Why these two players cannot form a pair in `tournament` (the same player twice,
    or one of them already in a confirmed pair there), or None. Pending proposals are
    no obstacle: they reserve nothing."""
    if player1.pk == player2.pk:
        return _("A pair is two different players.")
    if PairMember.objects.filter(tournament=tournament, user__in=[player1, player2]).exists():
        return _already_in_pair_message(tournament, [player1, player2])
    return None


def _pending_with_either(tournament: Tournament, users: list):
    ids = [u.pk for u in users]
    return Pair.objects.filter(tournament=tournament, status=PairStatus.PENDING).filter(
        Q(player1_id__in=ids) | Q(player2_id__in=ids)
    )


def _hold_players(pair: Pair) -> None:
    """The confirmed pair takes its two players: their memberships (the database's
    guard against a second pair), and their other pending proposals are cancelled.

    Runs inside the caller's transaction with the tournament locked; a refusal rolls
    the whole confirmation back."""
    try:
        with transaction.atomic():
            PairMember.objects.bulk_create(
                [
                    PairMember(tournament_id=pair.tournament_id, pair=pair, user_id=user_id)
                    for user_id in (pair.player1_id, pair.player2_id)
                ]
            )
    except IntegrityError:
        raise RegistrationError(
            _already_in_pair_message(pair.tournament, [pair.player1, pair.player2])
        ) from None
    _pending_with_either(pair.tournament, [pair.player1, pair.player2]).exclude(pk=pair.pk).delete()


def _create_pair(*, tournament: Tournament, player1, player2, now: datetime, confirmed: bool):
    problem = pair_problem(tournament=tournament, player1=player1, player2=player2)
    if problem:
        raise RegistrationError(problem)
    with transaction.atomic():
        pair = Pair(tournament=tournament, player1=player1, player2=player2, proposed_at=now)
        if confirmed:
            pair.status = PairStatus.CONFIRMED
            pair.confirmed_at = now
            pair.registration_no = _next_registration_no(tournament)
        pair.save()
        if confirmed:
            _hold_players(pair)
    return pair


def _next_registration_no(tournament: Tournament) -> int:
    # Called with the tournament row locked, so numbers are handed out one at a time.
    top = tournament.pairs.aggregate(top=Max("registration_no"))["top"] or 0
    return top + 1


def propose_pair(
    *, tournament: Tournament, proposer, partner_username: str, now: datetime | None = None
) -> Pair:
    """The proposer names a partner; the pair is pending until the partner confirms."""
    now = now or timezone.now()
    partner = _find_player(partner_username)
    with transaction.atomic():
        tournament = _lock_tournament(tournament.pk)
        _pairs_only(tournament)
        problem = registration_problem(tournament, now)
        if problem:
            raise RegistrationError(problem)
        waiting = _pending_with_either(tournament, [proposer]).filter(
            Q(player1=partner) | Q(player2=partner)
        )
        if partner.pk != proposer.pk and waiting.exists():
            raise RegistrationError(
                _("A proposal between you and %(u)s is already waiting for confirmation.")
                % {"u": player_name(partner)}
            )
        return _create_pair(
            tournament=tournament, player1=proposer, player2=partner, now=now, confirmed=False
        )


def _gone() -> RegistrationError:
    return RegistrationError(
        _(
            "This proposal is no longer open: it was cancelled, one of the players "
            "registered with someone else, or it lapsed when play started."
        )
    )


def confirm_pair(*, pair: Pair, user, now: datetime | None = None) -> Pair:
    """The named partner confirms; the pair gets the next registration number, holds
    both players, and their other pending proposals in the tournament are cancelled."""
    now = now or timezone.now()
    with transaction.atomic():
        try:
            tournament = _lock_tournament(pair.tournament_id)
            pair = (
                Pair.objects.select_for_update(of=("self",))
                .select_related(*PLAYERS)
                .get(pk=pair.pk, tournament_id=pair.tournament_id)
            )
        except (Tournament.DoesNotExist, Pair.DoesNotExist):
            raise _gone() from None
        if pair.player2_id != user.pk:
            raise NotAllowed(_("Only the invited partner can confirm this pair."))
        if pair.status == PairStatus.CONFIRMED:
            raise RegistrationError(_("This pair is already registered."))
        problem = registration_problem(tournament, now)
        if problem:
            raise RegistrationError(problem)
        pair.status = PairStatus.CONFIRMED
        pair.confirmed_at = now
        pair.registration_no = _next_registration_no(tournament)
        pair.save(update_fields=["status", "confirmed_at", "registration_no"])
        _hold_players(pair)
        return pair


def cancel_pair(*, pair: Pair, user) -> None:
    """Either player cancels a pending proposal; both become free to pair again."""
    with transaction.atomic():
        try:
            pair = Pair.objects.select_for_update().get(
                pk=pair.pk, tournament_id=pair.tournament_id
            )
        except Pair.DoesNotExist:
            raise _gone() from None
        if user.pk not in (pair.player1_id, pair.player2_id):
            raise NotAllowed(_("Only the two players can cancel this proposal."))
        if pair.status != PairStatus.PENDING:
            raise RegistrationError(
                _("This pair is already registered; withdraw it instead of cancelling.")
            )
        pair.delete()


def _two_players(usernames: list[str]) -> tuple[AbstractBaseUser, AbstractBaseUser]:
    if len(usernames) != 2:
        raise RegistrationError(_("A pair is exactly two players."))
    player1, player2 = (_find_player(u) for u in usernames)
    return player1, player2


def register_pair(
    *, tournament: Tournament, usernames: list[str], by, now: datetime | None = None
) -> Pair:
    """A director (`tournaments.manage_players`) registers a confirmed pair on the
    players' behalf (admin, API); `by=None` is the system (simulation, demo, commands)."""
    now = now or timezone.now()
    require(by, MANAGE_PLAYERS, system=True)
    player1, player2 = _two_players(usernames)
    with transaction.atomic():
        tournament = _lock_tournament(tournament.pk)
        _pairs_only(tournament)
        if not before_start(tournament):
            raise RegistrationError(registration_problem(tournament, now) or "")
        return _create_pair(
            tournament=tournament, player1=player1, player2=player2, now=now, confirmed=True
        )


def withdraw_pair(*, pair: Pair, by, now: datetime | None = None) -> Pair:
    """The pair (or a director: `tournaments.manage_players`) withdraws: not seated
    from the next seating on (a movement seats it where it stands, its boards forfeited
    at once: RULES 10).

    It keeps its scores so far and stays in the results (RULES 1, 弃权), unless it was
    never seated (withdrew before round 1). If it is seated in a round still in play,
    the boards its table has not finished are adjusted at once: A+ to the opponents,
    A- to the withdrawn pair, both completed (`forfeit_unfinished_boards`).
    """
    now = now or timezone.now()
    with transaction.atomic():
        tournament = _lock_tournament(pair.tournament_id)
        pair = Pair.objects.select_for_update().select_related("tournament").get(pk=pair.pk)
        if by.pk not in (pair.player1_id, pair.player2_id) and not allowed(by, MANAGE_PLAYERS):
            raise NotAllowed(_("Only the pair's players or an organiser can withdraw it."))
        if pair.status != PairStatus.CONFIRMED:
            raise RegistrationError(_("Only a registered pair can withdraw."))
        if pair.withdrawn_at is not None:
            raise RegistrationError(_("This pair has already withdrawn."))
        if pair.tournament.status == TournamentStatus.FINISHED:
            raise RegistrationError(_("The tournament is over; nothing to withdraw from."))
        pair.withdrawn_at = now
        pair.save(update_fields=["withdrawn_at"])
        forfeit_unfinished_boards(tournament=tournament, pair=pair, by=by, now=now)
        return pair


def forfeit_unfinished_boards(*, tournament: Tournament, pair: Pair, by, now: datetime) -> int:
    """The boards `pair`'s table has not finished in the round in play become adjusted
    scores: A+ to the opponents, A- to `pair`, recorded as made by `by` with the reason
    "Withdrawal" (RULES 1, 5.4). Returns how many boards it adjusted.

    Runs in `withdraw_pair`'s transaction with the tournament locked; the round is locked
    FOR UPDATE as a director's ruling does, so entries in flight (under the round's share
    lock) land first and are kept, and entries after it see the adjusted boards (only a
    director changes those). The bell only cuts off boards that have no result, so it
    leaves these alone; the totals settle A+ and A- against each pair's own percentage
    like any adjustment.
    A seated round that has not opened yet (the gap) is in play too: the pair cannot be
    unseated, so its opponents get all of that round's boards. A movement seats a
    withdrawn pair in every later round too (it keeps its position, RULES 10): the clock's
    seating calls this for it at once (`formats.movement_pairs`), `by` None (the system).
    Nothing is adjusted when the pair is not at a table (a bye, or not seated), when the
    round has closed, or when its bell has rung (the cut-off decides those boards, as for
    every table).
    """
    round = tournament.round_set.current_for_update()
    if round is None:
        return 0
    if round_rules.bell_rung(
        status=round.status,
        ends_at=round.ends_at,
        tournament_status=tournament.status,
        paused_at=tournament.paused_at,
        now=now,
    ):
        return 0
    table = Table.objects.filter(Q(ns_pair=pair) | Q(ew_pair=pair), round=round).first()
    if table is None:
        return 0
    withdrawn, opponents = Adjustment.AVG_MINUS, Adjustment.AVG_PLUS
    ns_adjustment, ew_adjustment = (
        (withdrawn, opponents)
        if table.side_of_pair(pair.pk) == Direction.NS
        else (opponents, withdrawn)
    )
    finished = BoardResult.objects.filter(table=table).values("board_id")
    reason = str(_("Withdrawal"))
    adjusted = [
        BoardResult(
            table=table,
            board=board,
            state=ResultState.ADJUSTED,
            ns_adjustment=ns_adjustment,
            ew_adjustment=ew_adjustment,
            entered_by=by,
            entered_at=now,
            adjusted_by=by,
            adjustment_reason=reason,
        )
        for board in boards_at(table, tournament_id=tournament.pk).exclude(id__in=finished)
    ]
    BoardResult.objects.bulk_create(adjusted)
    history.record_many(
        results=adjusted, kind=ResultChangeKind.ADJUSTMENT, by=by, at=now, reason=reason
    )
    return len(adjusted)


# --- late entries -------------------------------------------------------------------------


def late_entry_problem(tournament: Tournament) -> str | None:
    """Why no pair can join `tournament` as a late entry now, or None (RULES 1): only a
    tournament in play takes one, and only until its last round is seated."""
    if tournament.status == TournamentStatus.FINISHED:
        return _("%(t)s is over; no pair can join it.") % {"t": tournament.name}
    seated = tournament.round_set.aggregate(last=Coalesce(Max("number"), 0))["last"]
    if not seated:
        return _("%(t)s has not started yet: register the pair as usual.") % {"t": tournament.name}
    if seated >= tournament.rounds:
        return _(
            "The last round (round %(n)s) of %(t)s is already seated; a pair can join a "
            "running tournament only until then."
        ) % {"n": tournament.rounds, "t": tournament.name}
    # The format's own limit (a movement's free position): imported here, as the
    # formats call this module's withdrawal forfeit.
    from .formats import format_of

    problem = format_of(tournament).late_entry_problem(tournament)
    if problem:
        return problem
    return None


def late_pair_problem(*, tournament: Tournament, usernames: list[str], by) -> str | None:
    """Why `add_late_pair` would refuse these two players now, or None when it would take
    them. Writes nothing and takes no lock: a form asks before it acts, so that a refusal
    is an error on the form (the admin's late-entry action); the service checks again."""
    try:
        require(by, MANAGE_PLAYERS)
        player1, player2 = _two_players(usernames)
    except ServiceError as error:
        return str(error)
    return (
        pairs_only_problem(tournament)
        or late_entry_problem(tournament)
        or pair_problem(tournament=tournament, player1=player1, player2=player2)
    )


def add_late_pair(
    *, tournament: Tournament, usernames: list[str], by, now: datetime | None = None
) -> Pair:
    """An organiser (`tournaments.manage_players`) adds a confirmed pair to a running
    tournament (RULES 1, late entry).

    The pair gets the next registration number, so it is last on the final tie-break;
    it is seated from the next seating the clock makes (the seating engine takes any
    field, and a pair with no board yet stands at average) and the rounds it missed count
    as not played. In a movement event it takes the phantom's position (RULES 10), and is
    refused when the movement has none free. Refused once the last round is seated. The
    tournament row is locked, so the clock's close and seat (which takes the same lock)
    sees the pair or not at all.
    """
    now = now or timezone.now()
    require(by, MANAGE_PLAYERS)
    player1, player2 = _two_players(usernames)
    with transaction.atomic():
        tournament = _lock_tournament(tournament.pk)
        _pairs_only(tournament)
        problem = late_entry_problem(tournament)
        if problem:
            raise RegistrationError(problem)
        pair = _create_pair(
            tournament=tournament, player1=player1, player2=player2, now=now, confirmed=True
        )
        from .formats import format_of  # as in late_entry_problem

        format_of(tournament).admitted_late(tournament=tournament, pair=pair)
        return pair
