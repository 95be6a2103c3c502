"""The directors' group may view team events in admin (RULES 11): teams, their members,
matches and team standings (read only there: the services write them)."""

from django.db import migrations
from django.utils import translation

DIRECTORS_GROUP = "Tournament directors"
# A frozen copy of what this migration adds (tournaments.permissions holds the live list).
ADDED = (
    ("tournaments", "team", "view_team"),
    ("tournaments", "teammember", "view_teammember"),
    ("tournaments", "match", "view_match"),
    ("tournaments", "teamstanding", "view_teamstanding"),
)


def add_views(apps, schema_editor):
    ContentType = apps.get_model("contenttypes", "ContentType")
    Permission = apps.get_model("auth", "Permission")
    Group = apps.get_model("auth", "Group")
    group = Group.objects.filter(name=DIRECTORS_GROUP).first()
    if group is None:
        return  # removed by the organisers: nothing to extend
    for app_label, model, codename in ADDED:
        content_type, _created = ContentType.objects.get_or_create(app_label=app_label, model=model)
        with translation.override(None):  # stored in English, as Django stores its own
            name = f"Can view {apps.get_model(app_label, model)._meta.verbose_name}"
        permission, _created = Permission.objects.get_or_create(
            content_type=content_type, codename=codename, defaults={"name": name}
        )
        group.permissions.add(permission)


def remove_views(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group = Group.objects.filter(name=DIRECTORS_GROUP).first()
    if group is not None:
        group.permissions.remove(
            *Permission.objects.filter(codename__in=[codename for _a, _m, codename in ADDED])
        )


class Migration(migrations.Migration):
    dependencies = [("tournaments", "0024_teams")]

    operations = [migrations.RunPython(add_views, remove_views)]
