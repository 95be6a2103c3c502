"""The test databases are copies of one migrated template, not each migrated anew.

Running the migrations costs seconds of CPU (Django renders every model state), once per
test database: per pytest-xdist worker, and again for the timing tests run after them.
So the first process to need a database migrates one template, under an advisory lock,
and every worker's database is created from it (`CREATE DATABASE … TEMPLATE`, a file
copy); Django then finds every migration applied and runs none.

The template's name carries a digest of everything that decides its contents: every
installed app's migration files and the project's own Python sources (data migrations
import them: the rank titles come from `scoring`). Edit any of them and the next run
builds a new template (and drops the old one), so a long-lived cluster never serves a
stale schema; `scripts/test.sh`'s throwaway cluster builds it once per run.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# Not the project's code: the tests, caches and what the suite writes.
SKIPPED_DIRS = {"tests", "bench", "static", "templates", "locale", "docs", "node_modules"}
LOCK_KEY = 0x5715_7E57  # pg_advisory_lock's key: "swiss test" template


def fingerprint() -> str:
    """A digest of the migrations of every installed app and the project's sources."""
    import django
    from django.apps import apps
    from django.db.migrations.loader import MigrationLoader

    files: set[Path] = set()
    for app in apps.get_app_configs():
        module, _explicit = MigrationLoader.migrations_module(app.label)
        try:
            spec = importlib.util.find_spec(module) if module else None
        except ModuleNotFoundError:
            spec = None
        for location in (spec.submodule_search_locations or []) if spec else []:
            files.update(Path(location).glob("*.py"))
    for directory, subdirs, names in os.walk(ROOT):
        subdirs[:] = [d for d in subdirs if not d.startswith(".") and d not in SKIPPED_DIRS]
        files.update(Path(directory) / name for name in names if name.endswith(".py"))
    digest = hashlib.sha256(django.get_version().encode())
    for path in sorted(files):
        digest.update(str(path).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:12]


def use_template(alias: str = "default", verbosity: int = 0) -> None:
    """Point `alias`'s test database at a migrated template (built if missing): Django
    then creates the test database as a copy of it. PostgreSQL only; other backends
    migrate as usual."""
    from django.db import connections

    connection = connections[alias]
    if connection.vendor != "postgresql":
        return
    settings = connection.settings_dict
    template = f"test_{settings['NAME'][:40]}_tpl_{fingerprint()}"
    with connection.creation._nodb_cursor() as cursor:
        cursor.execute("SELECT pg_advisory_lock(%s)", [LOCK_KEY])
        try:
            cursor.execute("SELECT 1 FROM pg_database WHERE datname = %s", [template])
            if cursor.fetchone() is None:
                _drop_old_templates(cursor, settings["NAME"])
                _build(connection, template, verbosity)
        finally:
            cursor.execute("SELECT pg_advisory_unlock(%s)", [LOCK_KEY])
    settings["TEST"]["TEMPLATE"] = template


def _build(connection, template: str, verbosity: int) -> None:
    """Migrate a database named `template`: Django's own test-database creation (the
    migrations, then the post_migrate permissions and content types), under a working
    name renamed at the end, so that a run killed half-way leaves no template behind."""
    from django.conf import settings as django_settings

    test = connection.settings_dict["TEST"]
    saved = (connection.settings_dict["NAME"], test.get("NAME"), test.get("TEMPLATE"))
    building = test["NAME"] = template + "_new"
    test["TEMPLATE"] = None
    try:
        connection.creation.create_test_db(
            verbosity=verbosity, autoclobber=True, serialize=False, keepdb=False
        )
    finally:
        connection.close()
        connection.settings_dict["NAME"], test["NAME"], test["TEMPLATE"] = saved
        django_settings.DATABASES[connection.alias]["NAME"] = saved[0]
    with connection.creation._nodb_cursor() as cursor:
        cursor.execute(f'ALTER DATABASE "{building}" RENAME TO "{template}"')


def _drop_old_templates(cursor, name: str) -> None:
    """Templates of earlier sources, unused now."""
    cursor.execute(
        "SELECT datname FROM pg_database WHERE datname LIKE %s", [f"test_{name[:40]}_tpl_%"]
    )
    from django.db import DatabaseError

    for (old,) in cursor.fetchall():
        # One still being copied by another run stays; a later run drops it.
        with contextlib.suppress(DatabaseError):
            cursor.execute(f'DROP DATABASE IF EXISTS "{old}"')
