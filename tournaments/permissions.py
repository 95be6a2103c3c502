"""The organiser's powers as permission names, and the directors' group's permission list.

Below the models (which declare the custom permissions on `Tournament.Meta`) and the
services (which check them: `services.permissions.require`); imports nothing of the app.
Who may do what: docs/SECURITY.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.utils.translation import gettext_lazy

if TYPE_CHECKING:  # the stubs' name for a lazy translation
    from django.utils.functional import _StrPromise

APP = "tournaments"

# The codenames, for `Tournament.Meta.permissions` and admin actions' `permissions=[…]`.
RUN_CLOCK_CODENAME = "run_clock"
DIRECT_RESULTS_CODENAME = "direct_results"
MANAGE_PLAYERS_CODENAME = "manage_players"
COMMENT_BROADCASTS_CODENAME = "comment_broadcasts"
CLUB_MEMBER_CODENAME = "club_member"
GRANT_CLUB_MEMBERSHIP_CODENAME = "grant_club_membership"

# What `user.has_perm` takes.
RUN_CLOCK = f"{APP}.{RUN_CLOCK_CODENAME}"  # start, close, extend, pause, resume, re-score
DIRECT_RESULTS = f"{APP}.{DIRECT_RESULTS_CODENAME}"  # director's results, adjusted scores
MANAGE_PLAYERS = f"{APP}.{MANAGE_PLAYERS_CODENAME}"  # create players, pairs on their behalf
# Commentary in a broadcast's stream (RULES 12): a commentator need not be a director.
COMMENT_BROADCASTS = f"{APP}.{COMMENT_BROADCASTS_CODENAME}"
# The club (RULES 13): a member plays duplicate and full-field tables (everyone plays
# handicap); an organiser grants and withdraws membership.
CLUB_MEMBER = f"{APP}.{CLUB_MEMBER_CODENAME}"
GRANT_CLUB_MEMBERSHIP = f"{APP}.{GRANT_CLUB_MEMBERSHIP_CODENAME}"
ADD_TOURNAMENT = f"{APP}.add_tournament"  # Django's own
CHANGE_TOURNAMENT = f"{APP}.change_tournament"  # Django's own (admin's change form)

ORGANISER_PERMISSIONS: list[tuple[str, str | _StrPromise]] = [
    (
        RUN_CLOCK_CODENAME,
        gettext_lazy("Can run the round clock (start, close, extend, pause, resume, re-score)"),
    ),
    (
        DIRECT_RESULTS_CODENAME,
        gettext_lazy("Can set director's results and adjusted scores"),
    ),
    (
        MANAGE_PLAYERS_CODENAME,
        gettext_lazy("Can manage players and register or withdraw pairs for them"),
    ),
    (
        COMMENT_BROADCASTS_CODENAME,
        gettext_lazy("Can add commentary to a broadcast"),
    ),
    (
        CLUB_MEMBER_CODENAME,
        gettext_lazy("Club member: may play duplicate and full-field club tables"),
    ),
    (
        GRANT_CLUB_MEMBERSHIP_CODENAME,
        gettext_lazy("Can grant and withdraw club membership"),
    ),
]

DIRECTORS_GROUP = "Tournament directors"

# (app label, model, codename): the organiser powers, then what admin needs to show the
# events they run (inlines need their model's view permission too; the pair form's
# player search needs auth's view_user). Nothing to delete, no users to edit.
DIRECTORS_GROUP_PERMISSIONS = (
    (APP, "tournament", RUN_CLOCK_CODENAME),
    (APP, "tournament", DIRECT_RESULTS_CODENAME),
    (APP, "tournament", MANAGE_PLAYERS_CODENAME),
    (APP, "tournament", COMMENT_BROADCASTS_CODENAME),
    (APP, "tournament", GRANT_CLUB_MEMBERSHIP_CODENAME),
    (APP, "tournament", "add_tournament"),
    (APP, "tournament", "change_tournament"),
    (APP, "tournament", "view_tournament"),
    (APP, "pair", "add_pair"),
    (APP, "pair", "view_pair"),
    (APP, "round", "view_round"),
    (APP, "table", "view_table"),
    (APP, "board", "view_board"),
    (APP, "boardresult", "change_boardresult"),
    (APP, "boardresult", "view_boardresult"),
    (APP, "standing", "view_standing"),
    (APP, "pairboardscore", "view_pairboardscore"),
    (APP, "masterpointaward", "view_masterpointaward"),
    (APP, "playerprofile", "view_playerprofile"),
    (APP, "ranktitle", "change_ranktitle"),  # the thresholds are the organiser's (RULES 7)
    (APP, "ranktitle", "view_ranktitle"),
    (APP, "clockheartbeat", "view_clockheartbeat"),
    (APP, "team", "view_team"),
    (APP, "teammember", "view_teammember"),
    (APP, "match", "view_match"),
    (APP, "teamstanding", "view_teamstanding"),
    ("auth", "user", "view_user"),
)
