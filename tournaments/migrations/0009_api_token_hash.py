# API tokens: only a SHA-256 hash of the key is stored (plus a short prefix to name it);
# a user may hold several; tokens can expire or be revoked. Existing plain-text keys are
# hashed in place, so every key handed out before keeps working.

import hashlib

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

PREFIX_LENGTH = 8


def hash_plain_keys(apps, schema_editor):
    ApiToken = apps.get_model("tournaments", "ApiToken")
    for token in ApiToken.objects.only("pk", "key").iterator():
        ApiToken.objects.filter(pk=token.pk).update(
            prefix=token.key[:PREFIX_LENGTH],
            key_hash=hashlib.sha256(token.key.encode()).hexdigest(),
        )


def forget_tokens(apps, schema_editor):
    # Unapplying: a hash cannot be turned back into its key, so every token goes (and the
    # old one-token-per-user, plain-key schema can then be restored).
    apps.get_model("tournaments", "ApiToken").objects.all().delete()


class Migration(migrations.Migration):

    dependencies = [
        ("tournaments", "0008_confirmed_pairs_hold_players"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="apitoken",
            name="prefix",
            field=models.CharField(default="", max_length=8, verbose_name="prefix"),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="apitoken",
            name="key_hash",
            field=models.CharField(max_length=64, null=True, verbose_name="key hash (SHA-256)"),
        ),
        migrations.AddField(
            model_name="apitoken",
            name="expires_at",
            field=models.DateTimeField(blank=True, null=True, verbose_name="expires at"),
        ),
        migrations.AddField(
            model_name="apitoken",
            name="revoked_at",
            field=models.DateTimeField(blank=True, null=True, verbose_name="revoked at"),
        ),
        migrations.AlterField(
            model_name="apitoken",
            name="user",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="api_tokens",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.RunPython(hash_plain_keys, migrations.RunPython.noop, elidable=False),
        migrations.RemoveField(model_name="apitoken", name="key"),
        migrations.AlterField(
            model_name="apitoken",
            name="key_hash",
            field=models.CharField(max_length=64, unique=True, verbose_name="key hash (SHA-256)"),
        ),
        migrations.AlterField(
            model_name="apitoken",
            name="prefix",
            field=models.CharField(db_index=True, max_length=8, verbose_name="prefix"),
        ),
        migrations.RunPython(migrations.RunPython.noop, forget_tokens, elidable=False),
    ]
