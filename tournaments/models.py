"""The data model of a Swiss-pairs event (RULES 1–7).

Invariants that matter for fairness are database constraints, not only form checks:
a player sits in at most one confirmed pair per tournament (`PairMember`; a pending
proposal reserves nobody), one result per table
and board, one round per number, one table per pair per round.
"""

from __future__ import annotations

import hashlib
from datetime import timedelta
from enum import StrEnum
from typing import TYPE_CHECKING, cast

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

import scoring

from . import validators
from .permissions import ORGANISER_PERMISSIONS

if TYPE_CHECKING:  # the stubs' name for a lazy translation
    from django.utils.functional import _StrPromise


class ScoringMethod(models.TextChoices):
    MP = "MP", _("Matchpoints")
    IMP = "IMP", _("Total IMPs (cross-IMPs)")
    XIMP = "XIMP", _("IMPs against a datum")


class UnplayedPolicy(models.TextChoices):
    NOT_PLAYED = "not_played", _("Not played (no score)")
    AVG_MINUS = "avg_minus", _("Average minus to both sides")
    AVG = "avg", _("Average to both sides")


class FirstRoundDraw(models.TextChoices):
    REGISTRATION = "registration", _("Registration order")
    RANDOM = "random", _("Random draw")


class Direction(models.TextChoices):
    NS = "NS", _("North-South")
    EW = "EW", _("East-West")
    BYE = "BYE", _("Bye")


class Adjustment(models.TextChoices):
    AVG_PLUS = "A+", _("Average plus")
    AVG = "A", _("Average")
    AVG_MINUS = "A-", _("Average minus")


def display_name(display_name: str | None, username: str) -> str:
    """A player's name wherever one is shown (pages, API, exports): the display name they
    chose, else their username (also for a user without a profile). Selectors that read
    raw values call this; instances go through `player_name`."""
    return display_name or username


def player_name(user) -> str:
    """`display_name` of a user instance, from its profile when it has one (select
    `profile` with the user: reading it costs a query otherwise)."""
    profile = getattr(user, "profile", None)
    return display_name(profile.display_name if profile else None, user.get_username())


def pair_names(name1: str, name2: str) -> str:
    """A pair as its two players' names, the way every list writes it."""
    return f"{name1} – {name2}"


class Contestants(models.TextChoices):
    """Who plays against whom (RULES 11): pairs across a field, or teams of four in
    matches of two rooms."""

    PAIRS = "pairs", _("Pairs")
    TEAMS = "teams", _("Teams (matches in two rooms)")


class Seating(models.TextChoices):
    """How a tournament's rounds are seated (RULES 4, RULES 10, RULES 11): pairs by Swiss or
    a movement, teams by Swiss or a round robin."""

    SWISS = "swiss", _("Swiss: by score, no rematch")
    MITCHELL = "mitchell", _("Mitchell movement")
    HOWELL = "howell", _("Howell movement")
    MOVEMENT = "movement", _("A movement given as data")
    ROUND_ROBIN = "round_robin", _("Round robin: every team meets every other once")
    # The club (RULES 13): a table is formed in the lobby and plays library deals one
    # after another, each of its sittings a round of its own (`ClubTable`).
    CLUB = "club", _("The club: free play against the field")


class FormatKey(StrEnum):
    """The formats behind the format seam (`services/formats`), by key: the key the
    per-format registries of the reads, the pages and the exports are keyed by."""

    SWISS_PAIRS = "swiss_pairs"
    MOVEMENT_PAIRS = "movement_pairs"
    TEAM_MATCHES = "team_matches"
    CLUB = "club"


def format_key_of(*, contestants: str, seating: str) -> FormatKey:
    """`Tournament.format_key` from the two columns that decide it (for reads that fetch
    the columns, not the tournament: the play server's)."""
    if contestants == Contestants.TEAMS:
        return FormatKey.TEAM_MATCHES
    if seating == Seating.CLUB:
        return FormatKey.CLUB
    if seating != Seating.SWISS:
        return FormatKey.MOVEMENT_PAIRS
    return FormatKey.SWISS_PAIRS


# The formats played as events: rounds the clock opens, rings and closes, listed on the
# home page and in the console, their open rounds' empty seats played by robots. The club's
# weeks (RULES 13) are standing rooms instead: a table seats itself from the lobby, deals
# itself its next board and its robots board by board, and the week's close is the
# clock's own step (`club_week.close_due_weeks`).
EVENT_FORMATS = frozenset(FormatKey) - {FormatKey.CLUB}


def played_in(keys: frozenset[FormatKey], *, via: str = "") -> Q:
    """The tournaments whose `format_key` is one of `keys`, as a filter on the two columns
    that decide it (`format_key_of` inverted); `via` is the path to the tournament
    ("tournament__" from a round)."""
    wanted = Q(pk__in=[])
    for contestants in Contestants.values:
        seatings = [
            seating
            for seating in Seating.values
            if format_key_of(contestants=contestants, seating=seating) in keys
        ]
        if seatings:
            wanted |= Q(**{f"{via}contestants": contestants, f"{via}seating__in": seatings})
    return wanted


class TournamentQuerySet(models.QuerySet["Tournament"]):
    def events(self) -> TournamentQuerySet:
        """Every tournament played as an event (`EVENT_FORMATS`): not the club's weeks."""
        return self.filter(played_in(EVENT_FORMATS))


class TeamScoring(models.TextChoices):
    """How a team match's IMP margin counts (RULES 11)."""

    VP = "vp", _("Victory points (WBF 2013 continuous 20-VP scale)")
    IMPS = "imps", _("IMPs only (knock-out)")


class DatumRounding(models.TextChoices):
    """How an IMP datum that ends in exactly 5 goes to a ten (RULES 5.3)."""

    HALF_EVEN = "half_even", _("To the even ten (425 → 420, 435 → 440)")
    HALF_AWAY = "half_away", _("Away from zero (425 → 430, −425 → −430), as Compscore3 does")


class PlayMode(models.TextChoices):
    ENTERED = "entered", _("Played elsewhere, results entered")
    ONLINE = "online", _("Played online at the system's tables")


class PlayerProfile(models.Model):
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile"
    )
    display_name = models.CharField(
        _("display name"), max_length=80, blank=True, validators=[validators.validate_name]
    )
    master_points = models.DecimalField(
        _("master points"), max_digits=9, decimal_places=2, default=0
    )

    class Meta:
        verbose_name = _("player profile")
        verbose_name_plural = _("player profiles")

    def __str__(self) -> str:
        return self.name

    @property
    def name(self) -> str:
        return display_name(self.display_name, self.user.get_username())


class RankTitle(models.Model):
    """One of the twelve master-point titles; thresholds are the organiser's to set."""

    level = models.PositiveSmallIntegerField(_("level"), unique=True)
    code = models.SlugField(_("code"), max_length=40, unique=True)
    name_zh = models.CharField(_("Chinese name"), max_length=40)
    name_en = models.CharField(_("English name"), max_length=60)
    min_master_points = models.DecimalField(
        _("minimum master points"), max_digits=9, decimal_places=2
    )

    class Meta:
        ordering = ["level"]
        verbose_name = _("rank title")
        verbose_name_plural = _("rank titles")

    def __str__(self) -> str:
        return f"{self.level}. {self.name_zh} / {self.name_en}"


class TournamentStatus(models.TextChoices):
    SCHEDULED = "scheduled", _("Scheduled")
    RUNNING = "running", _("Running")
    PAUSED = "paused", _("Paused")
    FINISHED = "finished", _("Finished")


