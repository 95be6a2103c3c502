from django.db import migrations

import scoring


def add_rank_titles(apps, schema_editor):
    RankTitle = apps.get_model("tournaments", "RankTitle")
    for level, ((code, zh, en), minimum) in enumerate(
        zip(scoring.RANK_TITLES, scoring.DEFAULT_TITLE_THRESHOLDS, strict=True), start=1
    ):
        RankTitle.objects.update_or_create(
            level=level,
            defaults={"code": code, "name_zh": zh, "name_en": en, "min_master_points": minimum},
        )


class Migration(migrations.Migration):
    dependencies = [("tournaments", "0001_initial")]
    operations = [migrations.RunPython(add_rank_titles, migrations.RunPython.noop)]
