"""Team registration and the line-up (RULES 11): propose a team, members confirm or
decline, cancel, withdraw, set the line-up.

The captain proposes a team of 4–6 players (the captain and 3–5 others). The captain is a
member at once; each other player is invited (`TeamMember.confirmed_at` None) and confirms
or declines. The team is registered (its registration number given) once four of its
members have confirmed. A confirmed membership holds the player: the partial unique key of
`TeamMember` ("one team per player per tournament") refuses a second one, and confirming
cancels the player's other invitations in the tournament, as a pair's confirmation does.

A registered team always has a line-up: the pair for the open room and the one for the
closed room (`Team.open_pair`, `Team.closed_pair`), `Pair` rows with `team` set and no
`PairMember` rows. Registration gives the first four confirmed members in invitation order
(the captain first) as open (1st, 2nd) and closed (3rd, 4th); the captain (or an organiser)
changes it before a match with `set_line_up`. The format seats the line-up it finds when
it seats a round; only then do the opponents see it (`visibility.may_see_line_up`).

Every function takes the tournament's row lock first (as `registration` does, so that the
clock's seating sees a team or a line-up whole or not at all), refuses with a
`RegistrationError` (or `NotAllowed`) and leaves the database as it was.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Max, Q
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from .. import validators
from ..errors import NotAllowed, RegistrationError
from ..models import (
    Pair,
    PairStatus,
    Team,
    TeamMember,
    Tournament,
    TournamentStatus,
    player_name,
)
from . import registration
from .permissions import CHANGE_TOURNAMENT, MANAGE_PLAYERS, allowed

User = get_user_model()

MIN_PLAYERS = 4  # the team is registered once this many have confirmed
MAX_PLAYERS = 6


# --- helpers ----------------------------------------------------------------------------


def _lock_tournament(tournament_id: int) -> Tournament:
    return Tournament.objects.select_for_update().get(pk=tournament_id)


def _gone() -> RegistrationError:
    return RegistrationError(_("This team no longer exists: its captain cancelled it."))


def _lock_team(team: Team) -> tuple[Tournament, Team]:
    """The tournament's lock, then the team's row (refused when the team is gone)."""
    try:
        tournament = _lock_tournament(team.tournament_id)
        locked = (
            Team.objects.select_for_update(of=("self",))
            .select_related("tournament")
            .get(pk=team.pk, tournament_id=team.tournament_id)
        )
    except (Tournament.DoesNotExist, Team.DoesNotExist):
        raise _gone() from None
    return tournament, locked


def _team_event(tournament: Tournament) -> None:
    if not tournament.is_teams:
        raise RegistrationError(
            _("%(t)s is a pairs event: register a pair, not a team.") % {"t": tournament.name}
        )


def _find_player(username: str) -> AbstractBaseUser:
    username = (username or "").strip() if isinstance(username, str) else ""
    if not username:
        raise RegistrationError(_("Name each team member by their username."))
    try:
        return User.objects.get(username__iexact=username, is_active=True)
    except User.DoesNotExist:
        raise RegistrationError(_("There is no player called “%(u)s”.") % {"u": username}) from None


def _checked_name(name: str) -> str:
    name = name.strip() if isinstance(name, str) else ""
    if not name:
        raise RegistrationError(_("Give the team a name."))
    try:
        validators.validate_name(name)
    except ValidationError as error:
        raise RegistrationError(error.messages[0]) from None
    max_length = Team._meta.get_field("name").max_length or 60
    if len(name) > max_length:
        raise RegistrationError(_("A team name has at most %(n)s characters.") % {"n": max_length})
    return name


def _names(users) -> str:
    return _(" and ").join(sorted(player_name(u) for u in users)) or "?"


def _already_in_team_message(users: list) -> str:
    return ngettext(
        "%(names)s is already in a team in this tournament.",
        "%(names)s are already in a team in this tournament.",
        len(users),
    ) % {"names": _names(users)}


def _held(tournament: Tournament, users: list) -> list:
    """Those of `users` who are confirmed members of a team of `tournament`."""
    held = set(
        TeamMember.objects.filter(
            tournament=tournament, user__in=users, confirmed_at__isnull=False
        ).values_list("user_id", flat=True)
    )
    return [u for u in users if u.pk in held]


def _next_team_no(tournament: Tournament) -> int:
    top = tournament.teams.aggregate(top=Max("registration_no"))["top"] or 0
    return top + 1


def _next_pair_no(tournament: Tournament) -> int:
    top = tournament.pairs.aggregate(top=Max("registration_no"))["top"] or 0
    return top + 1


def _is_captain_or(user, team: Team, permission: str) -> bool:
    return user is not None and (user.pk == team.captain_id or allowed(user, permission))


def confirmed_members(team: Team) -> list[TeamMember]:
    """The team's confirmed members, in invitation order (the captain first)."""
    return list(
        TeamMember.objects.filter(team=team, confirmed_at__isnull=False)
        .select_related("user__profile")
        .order_by("invited_at", "id")
    )


