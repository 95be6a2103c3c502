"""Forms of the players' pages. They check what a person can get wrong by mistake (a
missing declarer, tricks that disagree with the result) in plain words; the rules of
the game and of the event stay in the services."""

from __future__ import annotations

from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import UserCreationForm
from django.forms.utils import flatatt
from django.utils.html import format_html
from django.utils.safestring import mark_safe
from django.utils.translation import gettext_lazy as _

import scoring

from .models import BoardResult, ResultState
from .services.results import ContractEntry
from .templatetags.bridge import NT, SEAT_SHORT, SUIT_SYMBOLS
from .validators import validate_name

User = get_user_model()

NONE = ("", "—")
PASS = "P"
LEVELS = [NONE, *[(str(n), str(n)) for n in range(1, 8)], (PASS, _("All pass"))]
STRAINS = [NONE, *[(s, NT if s == "NT" else SUIT_SYMBOLS[s]) for s in scoring.STRAINS]]
DOUBLINGS = [("", "·"), ("X", "X"), ("XX", "XX")]
DECLARERS = [NONE, *[(s, SEAT_SHORT[s]) for s in scoring.SEATS]]
TRICKS = [NONE, *[(str(n), str(n)) for n in range(14)]]
# The usual results first: made exactly, overtricks, then undertricks.
RESULTS = [
    NONE,
    ("=", "="),
    *[(f"+{n}", f"+{n}") for n in range(1, 7)],
    *[(f"-{n}", f"\u2212{n}") for n in range(1, 14)],
]
LEAD_SUITS = [NONE, *[(s, SUIT_SYMBOLS[s]) for s in scoring.SUITS]]
LEAD_RANKS = [NONE, *[(r, "10" if r == "T" else r) for r in scoring.RANKS]]


class SignupForm(UserCreationForm):
    display_name = forms.CharField(
        label=_("Display name"),
        max_length=80,
        required=False,
        validators=[validate_name],
        help_text=_("How your name appears in seatings and results (your username if empty)."),
    )
    email = forms.EmailField(
        label=_("E-mail address"),
        required=False,
        max_length=254,
        help_text=_("Optional. Needed only to reset a forgotten password; never shown."),
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
    )

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username", "email")  # the address is optional: blank is stored as ""

    field_order = ("username", "display_name", "email", "password1", "password2")

    def save(self, commit: bool = True):
        user = super().save(commit=commit)
        name = self.cleaned_data.get("display_name", "").strip()
        if commit and name:
            # The profile exists already: a signal creates it with the user.
            user.profile.display_name = name
            user.profile.save(update_fields=["display_name"])
        return user


class ProposePairForm(forms.Form):
    partner = forms.CharField(
        label=_("Your partner's username"),
        max_length=150,
        widget=forms.TextInput(attrs={"autocomplete": "off", "autocapitalize": "none"}),
    )


class DisputeForm(forms.Form):
    note = forms.CharField(
        label=_("What is wrong?"),
        max_length=500,
        required=False,
        widget=forms.TextInput(attrs={"placeholder": _("e.g. it was 4♠ −1, not made")}),
    )


class QuickSelect(forms.Select):
    """A plain <select> rendered in Python, with the same markup as Django's.

    The table page renders eight of them for every board it shows, also in the answer
    to each saved result; through Django's widget templates they were half the server
    time of saving a result in the last minute of a round.
    """

    def render(self, name, value, attrs=None, renderer=None):
        final = self.build_attrs(self.attrs, attrs)
        chosen = self.format_value(value)
        options = []
        for option_value, label in self.choices:
            key = "" if option_value is None else str(option_value)
            selected = key in chosen
            if selected:
                chosen = []  # a single select marks only its first match
            options.append(
                format_html(
                    '<option value="{}"{}>{}</option>', key, " selected" if selected else "", label
                )
            )
        return format_html(
            '<select name="{}"{}>{}</select>', name, flatatt(final), mark_safe("".join(options))
        )


def _choice(label, choices) -> forms.ChoiceField:
    return forms.ChoiceField(label=label, choices=choices, required=False, widget=QuickSelect)


class ResultForm(forms.Form):
    """One board's result at a table; `entry` is what the results service takes."""

    level = _choice(_("Level"), LEVELS)
    strain = _choice(_("Strain"), STRAINS)
    doubling = _choice(_("Doubled"), DOUBLINGS)
    declarer = _choice(_("Declarer"), DECLARERS)
    lead_suit = _choice(_("Suit"), LEAD_SUITS)
    lead_rank = _choice(_("Card"), LEAD_RANKS)
    result = _choice(_("Result"), RESULTS)
    tricks = _choice(_("or tricks"), TRICKS)

    entry: ContractEntry

    @classmethod
    def initial_for(cls, result: BoardResult | None) -> dict:
        if result is None:
            return {}
        if result.state == ResultState.PASSED_OUT:
            return {"level": PASS}
        if result.state != ResultState.PLAYED:
            return {}
        contract = scoring.parse_contract(result.contract)
        return {
            "level": str(contract.level),
            "strain": contract.strain,
            "doubling": ["", "X", "XX"][contract.doubling],
            "declarer": result.declarer,
            "lead_suit": result.lead[:1],
            "lead_rank": result.lead[1:],
            "result": result.result_relative,
        }

    def clean(self):
        data = super().clean()
        level = data.get("level")
        if not level:
            self.add_error("level", _("Choose the contract's level, or “All pass”."))
            return data
        if level == PASS:
            self.entry = ContractEntry(contract="PASS")
            return data
        if not data.get("strain"):
            self.add_error("strain", _("Choose the strain: ♣ ♦ ♥ ♠ or NT."))
        if not data.get("declarer"):
            self.add_error("declarer", _("Who was declarer: N, E, S or W?"))
        result, tricks = data.get("result"), data.get("tricks")
        needed = int(level) + 6
        if not result and not tricks:
            self.add_error("result", _("Give the result (=, +1, −2 …) or the tricks taken."))
        elif result:
            made = needed + (0 if result == "=" else int(result))
            if not 0 <= made <= 13:
                self.add_error(
                    "result",
                    _("%(result)s is impossible in a %(level)s-level contract.")
                    % {"result": result.replace("-", "\u2212"), "level": level},
                )
            elif tricks and int(tricks) != made:
                self.add_error(
                    "tricks", _("The result and the tricks disagree: give only one of them.")
                )
        if bool(data.get("lead_suit")) != bool(data.get("lead_rank")):
            self.add_error("lead_rank", _("Give both the suit and the card of the lead."))
        if self.errors:
            return data
        self.entry = ContractEntry(
            contract=f"{level}{data['strain']}{data.get('doubling') or ''}",
            declarer=data["declarer"],
            result=result or None,
            tricks=None if result else int(tricks),
            lead=(data.get("lead_suit") or "") + (data.get("lead_rank") or ""),
        )
        return data
