"""Bulk writes for the bell: one statement whatever the field size.

On PostgreSQL rows go in as one `INSERT … SELECT FROM unnest(array, array, …)` (and
change as one `UPDATE … FROM unnest(…)`): a fixed SQL text with one array parameter per
column, which costs far less to build and parse than a multi-row VALUES list of 8,000
model instances. Each array is handed to the driver already spelled as PostgreSQL's
array literal (`'{1,2,3}'`): psycopg adapts a Python list element by element, which at
the bell of 10,000 pairs (40,000 board scores × 7 columns) took longer than PostgreSQL
took to store the rows. Elsewhere (SQLite, the embedded default) Django's bulk_create
and bulk_update do the job.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from django.core.serializers.json import DjangoJSONEncoder
from django.db import connection, models

from .. import sql


def insert_rows(
    model: type[models.Model],
    fields: Sequence[str],
    rows: Sequence[tuple],
    *,
    returning: Sequence[str] = (),
) -> list[tuple]:
    """Insert `rows` (tuples in the order of `fields`, by attribute name) into `model`.

    `returning` names fields to read back from the inserted rows (still one statement):
    one tuple per row, in no particular order. A JSON field takes Python values.
    """
    if not rows:
        return []
    if connection.vendor != "postgresql":
        return _bulk_create(model, fields, rows, returning)
    return insert_columns(model, fields, list(zip(*rows, strict=True)), returning=returning)


def insert_columns(
    model: type[models.Model],
    fields: Sequence[str],
    columns: Sequence[Sequence[Any]],
    *,
    returning: Sequence[str] = (),
) -> list[tuple]:
    """`insert_rows` from the columns instead of the rows: one sequence (a list, a tuple
    or a numpy array) per field, all of one length."""
    lengths = {len(column) for column in columns}
    if len(lengths) > 1:
        raise ValueError(f"columns of different lengths: {sorted(lengths)}")
    if not columns or not lengths or lengths == {0}:
        return []
    if connection.vendor != "postgresql":
        return _bulk_create(model, fields, list(zip(*columns, strict=True)), returning)
    concrete = [sql.concrete_field(model, name) for name in fields]
    names = ", ".join(sql.column(model, name) for name in fields)
    arrays = ", ".join(f"%s::{_array_type(f)}" for f in concrete)
    back_sql = (
        f" RETURNING {', '.join(sql.column(model, n) for n in returning)}" if returning else ""
    )
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {sql.table(model)} ({names}) SELECT * FROM unnest({arrays}){back_sql}",
            [array_literal(f, column) for f, column in zip(concrete, columns, strict=True)],
        )
        return [tuple(row) for row in cursor.fetchall()] if returning else []


def update_columns(
    model: type[models.Model],
    key: str,
    fields: Sequence[str],
    columns: Sequence[Sequence[Any]],
) -> None:
    """Set `fields` of the rows of `model` whose `key` is in the first column: one
    `UPDATE … FROM unnest(…)`, the other columns holding the new values in the order of
    `fields`. Keys must be distinct."""
    if not columns or not len(columns[0]):
        return
    if connection.vendor != "postgresql":
        attnames = [sql.concrete_field(model, name).attname for name in fields]
        key_name = sql.concrete_field(model, key).attname
        objects = [
            model(**{key_name: row[0], **dict(zip(attnames, row[1:], strict=True))})
            for row in zip(*columns, strict=True)
        ]
        model._default_manager.bulk_update(objects, attnames, batch_size=500)
        return
    concrete = [sql.concrete_field(model, name) for name in (key, *fields)]
    aliases = [f"c{index}" for index in range(len(concrete))]
    assignments = ", ".join(
        f"{sql.column(model, name)} = v.{alias}"
        for name, alias in zip(fields, aliases[1:], strict=True)
    )
    arrays = ", ".join(f"%s::{_array_type(f)}" for f in concrete)
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {sql.table(model)} AS t SET {assignments}"
            f" FROM unnest({arrays}) AS v({', '.join(aliases)})"
            f" WHERE t.{sql.column(model, key)} = v.c0",
            [array_literal(f, column) for f, column in zip(concrete, columns, strict=True)],
        )


def _bulk_create(model, fields, rows, returning) -> list[tuple]:
    concrete = [sql.concrete_field(model, name) for name in fields]
    created = model._default_manager.bulk_create(
        [
            model(**{f.attname: value for f, value in zip(concrete, row, strict=True)})
            for row in rows
        ],
        batch_size=2000,
    )
    back = [sql.concrete_field(model, name).attname for name in returning]
    return [tuple(getattr(obj, name) for name in back) for obj in created] if back else []


def array_literal(field: models.Field, column: Sequence[Any]):
    """The column as a PostgreSQL array literal (a parameter for `%s::type[]`), or as a
    list for psycopg to adapt when it holds anything but whole numbers, floats, strings,
    booleans and None."""
    values = column.tolist() if hasattr(column, "tolist") else list(column)
    if isinstance(field, models.JSONField):
        values = [_json(v) for v in values]
    kinds = {type(v) for v in values}
    nulls = type(None) in kinds
    kinds.discard(type(None))
    spell: Any
    if kinds <= {int}:
        spell = str
    elif kinds <= {float, int}:
        spell = repr  # the shortest text that reads back as the same float
    elif all(issubclass(kind, str) for kind in kinds):
        spell = _quoted
    elif kinds <= {bool}:
        spell = _boolean
    else:
        return values
    if nulls:
        return "{" + ",".join("NULL" if v is None else spell(v) for v in values) + "}"
    distinct = set(values)
    if 2 * len(distinct) < len(values) and not _signed_zeros(distinct, values):
        # Columns repeat a few values (a board's id, "NS"/"EW", its few IMP figures):
        # each is spelled once.
        spelled = {value: spell(value) for value in distinct}
        return "{" + ",".join(map(spelled.__getitem__, values)) + "}"
    return "{" + ",".join(map(spell, values)) + "}"


def _signed_zeros(distinct: set, values: list) -> bool:
    """Whether a set would merge values that are spelled differently: 0.0 and -0.0 (equal
    keys, different text) or a NaN (not even equal to itself)."""
    if any(v != v for v in distinct):
        return True
    if 0 not in distinct:
        return False
    return len({str(v) for v in values if v == 0}) > 1


def _quoted(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _boolean(value: bool) -> str:
    return "t" if value else "f"


def _json(value) -> str | None:
    return None if value is None else json.dumps(value, cls=DjangoJSONEncoder)


def _array_type(field: models.Field) -> str:
    db_type = field.rel_db_type(connection) if field.is_relation else field.db_type(connection)
    return f"{db_type}[]"