def _pair_of(*, tournament: Tournament, team: Team, players: Sequence, now: datetime) -> Pair:
    """The team's pair of these two players (in either order), made if it has none."""
    first, second = players
    found = (
        Pair.objects.filter(team=team)
        .filter(
            Q(player1_id=first.pk, player2_id=second.pk)
            | Q(player1_id=second.pk, player2_id=first.pk)
        )
        .first()
    )
    if found is not None:
        return found
    return Pair.objects.create(
        tournament=tournament,
        team=team,
        player1=first,
        player2=second,
        status=PairStatus.CONFIRMED,
        proposed_at=now,
        confirmed_at=now,
        registration_no=_next_pair_no(tournament),
    )


def _seat_line_up(*, tournament: Tournament, team: Team, players: Sequence, now: datetime) -> None:
    """`players` (four users): open room pair (1st, 2nd), closed room pair (3rd, 4th)."""
    team.open_pair = _pair_of(tournament=tournament, team=team, players=players[:2], now=now)
    team.closed_pair = _pair_of(tournament=tournament, team=team, players=players[2:], now=now)
    team.save(update_fields=["open_pair", "closed_pair"])


def _register_if_complete(*, tournament: Tournament, team: Team, now: datetime) -> None:
    """A pending team with four confirmed members is registered: the next team number and
    the default line-up (the first four confirmed members, in invitation order)."""
    if team.status == PairStatus.CONFIRMED:
        return
    members = confirmed_members(team)
    if len(members) < MIN_PLAYERS:
        return
    team.status = PairStatus.CONFIRMED
    team.confirmed_at = now
    team.registration_no = _next_team_no(tournament)
    team.save(update_fields=["status", "confirmed_at", "registration_no"])
    _seat_line_up(tournament=tournament, team=team, players=[m.user for m in members[:4]], now=now)


# --- proposing, confirming, declining, cancelling ---------------------------------------