class Tournament(models.Model):
    name = models.CharField(_("name"), max_length=200, validators=[validators.validate_name])
    description = models.TextField(
        _("description"), blank=True, validators=[validators.validate_description]
    )
    registration_opens_at = models.DateTimeField(_("registration opens at"), default=timezone.now)
    start_at = models.DateTimeField(_("start time"))
    # The validators hold the limits the API's setup service applies too (admin forms
    # run them through full_clean); the constraints below are only the last line.
    rounds = models.PositiveSmallIntegerField(_("rounds"), validators=[validators.validate_rounds])
    boards_per_round = models.PositiveSmallIntegerField(
        _("boards per round"), validators=[validators.validate_boards_per_round]
    )
    round_length = models.DurationField(
        _("round length"),
        default=timedelta(minutes=28),
        validators=[validators.validate_round_length],
    )
    gap_length = models.DurationField(
        _("gap between rounds"), default=timedelta(0), validators=[validators.validate_gap_length]
    )
    scoring_method = models.CharField(
        _("scoring method"), max_length=4, choices=ScoringMethod.choices, default="IMP"
    )
    neuberg = models.BooleanField(_("Neuberg for boards with artificial scores"), default=False)
    datum_rounding = models.CharField(
        _("datum rounding"),
        max_length=9,
        choices=DatumRounding.choices,
        default=DatumRounding.HALF_EVEN,
    )
    completion_threshold = models.DecimalField(
        _("completion threshold (%)"),
        max_digits=5,
        decimal_places=2,
        default=70,
        validators=[validators.validate_completion_threshold],
    )
    unplayed_policy = models.CharField(
        _("unplayed-board policy"),
        max_length=12,
        choices=UnplayedPolicy.choices,
        default=UnplayedPolicy.NOT_PLAYED,
    )
    first_round_draw = models.CharField(
        _("first-round seating"),
        max_length=12,
        choices=FirstRoundDraw.choices,
        default=FirstRoundDraw.REGISTRATION,
    )
    draw_seed = models.BigIntegerField(
        _("random draw seed"),
        null=True,
        blank=True,
        editable=False,
        help_text=_("The seed of the random first-round draw: the draw can be replayed from it."),
    )
    seating = models.CharField(
        _("seating"), max_length=12, choices=Seating.choices, default=Seating.SWISS
    )
    # One winner (one field) or two (the NS and the EW pairs ranked apart: a Mitchell).
    winners = models.PositiveSmallIntegerField(_("winners"), default=1)
    arrow_switch = models.BooleanField(
        _("arrow-switch"),
        default=False,
        help_text=_("Mitchell: in some rounds every table swaps NS and EW, for one winner."),
    )
    # The movement as data (`movements.to_json`): the organiser's own (seating "movement")
    # from when it is given, a generated one from round 1's start. Fixed once round 1 starts.
    movement = models.JSONField(_("movement"), null=True, blank=True)
    # Face to face with a club's board sets (RULES 10): each table plays the board set the
    # movement gives it, and a board is scored when its last table has played it. Off,
    # every table of a round plays the round's boards (duplicated, as online).
    boards_travel = models.BooleanField(
        _("board sets travel"),
        default=False,
        help_text=_(
            "Face to face: each table plays the board set the movement gives it, and the "
            "sets move between tables as the movement says."
        ),
    )
    # Pairs across a field, or teams in two-room matches (RULES 11); fixed at creation.
    contestants = models.CharField(
        _("contestants"), max_length=8, choices=Contestants.choices, default=Contestants.PAIRS
    )
    team_scoring = models.CharField(
        _("team scoring"), max_length=4, choices=TeamScoring.choices, default=TeamScoring.VP
    )
    bye_vp = models.DecimalField(
        _("VPs for a bye"),
        max_digits=4,
        decimal_places=2,
        default=12,
        help_text=_("Teams: the victory points a team with a bye scores (0–20)."),
    )
    # Teams: a match is this many consecutive rounds (stanzas) against the same team, its
    # IMPs carried from stanza to stanza and converted into VPs once, at its last bell.
    stanzas = models.PositiveSmallIntegerField(
        _("stanzas per match"),
        default=1,
        help_text=_(
            "Teams: each match is played over this many rounds against the same team, the "
            "line-up set again before each; its VPs come from the whole match."
        ),
    )
    status = models.CharField(
        _("status"), max_length=10, choices=TournamentStatus.choices, default="scheduled"
    )
    play = models.CharField(_("play"), max_length=8, choices=PlayMode.choices, default="entered")
    # Kibitzers of a running round see every hand live, as on Vugraph (RULES 2): the
    # organiser's choice; off, a kibitzer sees the play's progress only until the close.
    kibitz_live = models.BooleanField(
        _("kibitzers see the hands live"),
        default=False,
        help_text=_(
            "On: anyone may watch a table's hands while the round runs (as on Vugraph), "
            "except the tournament's own players. Off: only the progress, until the round closes."
        ),
    )
    paused_at = models.DateTimeField(_("paused at"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    objects = TournamentQuerySet.as_manager()

    class Meta:
        ordering = ["-start_at", "-id"]
        verbose_name = _("tournament")
        verbose_name_plural = _("tournaments")
        # The organiser's powers (tournaments.permissions); Django adds add/change/view/delete.
        permissions = ORGANISER_PERMISSIONS
        constraints = [
            models.CheckConstraint(condition=Q(rounds__gte=1), name="tournament_rounds_positive"),
            models.CheckConstraint(
                condition=Q(boards_per_round__gte=1) & Q(boards_per_round__lte=36),
                name="tournament_boards_per_round_range",
            ),
            models.CheckConstraint(
                condition=Q(completion_threshold__gte=1) & Q(completion_threshold__lte=100),
                name="tournament_threshold_percent",
            ),
            models.CheckConstraint(
                condition=Q(round_length__gt=timedelta(0)), name="tournament_round_length_positive"
            ),
            models.CheckConstraint(condition=Q(winners__in=(1, 2)), name="tournament_winners"),
            models.CheckConstraint(
                condition=Q(winners=1) | ~Q(seating="swiss"), name="tournament_two_winners_move"
            ),
            models.CheckConstraint(
                condition=Q(
                    contestants="pairs",
                    seating__in=("swiss", "mitchell", "howell", "movement", "club"),
                )
                | Q(
                    contestants="teams",
                    seating__in=("swiss", "round_robin"),
                    winners=1,
                    boards_travel=False,
                ),
                name="tournament_seating_of_its_contestants",
            ),
            models.CheckConstraint(
                condition=Q(bye_vp__gte=0) & Q(bye_vp__lte=20), name="tournament_bye_vp_range"
            ),
            models.CheckConstraint(
                condition=Q(stanzas__gte=1) & (Q(stanzas=1) | Q(contestants="teams")),
                name="tournament_stanzas_of_team_matches",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def total_boards(self) -> int:
        return self.rounds * self.boards_per_round

    def board_numbers(self, round_number: int) -> range:
        first = (round_number - 1) * self.boards_per_round + 1
        return range(first, first + self.boards_per_round)

    @property
    def is_teams(self) -> bool:
        return self.contestants == Contestants.TEAMS

    @property
    def format_key(self) -> FormatKey:
        """The format this event is played in: the one place the kind of event (its
        contestants and seating) names a format. `services.formats.format_of` and the
        per-format registries of the reads, pages and exports look their entry up by it."""
        return format_key_of(contestants=self.contestants, seating=self.seating)

    @property
    def is_ximp(self) -> bool:
        return self.scoring_method == ScoringMethod.XIMP

    @property
    def points_unit(self) -> str:
        return "%" if self.scoring_method == ScoringMethod.MP else "IMP"


class PairStatus(models.TextChoices):
    PENDING = "pending", _("Pending partner's confirmation")
    CONFIRMED = "confirmed", _("Registered")


class Pair(models.Model):
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="pairs")
    player1 = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("player proposing"),
    )
    player2 = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("partner"),
    )
    status = models.CharField(
        _("status"), max_length=10, choices=PairStatus.choices, default=PairStatus.PENDING
    )
    proposed_at = models.DateTimeField(_("proposed at"), default=timezone.now)
    confirmed_at = models.DateTimeField(_("registered at"), null=True, blank=True)
    registration_no = models.PositiveIntegerField(_("registration no."), null=True, blank=True)
    withdrawn_at = models.DateTimeField(_("withdrawn at"), null=True, blank=True)
    # A team event's pair (RULES 11): two of the team's players, as its line-up seats them.
    # Such a pair has no `PairMember` rows (a team's player may play in its different
    # pairs from one match to the next); `TeamMember` holds who is in which team.
    team = models.ForeignKey(
        "Team",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="pairs",
        verbose_name=_("team"),
    )
    # A movement's position this pair holds (RULES 10), from round 1's start or a late entry.
    position = models.PositiveSmallIntegerField(_("movement position"), null=True, blank=True)
    # The field it is ranked in: "NS" or "EW" in a two-winner event, "" in one field.
    field = models.CharField(_("field"), max_length=2, blank=True, default="")
    # Running state, rewritten from PairBoardScore at every round close / re-score.
    total = models.FloatField(_("total"), default=0.0)
    boards_completed = models.PositiveIntegerField(_("boards completed"), default=0)
    # Final results, set when the tournament finishes.
    completed = models.BooleanField(_("completed the event"), default=False)
    rank = models.PositiveIntegerField(_("rank"), null=True, blank=True)
    master_points = models.DecimalField(
        _("master points"), max_digits=7, decimal_places=2, default=0
    )

    class Meta:
        ordering = ["tournament", "registration_no", "id"]
        verbose_name = _("pair")
        verbose_name_plural = _("pairs")
        indexes = [
            # The live version counts a tournament's withdrawals on every page poll.
            models.Index(
                fields=["tournament"],
                condition=Q(withdrawn_at__isnull=False),
                name="pair_withdrawn",
            ),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "registration_no"], name="pair_unique_registration_no"
            ),
            models.UniqueConstraint(
                fields=["tournament", "position"], name="pair_unique_movement_position"
            ),
            models.CheckConstraint(
                condition=~Q(player1=models.F("player2")), name="pair_two_different_players"
            ),
            models.CheckConstraint(
                condition=Q(status="pending", registration_no__isnull=True)
                | Q(status="confirmed", registration_no__isnull=False),
                name="pair_registration_no_iff_confirmed",
            ),
        ]

    def __str__(self) -> str:
        no = f"#{self.registration_no} " if self.registration_no else ""
        return f"{no}{self.names}"

    def has_player(self, user_id: int | None) -> bool:
        return user_id is not None and user_id in (self.player1_id, self.player2_id)

    @property
    def names(self) -> str:
        return pair_names(player_name(self.player1), player_name(self.player2))

    @property
    def is_withdrawn(self) -> bool:
        return self.withdrawn_at is not None


