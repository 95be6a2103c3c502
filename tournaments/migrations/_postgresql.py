"""What the migrations run on PostgreSQL only (triggers and functions in plpgsql): SQL that
other databases (SQLite in development) skip. The leading underscore keeps Django's
migration loader from taking this module for a migration."""

from functools import partial

from django.db import migrations


def execute_on_postgresql(sql: str, apps, schema_editor) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(sql)


def run_sql(forward: str, backward: str) -> migrations.RunPython:
    """`forward` on migrate and `backward` on unapply, on PostgreSQL; nothing elsewhere.
    (Partials of a module-level function, so a squash can still write them out.)"""
    return migrations.RunPython(
        partial(execute_on_postgresql, forward), partial(execute_on_postgresql, backward)
    )
