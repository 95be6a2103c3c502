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
        for field in ("name_zh", "name_en"):
            if field in data:
                try:
                    data[field] = titles.title_name(data[field], field)
                except ServiceError as error:
                    self.add_error(field, str(error))
        value, level = data.get("min_master_points"), self.instance.level
        if value is not None and level is not None and not self.instance._state.adding:
            _check_thresholds({level: value})
        return data


class RankTitleListForm(forms.BaseModelFormSet):
    """The list's editable thresholds: the edited ones and the stored others checked as
    one sequence, so nothing is saved unless all of it starts at 0 and increases."""

    changes: dict[int, Decimal] | None = None

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
        self.changes = changes


@admin.register(RankTitle)
class RankTitleAdmin(admin.ModelAdmin):
    form = RankTitleForm
    list_display = ("level", "name_zh", "name_en", "min_master_points")
    list_editable = ("min_master_points",)
    ordering = ("level",)

    def get_readonly_fields(self, request, obj=None):
        # The twelve titles are fixed (RULES 7); only their thresholds are the organiser's.
        return ("level", "code") if obj is not None else ()

    def has_add_permission(self, request):
        return False  # the twelve titles are fixed (RULES 7)

    def has_delete_permission(self, request, obj=None):
        return False

    def get_changelist_formset(self, request, **kwargs):
        kwargs["formset"] = RankTitleListForm
        listed = super().get_changelist_formset(request, **kwargs)

        class ThresholdsOfTheList(listed):
            def clean(self):
                super().clean()
                # Saved as one sequence by the service, at the first title admin saves
                # (`save_model`): one at a time, a raise could be refused half-way.
                request._title_thresholds = self.changes

        return ThresholdsOfTheList

    def save_model(self, request, obj, form, change):
        thresholds = getattr(request, "_title_thresholds", None)
        if thresholds is not None:
            if not getattr(request, "_title_thresholds_saved", False):
                titles.set_title_thresholds(changes=thresholds, by=request.user)
                request._title_thresholds_saved = True
            return
        titles.update_title(
            level=obj.level,
            name_zh=obj.name_zh,
            name_en=obj.name_en,
            min_master_points=obj.min_master_points,
            by=request.user,
        )


@admin.register(MasterPointAward)
class MasterPointAwardAdmin(admin.ModelAdmin):
    list_display = ("tournament", "user", "rank", "points", "awarded_at")
    list_filter = ("tournament",)
    search_fields = ("user__username",)

    def has_change_permission(self, request, obj=None):
        return False

    def has_add_permission(self, request):
        return False
