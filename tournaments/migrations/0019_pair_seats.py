"""One home for how a pair sits at a table (issue 23): `SwappedSeats` (a row per pair that
swapped) and `SeatsFixed` (a row per pair whose seats are fixed) become `PairSeats`, one
row per pair and table with `swapped` and `fixed_at`; what they held is carried over."""

import django.db.models.deletion
from django.db import migrations, models


def carry_over(apps, schema_editor):
    swapped_seats = apps.get_model("tournaments", "SwappedSeats")
    seats_fixed = apps.get_model("tournaments", "SeatsFixed")
    pair_seats = apps.get_model("tournaments", "PairSeats")
    rows: dict[tuple[int, int], dict] = {}
    for table_id, pair_id in swapped_seats.objects.values_list("table_id", "pair_id"):
        rows.setdefault((table_id, pair_id), {})["swapped"] = True
    for table_id, pair_id, fixed_at in seats_fixed.objects.values_list(
        "table_id", "pair_id", "fixed_at"
    ):
        rows.setdefault((table_id, pair_id), {})["fixed_at"] = fixed_at
    pair_seats.objects.bulk_create(
        [
            pair_seats(table_id=table_id, pair_id=pair_id, **fields)
            for (table_id, pair_id), fields in rows.items()
        ],
        batch_size=2000,
    )


def carry_back(apps, schema_editor):
    swapped_seats = apps.get_model("tournaments", "SwappedSeats")
    seats_fixed = apps.get_model("tournaments", "SeatsFixed")
    pair_seats = apps.get_model("tournaments", "PairSeats")
    swapped_seats.objects.bulk_create(
        [
            swapped_seats(table_id=t, pair_id=p)
            for t, p in pair_seats.objects.filter(swapped=True).values_list("table_id", "pair_id")
        ]
    )
    seats_fixed.objects.bulk_create(
        [
            seats_fixed(table_id=t, pair_id=p, fixed_at=at)
            for t, p, at in pair_seats.objects.filter(fixed_at__isnull=False).values_list(
                "table_id", "pair_id", "fixed_at"
            )
        ]
    )


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0018_derived_rows_fast"),
    ]

    operations = [
        migrations.CreateModel(
            name="PairSeats",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("swapped", models.BooleanField(default=False, verbose_name="swapped")),
                ("fixed_at", models.DateTimeField(blank=True, null=True, verbose_name="fixed at")),
                (
                    "pair",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="tournaments.pair",
                    ),
                ),
                (
                    "table",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="pair_seats",
                        to="tournaments.table",
                    ),
                ),
            ],
            options={
                "verbose_name": "seats of a pair",
                "verbose_name_plural": "seats of pairs",
                "constraints": [
                    models.UniqueConstraint(fields=("table", "pair"), name="pairseats_unique")
                ],
            },
        ),
        migrations.RunPython(carry_over, carry_back),
        migrations.DeleteModel(name="SeatsFixed"),
        migrations.DeleteModel(name="SwappedSeats"),
    ]
