"""The organiser's powers as permissions, and the "Tournament directors" group holding them.

post_migrate (which normally creates permissions) runs after every migration, so the
group's permissions and their content types are created here with get_or_create. Running
it again changes nothing; reversing it removes the group (users keep their accounts).
"""

from django.db import migrations
from django.utils import translation


# A frozen copy of what this migration created when it was written: later changes to the
# organiser's powers (tournaments.permissions) belong in a migration of their own.
DIRECTORS_GROUP = "Tournament directors"
CUSTOM_PERMISSION_NAMES = {
    "run_clock": "Can run the round clock (start, close, extend, pause, resume, re-score)",
    "direct_results": "Can set director's results and adjusted scores",
    "manage_players": "Can manage players and register or withdraw pairs for them",
}
DIRECTORS_GROUP_PERMISSIONS = (
    ("tournaments", "tournament", "run_clock"),
    ("tournaments", "tournament", "direct_results"),
    ("tournaments", "tournament", "manage_players"),
    ("tournaments", "tournament", "add_tournament"),
    ("tournaments", "tournament", "change_tournament"),
    ("tournaments", "tournament", "view_tournament"),
    ("tournaments", "pair", "add_pair"),
    ("tournaments", "pair", "view_pair"),
    ("tournaments", "round", "view_round"),
    ("tournaments", "table", "view_table"),
    ("tournaments", "board", "view_board"),
    ("tournaments", "boardresult", "change_boardresult"),
    ("tournaments", "boardresult", "view_boardresult"),
    ("tournaments", "standing", "view_standing"),
    ("tournaments", "pairboardscore", "view_pairboardscore"),
    ("tournaments", "masterpointaward", "view_masterpointaward"),
    ("tournaments", "playerprofile", "view_playerprofile"),
    ("tournaments", "ranktitle", "change_ranktitle"),
    ("tournaments", "ranktitle", "view_ranktitle"),
    ("tournaments", "clockheartbeat", "view_clockheartbeat"),
    ("auth", "user", "view_user"),
)


def add_directors_group(apps, schema_editor):
    ContentType = apps.get_model("contenttypes", "ContentType")
    Permission = apps.get_model("auth", "Permission")
    Group = apps.get_model("auth", "Group")
    wanted = []
    for app_label, model, codename in DIRECTORS_GROUP_PERMISSIONS:
        content_type, _created = ContentType.objects.get_or_create(app_label=app_label, model=model)
        name = CUSTOM_PERMISSION_NAMES.get(codename)
        if name is None:
            action = codename.split("_", 1)[0]
            with translation.override(None):  # stored in English, as Django stores its own
                name = f"Can {action} {apps.get_model(app_label, model)._meta.verbose_name}"
        permission, _created = Permission.objects.get_or_create(
            content_type=content_type, codename=codename, defaults={"name": name}
        )
        wanted.append(permission)
    group, _created = Group.objects.get_or_create(name=DIRECTORS_GROUP)
    group.permissions.set(wanted)


def remove_directors_group(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name=DIRECTORS_GROUP).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0006_draw_seed_and_disputed_at"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [
        migrations.AlterModelOptions(
            name="tournament",
            options={
                "ordering": ["-start_at", "-id"],
                "permissions": [
                    (
                        "run_clock",
                        "Can run the round clock (start, close, extend, pause, resume, re-score)",
                    ),
                    ("direct_results", "Can set director's results and adjusted scores"),
                    (
                        "manage_players",
                        "Can manage players and register or withdraw pairs for them",
                    ),
                ],
                "verbose_name": "tournament",
                "verbose_name_plural": "tournaments",
            },
        ),
        migrations.RunPython(add_directors_group, remove_directors_group),
    ]