def propose_team(
    *,
    tournament: Tournament,
    captain,
    name: str,
    members: list[str],
    now: datetime | None = None,
) -> Team:
    """The captain proposes a team named `name` with `members` (3–5 usernames besides
    the captain's own): the captain is a member at once, the others are invited. None of
    them may already be a confirmed member of a team of this tournament."""
    now = now or timezone.now()
    name = _checked_name(name)
    if not isinstance(members, list | tuple):
        raise RegistrationError(_("Name the team's members by their usernames."))
    others = [_find_player(u) for u in members]
    players = [captain, *others]
    if len({p.pk for p in players}) != len(players):
        raise RegistrationError(
            _("A team's players are all different people (the captain is one of them).")
        )
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise RegistrationError(
            _(
                "A team is %(min)s to %(max)s players, the captain included: name %(low)s "
                "to %(high)s others."
            )
            % {
                "min": MIN_PLAYERS,
                "max": MAX_PLAYERS,
                "low": MIN_PLAYERS - 1,
                "high": MAX_PLAYERS - 1,
            }
        )
    with transaction.atomic():
        tournament = _lock_tournament(tournament.pk)
        _team_event(tournament)
        problem = registration.registration_problem(tournament, now)
        if problem:
            raise RegistrationError(problem)
        held = _held(tournament, players)
        if held:
            raise RegistrationError(_already_in_team_message(held))
        if Team.objects.filter(tournament=tournament, name__iexact=name).exists():
            raise RegistrationError(
                _("There is already a team called “%(name)s” in this tournament.") % {"name": name}
            )
        try:
            with transaction.atomic():
                team = Team.objects.create(
                    tournament=tournament, name=name, captain=captain, proposed_at=now
                )
                TeamMember.objects.bulk_create(
                    [
                        TeamMember(
                            tournament=tournament,
                            team=team,
                            user=player,
                            invited_at=now,
                            confirmed_at=now if player.pk == captain.pk else None,
                        )
                        for player in players
                    ]
                )
        except IntegrityError:  # a race the lock should have prevented: refuse plainly
            raise RegistrationError(_already_in_team_message([captain])) from None
        _drop_other_invitations(tournament=tournament, users=[captain], keep=team)
        return team


def _drop_other_invitations(*, tournament: Tournament, users: list, keep: Team) -> None:
    TeamMember.objects.filter(
        tournament=tournament, user__in=users, confirmed_at__isnull=True
    ).exclude(team=keep).delete()


def confirm_membership(*, team: Team, user, now: datetime | None = None) -> Team:
    """An invited player confirms: a member from now on, their other invitations in the
    tournament cancelled. The fourth confirmation registers the team."""
    now = now or timezone.now()
    with transaction.atomic():
        tournament, team = _lock_team(team)
        member = TeamMember.objects.filter(team=team, user_id=user.pk).first()
        if member is None:
            raise NotAllowed(_("Only an invited player can confirm a place in this team."))
        if member.confirmed_at is not None:
            raise RegistrationError(_("You are already a member of this team."))
        problem = registration.registration_problem(tournament, now)
        if problem:
            raise RegistrationError(problem)
        if tournament.status == TournamentStatus.FINISHED:
            raise RegistrationError(_("The tournament is over."))
        held = _held(tournament, [user])
        if held:
            raise RegistrationError(_already_in_team_message(held))
        member.confirmed_at = now
        try:
            with transaction.atomic():
                member.save(update_fields=["confirmed_at"])
        except IntegrityError:
            raise RegistrationError(_already_in_team_message([user])) from None
        _drop_other_invitations(tournament=tournament, users=[user], keep=team)
        _register_if_complete(tournament=tournament, team=team, now=now)
        return team


def decline_membership(*, team: Team, user) -> Team:
    """An invited player declines: the invitation is gone. A confirmed member cannot
    decline (the captain cancels or withdraws the team)."""
    with transaction.atomic():
        _tournament, team = _lock_team(team)
        member = TeamMember.objects.filter(team=team, user_id=user.pk).first()
        if member is None:
            raise NotAllowed(_("Only an invited player can decline a place in this team."))
        if member.confirmed_at is not None:
            raise RegistrationError(
                _("You have already confirmed your place in this team; it cannot be declined.")
            )
        member.delete()
        return team


def cancel_team(*, team: Team, by) -> None:
    """The captain cancels a team not yet registered: the team and its invitations are
    gone, and its confirmed members are free to join another."""
    with transaction.atomic():
        _tournament, team = _lock_team(team)
        if by is None or by.pk != team.captain_id:
            raise NotAllowed(_("Only the team's captain can cancel it."))
        if team.status != PairStatus.PENDING:
            raise RegistrationError(
                _("This team is already registered; withdraw it instead of cancelling.")
            )
        team.delete()


# --- withdrawing --------------------------------------------------------------------------


