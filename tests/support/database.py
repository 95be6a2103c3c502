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

After each transactional test, `Reset` puts the database back as it was created (the
template's rows, under their own ids) in milliseconds, where Django's flush took a
quarter of a second and left the content types and permissions under new ids.
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


# --- after each transactional test ---------------------------------------------------

# Above this many rows in the tables a test wrote, they are truncated, not deleted: a
# TRUNCATE costs about a millisecond a table (and takes along every table that refers
# to one, empty or not), a DELETE a little per row; but a third of a millisecond a row
# when the foreign keys are checked (every table referring to auth_user, row by row),
# which a superuser skips (session_replication_role: the tables left are consistent,
# all empty but the template's own).
DELETE_AT_MOST = 50_000
DELETE_AT_MOST_CHECKED = 100


class Reset:
    """Puts a test database back as it was created: the template's rows (content types,
    permissions, the directors' group, rank titles: what the migrations and post_migrate
    wrote) and nothing else, in a few milliseconds.

    Django's flush after a transactional test truncates every table, then post_migrate
    writes the content types and permissions again (under new ids), and the data
    migrations' rows were written again before the next test: about a quarter of a
    second a test. Here one statement finds the tables that have rows, those are deleted
    (or truncated, when many), and a table of the template's own rows that differs from
    them (by a digest of its rows) is rewritten from a copy taken when the database was
    made, ids and all. Every table is locked against writers first, so that a server's
    write still under way lands before the reset, never after it.

    The tables are flush's own (every installed model's); sequences go on, as after
    flush."""

    def __init__(self, alias: str = "default") -> None:
        from django.db import connections

        self.alias = alias
        connection = connections[alias]
        quote = connection.ops.quote_name
        tables = sorted(
            connection.introspection.django_table_names(only_existing=True, include_views=False)
        )
        self.quoted = {table: quote(table) for table in tables}
        with connection.cursor() as cursor:
            cursor.execute(self._having_rows_sql(tables))
            seeded = sorted(table for (table,) in cursor.fetchall())
            self.seeds: dict[str, bytes] = {}
            for table in seeded:
                with cursor.cursor.copy(f"COPY {self.quoted[table]} TO STDOUT") as copy:
                    self.seeds[table] = b"".join(bytes(block) for block in copy)
            self.digests: dict[str, str] = {}
            if seeded:
                cursor.execute(self._digests_sql(seeded))
                self.digests = dict(cursor.fetchall())
            cursor.execute("SELECT rolsuper FROM pg_roles WHERE rolname = current_user")
            self.unchecked = bool(cursor.fetchone()[0])
        self.delete_at_most = DELETE_AT_MOST if self.unchecked else DELETE_AT_MOST_CHECKED
        self.empty = [table for table in tables if table not in self.seeds]
        self.lock_sql = (
            f"LOCK TABLE {', '.join(self.quoted.values())} IN SHARE ROW EXCLUSIVE MODE"
            if tables
            else ""
        )

    def _written_sql(self) -> str:
        """How many rows (up to one more than delete_at_most) each table the template
        leaves empty holds: a row for each that holds any."""
        return " UNION ALL ".join(
            f"SELECT %s, n FROM (SELECT count(*) AS n FROM (SELECT FROM "
            f"{self.quoted[table]} LIMIT {self.delete_at_most + 1}) r) c WHERE n > 0"
            for table in self.empty
        )

    def _having_rows_sql(self, tables: list[str]) -> str:
        return (
            " UNION ALL ".join(
                f"SELECT '{table}' WHERE EXISTS (SELECT FROM {self.quoted[table]})"
                for table in tables
            )
            or "SELECT '' WHERE false"
        )

    def _digests_sql(self, tables: list[str]) -> str:
        return " UNION ALL ".join(
            f"SELECT '{table}', (SELECT md5(coalesce(string_agg(r::text, E'\\n' ORDER BY "
            f"r::text), '')) FROM {self.quoted[table]} r)"
            for table in tables
        )

    def __call__(self) -> None:
        from django.db import connections, transaction

        connection = connections[self.alias]
        with transaction.atomic(using=self.alias), connection.cursor() as cursor:
            if self.lock_sql:
                cursor.execute(self.lock_sql)
            written: dict[str, int] = {}
            if self.empty:
                cursor.execute(self._written_sql(), self.empty)
                written = dict(cursor.fetchall())
            if sum(written.values()) > self.delete_at_most:
                # CASCADE takes along the (empty) tables that refer to these.
                names = ", ".join(self.quoted[table] for table in written)
                cursor.execute(f"TRUNCATE {names} CASCADE")
            elif written:
                if self.unchecked:
                    cursor.execute("SET LOCAL session_replication_role = replica")
                # Else the foreign keys are deferred (Django makes them so): checked at
                # commit, when every table is back, whatever the order of the deletes.
                cursor.execute("; ".join(f"DELETE FROM {self.quoted[t]}" for t in written))
            changed: list[str] = []
            if self.seeds:
                cursor.execute(self._digests_sql(list(self.seeds)))
                changed = [
                    table for table, digest in cursor.fetchall() if digest != self.digests[table]
                ]
            for table in changed:
                cursor.execute(f"DELETE FROM {self.quoted[table]}")
                with cursor.cursor.copy(f"COPY {self.quoted[table]} FROM STDIN") as copy:
                    copy.write(self.seeds[table])
        if changed:
            from django.contrib.contenttypes.models import ContentType

            ContentType.objects.clear_cache()