class PairMember(models.Model):
    """A player held by a confirmed pair; the unique key makes double registration
    impossible. Written when the pair is confirmed, never for a pending proposal (RULES 1:
    a proposal reserves nothing, so a player may have several)."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="+")
    pair = models.ForeignKey(Pair, on_delete=models.CASCADE, related_name="members")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="pair_memberships"
    )

    class Meta:
        verbose_name = _("pair member")
        verbose_name_plural = _("pair members")
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "user"], name="pairmember_one_pair_per_tournament"
            )
        ]

    def __str__(self) -> str:
        return f"{self.user} in {self.pair}"


class Team(models.Model):
    """A team of a team event (RULES 11): four to six players and a captain, who proposes
    the team; each member confirms, and the team is registered once four have. The
    line-up (`open_pair`, `closed_pair`) is the captain's for the next match: the clock
    seats it when it seats that round, and only then do the opponents see it."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="teams")
    name = models.CharField(_("team name"), max_length=60, validators=[validators.validate_name])
    captain = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("captain"),
    )
    status = models.CharField(
        _("status"), max_length=10, choices=PairStatus.choices, default=PairStatus.PENDING
    )
    proposed_at = models.DateTimeField(_("proposed at"), default=timezone.now)
    confirmed_at = models.DateTimeField(_("registered at"), null=True, blank=True)
    registration_no = models.PositiveIntegerField(_("registration no."), null=True, blank=True)
    withdrawn_at = models.DateTimeField(_("withdrawn at"), null=True, blank=True)
    # The line-up for the next match: the pair that sits in the open room (NS when at home,
    # EW away) and the one in the closed room (the other way round).
    open_pair = models.ForeignKey(
        Pair,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("open room pair"),
    )
    closed_pair = models.ForeignKey(
        Pair,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("closed room pair"),
    )
    # Running state, rewritten from the matches at every round close / re-score.
    vp = models.DecimalField(_("victory points"), max_digits=7, decimal_places=2, default=0)
    imps_won = models.PositiveIntegerField(_("IMPs won"), default=0)
    imps_lost = models.PositiveIntegerField(_("IMPs lost"), default=0)
    rank = models.PositiveIntegerField(_("rank"), null=True, blank=True)

    class Meta:
        ordering = ["tournament", "registration_no", "id"]
        verbose_name = _("team")
        verbose_name_plural = _("teams")
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "registration_no"], name="team_unique_registration_no"
            ),
            models.UniqueConstraint(fields=["tournament", "name"], name="team_unique_name"),
            models.CheckConstraint(
                condition=Q(status="pending", registration_no__isnull=True)
                | Q(status="confirmed", registration_no__isnull=False),
                name="team_registration_no_iff_confirmed",
            ),
            models.CheckConstraint(
                condition=Q(open_pair__isnull=True)
                | Q(closed_pair__isnull=True)
                | ~Q(open_pair=models.F("closed_pair")),
                name="team_line_up_two_pairs",
            ),
        ]

    def __str__(self) -> str:
        no = f"#{self.registration_no} " if self.registration_no else ""
        return f"{no}{self.name}"

    @property
    def is_withdrawn(self) -> bool:
        return self.withdrawn_at is not None


class TeamMember(models.Model):
    """A player of a team: invited by the captain, in the team once confirmed. A player is
    a confirmed member of at most one team per tournament (the partial unique key)."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="+")
    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="members")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="team_memberships"
    )
    invited_at = models.DateTimeField(_("invited at"), default=timezone.now)
    confirmed_at = models.DateTimeField(_("confirmed at"), null=True, blank=True)

    class Meta:
        ordering = ["team", "invited_at", "id"]
        verbose_name = _("team member")
        verbose_name_plural = _("team members")
        constraints = [
            models.UniqueConstraint(fields=["team", "user"], name="teammember_once_per_team"),
            models.UniqueConstraint(
                fields=["tournament", "user"],
                condition=Q(confirmed_at__isnull=False),
                name="teammember_one_team_per_tournament",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} in {self.team}"


class RoundStatus(models.TextChoices):
    SCHEDULED = "scheduled", _("Seated, not started")
    OPEN = "open", _("Open")
    CLOSED = "closed", _("Closed")


class RoundQuerySet(models.QuerySet["Round"]):
    def newest_first(self) -> RoundQuerySet:
        """The rounds from the highest number down: the first is the current round (as a
        subquery, where `current()` cannot be used)."""
        return self.order_by("-number")

    def current(self) -> Round | None:
        """The latest round (open, scheduled, or the last one closed): what "the current
        round" of a tournament means everywhere (`tournament.round_set.current()`)."""
        return self.newest_first().first()

    def current_for_update(self) -> Round | None:
        """`current()`, locked for the clock's transition (`SELECT … FOR UPDATE`)."""
        return self.select_for_update().newest_first().first()


class Round(models.Model):
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="round_set")
    number = models.PositiveSmallIntegerField(_("round"))
    status = models.CharField(
        _("status"), max_length=10, choices=RoundStatus.choices, default=RoundStatus.SCHEDULED
    )
    starts_at = models.DateTimeField(_("starts at"))
    ends_at = models.DateTimeField(_("ends at"))
    closed_at = models.DateTimeField(_("closed at"), null=True, blank=True)
    bye_pair = models.ForeignKey(
        Pair,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("bye"),
    )
    rematches = models.PositiveIntegerField(_("unavoidable rematches"), default=0)
    # What the clock did when it woke up late (a stalled clock, RULES 3), for admin.
    clock_note = models.CharField(_("clock note"), max_length=500, blank=True)

    objects = RoundQuerySet.as_manager()

    class Meta:
        ordering = ["tournament", "number"]
        verbose_name = _("round")
        verbose_name_plural = _("rounds")
        constraints = [
            models.UniqueConstraint(fields=["tournament", "number"], name="round_unique_number"),
            models.CheckConstraint(
                condition=Q(ends_at__gt=models.F("starts_at")), name="round_ends_after_start"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.tournament} · R{self.number}"


class Board(models.Model):
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="boards")
    # The round whose bell completes the board: it is scored at that close and public
    # after it (RULES 2). Duplicated boards: the round they are played in. A travelling
    # board set (`Tournament.boards_travel`): the last round a table plays it, and None
    # until that round is seated, so that nothing of it shows while a table still has
    # it to play.
    round = models.ForeignKey(
        Round, null=True, blank=True, on_delete=models.CASCADE, related_name="boards"
    )
    number = models.PositiveSmallIntegerField(_("board"))
    dealer = models.CharField(_("dealer"), max_length=1)
    vulnerability = models.CharField(_("vulnerability"), max_length=4)
    # PBN deal string "N:hand hand hand hand"; hidden from players until the round closes.
    deal = models.CharField(_("deal"), max_length=80)
    datum = models.IntegerField(_("datum"), null=True, blank=True)
    # The library deal this board is at a club table (RULES 13), whose results across
    # the club's tables are its field; None outside the club.
    club_deal = models.ForeignKey(
        "ClubDeal", null=True, blank=True, on_delete=models.CASCADE, related_name="boards"
    )
    # Double-dummy tricks and par, solved once after the board's round closes, off the
    # request path (tournaments.services.analysis); NULL until then.
    double_dummy = models.JSONField(_("double-dummy analysis"), null=True, blank=True)
    # When a worker took the board to solve it; another worker leaves it alone until the
    # claim is older than analysis.CLAIM_TIMEOUT (the first one died or failed).
    analysis_claimed_at = models.DateTimeField(_("analysis claimed at"), null=True, blank=True)

    class Meta:
        ordering = ["tournament", "number"]
        verbose_name = _("board")
        verbose_name_plural = _("boards")
        constraints = [
            models.UniqueConstraint(fields=["tournament", "number"], name="board_unique_number"),
        ]
        indexes = [
            # The clock looks for boards still to analyse after every tick: the few boards
            # with no analysis (the rounds in play), not every board ever dealt.
            models.Index(
                fields=["round"],
                condition=Q(double_dummy__isnull=True),
                name="board_analysis_pending",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.tournament} · {_('Board')} {self.number}"


class Table(models.Model):
    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="tables")
    number = models.PositiveIntegerField(_("table"))
    ns_pair = models.ForeignKey(
        Pair, on_delete=models.PROTECT, related_name="ns_tables", verbose_name=_("NS pair")
    )
    ew_pair = models.ForeignKey(
        Pair, on_delete=models.PROTECT, related_name="ew_tables", verbose_name=_("EW pair")
    )
    # Extra time the director gave this table (RULES 3): its own bell, later than the
    # round's; None, the round's. `services.table_director` writes it.
    ends_at = models.DateTimeField(_("extra time until"), null=True, blank=True)
    # The board set this table plays when board sets travel (the movement's): boards
    # first_board … last_board. None: the round's boards, as every table of a duplicated
    # round plays them (`selectors.boards.boards_at`).
    first_board = models.PositiveSmallIntegerField(_("first board"), null=True, blank=True)
    last_board = models.PositiveSmallIntegerField(_("last board"), null=True, blank=True)

    class Meta:
        ordering = ["round", "number"]
        verbose_name = _("table")
        verbose_name_plural = _("tables")
        constraints = [
            models.UniqueConstraint(fields=["round", "number"], name="table_unique_number"),
            models.UniqueConstraint(fields=["round", "ns_pair"], name="table_unique_ns_pair"),
            models.UniqueConstraint(fields=["round", "ew_pair"], name="table_unique_ew_pair"),
            models.CheckConstraint(
                condition=~Q(ns_pair=models.F("ew_pair")), name="table_two_different_pairs"
            ),
            models.CheckConstraint(
                condition=Q(first_board__isnull=True, last_board__isnull=True)
                | Q(
                    first_board__isnull=False,
                    last_board__isnull=False,
                    first_board__lte=models.F("last_board"),
                ),
                name="table_board_set_range",
            ),
        ]

    def __str__(self) -> str:
        return f"R{self.round.number} T{self.number}"

    def side_of(self, user_id: int | None) -> str | None:
        """The side ("NS"/"EW") the user sits on at this table, or None: the one place
        that answers "is this player at this table, and where" (needs both pairs)."""
        if self.ns_pair.has_player(user_id):
            return Direction.NS
        if self.ew_pair.has_player(user_id):
            return Direction.EW
        return None

    def side_of_pair(self, pair_id: int) -> str | None:
        """The side ("NS"/"EW") the pair sits on at this table, or None (no query)."""
        if self.ns_pair_id == pair_id:
            return Direction.NS
        if self.ew_pair_id == pair_id:
            return Direction.EW
        return None


