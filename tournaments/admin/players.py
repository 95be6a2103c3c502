"""Players: their profiles, the rank titles their master points earn, and the awards."""

from __future__ import annotations

from django.contrib import admin

from ..models import MasterPointAward, PlayerProfile, RankTitle


@admin.register(PlayerProfile)
class PlayerProfileAdmin(admin.ModelAdmin):
    list_display = ("user", "display_name", "master_points")
    search_fields = ("user__username", "display_name")
    readonly_fields = ("master_points",)


@admin.register(RankTitle)
class RankTitleAdmin(admin.ModelAdmin):
    list_display = ("level", "name_zh", "name_en", "min_master_points")
    list_editable = ("min_master_points",)
    ordering = ("level",)


@admin.register(MasterPointAward)
class MasterPointAwardAdmin(admin.ModelAdmin):
    list_display = ("tournament", "user", "rank", "points", "awarded_at")
    list_filter = ("tournament",)
    search_fields = ("user__username",)

    def has_change_permission(self, request, obj=None):
        return False

    def has_add_permission(self, request):
        return False
