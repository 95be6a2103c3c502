"""Hand-written SQL for the result-entry hot path, and the one way to name a table or a
column in any hand-written statement (`table`, `column`: quoted by the backend).

In the last minute of a round every table of the field enters its boards at once, and
there the ORM's work of compiling a query (joins, select lists, ordering) costs more
CPU than PostgreSQL spends running it. These helpers keep the SQL text fixed and small
but still hand back real model instances (`Model.from_db`, as `QuerySet.raw` does):
fields that were not read are deferred, so touching one loads it, and a `save()` writes
only the fields that were read.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from contextlib import contextmanager, nullcontext
from functools import cache

from django.db import connection, models
from django.utils import timezone
from django.utils.dateparse import parse_datetime

BIGINT = (-(2**63), 2**63 - 1)


def quote(name: str) -> str:
    return connection.ops.quote_name(name)


def table(model: type[models.Model]) -> str:
    """`model`'s table, quoted for hand-written SQL."""
    return quote(model._meta.db_table)


def column(model: type[models.Model], name: str) -> str:
    """The column of `model`'s field `name` (a field or attribute name: "pair", "pair_id"),
    quoted for hand-written SQL."""
    return quote(_column_of(concrete_field(model, name)))


def concrete_field(model: type[models.Model], name: str) -> models.Field:
    """`model`'s field `name` that has a column (a reverse relation has none: refused)."""
    field = model._meta.get_field(name)
    if not isinstance(field, models.Field) or not field.concrete:
        raise ValueError(f"{model.__name__}.{name} has no column")
    return field


def _column_of(field: models.Field) -> str:
    if field.column is None:
        raise ValueError(f"{field!r} has no column")
    return field.column


def round_share_lock(alias: str) -> str:
    """The round lock every writer of a round's play takes (RULES 3): the round row FOR
    SHARE, appended to the statement that reads it. Entries, play actions, swaps,
    confirmations and disputes then never block each other, only the close, which takes
    the round FOR UPDATE and waits for every one of them already in flight; one that
    comes after sees the round closed. SQLite (the embedded default) serialises writers
    anyway and has no row locks."""
    return f" FOR SHARE OF {alias}" if connection.vendor == "postgresql" else ""


def storable(*numbers: int) -> bool:
    """Whether every number fits a database integer. A URL may carry any number; the ORM
    answers "no such row" for one that cannot exist, while SQLite's driver raises on it."""
    low, high = BIGINT
    return all(low <= n <= high for n in numbers)


def _matchable(params: Sequence) -> bool:
    return storable(*(p for p in params if isinstance(p, int) and not isinstance(p, bool)))


def fetch_one(statement: str, params: Sequence) -> tuple | None:
    """The first row of a hand-written query; None when there is none, as for a number
    no integer column can hold (so such a query never reaches the driver)."""
    if not _matchable(params):
        return None
    with connection.cursor() as cursor:
        cursor.execute(statement, params)
        return cursor.fetchone()


def fetch_all(statement: str, params: Sequence) -> list[tuple]:
    """Every row of a hand-written query (none for a number no column can hold)."""
    if not _matchable(params):
        return []
    with connection.cursor() as cursor:
        cursor.execute(statement, params)
        return cursor.fetchall()


@contextmanager
def _prepared_cursor():
    """On PostgreSQL, a cursor of the connection that binds parameters on the server, and
    its statements are prepared once per connection: no parsing and planning by
    PostgreSQL (the table server's statements take longer to plan than to run), no
    quoting of values by Python. Django's own cursors bind on the client and never
    prepare (for connection poolers; PgBouncer needs `max_prepared_statements` for
    these). Elsewhere, Django's cursor."""
    if connection.vendor != "postgresql":
        with connection.cursor() as cursor:
            yield cursor
        return
    import psycopg  # only with PostgreSQL

    connection.ensure_connection()
    raw = connection.connection
    if raw.prepare_threshold is None:
        # Django turns preparing off (None) for its own statements, which its cursors
        # bind on the client anyway and so never prepare; `prepare=True` needs it on.
        raw.prepare_threshold = 2**31 - 1
    with psycopg.Cursor(raw) as cursor:
        yield cursor


def _execute_prepared(cursor, statement: str, params: Sequence) -> None:
    if connection.vendor == "postgresql":
        cursor.execute(statement, params, prepare=True)
    else:
        cursor.execute(statement, params)


def fetch_one_prepared(statement: str, params: Sequence) -> tuple | None:
    """`fetch_one` for a fixed statement run many times a second (the table server's):
    prepared by PostgreSQL once per connection. Not through Django's cursor wrappers,
    so `connection.queries` and execute wrappers do not see it."""
    if not _matchable(params):
        return None
    with _prepared_cursor() as cursor:
        _execute_prepared(cursor, statement, params)
        return cursor.fetchone()


def fetch_all_prepared(statement: str, params: Sequence) -> list[tuple]:
    """`fetch_all` as `fetch_one_prepared` runs it."""
    if not _matchable(params):
        return []
    with _prepared_cursor() as cursor:
        _execute_prepared(cursor, statement, params)
        return cursor.fetchall()


