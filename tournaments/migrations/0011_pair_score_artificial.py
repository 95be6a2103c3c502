from django.db import migrations, models
from django.db.models import Q


def raise_zero_thresholds(apps, schema_editor):
    # A 0 % threshold let a pair that never played complete; 1 % is the nearest allowed
    # setting, and with it a pair still needs a completed board (SPEC 6).
    Tournament = apps.get_model("tournaments", "Tournament")
    Tournament.objects.filter(completion_threshold__lt=1).update(completion_threshold=1)


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0010_validated_settings_and_names"),
    ]

    operations = [
        migrations.AddField(
            model_name="pairboardscore",
            name="artificial",
            field=models.CharField(
                blank=True,
                choices=[("A+", "Average plus"), ("A", "Average"), ("A-", "Average minus")],
                default="",
                max_length=2,
                verbose_name="Adjusted score",
            ),
        ),
        migrations.RunPython(raise_zero_thresholds, migrations.RunPython.noop),
        migrations.RemoveConstraint(
            model_name="tournament",
            name="tournament_threshold_percent",
        ),
        migrations.AddConstraint(
            model_name="tournament",
            constraint=models.CheckConstraint(
                condition=Q(completion_threshold__gte=1) & Q(completion_threshold__lte=100),
                name="tournament_threshold_percent",
            ),
        ),
    ]
