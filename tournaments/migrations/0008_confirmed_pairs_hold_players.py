"""Only a confirmed pair holds its players (SPEC 1, issue 12).

Until now a proposal wrote both memberships at once, so a pending proposal blocked its
two players from any other pair. Memberships (and with them the unique "one pair per
player per tournament") are now written when a pair is confirmed; the ones pending
proposals hold are released here.
"""

from django.db import migrations


def release_pending_proposals(apps, schema_editor):
    PairMember = apps.get_model("tournaments", "PairMember")
    PairMember.objects.filter(pair__status="pending").delete()


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0007_organiser_permissions"),
    ]

    operations = [
        # Going back leaves pending proposals without memberships: the old code then
        # shows them on neither player's page until confirmed, and loses nothing.
        migrations.RunPython(release_pending_proposals, migrations.RunPython.noop),
    ]