def withdraw_team(*, team: Team, by, now: datetime | None = None) -> Team:
    """The captain (or an organiser: `tournaments.manage_players`) withdraws a registered
    team: it plays no more matches (the format seats no withdrawn team) and keeps its
    results so far. Its pairs are withdrawn with it; those seated in a round still in
    play have their table's unfinished boards adjusted at once, A+ to the opponents and
    A- to the withdrawn team's pair, as a withdrawn pair's
    (`registration.forfeit_unfinished_boards`)."""
    now = now or timezone.now()
    with transaction.atomic():
        tournament, team = _lock_team(team)
        if not _is_captain_or(by, team, MANAGE_PLAYERS):
            raise NotAllowed(_("Only the team's captain or an organiser can withdraw it."))
        if team.status != PairStatus.CONFIRMED:
            raise RegistrationError(_("Only a registered team can withdraw."))
        if team.withdrawn_at is not None:
            raise RegistrationError(_("This team has already withdrawn."))
        if tournament.status == TournamentStatus.FINISHED:
            raise RegistrationError(_("The tournament is over; nothing to withdraw from."))
        team.withdrawn_at = now
        team.save(update_fields=["withdrawn_at"])
        pairs = list(Pair.objects.filter(team=team, withdrawn_at__isnull=True))
        Pair.objects.filter(pk__in=[p.pk for p in pairs]).update(withdrawn_at=now)
        for pair in pairs:  # only a pair at a table of the round in play has boards to forfeit
            pair.withdrawn_at = now
            registration.forfeit_unfinished_boards(tournament=tournament, pair=pair, by=by, now=now)
        return team


# --- the line-up --------------------------------------------------------------------------


def may_set_line_up(user, team: Team) -> bool:
    """The team's captain, or an organiser holding `tournaments.change_tournament`."""
    return _is_captain_or(user, team, CHANGE_TOURNAMENT)


def line_up_problem(team: Team) -> str | None:
    """Why `team`'s line-up cannot be set now (whoever asks), or None."""
    if team.status != PairStatus.CONFIRMED:
        return _("The team is not registered yet: four of its members have to confirm first.")
    if team.withdrawn_at is not None:
        return _("This team has withdrawn.")
    if team.tournament.status == TournamentStatus.FINISHED:
        return _("The tournament is over.")
    return None


def set_line_up(
    *,
    team: Team,
    by,
    open_pair: Sequence[str],
    closed_pair: Sequence[str],
    now: datetime | None = None,
) -> Team:
    """The captain (or an organiser holding `tournaments.change_tournament`) sets the
    line-up for the next match: `open_pair` and `closed_pair`, each two usernames, four
    different confirmed members. Each pair is the team's `Pair` of those two players,
    made (with the tournament's next pair number) the first time it is named."""
    now = now or timezone.now()
    pairs = []
    for given in (open_pair, closed_pair):
        if not isinstance(given, list | tuple) or len(given) != 2:
            raise RegistrationError(_("Each pair of the line-up is two players."))
        pairs.append([_find_player(u) for u in given])
    players = [*pairs[0], *pairs[1]]
    if len({p.pk for p in players}) != 4:
        raise RegistrationError(_("The line-up is four different players."))
    with transaction.atomic():
        tournament, team = _lock_team(team)
        if not may_set_line_up(by, team):
            raise NotAllowed(_("Only the team's captain or an organiser can set its line-up."))
        problem = line_up_problem(team)
        if problem:
            raise RegistrationError(problem)
        members = {m.user_id for m in confirmed_members(team)}
        outside = [p for p in players if p.pk not in members]
        if outside:
            raise RegistrationError(
                ngettext(
                    "%(names)s is not a confirmed member of this team.",
                    "%(names)s are not confirmed members of this team.",
                    len(outside),
                )
                % {"names": _names(outside)}
            )
        _seat_line_up(tournament=tournament, team=team, players=players, now=now)
        return team