class Match(models.Model):
    """A team match of one round (RULES 11): the home team NS in the open room, EW in the
    closed room, both rooms on the round's boards. No away team: the home team's bye.
    Scored at the round's bell from both rooms' results (the format's `score`)."""

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="matches")
    number = models.PositiveSmallIntegerField(_("match"))
    # Which stanza of its match this round is (1 … `Tournament.stanzas`).
    stanza = models.PositiveSmallIntegerField(_("stanza"), default=1)
    home = models.ForeignKey(
        Team, on_delete=models.PROTECT, related_name="home_matches", verbose_name=_("home team")
    )
    away = models.ForeignKey(
        Team,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="away_matches",
        verbose_name=_("away team"),
    )
    open_table = models.OneToOneField(
        Table,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="open_room_of",
        verbose_name=_("open room"),
    )
    closed_table = models.OneToOneField(
        Table,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="closed_room_of",
        verbose_name=_("closed room"),
    )
    # IMPs brought from an earlier stanza (the home team's; negative: the away team's).
    carry_over = models.IntegerField(_("carry-over IMPs"), default=0)
    # Rewritten at every scoring of the round: each team's IMPs won and lost over the
    # boards (a played board is zero-sum; an adjusted one need not be: both teams A−).
    home_imps_won = models.PositiveIntegerField(_("home IMPs won"), default=0)
    home_imps_lost = models.PositiveIntegerField(_("home IMPs lost"), default=0)
    away_imps_won = models.PositiveIntegerField(_("away IMPs won"), default=0)
    away_imps_lost = models.PositiveIntegerField(_("away IMPs lost"), default=0)
    home_vp = models.DecimalField(
        _("home VPs"), max_digits=5, decimal_places=2, null=True, blank=True
    )
    away_vp = models.DecimalField(
        _("away VPs"), max_digits=5, decimal_places=2, null=True, blank=True
    )
    boards_scored = models.PositiveSmallIntegerField(_("boards scored"), default=0)

    class Meta:
        ordering = ["round", "number"]
        verbose_name = _("match")
        verbose_name_plural = _("matches")
        constraints = [
            models.UniqueConstraint(fields=["round", "number"], name="match_unique_number"),
            models.UniqueConstraint(fields=["round", "home"], name="match_unique_home"),
            models.UniqueConstraint(fields=["round", "away"], name="match_unique_away"),
            models.CheckConstraint(
                condition=~Q(home=models.F("away")), name="match_two_different_teams"
            ),
            models.CheckConstraint(
                condition=Q(away__isnull=True, open_table__isnull=True, closed_table__isnull=True)
                | Q(away__isnull=False, open_table__isnull=False, closed_table__isnull=False),
                name="match_two_rooms_or_a_bye",
            ),
        ]

    def __str__(self) -> str:
        away = self.away.name if self.away is not None else _("bye")
        return f"R{self.round.number} M{self.number}: {self.home.name} – {away}"

    @property
    def is_bye(self) -> bool:
        return self.away_id is None


