from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0034_clubseat_lost_at"),
    ]

    operations = [
        migrations.AddField(
            model_name="clubtable",
            name="closes_after_board",
            field=models.BooleanField(default=False, verbose_name="closes after the board in play"),
        ),
    ]
