"""Who may use an organiser's powers: Django permissions, checked here and only here.

Each power is a permission (`Tournament.Meta.permissions` holds the custom ones); the
"Tournament directors" group holds them all, plus the view permissions admin needs.
An organiser is a staff account in that group, not a superuser.

A service that acts for someone takes a keyword-only `by` and calls `require` before it
changes anything. `by=None` means the system (the clock, the demo, the simulation,
management commands); it is accepted only where the service says `system=True`, and no
request can produce it: admin passes `request.user`, the API `request.auth` (its organiser
endpoints need a token), the pages log in first.
"""

from __future__ import annotations

from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from ..errors import PermissionRequired

APP = "tournaments"

# The codenames, for `Tournament.Meta.permissions` and admin actions' `permissions=[…]`.
RUN_CLOCK_CODENAME = "run_clock"
DIRECT_RESULTS_CODENAME = "direct_results"
MANAGE_PLAYERS_CODENAME = "manage_players"

# What `user.has_perm` takes.
RUN_CLOCK = f"{APP}.{RUN_CLOCK_CODENAME}"  # start, close, extend, pause, resume, re-score
DIRECT_RESULTS = f"{APP}.{DIRECT_RESULTS_CODENAME}"  # director's results, adjusted scores
MANAGE_PLAYERS = f"{APP}.{MANAGE_PLAYERS_CODENAME}"  # create players, pairs on their behalf
ADD_TOURNAMENT = f"{APP}.add_tournament"  # Django's own
CHANGE_TOURNAMENT = f"{APP}.change_tournament"  # Django's own (admin's change form)

ORGANISER_PERMISSIONS = [
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
]

DIRECTORS_GROUP = "Tournament directors"

# (app label, model, codename): the organiser powers, then what admin needs to show the
# events they run (inlines need their model's view permission too; the pair form's
# player search needs auth's view_user). Nothing to delete, no users to edit.
DIRECTORS_GROUP_PERMISSIONS = (
    (APP, "tournament", RUN_CLOCK_CODENAME),
    (APP, "tournament", DIRECT_RESULTS_CODENAME),
    (APP, "tournament", MANAGE_PLAYERS_CODENAME),
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
    (APP, "ranktitle", "change_ranktitle"),  # the thresholds are the organiser's (SPEC 7)
    (APP, "ranktitle", "view_ranktitle"),
    (APP, "clockheartbeat", "view_clockheartbeat"),
    ("auth", "user", "view_user"),
)


def _refusal(permission: str) -> str:
    messages = {
        RUN_CLOCK: _(
            "Only a tournament director can run the round clock (start, close, extend, "
            "pause, resume, re-score)."
        ),
        DIRECT_RESULTS: _("Only a tournament director can set results or adjusted scores."),
        MANAGE_PLAYERS: _("Only a tournament director can manage players and pairs."),
        ADD_TOURNAMENT: _("Only a tournament director can create tournaments."),
        CHANGE_TOURNAMENT: _("Only a tournament director can change tournaments."),
    }
    return messages.get(permission) or _("You are not allowed to do this.")


def allowed(user, permission: str) -> bool:
    """Whether `user` (a person, never None) holds `permission`; inactive users hold none."""
    return user is not None and bool(user.has_perm(permission))


def require(user, permission: str, *, system: bool = False) -> None:
    """Refuse with `PermissionRequired` unless `user` holds `permission`.

    `user=None` is the system and passes only when the caller says `system=True`.
    """
    if user is None:
        if system:
            return
        raise PermissionRequired(_refusal(permission), permission=permission)
    if not allowed(user, permission):
        raise PermissionRequired(_refusal(permission), permission=permission)


# --- the group ----------------------------------------------------------------------


def ensure_directors_group(apps=None) -> None:
    """Create the organiser permissions and the directors' group holding exactly
    `DIRECTORS_GROUP_PERMISSIONS`. Idempotent.

    The data migration calls it with the migration's `apps`: post_migrate, which
    normally creates permissions, has not run yet then, so they are created here.
    """
    if apps is None:
        from django.apps import apps
    ContentType = apps.get_model("contenttypes", "ContentType")
    Permission = apps.get_model("auth", "Permission")
    Group = apps.get_model("auth", "Group")
    custom = dict(ORGANISER_PERMISSIONS)
    wanted = []
    for app_label, model, codename in DIRECTORS_GROUP_PERMISSIONS:
        content_type, _created = ContentType.objects.get_or_create(app_label=app_label, model=model)
        with translation.override(None):  # stored in English, as Django stores its own
            if codename in custom:
                name = str(custom[codename])
            else:
                action = codename.split("_", 1)[0]
                name = f"Can {action} {apps.get_model(app_label, model)._meta.verbose_name}"
        permission, _created = Permission.objects.get_or_create(
            content_type=content_type, codename=codename, defaults={"name": name}
        )
        wanted.append(permission)
    group, _created = Group.objects.get_or_create(name=DIRECTORS_GROUP)
    group.permissions.set(wanted)


def directors_group():
    """The group, made again if it is missing (a test database flushed since migrate)."""
    from django.contrib.auth.models import Group

    group = Group.objects.filter(name=DIRECTORS_GROUP).first()
    if group is None:
        ensure_directors_group()
        group = Group.objects.get(name=DIRECTORS_GROUP)
    return group


def remove_directors_group(apps=None) -> None:
    if apps is None:
        from django.apps import apps
    apps.get_model("auth", "Group").objects.filter(name=DIRECTORS_GROUP).delete()