class TeamStanding(models.Model):
    """A team's victory points and position after a closed round (standings, team page)."""

    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="standings")
    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="team_standings")
    round_vp = models.DecimalField(
        _("round VPs"), max_digits=5, decimal_places=2, null=True, blank=True
    )
    vp = models.DecimalField(_("running total"), max_digits=7, decimal_places=2)
    position = models.PositiveIntegerField(_("position"))

    class Meta:
        ordering = ["round__number", "position"]
        verbose_name = _("team standing")
        verbose_name_plural = _("team standings")
        constraints = [
            models.UniqueConstraint(fields=["team", "round"], name="teamstanding_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.team} after R{self.round.number}: {self.vp} ({self.position})"


# --- the team ladder (RULES 11, 梯级挑战赛) ---------------------------------------------
# The rules are the pure core's (`teams.ladder`); these rows keep its state and its history,
# and `services.ladder` is the only writer.


class Ladder(models.Model):
    """A standing team ladder and its settings (`teams.ladder.LadderSettings`)."""

    name = models.CharField(_("ladder name"), max_length=80, validators=[validators.validate_name])
    challenge_range = models.PositiveSmallIntegerField(_("challenge range"), default=3)
    accept_days = models.PositiveSmallIntegerField(_("days to accept"), default=4)
    play_days = models.PositiveSmallIntegerField(_("days to play"), default=7)
    rematch_days = models.PositiveSmallIntegerField(_("days before a rematch"), default=14)
    boards_per_match = models.PositiveSmallIntegerField(_("boards per match"), default=16)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("created by"),
    )
    created_at = models.DateTimeField(_("created at"), default=timezone.now)

    class Meta:
        ordering = ["name", "id"]
        verbose_name = _("ladder")
        verbose_name_plural = _("ladders")
        constraints = [
            models.UniqueConstraint(fields=["name"], name="ladder_unique_name"),
            models.CheckConstraint(
                condition=Q(boards_per_match__gte=1, boards_per_match__lte=64),
                name="ladder_boards_per_match_range",
            ),
        ]

    def __str__(self) -> str:
        return self.name


class LadderTeam(models.Model):
    """A team on a ladder: its position (1 at the top) while it stands there; a team that
    left keeps its row and history with no position."""

    ladder = models.ForeignKey(Ladder, on_delete=models.CASCADE, related_name="teams")
    name = models.CharField(_("team name"), max_length=60, validators=[validators.validate_name])
    captain = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("captain"),
    )
    position = models.PositiveIntegerField(_("position"), null=True, blank=True)
    entered_at = models.DateTimeField(_("entered at"), default=timezone.now)
    left_at = models.DateTimeField(_("left at"), null=True, blank=True)

    class Meta:
        ordering = ["ladder", "position", "id"]
        verbose_name = _("ladder team")
        verbose_name_plural = _("ladder teams")
        constraints = [
            # Deferred: a challenge won moves several teams in one transaction.
            models.UniqueConstraint(
                fields=["ladder", "position"],
                name="ladderteam_unique_position",
                deferrable=models.Deferrable.DEFERRED,
            ),
            models.UniqueConstraint(
                fields=["ladder", "name"],
                condition=Q(left_at__isnull=True),
                name="ladderteam_unique_name",
            ),
            models.CheckConstraint(
                condition=Q(left_at__isnull=True, position__isnull=False)
                | Q(left_at__isnull=False, position__isnull=True),
                name="ladderteam_position_iff_standing",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.position or '–'}. {self.name}"


class LadderMember(models.Model):
    """A player of a ladder team; a player is in at most one standing team per ladder."""

    ladder = models.ForeignKey(Ladder, on_delete=models.CASCADE, related_name="+")
    team = models.ForeignKey(LadderTeam, on_delete=models.CASCADE, related_name="members")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="ladder_memberships"
    )
    left_at = models.DateTimeField(_("left at"), null=True, blank=True)

    class Meta:
        ordering = ["team", "id"]
        verbose_name = _("ladder team member")
        verbose_name_plural = _("ladder team members")
        constraints = [
            models.UniqueConstraint(fields=["team", "user"], name="laddermember_once_per_team"),
            models.UniqueConstraint(
                fields=["ladder", "user"],
                condition=Q(left_at__isnull=True),
                name="laddermember_one_team_per_ladder",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} in {self.team}"


class LadderChallengeState(models.TextChoices):
    OPEN = "open", _("Open")
    ACCEPTED = "accepted", _("Accepted")
    PLAYED = "played", _("Played")
    FORFEITED = "forfeited", _("Forfeited")
    DECLINED = "declined", _("Declined")
    LAPSED = "lapsed", _("Lapsed")
    VOIDED = "voided", _("Void")


LADDER_CHALLENGE_PENDING = (LadderChallengeState.OPEN, LadderChallengeState.ACCEPTED)


class LadderChallenge(models.Model):
    """A challenge up the ladder, open, accepted, or decided (played, forfeited, declined,
    lapsed, void). ``challenger_showed``/``challenged_showed`` are the director's note of
    who turned up, which the play deadline reads (the side that did not show forfeits)."""

    ladder = models.ForeignKey(Ladder, on_delete=models.CASCADE, related_name="challenges")
    challenger = models.ForeignKey(LadderTeam, on_delete=models.CASCADE, related_name="+")
    challenged = models.ForeignKey(LadderTeam, on_delete=models.CASCADE, related_name="+")
    state = models.CharField(
        _("state"),
        max_length=10,
        choices=LadderChallengeState.choices,
        default=LadderChallengeState.OPEN,
    )
    issued_at = models.DateTimeField(_("issued at"))
    accept_by = models.DateTimeField(_("accept by"))
    accepted_at = models.DateTimeField(_("accepted at"), null=True, blank=True)
    play_by = models.DateTimeField(_("play by"), null=True, blank=True)
    challenger_showed = models.BooleanField(_("challenger showed"), default=False)
    challenged_showed = models.BooleanField(_("challenged team showed"), default=False)
    challenger_vp = models.DecimalField(
        _("challenger's VPs"), max_digits=5, decimal_places=2, null=True, blank=True
    )
    forfeited_by = models.ForeignKey(
        LadderTeam, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    decided_at = models.DateTimeField(_("decided at"), null=True, blank=True)

    class Meta:
        ordering = ["-issued_at", "-id"]
        verbose_name = _("ladder challenge")
        verbose_name_plural = _("ladder challenges")
        constraints = [
            models.UniqueConstraint(
                fields=["challenger"],
                condition=Q(state__in=["open", "accepted"]),
                name="ladderchallenge_one_open_as_challenger",
            ),
            models.UniqueConstraint(
                fields=["challenged"],
                condition=Q(state__in=["open", "accepted"]),
                name="ladderchallenge_one_open_as_challenged",
            ),
            models.CheckConstraint(
                condition=~Q(challenger=models.F("challenged")),
                name="ladderchallenge_two_teams",
            ),
        ]
        indexes = [
            models.Index(fields=["state", "accept_by"]),
            models.Index(fields=["state", "play_by"]),
        ]

    def __str__(self) -> str:
        return f"{self.challenger} → {self.challenged} ({self.state})"

    @property
    def is_pending(self) -> bool:
        return self.state in LADDER_CHALLENGE_PENDING

    @property
    def deadline(self):
        return self.play_by if self.state == LadderChallengeState.ACCEPTED else self.accept_by


class LadderHistory(models.Model):
    """One change of a ladder (`teams.ladder.LadderEntry` as a row): ``team`` and its
    positions, and for a challenge's entries the challenged team as ``opponent``."""

    ladder = models.ForeignKey(Ladder, on_delete=models.CASCADE, related_name="history")
    kind = models.CharField(_("kind"), max_length=10)
    at = models.DateTimeField(_("at"))
    team = models.ForeignKey(LadderTeam, on_delete=models.CASCADE, related_name="history")
    before = models.PositiveIntegerField(_("position before"), null=True, blank=True)
    after = models.PositiveIntegerField(_("position after"), null=True, blank=True)
    opponent = models.ForeignKey(
        LadderTeam, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    opponent_before = models.PositiveIntegerField(null=True, blank=True)
    opponent_after = models.PositiveIntegerField(null=True, blank=True)
    challenger_vp = models.DecimalField(max_digits=5, decimal_places=2, null=True, blank=True)
    forfeited_by = models.ForeignKey(
        LadderTeam, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    challenge = models.ForeignKey(
        LadderChallenge, null=True, blank=True, on_delete=models.CASCADE, related_name="history"
    )

    class Meta:
        ordering = ["-at", "-id"]
        verbose_name = _("ladder history entry")
        verbose_name_plural = _("ladder history")

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.kind} {self.team}"


def listed_in_results() -> Q:
    """The pairs a tournament's results and standings list (RULES 1), as a filter on
    `Pair`: every pair but a withdrawn one that was never seated, at a table or with a bye
    (it withdrew before round 1, or a late entry withdrew before its first round)."""
    at_a_table = Table.objects.filter(
        Q(ns_pair=models.OuterRef("pk")) | Q(ew_pair=models.OuterRef("pk"))
    )
    with_a_bye = Round.objects.filter(bye_pair=models.OuterRef("pk"))
    return Q(withdrawn_at__isnull=True) | models.Exists(at_a_table) | models.Exists(with_a_bye)


class ResultState(models.TextChoices):
    PLAYED = "played", _("Played")
    PASSED_OUT = "passed_out", _("Passed out")
    NOT_PLAYED = "not_played", _("Not played")
    ADJUSTED = "adjusted", _("Adjusted score")


class BoardResult(models.Model):
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="results")
    board = models.ForeignKey(Board, on_delete=models.CASCADE, related_name="results")
    state = models.CharField(_("state"), max_length=12, choices=ResultState.choices)
    contract = models.CharField(_("contract"), max_length=8, blank=True)
    declarer = models.CharField(_("declarer"), max_length=1, blank=True)
    lead = models.CharField(_("opening lead"), max_length=3, blank=True)
    tricks = models.PositiveSmallIntegerField(_("tricks"), null=True, blank=True)
    ns_score = models.IntegerField(_("NS score"), null=True, blank=True)
    ns_adjustment = models.CharField(
        _("NS adjustment"), max_length=2, choices=Adjustment.choices, blank=True
    )
    ew_adjustment = models.CharField(
        _("EW adjustment"), max_length=2, choices=Adjustment.choices, blank=True
    )
    entered_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    entered_at = models.DateTimeField(_("entered at"), default=timezone.now)
    confirmed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    confirmed_at = models.DateTimeField(_("confirmed at"), null=True, blank=True)
    disputed = models.BooleanField(_("disputed"), default=False)
    dispute_note = models.CharField(_("dispute note"), max_length=500, blank=True)
    disputed_at = models.DateTimeField(_("disputed at"), null=True, blank=True)
    adjusted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    adjustment_reason = models.CharField(_("adjustment reason"), max_length=500, blank=True)
    played_online = models.BooleanField(_("played online"), default=False, db_default=False)

    class Meta:
        ordering = ["board__number", "table__number"]
        verbose_name = _("board result")
        verbose_name_plural = _("board results")
        constraints = [
            models.UniqueConstraint(fields=["table", "board"], name="result_one_per_table_board"),
            models.CheckConstraint(
                condition=Q(state__in=["played", "passed_out"], ns_score__isnull=False)
                | Q(state__in=["not_played", "adjusted"], ns_score__isnull=True),
                name="result_score_iff_played",
            ),
            models.CheckConstraint(
                condition=~Q(state="adjusted") | (~Q(ns_adjustment="") & ~Q(ew_adjustment="")),
                name="result_adjusted_has_both_sides",
            ),
            models.CheckConstraint(
                condition=Q(tricks__isnull=True) | Q(tricks__lte=13), name="result_tricks_range"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.board} {self.table}: {self.display_contract or self.get_state_display()}"

    @property
    def completed(self) -> bool:
        return self.state != ResultState.NOT_PLAYED

    @property
    def display_contract(self) -> str:
        if self.state == ResultState.PASSED_OUT:
            return str(_("Passed out"))
        if self.state != ResultState.PLAYED or not self.contract:
            return ""
        return cast(scoring.Contract, scoring.parse_contract(self.contract)).display()

    @property
    def result_relative(self) -> str:
        """'=', '+1', '-2' relative to the contract, as a traveller shows it."""
        if self.state != ResultState.PLAYED or self.tricks is None:
            return ""
        diff = self.tricks - (int(self.contract[0]) + 6)
        return "=" if diff == 0 else f"{diff:+d}"


class PairBoardScore(models.Model):
    """A pair's score on one board: % for MP, IMPs otherwise; rewritten at every scoring."""

    # Derived rows without database foreign keys (migration 0018). Only the scoring
    # writes them, from ids it has just read under the tournament's lock, and it deletes
    # and rewrites a round's rows each time; PostgreSQL checking three keys on each of
    # the 40,000 rows of a 10,000-pair bell cost more than the rest of the close's writes
    # together. Deletes still cascade to them, in Django (nothing in the code deletes a
    # pair, board or result in raw SQL). Given up: a score whose pair, board or result
    # vanished outside the ORM, or in a delete racing a scoring, stays behind unseen
    # (every read reaches scores through a live pair, board or result) instead of the
    # delete failing. No index on `pair` alone: the unique (pair, board) one serves it.
    pair = models.ForeignKey(
        Pair,
        on_delete=models.CASCADE,
        related_name="board_scores",
        db_constraint=False,
        db_index=False,
    )
    board = models.ForeignKey(
        Board, on_delete=models.CASCADE, related_name="pair_scores", db_constraint=False
    )
    # Its index is for the cascade when a result is deleted (with a table or an event).
    result = models.ForeignKey(
        BoardResult,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="pair_scores",
        db_constraint=False,
    )
    direction = models.CharField(_("direction"), max_length=3, choices=Direction.choices)
    points = models.FloatField(_("points"), null=True, blank=True)
    completed = models.BooleanField(_("completed"), default=True)
    # The adjusted-score code ("A+", "A", "A-"; a bye is "A") or "" for a played board: the
    # totals settle an MP adjustment against the pair's own percentage (RULES 5.4).
    artificial = models.CharField(
        _("Adjusted score"), max_length=2, blank=True, default="", choices=Adjustment.choices
    )

    class Meta:
        ordering = ["board__number"]
        verbose_name = _("pair board score")
        verbose_name_plural = _("pair board scores")
        constraints = [
            models.UniqueConstraint(fields=["pair", "board"], name="pairboardscore_unique"),
            models.CheckConstraint(
                condition=Q(completed=False, points__isnull=True)
                | Q(completed=True, points__isnull=False),
                name="pairboardscore_points_iff_completed",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.pair} · {self.board.number}: {self.points}"


class Standing(models.Model):
    """A pair's running total and position after a closed round (pair page, chart)."""

    # Derived rows without database foreign keys, as `PairBoardScore` and for the same
    # reason (10,000 rows rewritten at every bell of the biggest events). The unique
    # (pair, round) index serves the lookups by pair; `round`'s own index serves the
    # delete of a round's standings and the live version's highest id.
    pair = models.ForeignKey(
        Pair,
        on_delete=models.CASCADE,
        related_name="standings",
        db_constraint=False,
        db_index=False,
    )
    round = models.ForeignKey(
        Round, on_delete=models.CASCADE, related_name="standings", db_constraint=False
    )
    round_score = models.FloatField(_("round score"), null=True, blank=True)
    total = models.FloatField(_("running total"))
    boards_completed = models.PositiveIntegerField(_("boards completed"))
    position = models.PositiveIntegerField(_("position"))

    class Meta:
        ordering = ["round__number", "position"]
        verbose_name = _("standing")
        verbose_name_plural = _("standings")
        constraints = [
            models.UniqueConstraint(fields=["pair", "round"], name="standing_unique_pair_round"),
        ]

    def __str__(self) -> str:
        return f"{self.pair} after R{self.round.number}: {self.total} ({self.position})"


class MasterPointAward(models.Model):
    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="master_point_awards"
    )
    # What earned it: a pair's rank, or a team's (RULES 11: every player of the team who
    # played at least a third of the boards).
    pair = models.ForeignKey(
        Pair, null=True, blank=True, on_delete=models.CASCADE, related_name="awards"
    )
    team = models.ForeignKey(
        Team, null=True, blank=True, on_delete=models.CASCADE, related_name="awards"
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="master_point_awards"
    )
    rank = models.PositiveIntegerField(_("rank"))
    points = models.DecimalField(_("master points"), max_digits=7, decimal_places=2)
    awarded_at = models.DateTimeField(_("awarded at"), default=timezone.now)

    class Meta:
        ordering = ["tournament", "rank"]
        verbose_name = _("master-point award")
        verbose_name_plural = _("master-point awards")
        constraints = [
            models.UniqueConstraint(fields=["tournament", "user"], name="award_once_per_player"),
            models.CheckConstraint(
                condition=Q(pair__isnull=False, team__isnull=True)
                | Q(pair__isnull=True, team__isnull=False),
                name="award_of_a_pair_or_a_team",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user}: {self.points} ({self.tournament}, rank {self.rank})"


class ClockHeartbeat(models.Model):
    """When the round clock last ticked, so admin can show a stalled clock."""

    name = models.CharField(max_length=40, primary_key=True, default="clock")
    last_tick_at = models.DateTimeField(null=True, blank=True)
    last_driver = models.CharField(max_length=40, blank=True)
    last_error = models.TextField(blank=True)
    ticks = models.PositiveBigIntegerField(default=0)

    class Meta:
        verbose_name = _("clock heartbeat")
        verbose_name_plural = _("clock heartbeat")

    def __str__(self) -> str:
        return f"{self.name}: {self.last_tick_at}"


class ApiToken(models.Model):
    """A bearer token for the JSON API (`manage.py api_token <username>`).

    Only a SHA-256 hash of the key is stored: the key is shown once, when it is issued.
    The key is 160 random bits, so a plain hash is enough (no salt or slow hash, which
    would cost the hot path). `prefix`, its first characters, names a token in admin and
    in `api_token --list/--revoke` without revealing it. A user may hold several tokens;
    one that expired or was revoked is refused.
    """

    PREFIX_LENGTH = 8

    prefix = models.CharField(_("prefix"), max_length=PREFIX_LENGTH, db_index=True)
    key_hash = models.CharField(_("key hash (SHA-256)"), max_length=64, unique=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    last_used_at = models.DateTimeField(_("last used at"), null=True, blank=True)
    expires_at = models.DateTimeField(_("expires at"), null=True, blank=True)
    revoked_at = models.DateTimeField(_("revoked at"), null=True, blank=True)

    class Meta:
        verbose_name = _("API token")
        verbose_name_plural = _("API tokens")

    def __str__(self) -> str:
        return f"{self.user} ({self.prefix}…)"

    @staticmethod
    def hash_key(key: str) -> str:
        return hashlib.sha256(key.encode()).hexdigest()

    def set_key(self, key: str) -> None:
        self.prefix = key[: self.PREFIX_LENGTH]
        self.key_hash = self.hash_key(key)

    def refusal(self, now) -> str | _StrPromise | None:
        """Why this token no longer works (revoked, expired), or None while it does."""
        if self.revoked_at is not None:
            return _("This API token was revoked.")
        if self.expires_at is not None and self.expires_at <= now:
            return _("This API token has expired.")
        return None


# --- Play at the system's tables (RULES 9) ----------------------------------------------


class ActionKind(models.TextChoices):
    CALL = "call", _("Call")
    CARD = "card", _("Card")
    CLAIM = "claim", _("Claim")
    ACCEPT = "accept", _("Claim accepted")
    REJECT = "reject", _("Claim rejected")


class PlayAction(models.Model):
    """One accepted call, card, claim or answer to a claim at a table's board, stored the
    moment it is accepted; `seq` numbers them from 1 and is unique in the database, so a
    resent action can never be stored twice and a replay rebuilds the board exactly."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="play_actions")
    board = models.ForeignKey(Board, on_delete=models.CASCADE, related_name="play_actions")
    seq = models.PositiveIntegerField(_("sequence number"))
    seat = models.CharField(_("seat"), max_length=1)
    kind = models.CharField(_("kind"), max_length=6, choices=ActionKind.choices)
    call = models.CharField(_("call"), max_length=3, blank=True)
    alert = models.CharField(_("alert"), max_length=200, blank=True)
    card = models.CharField(_("card"), max_length=2, blank=True)
    tricks = models.PositiveSmallIntegerField(_("tricks"), null=True, blank=True)
    # A claim's statement: the line of play the claimer gives with it (Law 68C).
    statement = models.CharField(
        _("claim statement"), max_length=500, blank=True, default="", db_default=""
    )
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    stored_at = models.DateTimeField(_("stored at"), default=timezone.now)

    class Meta:
        ordering = ["table", "board", "seq"]
        verbose_name = _("play action")
        verbose_name_plural = _("play actions")
        constraints = [
            models.UniqueConstraint(fields=["table", "board", "seq"], name="playaction_unique_seq"),
            models.CheckConstraint(condition=Q(seq__gte=1), name="playaction_seq_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.table} · {self.board.number} #{self.seq} {self.seat} {self.kind}"


class PairSeats(models.Model):
    """How a pair sits at a table for the round (RULES 9): its two players swapped (player2
    North or East, player1 South or West) or not, and from when its seats are fixed.

    No row is the default (player1 North or East, not fixed). The pair may swap until
    either of its players is first sent a hand of the round there: `fixed_at` is set then
    (`services.table_play.board_view`, under the table's lock), and from then on, or after
    the table's first call, `services.seats.swap_seats` refuses, so a swap can never show
    a player the partner's cards (`tournaments.visibility`)."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="pair_seats")
    pair = models.ForeignKey(Pair, on_delete=models.CASCADE, related_name="+")
    swapped = models.BooleanField(_("swapped"), default=False)
    fixed_at = models.DateTimeField(_("fixed at"), null=True, blank=True)

    class Meta:
        verbose_name = _("seats of a pair")
        verbose_name_plural = _("seats of pairs")
        constraints = [
            models.UniqueConstraint(fields=["table", "pair"], name="pairseats_unique"),
        ]

    def __str__(self) -> str:
        swapped = "swapped" if self.swapped else "as registered"
        fixed = ", fixed" if self.fixed_at is not None else ""
        return f"{self.table}: {self.pair} {swapped}{fixed}"


class SettingsChange(models.Model):
    """An organiser's change of a started tournament's scoring settings, and the re-score
    it caused (`services.settings_change`, RULES 3): who, when, before, after, why.

    Append-only: a stored record is never changed (`save` refuses, before the database
    is asked; admin offers no edit or delete), and on PostgreSQL the database refuses an
    UPDATE or DELETE whatever path it comes by (migration 0016): a record goes only with
    its tournament, and deleting its author only empties `changed_by`.
    """

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="settings_changes"
    )
    changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("changed by"),
    )
    changed_at = models.DateTimeField(_("changed at"), default=timezone.now)
    before = models.JSONField(_("before"))
    after = models.JSONField(_("after"))
    reason = models.CharField(_("reason"), max_length=500)

    class Meta:
        ordering = ["tournament", "changed_at", "id"]
        verbose_name = _("settings change")
        verbose_name_plural = _("settings changes")

    def __str__(self) -> str:
        return f"{self.tournament} · {self.changed_at:%Y-%m-%d %H:%M}"

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise ValueError("a settings change is a record: it is never changed")
        super().save(*args, **kwargs)


# --- The result history (RULES 3; services/history.py) -----------------------------------


class ResultChangeKind(models.TextChoices):
    ENTRY = "entry", _("Entered")
    CORRECTION = "correction", _("Corrected")
    CONFIRMATION = "confirmation", _("Confirmed")
    DISPUTE = "dispute", _("Disputed")
    CUT_OFF = "cut_off", _("Cut off at the bell")
    DIRECTOR_RESULT = "director_result", _("Director's result")
    ADJUSTMENT = "adjustment", _("Adjusted score")
    RESCORE = "rescore", _("Re-scored")


# The stored fields of a result that a change can touch, by attribute name: what a
# history line's `before` and `after` hold.
RESULT_SNAPSHOT_FIELDS = (
    "state", "contract", "declarer", "lead", "tricks", "ns_score", "ns_adjustment",
    "ew_adjustment", "entered_by_id", "entered_at", "confirmed_by_id", "confirmed_at",
    "disputed", "dispute_note", "disputed_at", "adjusted_by_id", "adjustment_reason",
)  # fmt: skip


class ResultChange(models.Model):
    """One change to a board result, appended and never edited: who (None for the clock),
    when, what the result was before (None when the change stored it first) and after,
    and the director's reason. Written by `services.history` only."""

    result = models.ForeignKey(BoardResult, on_delete=models.CASCADE, related_name="history")
    kind = models.CharField(_("change"), max_length=16, choices=ResultChangeKind.choices)
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("changed by"),
    )
    at = models.DateTimeField(_("at"))
    before = models.JSONField(_("before"), null=True, blank=True)
    after = models.JSONField(_("after"))
    reason = models.CharField(_("reason"), max_length=500, blank=True)

    class Meta:
        ordering = ["result", "id"]
        verbose_name = _("result change")
        verbose_name_plural = _("result history")
        indexes = [models.Index(fields=["result", "id"], name="resultchange_result_order")]

    def __str__(self) -> str:
        return f"{self.result_id} {self.kind} {self.at:%Y-%m-%d %H:%M:%S}"


class TablePresence(models.Model):
    """One open socket of a seated player at a table played online: who is connected,
    seen by every server process (`services.presence`, called by the socket consumer on
    connect and disconnect; read by the director's console)."""

    channel = models.CharField(_("socket"), max_length=200, primary_key=True)
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="+")
    seat = models.CharField(_("seat"), max_length=1)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.CASCADE, related_name="+"
    )
    connected_at = models.DateTimeField(_("connected at"))

    class Meta:
        verbose_name = _("connection at a table")
        verbose_name_plural = _("connections at tables")
        indexes = [models.Index(fields=["table", "seat"], name="tablepresence_table_seat")]

    def __str__(self) -> str:
        return f"{self.table_id} {self.seat} {self.connected_at:%Y-%m-%d %H:%M:%S}"


class TableDirectionKind(models.TextChoices):
    EXTRA_TIME = "extra_time", _("Extra time")
    ROBOT = "robot", _("Robot in an absent player's seat")


class TableDirection(models.Model):
    """The director's acts at one table (extra time, a robot in a seat), appended and
    never edited: who, when, before and after, and why. Written by
    `services.table_director` only."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="directions")
    kind = models.CharField(_("act"), max_length=16, choices=TableDirectionKind.choices)
    seat = models.CharField(_("seat"), max_length=1, blank=True)
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("by"),
    )
    at = models.DateTimeField(_("at"))
    before = models.JSONField(_("before"), null=True, blank=True)
    after = models.JSONField(_("after"))
    reason = models.CharField(_("reason"), max_length=500, blank=True)

    class Meta:
        ordering = ["table", "id"]
        verbose_name = _("director's act at a table")
        verbose_name_plural = _("director's acts at tables")

    def __str__(self) -> str:
        return f"{self.table_id} {self.kind} {self.at:%Y-%m-%d %H:%M:%S}"


class Broadcast(models.Model):
    """A match's two rooms, or one online table, shown to spectators (RULES 12, Vugraph).

    What a spectator may see, and when, is `visibility`'s rule (a board is released once
    every table that plays it has finished it, plus `delay_minutes`; a player of the
    event sees nothing while it runs); written by `services.broadcasts` only."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="broadcasts")
    match = models.OneToOneField(
        Match, null=True, blank=True, on_delete=models.CASCADE, related_name="broadcast"
    )
    table = models.OneToOneField(
        Table, null=True, blank=True, on_delete=models.CASCADE, related_name="broadcast"
    )
    # Minutes a board waits after the last table that plays it has finished it.
    delay_minutes = models.PositiveSmallIntegerField(_("delay (minutes)"), default=0)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(_("broadcast since"))

    class Meta:
        ordering = ["-created_at", "id"]
        verbose_name = _("broadcast")
        verbose_name_plural = _("broadcasts")
        constraints = [
            models.CheckConstraint(
                condition=Q(match__isnull=False, table__isnull=True)
                | Q(match__isnull=True, table__isnull=False),
                name="broadcast_a_match_or_a_table",
            ),
            models.CheckConstraint(
                condition=Q(delay_minutes__lte=240), name="broadcast_delay_at_most_4_hours"
            ),
        ]

    def __str__(self) -> str:
        return f"broadcast {self.pk} ({self.tournament_id})"


