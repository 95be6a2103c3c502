"""Forms of the director's console (`views/console.py`). The result form is the players'
`ResultForm` (same pickers, same messages) plus the director's reason and the
adjusted score; the rules stay in the services."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from .forms import NONE, QuickSelect, ResultForm
from .models import (
    Adjustment,
    Contestants,
    DatumRounding,
    FirstRoundDraw,
    PlayMode,
    ScoringMethod,
    Seating,
    TeamScoring,
    UnplayedPolicy,
)

ADJUSTMENTS = [NONE, *Adjustment.choices]


class DirectorResultForm(ResultForm):
    """A played result picked as the players pick it, or an adjusted score for each
    side; either way with the reason kept on the result (`results.director_set_result`)."""

    ns_adjustment = forms.ChoiceField(
        label=_("NS"), choices=ADJUSTMENTS, required=False, widget=QuickSelect
    )
    ew_adjustment = forms.ChoiceField(
        label=_("EW"), choices=ADJUSTMENTS, required=False, widget=QuickSelect
    )
    reason = forms.CharField(
        label=_("Reason for the ruling"),
        max_length=500,
        widget=forms.TextInput(attrs={"placeholder": _("e.g. both sides agree it was 4♠ −1")}),
    )

    @property
    def adjusting(self) -> bool:
        data = getattr(self, "cleaned_data", {})
        return bool(data.get("ns_adjustment") or data.get("ew_adjustment"))

    def clean(self):
        data = forms.Form.clean(self)
        if self.adjusting:
            if not (data.get("ns_adjustment") and data.get("ew_adjustment")):
                self.add_error("ew_adjustment", _("An adjusted score needs a score for each side."))
            if data.get("level"):
                self.add_error(
                    "level",
                    _("Give either a played result or an adjusted score, not both."),
                )
            return data
        return super().clean()


class ExtendForm(forms.Form):
    minutes = forms.FloatField(
        label=_("Extend by (minutes)"), min_value=0.1, max_value=1440, initial=5
    )


class ExtraTimeForm(forms.Form):
    """Extra time for one table (`table_director.give_extra_time` checks the minutes)."""

    minutes = forms.FloatField(label=_("Extra time (minutes)"), initial=5)
    reason = forms.CharField(
        label=_("Why"),
        max_length=500,
        required=False,
        widget=forms.TextInput(attrs={"placeholder": _("e.g. a player's connection dropped")}),
    )


class RobotForm(forms.Form):
    """A robot in an absent player's seat (`table_director.seat_robot` checks it)."""

    seat = forms.ChoiceField(
        label=_("Seat"),
        choices=[
            ("N", pgettext_lazy("seat", "North")),
            ("E", pgettext_lazy("seat", "East")),
            ("S", pgettext_lazy("seat", "South")),
            ("W", pgettext_lazy("seat", "West")),
        ],
        widget=forms.RadioSelect,
    )
    reason = forms.CharField(
        label=_("Why"),
        max_length=500,
        required=False,
        widget=forms.TextInput(attrs={"placeholder": _("e.g. South has not come back")}),
    )


