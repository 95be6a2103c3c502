"""Players: their profiles, the rank titles their master points earn, and the awards."""

from __future__ import annotations

from decimal import Decimal

from django import forms
from django.contrib import admin

from ..errors import ServiceError
from ..models import MasterPointAward, PlayerProfile, RankTitle
from ..services import titles


@admin.register(PlayerProfile)
class PlayerProfileAdmin(admin.ModelAdmin):
    list_display = ("user", "display_name", "master_points")
    search_fields = ("user__username", "display_name")
    readonly_fields = ("master_points",)


def _check_thresholds(changes: dict[int, Decimal]) -> None:
    """The whole sequence of thresholds with these changes, checked by the service."""
    try:
        titles.check_title_thresholds(changes)
    except ServiceError as error:
        raise forms.ValidationError(str(error)) from error


class RankTitleForm(forms.ModelForm):
    """One title's form: its threshold is checked against the other titles' (RULES 7)."""

    class Meta:
        model = RankTitle
        fields = ("level", "code", "name_zh", "name_en", "min_master_points")

    def clean(self):
        data = super().clean()
        value, level = data.get("min_master_points"), self.instance.level
        if value is not None and level is not None and not self.instance._state.adding:
            _check_thresholds({level: value})
        return data


class RankTitleListForm(forms.BaseModelFormSet):
    """The list's editable thresholds: the edited ones and the stored others checked as
    one sequence, so nothing is saved unless all of it starts at 0 and increases."""

    def clean(self):
        super().clean()
        if any(self.errors):
            return
        changes = {
            form.instance.level: form.cleaned_data["min_master_points"]
            for form in self.forms
            if form.cleaned_data.get("min_master_points") is not None
        }
        _check_thresholds(changes)


@admin.register(RankTitle)
class RankTitleAdmin(admin.ModelAdmin):
    form = RankTitleForm
    list_display = ("level", "name_zh", "name_en", "min_master_points")
    list_editable = ("min_master_points",)
    ordering = ("level",)

    def get_readonly_fields(self, request, obj=None):
        # The twelve titles are fixed (RULES 7); only their thresholds are the organiser's.
        return ("level", "code") if obj is not None else ()

    def get_changelist_formset(self, request, **kwargs):
        kwargs["formset"] = RankTitleListForm
        return super().get_changelist_formset(request, **kwargs)


@admin.register(MasterPointAward)
class MasterPointAwardAdmin(admin.ModelAdmin):
    list_display = ("tournament", "user", "rank", "points", "awarded_at")
    list_filter = ("tournament",)
    search_fields = ("user__username",)

    def has_change_permission(self, request, obj=None):
        return False

    def has_add_permission(self, request):
        return False