class BroadcastComment(models.Model):
    """A line of commentary in a broadcast's stream, appended and never edited."""

    broadcast = models.ForeignKey(Broadcast, on_delete=models.CASCADE, related_name="comments")
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    at = models.DateTimeField(_("at"))
    text = models.CharField(_("commentary"), max_length=500)

    class Meta:
        ordering = ["broadcast", "id"]
        verbose_name = _("broadcast commentary")
        verbose_name_plural = _("broadcast commentary")

    def __str__(self) -> str:
        return f"{self.broadcast_id} {self.at:%H:%M:%S} {self.text[:40]}"


# --- Vugraph: LIN files imported as finished matches (RULES 12) -------------------------


class ImportPolicy(models.TextChoices):
    STRICT = "strict", _("Strict: refuse the file at its first bad room")
    LENIENT = "lenient", _("Lenient: import it and mark the bad rooms")


class ImportedMatch(models.Model):
    """A vugraph LIN file imported as a finished match (RULES 12), written by
    `services.vugraph_import` only. ``text`` is the file as uploaded (decoded as
    `vugraph.read_lin_bytes` decodes it), so it can always be read again; ``outcome`` is
    what its replay gave: each board's rooms (accepted, or refused with the kind and the
    reason), the IMPs and the score (`services.vugraph_import.outcome_json`)."""

    title = models.CharField(_("title"), max_length=200)
    segment = models.CharField(_("segment"), max_length=100, blank=True)
    home_team = models.CharField(_("team 1"), max_length=100)
    away_team = models.CharField(_("team 2"), max_length=100)
    home_carry_over = models.DecimalField(
        _("team 1 carry-over"), max_digits=8, decimal_places=2, default=0
    )
    away_carry_over = models.DecimalField(
        _("team 2 carry-over"), max_digits=8, decimal_places=2, default=0
    )
    text = models.TextField(_("LIN file"))
    policy = models.CharField(_("policy"), max_length=8, choices=ImportPolicy.choices)
    outcome = models.JSONField(_("outcome"))
    imported_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    imported_at = models.DateTimeField(_("imported at"))

    class Meta:
        ordering = ["-imported_at", "-id"]
        verbose_name = _("imported match")
        verbose_name_plural = _("imported matches")
        constraints = [
            models.CheckConstraint(
                condition=Q(policy__in=["strict", "lenient"]), name="importedmatch_policy"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.title} {self.segment}: {self.home_team} – {self.away_team}"


# -- The club (RULES 13): free play at any hour, scored against the field ---------------


class ClubSystem(models.TextChoices):
    """How a club table's boards are scored (RULES 13): each system has its own library
    and field every week. Duplicate and full field are the members'; handicap is open."""

    DUPLICATE = "duplicate", _("Duplicate (scores fixed once given)")
    FULL_FIELD_IMPS = "full_field_imps", _("Full field, IMPs")
    FULL_FIELD_MP = "full_field_mp", _("Full field, matchpoints")
    HANDICAP = "handicap", _("Handicap (against the high-card points)")


class ClubWeek(models.Model):
    """One week of the club: Monday 00:00 to the next, in the site's time zone. Its
    libraries are drawn when it opens; the clock closes it once (the full-field scores
    final, the next week's libraries drawn)."""

    starts_at = models.DateTimeField(_("starts at"), unique=True)
    ends_at = models.DateTimeField(_("ends at"))
    closed_at = models.DateTimeField(_("closed at"), null=True, blank=True)
    # The Rate's parameters the close used (`rating.RatingParameters.as_dict`), so a past
    # week can be recomputed as it was; empty until the week closes.
    parameters = models.JSONField(_("Rate parameters"), default=dict, blank=True)

    class Meta:
        ordering = ["-starts_at"]
        verbose_name = _("club week")
        verbose_name_plural = _("club weeks")
        constraints = [
            models.CheckConstraint(
                condition=Q(ends_at__gt=models.F("starts_at")), name="clubweek_ends_after_start"
            ),
        ]

    def __str__(self) -> str:
        return f"{_('Club week')} {self.starts_at:%Y-%m-%d}"


class ClubField(models.Model):
    """One system's play in one week: its library of deals and the event its tables play
    in (a `Tournament` of the club's format, one round a table: the play server's)."""

    week = models.ForeignKey(ClubWeek, on_delete=models.CASCADE, related_name="fields")
    system = models.CharField(_("system"), max_length=16, choices=ClubSystem.choices)
    tournament = models.OneToOneField(
        Tournament, on_delete=models.CASCADE, related_name="club_field"
    )

    class Meta:
        ordering = ["week", "system"]
        verbose_name = _("club field")
        verbose_name_plural = _("club fields")
        constraints = [
            models.UniqueConstraint(fields=["week", "system"], name="clubfield_one_per_system"),
        ]

    def __str__(self) -> str:
        return f"{self.week} · {self.get_system_display()}"


class ClubDeal(models.Model):
    """A deal of a week's library. `number` is its place in the library's secret order
    (a table is given the first deal none of its players has seen); `results` counts the
    results stored for it (duplicate: retired at 40)."""

    field = models.ForeignKey(ClubField, on_delete=models.CASCADE, related_name="deals")
    number = models.PositiveIntegerField(_("deal"))
    dealer = models.CharField(_("dealer"), max_length=1)
    vulnerability = models.CharField(_("vulnerability"), max_length=4)
    deal = models.CharField(_("deal"), max_length=80)
    results = models.PositiveSmallIntegerField(_("results"), default=0)
    # How many tables were given it: at most 40, so no 41st result can ever come.
    given = models.PositiveSmallIntegerField(_("tables given it"), default=0)
    retired_at = models.DateTimeField(_("retired at"), null=True, blank=True)

    class Meta:
        ordering = ["field", "number"]
        verbose_name = _("library deal")
        verbose_name_plural = _("library deals")
        constraints = [
            models.UniqueConstraint(fields=["field", "number"], name="clubdeal_unique_number"),
            # RULES 13: a deal is retired at its 40th result; nothing gets a 41st.
            models.CheckConstraint(condition=Q(results__lte=40), name="clubdeal_at_most_40"),
            models.CheckConstraint(
                condition=Q(given__lte=40) & Q(results__lte=models.F("given")),
                name="clubdeal_given_at_most_40",
            ),
        ]
        indexes = [
            models.Index(
                fields=["field", "number"],
                condition=Q(retired_at__isnull=True),
                name="clubdeal_in_library",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.field} · {_('deal')} {self.number}"


class ClubDealSeen(models.Model):
    """A player was given a library deal (played or watched it): the unique key is the
    rule that nobody is given a deal twice, also when two tables ask at once."""

    deal = models.ForeignKey(ClubDeal, on_delete=models.CASCADE, related_name="seen")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    seen_at = models.DateTimeField(_("seen at"))

    class Meta:
        verbose_name = _("deal seen")
        verbose_name_plural = _("deals seen")
        constraints = [
            models.UniqueConstraint(fields=["user", "deal"], name="clubdealseen_once"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} · {self.deal}"


class ClubTableStatus(models.TextChoices):
    FORMING = "forming", _("Waiting for players")
    PLAYING = "playing", _("Playing")
    CLOSED = "closed", _("Closed")


class ClubTable(models.Model):
    """A table of the club: formed in the lobby, then playing one library deal after
    another on the play server (`round`'s one `table`) until a player leaves (at once
    between boards; mid-board, once a robot has finished the board for them)."""

    field = models.ForeignKey(ClubField, on_delete=models.CASCADE, related_name="tables")
    status = models.CharField(
        _("status"), max_length=8, choices=ClubTableStatus.choices, default="forming"
    )
    opened_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    opened_at = models.DateTimeField(_("opened at"))
    started_at = models.DateTimeField(_("started at"), null=True, blank=True)
    closed_at = models.DateTimeField(_("closed at"), null=True, blank=True)
    # The play server's table once four are seated (its round: this table's sitting).
    table = models.OneToOneField(
        Table, null=True, blank=True, on_delete=models.SET_NULL, related_name="club_table"
    )
    # A player left while a board was in play: a robot finishes it for them, and the
    # table closes when it is over instead of dealing the next (`club.leave`).
    closes_after_board = models.BooleanField(_("closes after the board in play"), default=False)

    class Meta:
        ordering = ["-opened_at", "-id"]
        verbose_name = _("club table")
        verbose_name_plural = _("club tables")
        indexes = [
            models.Index(
                fields=["field", "opened_at"],
                condition=~Q(status="closed"),
                name="clubtable_open",
            ),
        ]

    def __str__(self) -> str:
        return f"{_('Club table')} {self.pk}"


class ClubSeat(models.Model):
    """Who sits where at a club table. A person sits at one open table at a time (the
    partial unique key); a robot (`robot`) is one of the four robot players, each of
    whom only ever takes its own seat."""

    club_table = models.ForeignKey(ClubTable, on_delete=models.CASCADE, related_name="seats")
    seat = models.CharField(_("seat"), max_length=1)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="club_seats"
    )
    robot = models.BooleanField(_("robot"), default=False)
    active = models.BooleanField(_("seated"), default=True)
    sat_at = models.DateTimeField(_("sat down at"))
    # Since when the clock has seen the seated person with no connection to the table
    # (RULES 13, disconnection: `services.club_presence`); None while connected.
    lost_at = models.DateTimeField(_("connection lost since"), null=True, blank=True)

    class Meta:
        verbose_name = _("club seat")
        verbose_name_plural = _("club seats")
        constraints = [
            models.UniqueConstraint(
                fields=["club_table", "seat"],
                condition=Q(active=True),
                name="clubseat_one_player_a_seat",
            ),
            models.UniqueConstraint(
                fields=["user"],
                condition=Q(active=True, robot=False),
                name="clubseat_one_table_a_player",
            ),
            models.CheckConstraint(
                condition=Q(seat__in=["N", "E", "S", "W"]), name="clubseat_seat_is_a_seat"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.club_table} · {self.seat}"


class ClubWaiting(models.Model):
    """A player waiting in the lobby for a table of `field`'s system (alone, or with a
    partner who waits with them): the next table with room seats them."""

    field = models.ForeignKey(ClubField, on_delete=models.CASCADE, related_name="waiting")
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="club_waiting"
    )
    partner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="+",
    )
    since = models.DateTimeField(_("waiting since"))

    class Meta:
        ordering = ["since", "id"]
        verbose_name = _("waiting player")
        verbose_name_plural = _("waiting players")

    def __str__(self) -> str:
        return f"{self.user_id} · {self.field}"


class ClubScore(models.Model):
    """One player's score on one club result (RULES 13): IMPs (duplicate, full field,
    handicap) or a percentage (full field in MP). Duplicate: 0 and not `scored` until the
    deal's sixth result, then fixed; full field: rewritten at each arrival until the week
    closes; handicap: at once."""

    result = models.ForeignKey(BoardResult, on_delete=models.CASCADE, related_name="club_scores")
    deal = models.ForeignKey(ClubDeal, on_delete=models.CASCADE, related_name="scores")
    field = models.ForeignKey(ClubField, on_delete=models.CASCADE, related_name="scores")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    seat = models.CharField(_("seat"), max_length=1)
    # The result's place among the deal's results (1 = first), in the order they were
    # scored (under the deal's lock): duplicate's sixth is the sixth scored.
    arrival = models.PositiveSmallIntegerField(_("arrival"))
    points = models.FloatField(_("points"), default=0.0)
    scored = models.BooleanField(_("scored"), default=False)
    robot = models.BooleanField(_("robot"), default=False)

    class Meta:
        verbose_name = _("club score")
        verbose_name_plural = _("club scores")
        constraints = [
            models.UniqueConstraint(fields=["result", "user"], name="clubscore_once"),
        ]
        indexes = [models.Index(fields=["field", "user"], name="clubscore_week_player")]

    def __str__(self) -> str:
        return f"{self.deal} · {self.user_id}: {self.points}"


class ClubPenalty(models.Model):
    """A disconnection (RULES 13): lost past the grace period while a board was in play,
    counted once; −20 of the total in handicap play, −16 of the week's points in the
    others (and a Rate of 0 on that board)."""

    field = models.ForeignKey(ClubField, on_delete=models.CASCADE, related_name="penalties")
    club_table = models.ForeignKey(ClubTable, on_delete=models.CASCADE, related_name="penalties")
    board = models.ForeignKey(Board, on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    seat = models.CharField(_("seat"), max_length=1)
    points = models.IntegerField(_("points"))
    lost_at = models.DateTimeField(_("connection lost at"))
    counted_at = models.DateTimeField(_("counted at"))
    back_at = models.DateTimeField(_("back at"), null=True, blank=True)

    class Meta:
        verbose_name = _("disconnection")
        verbose_name_plural = _("disconnections")
        constraints = [
            # One outage is counted once: a second penalty only after the player came back.
            models.UniqueConstraint(
                fields=["club_table", "user"],
                condition=Q(back_at__isnull=True),
                name="clubpenalty_once_an_outage",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.club_table} · {self.user_id}: {self.points}"


class ClubRating(models.Model):
    """A member's Rate (牌技指数, RULES 13) as the last week's close left it: the Rate R,
    the weight C it carries (boards, faded by λ a week, the 30-board prior included) and
    every rated board so far."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="club_rating"
    )
    rate = models.FloatField(_("Rate"))
    carried = models.FloatField(_("boards carried"))
    total_boards = models.PositiveIntegerField(_("total boards"), default=0)
    week = models.ForeignKey(
        ClubWeek, on_delete=models.PROTECT, related_name="+", verbose_name=_("last closed week")
    )

    class Meta:
        verbose_name = _("Rate")
        verbose_name_plural = _("Rates")
        indexes = [models.Index(fields=["-rate"], name="clubrating_by_rate")]

    def __str__(self) -> str:
        return f"{self.user_id}: {self.rate:.1f}"


class ClubWeekFigure(models.Model):
    """A member's figures for one closed week (RULES 13): the Rate after it, the weight
    carried, the week's own W, its rated boards, its points (duplicate and full-field IMPs
    with the disconnection penalties) and boards, and the points per board."""

    week = models.ForeignKey(ClubWeek, on_delete=models.CASCADE, related_name="figures")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    rate = models.FloatField(_("Rate"))
    carried = models.FloatField(_("boards carried"))
    week_rate = models.FloatField(_("the week's W"), null=True, blank=True)
    rated_boards = models.PositiveIntegerField(_("rated boards"), default=0)
    total_boards = models.PositiveIntegerField(_("total boards"), default=0)
    points = models.FloatField(_("points"), default=0.0)
    boards = models.PositiveIntegerField(_("boards"), default=0)

    class Meta:
        ordering = ["week", "user"]
        verbose_name = _("week's figures")
        verbose_name_plural = _("weeks' figures")
        constraints = [
            models.UniqueConstraint(fields=["week", "user"], name="clubweekfigure_once"),
        ]

    def __str__(self) -> str:
        return f"{self.week} · {self.user_id}: {self.rate:.1f}"

    @property
    def average(self) -> float | None:
        """Points per board this week (上周平均分 the week after)."""
        return self.points / self.boards if self.boards else None


class ProgramSeat(models.Model):
    """A seat at a table played online reserved for a computer program that speaks the
    Blue Chip table-manager protocol (SPEC 14), through the gateway
    (`manage.py bluechip_gateway`). The program sends the ticket as its team name; only
    the ticket's SHA-256 is stored. Written by `services.programs` only: the reservation,
    and what the gateway reports (connected, its think times, the calls and cards our
    robot made for it at the think-time limit), which the table's page and the console
    show."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="programs")
    seat = models.CharField(_("seat"), max_length=1)
    program = models.CharField(_("program"), max_length=60, blank=True)
    ticket_digest = models.CharField(max_length=64, unique=True)
    reserved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    reserved_at = models.DateTimeField(_("reserved at"))
    think_seconds = models.PositiveSmallIntegerField(_("think-time limit (seconds)"), default=60)
    connected_at = models.DateTimeField(_("connected at"), null=True, blank=True)
    disconnected_at = models.DateTimeField(_("disconnected at"), null=True, blank=True)
    address = models.CharField(_("address"), max_length=64, blank=True)
    moves = models.PositiveIntegerField(_("calls and cards"), default=0)
    think_total = models.FloatField(_("think time in all (seconds)"), default=0)
    think_max = models.FloatField(_("longest think (seconds)"), default=0)
    replaced = models.PositiveIntegerField(_("played by our robot"), default=0)
    replaced_last = models.JSONField(_("last played by our robot"), null=True, blank=True)

    class Meta:
        verbose_name = _("program's seat")
        verbose_name_plural = _("programs' seats")
        constraints = [
            models.UniqueConstraint(fields=["table", "seat"], name="programseat_one_per_seat")
        ]

    def __str__(self) -> str:
        return f"{self.table_id} {self.seat} {self.program}"
