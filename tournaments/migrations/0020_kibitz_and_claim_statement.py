# Issue 24: a claim's statement (Law 68C), and the organiser's live-kibitzing choice.

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('tournaments', '0019_pair_seats'),
    ]

    operations = [
        migrations.AddField(
            model_name='playaction',
            name='statement',
            field=models.CharField(blank=True, db_default='', default='', max_length=500, verbose_name='claim statement'),
        ),
        migrations.AddField(
            model_name='tournament',
            name='kibitz_live',
            field=models.BooleanField(default=False, help_text="On: anyone may watch a table's hands while the round runs (as on Vugraph), except the tournament's own players. Off: only the progress, until the round closes.", verbose_name='kibitzers see the hands live'),
        ),
    ]