@cache
def select_list(model: type[models.Model], alias: str, attnames: frozenset[str]) -> tuple:
    """(SQL select list, attnames in column order) for `attnames` of `model`.

    `from_db` takes values in the model's field order, so the list is built in that order
    whatever order the caller named the fields in.
    """
    fields = [f for f in model._meta.concrete_fields if f.attname in attnames]
    missing = attnames - {f.attname for f in fields}
    if missing:
        raise ValueError(f"{model.__name__} has no column for {sorted(missing)}")
    sql = ", ".join(f"{alias}.{quote(_column_of(f))}" for f in fields)
    return sql, tuple(f.attname for f in fields)


def instance(model: type[models.Model], attnames: Sequence[str], values: Iterable):
    """A model instance read from the database with only `attnames` loaded."""
    return model.from_db(connection.alias, attnames, list(values))


@cache
def _upsert_sql(
    model: type[models.Model], unique: tuple, update: tuple, unless: str | None, vendor: str
) -> tuple:
    fields = [f for f in model._meta.concrete_fields if not f.primary_key]
    columns = ", ".join(quote(_column_of(f)) for f in fields)
    marks = ", ".join(["%s"] * len(fields))
    conflict = ", ".join(column(model, n) for n in unique)
    updated = [column(model, n) for n in update]
    changes = ", ".join(f"{c} = EXCLUDED.{c}" for c in updated)
    pk = column(model, model._meta.pk.name)
    name = table(model)
    # The existing row is named by its table in DO UPDATE ... WHERE (EXCLUDED is the new one).
    where = f" WHERE {name}.{column(model, unless)} <> %s" if unless else ""
    sql = (
        f"INSERT INTO {name} ({columns}) VALUES ({marks})"
        f" ON CONFLICT ({conflict}) DO UPDATE SET {changes}{where} RETURNING {pk}"
    )
    return sql, tuple(fields)


def upsert(
    obj: models.Model,
    *,
    unique_fields: Sequence[str],
    update_fields: Sequence[str],
    unless: tuple[str, object] | None = None,
):
    """Insert `obj`, or update `update_fields` of the row it clashes with on
    `unique_fields`: one statement, no query compilation. Sets `obj.pk`.

    `unless=(field, value)` leaves a clashing row whose `field` holds `value` as it is,
    decided by the database on the row as committed (not as the caller last read it):
    then nothing is written and the answer is None.

    Needs PostgreSQL, or SQLite 3.35+ (`RETURNING`; Debian 12 and Python's own builds
    ship newer). Values go through `pre_save` as in Django's own inserts.
    """
    model = type(obj)
    guard_field, guard_value = unless or (None, None)
    sql, fields = _upsert_sql(
        model, tuple(unique_fields), tuple(update_fields), guard_field, connection.vendor
    )
    params = [f.get_db_prep_save(f.pre_save(obj, True), connection) for f in fields]
    if guard_field:
        params.append(concrete_field(model, guard_field).get_db_prep_value(guard_value, connection))
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()
    if row is None:
        return None
    obj.pk = row[0]
    obj._state.adding = False
    obj._state.db = connection.alias
    return obj


def _column_type(field: models.Field) -> str:
    """The PostgreSQL type of `field`'s column by the name psycopg's binary COPY takes
    ("bigint", "double precision", "boolean", "varchar", "integer", …)."""
    db_type = field.rel_db_type(connection) if field.is_relation else field.db_type(connection)
    if db_type is None:
        raise ValueError(f"{field!r} has no column type")
    return db_type.split("(", 1)[0].strip()


def copy_rows(model: type[models.Model], fields: Sequence[str], rows: Iterable[Sequence]) -> None:
    """Insert `rows` (values in the order of `fields`, by attribute name: plain Python
    ints, floats, strings, booleans and None, as the database stores them) into `model`:
    one statement, on PostgreSQL a binary COPY.

    Against `bulk.insert_columns`' `INSERT … SELECT FROM unnest(…)` PostgreSQL parses no
    array literal (every float of the 40,000 board scores of a 10,000-pair bell spelled
    out, then read back) and stores the rows a page at a time; psycopg encodes each row
    in C, a float as its eight bytes (the very double given is stored). Values go as
    they are (no `get_db_prep_save`). The statement is counted and logged as Django's
    own are (`connection.queries`). Elsewhere (SQLite, the embedded default) Django's
    `bulk_create`.
    """
    concrete = [concrete_field(model, name) for name in fields]
    if connection.vendor != "postgresql":
        attnames = [f.attname for f in concrete]
        model._default_manager.bulk_create(
            [model(**dict(zip(attnames, row, strict=True))) for row in rows], batch_size=2000
        )
        return
    from django.db.backends.utils import CursorDebugWrapper

    names = ", ".join(quote(_column_of(f)) for f in concrete)
    statement = f"COPY {table(model)} ({names}) FROM STDIN (FORMAT BINARY)"
    with connection.cursor() as cursor:
        logged = isinstance(cursor, CursorDebugWrapper)
        log = cursor.debug_sql(statement) if logged else nullcontext()
        with log, connection.wrap_database_errors, cursor.cursor.copy(statement) as copy:
            copy.set_types([_column_type(f) for f in concrete])
            write = copy.write_row
            for row in rows:
                write(row)


def timestamp(value):
    """A timestamp column read by hand, as an aware datetime whatever the backend:
    PostgreSQL hands back aware datetimes, SQLite (the embedded default) naive UTC ones
    or text, which Django's own queries would have converted."""
    if value is None:
        return None
    if isinstance(value, str):
        value = parse_datetime(value)
    if timezone.is_naive(value):
        value = timezone.make_aware(value, connection.timezone)
    return value
