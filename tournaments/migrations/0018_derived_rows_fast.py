"""The bell of the biggest events (issue 23, item 6): what the close writes, cheaper.

- The derived rows every scoring rewrites (`PairBoardScore`, `Standing`) lose their
  database foreign keys: at 10,000 pairs the commit checked 140,000 keys on them (the
  models say what that gives up). Their index on `pair` alone goes too: the unique
  (pair, board) and (pair, round) indexes serve the same lookups.
- The pairs' table keeps half of each page free: the close rewrites every pair's total,
  and a new row version that fits on its page is a HOT update, which leaves the pair's
  six indexes alone. Pages written from now on keep the room (the existing ones as their
  rows next move); PostgreSQL only.
"""

import django.db.models.deletion
from django.db import migrations, models

from ._postgresql import run_sql


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0017_seats_fixed"),
    ]

    operations = [
        migrations.AlterField(
            model_name="pairboardscore",
            name="board",
            field=models.ForeignKey(
                db_constraint=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="pair_scores",
                to="tournaments.board",
            ),
        ),
        migrations.AlterField(
            model_name="pairboardscore",
            name="pair",
            field=models.ForeignKey(
                db_constraint=False,
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="board_scores",
                to="tournaments.pair",
            ),
        ),
        migrations.AlterField(
            model_name="pairboardscore",
            name="result",
            field=models.ForeignKey(
                blank=True,
                db_constraint=False,
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="pair_scores",
                to="tournaments.boardresult",
            ),
        ),
        migrations.AlterField(
            model_name="standing",
            name="pair",
            field=models.ForeignKey(
                db_constraint=False,
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="standings",
                to="tournaments.pair",
            ),
        ),
        migrations.AlterField(
            model_name="standing",
            name="round",
            field=models.ForeignKey(
                db_constraint=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="standings",
                to="tournaments.round",
            ),
        ),
        run_sql(
            "ALTER TABLE tournaments_pair SET (fillfactor = 50)",
            "ALTER TABLE tournaments_pair RESET (fillfactor)",
        ),
    ]
