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

from ..errors import PermissionRequired
from ..permissions import (
    ADD_TOURNAMENT,
    APP,
    CHANGE_TOURNAMENT,
    COMMENT_BROADCASTS,
    DIRECT_RESULTS,
    DIRECT_RESULTS_CODENAME,
    DIRECTORS_GROUP,
    DIRECTORS_GROUP_PERMISSIONS,
    MANAGE_PLAYERS,
    MANAGE_PLAYERS_CODENAME,
    ORGANISER_PERMISSIONS,
    RUN_CLOCK,
    RUN_CLOCK_CODENAME,
)

__all__ = [
    "ADD_TOURNAMENT",
    "APP",
    "CHANGE_TOURNAMENT",
    "COMMENT_BROADCASTS",
    "DIRECTORS_GROUP",
    "DIRECTORS_GROUP_PERMISSIONS",
    "DIRECT_RESULTS",
    "DIRECT_RESULTS_CODENAME",
    "MANAGE_PLAYERS",
    "MANAGE_PLAYERS_CODENAME",
    "ORGANISER_PERMISSIONS",
    "RUN_CLOCK",
    "RUN_CLOCK_CODENAME",
    "allowed",
    "directors_group",
    "ensure_directors_group",
    "remove_directors_group",
    "require",
]


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
        COMMENT_BROADCASTS: _("Only a commentator can add commentary to a broadcast."),
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
    if apps is None:  # the live registry, when not called from the migration
        from django.apps import apps
    ContentType = apps.get_model("contenttypes", "ContentType")
    Permission = apps.get_model("auth", "Permission")
    Group = apps.get_model("auth", "Group")
    custom = dict(ORGANISER_PERMISSIONS)
    # A dozen statements, not two per permission: a test database flushed by a
    # transactional test has the group made again before the next test.
    content_types = {}
    for app_label, model, _codename in DIRECTORS_GROUP_PERMISSIONS:
        if (app_label, model) not in content_types:
            content_types[app_label, model], _created = ContentType.objects.get_or_create(
                app_label=app_label, model=model
            )
    existing = {
        (permission.content_type_id, permission.codename): permission
        for permission in Permission.objects.filter(
            content_type__in=list(content_types.values()),
            codename__in={codename for _label, _model, codename in DIRECTORS_GROUP_PERMISSIONS},
        )
    }
    wanted = []
    for app_label, model, codename in DIRECTORS_GROUP_PERMISSIONS:
        content_type = content_types[app_label, model]
        permission = existing.get((content_type.pk, codename))
        if permission is None:
            with translation.override(None):  # stored in English, as Django stores its own
                if codename in custom:
                    name = str(custom[codename])
                else:
                    action = codename.split("_", 1)[0]
                    name = f"Can {action} {apps.get_model(app_label, model)._meta.verbose_name}"
            permission = Permission.objects.create(
                content_type=content_type, codename=codename, name=name
            )
        wanted.append(permission)
    group, _created = Group.objects.get_or_create(name=DIRECTORS_GROUP)
    group.permissions.set(wanted)


def directors_group():
    """The group, made again if it is missing (a test database flushed since migrate)."""
    # Imported here because `tournaments.models` imports this package's constants
    # before the auth app is ready.
    from django.contrib.auth.models import Group

    group = Group.objects.filter(name=DIRECTORS_GROUP).first()
    if group is None:
        ensure_directors_group()
        group = Group.objects.get(name=DIRECTORS_GROUP)
    return group


def remove_directors_group(apps=None) -> None:
    if apps is None:  # the live registry, when not called from the migration
        from django.apps import apps
    apps.get_model("auth", "Group").objects.filter(name=DIRECTORS_GROUP).delete()
