"""Team events (RULES 11), read only: teams register, confirm and set their line-ups
through `services.teams` (the pages and the API), and the clock writes the matches; admin
shows them. A running round's match scores are seen only by a director who may set
results, as every other renderer of a result asks `tournaments.visibility`."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import Q

from .. import visibility
from ..models import Match, Team, TeamMember
from .results import OnlyWhatTheViewerMaySee


class ReadOnly:
    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class TeamMemberInline(ReadOnly, admin.TabularInline):
    model = TeamMember
    fields = ("user", "invited_at", "confirmed_at")
    readonly_fields = fields
    extra = 0


@admin.register(Team)
class TeamAdmin(ReadOnly, admin.ModelAdmin):
    list_display = ("__str__", "tournament", "captain", "status", "vp", "rank", "withdrawn_at")
    list_filter = ("tournament", "status")
    search_fields = ("name", "captain__username", "tournament__name")
    list_select_related = ("tournament", "captain")
    inlines = [TeamMemberInline]
    # The standing line-up is the team's secret until the clock seats it: not shown here.
    exclude = ("open_pair", "closed_pair")


@admin.register(Match)
class MatchAdmin(OnlyWhatTheViewerMaySee, ReadOnly, admin.ModelAdmin):
    public_filter = visibility.DEAL_PUBLIC
    directed_filter = Q()  # a match is never the club's
    list_display = (
        "__str__",
        "home_imps_won",
        "away_imps_won",
        "home_vp",
        "away_vp",
        "boards_scored",
    )
    list_filter = ("round__tournament",)
    list_select_related = ("round__tournament", "home", "away")
