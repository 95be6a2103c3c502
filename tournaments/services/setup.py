"""Setting up an event: players and tournaments (the API, the console, admin, scripts).

These functions check every setting and refuse with a `ServiceError` before anything is
written. Numbers arrive as JSON, so NaN, infinities
and absurd sizes are refused too. The checks are the model fields' validators
(`tournaments.validators`, which the admin runs through `full_clean`) and
`check_schedule`, which the admin's tournament form calls as well: one set of limits
and messages for every way in.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal
from typing import Any, Required, TypedDict, Unpack

from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError
from django.db import IntegrityError, models, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

import teams

from .. import validators
from ..errors import ServiceError
from ..models import (
    Contestants,
    DatumRounding,
    FirstRoundDraw,
    PlayerProfile,
    PlayMode,
    ScoringMethod,
    Seating,
    TeamScoring,
    Tournament,
    UnplayedPolicy,
)
from ..validators import (  # noqa: F401  (the limits, re-exported for callers of setup)
    MAX_BOARDS_PER_ROUND,
    MAX_GAP_MINUTES,
    MAX_ROUND_MINUTES,
    MAX_ROUNDS,
    MIN_ROUND_MINUTES,
)
from .formats import movement_rules
from .permissions import ADD_TOURNAMENT, MANAGE_PLAYERS, require

User = get_user_model()

# A start a little in the past is a clock a few seconds behind, not a mistake.
START_GRACE = timedelta(minutes=5)
# Dates far out are typing mistakes, and near year 1 or 9999 they would not even
# survive the round trip through UTC and the database.
MAX_START_AHEAD = timedelta(days=5 * 366)
MAX_REGISTRATION_AHEAD = timedelta(days=366)


class SetupError(ServiceError):
    pass


class AlreadyExists(SetupError):
    status_code = 409


def _checked(validator, value, *args) -> None:
    """Run a model field's validator; its refusal is the service's, with its message."""
    try:
        validator(value, *args)
    except ValidationError as error:
        raise SetupError(error.messages[0]) from None


def _max_length(model: type[models.Model], name: str) -> int:
    """The declared length limit of a text field (each one asked about has one)."""
    field: Any = model._meta.get_field(name)
    return int(field.max_length)


def create_player(*, username: str, display_name: str = "", by) -> AbstractBaseUser:
    """A player account for the API: no usable password (they sign in by token or reset).

    `by` needs `tournaments.manage_players`.
    """
    require(by, MANAGE_PLAYERS)
    username = (username or "").strip() if isinstance(username, str) else ""
    display_name = (display_name or "").strip() if isinstance(display_name, str) else ""
    if not username:
        raise SetupError(_("Give the player a username."))
    _checked(validators.validate_name, username)
    _checked(validators.validate_name, display_name)
    max_length = _max_length(User, User.USERNAME_FIELD)
    if len(username) > max_length:
        raise SetupError(_("A username has at most %(n)s characters.") % {"n": max_length})
    try:
        UnicodeUsernameValidator()(username)
    except ValidationError:
        raise SetupError(
            _("“%(u)s” is not a valid username: use letters, digits and @ . + - _ only.")
            % {"u": username}
        ) from None
    name_length = _max_length(PlayerProfile, "display_name")
    if len(display_name) > name_length:
        raise SetupError(_("A display name has at most %(n)s characters.") % {"n": name_length})
    # Registration looks players up case-insensitively, so "Ann" and "ann" can't both exist.
    if User.objects.filter(username__iexact=username).exists():
        raise AlreadyExists(_("There is already a player called “%(u)s”.") % {"u": username})
    try:
        with transaction.atomic():
            # No password given: Django stores an unusable one.
            user = User.objects.create_user(username=username, password=None)
            profile, _created = PlayerProfile.objects.get_or_create(user=user)
            if display_name:
                profile.display_name = display_name
                profile.save(update_fields=["display_name"])
    except IntegrityError:
        raise AlreadyExists(
            _("There is already a player called “%(u)s”.") % {"u": username}
        ) from None
    return user


def _number(value, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | Decimal):
        raise SetupError(_("%(what)s must be a number.") % {"what": what})
    if not math.isfinite(float(value)):
        raise SetupError(_("%(what)s must be a finite number.") % {"what": what})
    return float(value)


def _whole(value, what: str, validator) -> int:
    number = _number(value, what)
    if number != int(number):
        # The validator's message: the same words for 2.5 as for 51.
        _checked(validator, None)
    whole = int(number)
    _checked(validator, whole)
    return whole


def _duration(value, what: str, validator) -> timedelta:
    number = _number(value, what)
    try:
        # Whole seconds: the clock and the pages never show anything finer.
        length = timedelta(seconds=round(number * 60))
    except OverflowError:
        # Beyond any timedelta, and so beyond every limit: the validator says which.
        length = timedelta.max if number > 0 else timedelta.min
    _checked(validator, length)
    return length


def completion_threshold_percent(value) -> Decimal:
    """The threshold as a percentage 1–100 (RULES 6); see `validate_completion_threshold`."""
    number = _number(value, _("The completion threshold"))
    _checked(validators.validate_completion_threshold, number)
    return Decimal(str(number)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def _aware(value, what: str) -> datetime:
    if not isinstance(value, datetime):
        raise SetupError(_("%(what)s must be a date and time.") % {"what": what})
    try:
        if timezone.is_naive(value):
            # A time without an offset is read in the site's time zone, as the admin does.
            value = timezone.make_aware(value)
        value.astimezone(UTC)
    except (OverflowError, ValueError):
        raise SetupError(_("%(what)s is out of range.") % {"what": what}) from None
    return value


def check_schedule(
    *,
    start_at: datetime,
    registration_opens_at: datetime,
    now: datetime,
    new_start: bool = True,
) -> None:
    """The checks across a tournament's dates, for the API and the admin form alike.

    `new_start`: the start time is being set (a new tournament, or an edited start), so
    it may not lie in the past or years ahead; an existing start is left as it is.
    """
    if new_start:
        if start_at < now - START_GRACE:
            raise SetupError(_("The start time is in the past."))
        if start_at > now + MAX_START_AHEAD:
            raise SetupError(_("The start time is more than five years away."))
    if registration_opens_at > start_at:
        raise SetupError(_("Registration must open before the tournament starts."))
    if registration_opens_at < start_at - MAX_REGISTRATION_AHEAD:
        raise SetupError(_("Registration can open at most a year before the start."))


def check_tournament_settings(
    *,
    name: str,
    start_at: datetime,
    rounds: int,
    boards_per_round: int,
    round_minutes: float,
    gap_minutes: float = 0,
    scoring: str = ScoringMethod.IMP,
    completion_threshold: float = 70,
    unplayed_policy: str = UnplayedPolicy.NOT_PLAYED,
    registration_opens_at: datetime | None = None,
    play: str = PlayMode.ENTERED,
    description: str = "",
    neuberg: bool | None = None,
    first_round_draw: str = FirstRoundDraw.REGISTRATION,
    kibitz_live: bool = False,
    seating: str = Seating.SWISS,
    winners: int | None = None,
    arrow_switch: bool = False,
    movement: dict | str | bytes | None = None,
    boards_travel: bool = False,
    datum_rounding: str = DatumRounding.HALF_EVEN,
    contestants: str = Contestants.PAIRS,
    team_scoring: str = TeamScoring.VP,
    bye_vp: float | str | Decimal = 12,
    stanzas: int = 1,
    now: datetime | None = None,
) -> dict[str, Any]:
    """Every setting of a new tournament checked; the model's fields as they would be
    stored, or refused with a `SetupError` saying what is wrong. Writes nothing (the
    admin's form asks it before saving, so a refusal is a form error).

    `seating`: "swiss", or a movement (RULES 10): "mitchell" / "howell" (generated for the
    pairs registered when round 1 starts) or "movement" with `movement` given as data (the
    JSON form or an `.ASC` file's text), checked and fitted to `rounds` and
    `boards_per_round` here (`formats.movement_rules`). `winners` 2 only with a movement
    whose pairs keep their direction; None: what the seating gives (2 for a Mitchell).
    `neuberg` None: on for a movement, off for Swiss
    (SPEC 10). `contestants` "teams" (RULES 11): matches of two rooms, seated "swiss" or
    "round_robin", in VPs or IMPs only (`team_scoring`), a bye worth `bye_vp`."""
    now = now or timezone.now()
    name = name.strip() if isinstance(name, str) else ""
    if not name:
        raise SetupError(_("Give the tournament a name."))
    _checked(validators.validate_name, name)
    max_name = _max_length(Tournament, "name")
    if len(name) > max_name:
        raise SetupError(_("A tournament name has at most %(n)s characters.") % {"n": max_name})
    if not isinstance(description, str):
        raise SetupError(_("A description is a text."))
    _checked(validators.validate_description, description)
    start_at = _aware(start_at, _("The start time"))
    rounds = _whole(rounds, _("The number of rounds"), validators.validate_rounds)
    boards_per_round = _whole(
        boards_per_round, _("The number of boards per round"), validators.validate_boards_per_round
    )
    round_length = _duration(round_minutes, _("The round length"), validators.validate_round_length)
    gap_length = _duration(gap_minutes, _("The gap between rounds"), validators.validate_gap_length)
    if scoring not in ScoringMethod.values:
        raise SetupError(
            _("The scoring method is one of %(choices)s.")
            % {"choices": ", ".join(ScoringMethod.values)}
        )
    if unplayed_policy not in UnplayedPolicy.values:
        raise SetupError(
            _("The unplayed-board policy is one of %(choices)s.")
            % {"choices": ", ".join(UnplayedPolicy.values)}
        )
    if play not in PlayMode.values:
        raise SetupError(_("Play is “online” or “entered”."))
    if neuberg is None:
        neuberg = seating != Seating.SWISS
    if not isinstance(neuberg, bool):
        raise SetupError(_("Neuberg is on or off."))
    kibitz_live = checked_kibitz_live(kibitz_live, play)
    if first_round_draw not in FirstRoundDraw.values:
        raise SetupError(
            _("The first round is drawn by one of %(choices)s.")
            % {"choices": ", ".join(FirstRoundDraw.values)}
        )
    threshold = completion_threshold_percent(completion_threshold)
    if registration_opens_at is None:
        registration_opens_at = min(now, start_at)
    else:
        registration_opens_at = _aware(registration_opens_at, _("The registration opening"))
    check_schedule(start_at=start_at, registration_opens_at=registration_opens_at, now=now)
    team_fields = checked_team_settings(
        contestants=contestants,
        team_scoring=team_scoring,
        bye_vp=bye_vp,
        seating=seating,
        winners=winners,
        boards_travel=boards_travel,
        movement=movement,
        boards_per_round=boards_per_round,
        stanzas=stanzas,
        rounds=rounds,
    )
    if contestants == Contestants.TEAMS:
        # The movement rules are the pairs' own; a team event is seated by its schedule.
        seating_fields: dict[str, Any] = {
            "seating": seating,
            "winners": 1,
            "arrow_switch": False,
            "movement": None,
            "boards_travel": False,
        }
        neuberg = False
    else:
        seating_fields = movement_rules.checked_seating(
            seating=seating,
            winners=winners,
            arrow_switch=arrow_switch,
            movement=movement,
            rounds=rounds,
            boards_per_round=boards_per_round,
            boards_travel=boards_travel,
            play=play,
        )
    return {
        **seating_fields,
        **team_fields,
        "datum_rounding": checked_datum_rounding(datum_rounding),
        "name": name,
        "description": description,
        "start_at": start_at,
        "registration_opens_at": registration_opens_at,
        "rounds": rounds,
        "boards_per_round": boards_per_round,
        "round_length": round_length,
        "gap_length": gap_length,
        "scoring_method": scoring,
        "neuberg": neuberg,
        "completion_threshold": threshold,
        "unplayed_policy": unplayed_policy,
        "first_round_draw": first_round_draw,
        "play": play,
        "kibitz_live": kibitz_live,
    }


def checked_team_settings(
    *,
    contestants: object,
    team_scoring: object,
    bye_vp: object,
    seating: object,
    winners: object,
    boards_travel: object,
    movement: object,
    boards_per_round: int,
    stanzas: object = 1,
    rounds: int = 1,
) -> dict[str, Any]:
    """Who the contestants are and, for teams, how their matches count (RULES 11), as the
    model stores them; refused with a `SetupError`. Writes nothing. `stanzas`: the rounds
    a team match lasts (a whole number of matches in `rounds`)."""
    if contestants not in Contestants.values:
        raise SetupError(_("The contestants are pairs or teams."))
    if team_scoring not in TeamScoring.values:
        raise SetupError(_("A team match counts in victory points (vp) or IMPs only (imps)."))
    try:
        vp = Decimal(str(bye_vp)) if not isinstance(bye_vp, bool) else None
    except ArithmeticError:
        vp = None
    if vp is None or not vp.is_finite() or not 0 <= vp <= 20 or vp != vp.quantize(Decimal("0.01")):
        raise SetupError(_("A bye is worth 0 to 20 victory points, to two decimals."))
    if contestants == Contestants.PAIRS:
        if seating == Seating.ROUND_ROBIN:
            raise SetupError(
                _("A round robin is for teams: pairs are seated Swiss or by a movement.")
            )
        if stanzas != 1:
            raise SetupError(_("Stanzas are a team match's: a pairs event has none."))
        return {
            "contestants": contestants,
            "team_scoring": TeamScoring.VP,
            "bye_vp": vp,
            "stanzas": 1,
        }
    if seating not in (Seating.SWISS, Seating.ROUND_ROBIN):
        raise SetupError(_("A team event is seated Swiss or as a round robin."))
    if winners not in (None, 1) or boards_travel or movement is not None:
        raise SetupError(
            _("A team event has one winner and plays each match's boards in both rooms: "
              "no movement, no travelling board sets.")
        )  # fmt: skip
    if isinstance(stanzas, bool) or not isinstance(stanzas, int) or not 1 <= stanzas <= 8:
        raise SetupError(_("A team match has 1 to 8 stanzas."))
    if rounds % stanzas:
        raise SetupError(
            _("%(rounds)s rounds are not a whole number of %(stanzas)s-stanza matches.")
            % {"rounds": rounds, "stanzas": stanzas}
        )
    if team_scoring == TeamScoring.VP and boards_per_round * stanzas > teams.MAX_BOARDS:
        raise SetupError(
            _("The VP scale is for matches of at most %(n)s boards.") % {"n": teams.MAX_BOARDS}
        )
    return {
        "contestants": contestants,
        "team_scoring": team_scoring,
        "bye_vp": vp,
        "stanzas": stanzas,
    }


def checked_kibitz_live(value: object, play: str) -> bool:
    """Whether kibitzers see the hands live (as on Vugraph): on or off, and only for a
    tournament played at our tables (a played-elsewhere one has no table to watch)."""
    if not isinstance(value, bool):
        raise SetupError(_("Live kibitzing is on or off (true or false)."))
    if value and play != PlayMode.ONLINE:
        raise SetupError(
            _("Live kibitzing is for a tournament played online: there is no table to watch.")
        )
    return value


def checked_datum_rounding(value: object) -> DatumRounding:
    """How a datum ending in exactly 5 is rounded (RULES 5.3), or refused saying the ways."""
    if value not in DatumRounding.values:
        raise SetupError(
            _("The datum is rounded one of these ways: %(choices)s.")
            % {"choices": ", ".join(DatumRounding.values)}
        )
    return DatumRounding(value)


class TournamentSettings(TypedDict, total=False):
    """The keywords of `check_tournament_settings` (its defaults apply to those left out)."""

    name: Required[str]
    start_at: Required[datetime]
    rounds: Required[int]
    boards_per_round: Required[int]
    round_minutes: Required[float]
    gap_minutes: float
    scoring: str
    completion_threshold: float
    unplayed_policy: str
    registration_opens_at: datetime | None
    play: str
    description: str
    neuberg: bool
    first_round_draw: str
    kibitz_live: bool
    seating: str
    winners: int
    arrow_switch: bool
    movement: dict | str | bytes | None
    boards_travel: bool
    datum_rounding: str
    contestants: str
    team_scoring: str
    bye_vp: float | str | Decimal
    stanzas: int


def create_tournament(
    *, by, now: datetime | None = None, **settings: Unpack[TournamentSettings]
) -> Tournament:
    """Validate every setting (`check_tournament_settings`, whose keywords these are) and
    create a scheduled tournament; refuse with a message.

    `by` needs `tournaments.add_tournament` and is recorded as its creator.
    """
    require(by, ADD_TOURNAMENT)
    fields = check_tournament_settings(now=now, **settings)
    return Tournament.objects.create(**fields, created_by=by)
