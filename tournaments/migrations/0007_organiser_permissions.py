"""The organiser's powers as permissions, and the "Tournament directors" group holding them.

post_migrate (which normally creates permissions) runs after every migration, so the
group's permissions and their content types are created here with get_or_create. Running
it again changes nothing; reversing it removes the group (users keep their accounts).
"""

from django.db import migrations


def add_directors_group(apps, schema_editor):
    from tournaments.services.permissions import ensure_directors_group

    ensure_directors_group(apps)


def remove_directors_group(apps, schema_editor):
    from tournaments.services.permissions import remove_directors_group

    remove_directors_group(apps)


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
