"""Forms of the director's console (`views/console.py`). The result form is the players'
`ResultForm` (same pickers, same messages) plus the director's reason and the
adjusted score; the rules stay in the services."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from .forms import NONE, QuickSelect, ResultForm
from .models import Adjustment, ScoringMethod

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


class NewTournamentForm(forms.Form):
    """What `setup.create_tournament` takes; the service checks every setting."""

    name = forms.CharField(label=_("Name"), max_length=120)
    start_at = forms.DateTimeField(
        label=_("Start time"),
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"),
    )
    rounds = forms.IntegerField(label=_("Rounds"), min_value=1, initial=6)
    boards_per_round = forms.IntegerField(label=_("Boards per round"), min_value=1, initial=4)
    round_minutes = forms.FloatField(label=_("Round length (minutes)"), min_value=1, initial=30)
    gap_minutes = forms.FloatField(
        label=_("Gap between rounds (minutes)"), min_value=0, initial=0, required=False
    )
    scoring = forms.ChoiceField(
        label=_("Scoring"), choices=ScoringMethod.choices, initial=ScoringMethod.IMP
    )
