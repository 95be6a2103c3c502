from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0006_draw_seed_and_disputed_at"),
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
    ]