class ProgramForm(forms.Form):
    """A seat for an outside program (SPEC 14): `services.programs.reserve` checks who
    may, the seat and the limits; the console offers every seat, the table's page the
    player's own."""

    SEATS = [
        ("N", pgettext_lazy("seat", "North")),
        ("E", pgettext_lazy("seat", "East")),
        ("S", pgettext_lazy("seat", "South")),
        ("W", pgettext_lazy("seat", "West")),
    ]

    seat = forms.ChoiceField(label=_("Seat"), choices=SEATS, widget=forms.RadioSelect)
    program = forms.CharField(
        label=_("Program"),
        max_length=60,
        required=False,
        widget=forms.TextInput(attrs={"placeholder": _("e.g. BEN, WBridge5, GIB")}),
    )
    think_seconds = forms.IntegerField(
        label=_("Think-time limit (seconds)"),
        initial=60,
        # The limits are the service's (its refusal says them); the browser's are a hint.
        widget=forms.NumberInput(attrs={"inputmode": "numeric", "min": 2, "max": 600}),
    )

    def __init__(self, *args, seats: list[str] | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        if seats is not None:
            field = self.fields["seat"]
            field.choices = [c for c in self.SEATS if c[0] in seats]  # type: ignore[attr-defined]
            if len(seats) == 1:
                field.initial = seats[0]


# A movement file is a few kilobytes (a 30-table Mitchell's .ASC is under 20 kB).
MOVEMENT_FILE_MAX_BYTES = 256 * 1024


class SeatingFields(forms.Form):
    """How the rounds are seated (RULES 10): Swiss or a movement, one winner or two, and an
    organiser's own movement as a file. `formats.movement_rules` checks the combination."""

    seating = forms.ChoiceField(
        label=_("Seating"), choices=Seating.choices, initial=Seating.SWISS, required=False
    )
    winners = forms.TypedChoiceField(
        label=_("Winners"),
        choices=[
            ("", _("As the seating gives: two for a Mitchell, one otherwise")),
            (1, _("One winner")),
            (2, _("Two winners: NS and EW ranked apart")),
        ],
        coerce=int,
        empty_value=None,
        initial="",
        required=False,
        help_text=_(
            "Two winners: a Mitchell, or a given movement whose pairs keep their direction."
        ),
    )
    boards_travel = forms.BooleanField(
        label=_("Board sets travel (face to face)"),
        required=False,
        help_text=_(
            "Each table plays the board set the movement gives it and passes it on, as a "
            "club's boards go; a board is scored when its last table has played it. Off: "
            "every table of a round plays the round's boards (duplicated, as online)."
        ),
    )
    arrow_switch = forms.BooleanField(
        label=_("Arrow-switch: one winner from a Mitchell"),
        required=False,
        help_text=_("In some rounds every table swaps NS and EW; needs board sets that travel."),
    )
    movement_file = forms.FileField(
        label=_("Movement file"),
        required=False,
        help_text=_("With “A movement given as data”: an .ASC movement file, or its JSON form."),
    )

    def clean_movement_file(self) -> bytes | None:
        upload = self.cleaned_data.get("movement_file")
        if not upload:
            return None
        if upload.size > MOVEMENT_FILE_MAX_BYTES:
            raise forms.ValidationError(
                _("A movement file has at most %(n)s kB.") % {"n": MOVEMENT_FILE_MAX_BYTES // 1024}
            )
        return upload.read()

    def seating_settings(self) -> dict:
        """The seating keywords of `setup.create_tournament` / `change_movement`."""
        data = self.cleaned_data
        return {
            "seating": data.get("seating") or Seating.SWISS,
            "winners": data.get("winners"),
            "arrow_switch": bool(data.get("arrow_switch")),
            "movement": data.get("movement_file"),
            "boards_travel": bool(data.get("boards_travel")),
        }


class MovementSettingsForm(SeatingFields):
    """The console's seating page: the seating changed until round 1 starts."""


class NewTournamentForm(SeatingFields):
    """Every setting `setup.create_tournament` takes, so an event is set up and run from
    the console alone; the service checks each one (the limits and messages of the API
    and admin), the form only reads the fields."""

    name = forms.CharField(label=_("Name"), max_length=120)
    contestants = forms.ChoiceField(
        label=_("Contestants"),
        choices=Contestants.choices,
        initial=Contestants.PAIRS,
        required=False,
        widget=forms.RadioSelect,
        help_text=_(
            "Teams: each round a match of two rooms, the teams seated Swiss or as a round robin."
        ),
    )
    team_scoring = forms.ChoiceField(
        label=_("Team scoring"),
        choices=TeamScoring.choices,
        initial=TeamScoring.VP,
        required=False,
    )
    bye_vp = forms.DecimalField(
        label=_("A bye's victory points"),
        initial=12,
        required=False,
        help_text=_("What a team with the round off scores (0 to 20)."),
    )
    description = forms.CharField(
        label=_("Description"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=_("Shown on the tournament's public page."),
    )
    play = forms.ChoiceField(
        label=_("Play"),
        choices=PlayMode.choices,
        initial=PlayMode.ENTERED,
        required=False,
        widget=forms.RadioSelect,
    )
    kibitz_live = forms.BooleanField(
        label=_("Kibitzers see every hand live, as on Vugraph"),
        required=False,
        help_text=_("Off: a kibitzer sees the play's progress only until the round closes."),
    )
    start_at = forms.DateTimeField(
        label=_("Start time"),
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"),
    )
    registration_opens_at = forms.DateTimeField(
        label=_("Registration opens"),
        required=False,
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"),
        help_text=_("Empty: at once."),
    )
    rounds = forms.IntegerField(label=_("Rounds"), min_value=1, initial=6)
    boards_per_round = forms.IntegerField(label=_("Boards per round"), min_value=1, initial=4)
    round_minutes = forms.FloatField(label=_("Round length (minutes)"), min_value=1, initial=30)
    gap_minutes = forms.FloatField(
        label=_("Gap between rounds (minutes)"), min_value=0, initial=0, required=False
    )
    scoring = forms.ChoiceField(
        label=_("Scoring"),
        choices=ScoringMethod.choices,
        initial=ScoringMethod.IMP,
        required=False,  # a team event's form hides it (its matches are scored in IMPs)
    )
    unplayed_policy = forms.ChoiceField(
        label=_("Boards not played by the bell"),
        choices=UnplayedPolicy.choices,
        initial=UnplayedPolicy.NOT_PLAYED,
        required=False,
    )
    completion_threshold = forms.DecimalField(
        label=_("Completion threshold (%)"),
        initial=70,
        required=False,
        help_text=_(
            "A pair ranks among those who completed the event once it played this share "
            "of the boards."
        ),
    )
    first_round_draw = forms.ChoiceField(
        label=_("First-round seating"),
        choices=FirstRoundDraw.choices,
        initial=FirstRoundDraw.REGISTRATION,
        required=False,
    )
    neuberg = forms.BooleanField(
        label=_("Neuberg for boards with artificial scores"),
        required=False,
        help_text=_("On by default for a movement."),
    )
    datum_rounding = forms.ChoiceField(
        label=_("Datum rounding"),
        choices=DatumRounding.choices,
        initial=DatumRounding.HALF_EVEN,
        required=False,
        help_text=_("IMPs against a datum: how a datum ending in exactly 5 goes to a ten."),
    )

    def settings(self) -> dict:
        """The keywords of `setup.create_tournament`, from the cleaned fields; a choice
        left out (a client that knows only the older form) is the one offered."""
        data = {
            name: self.fields[name].initial
            if value in ("", None) and self.fields[name].initial is not None
            else value
            for name, value in self.cleaned_data.items()
        }
        return {
            "name": data["name"],
            "description": data["description"],
            "play": data["play"],
            "start_at": data["start_at"],
            "registration_opens_at": data["registration_opens_at"],
            "rounds": data["rounds"],
            "boards_per_round": data["boards_per_round"],
            "round_minutes": data["round_minutes"],
            "gap_minutes": data["gap_minutes"] or 0,
            "scoring": data["scoring"],
            "unplayed_policy": data["unplayed_policy"],
            "completion_threshold": data["completion_threshold"],
            "first_round_draw": data["first_round_draw"],
            "neuberg": data["neuberg"],
            "kibitz_live": data["kibitz_live"],
            "datum_rounding": data["datum_rounding"],
            "contestants": data["contestants"],
            "team_scoring": data["team_scoring"],
            "bye_vp": data["bye_vp"],
            **self.seating_settings(),
        }
