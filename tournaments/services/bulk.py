"""Bulk inserts for the bell: one statement whatever the field size.

On PostgreSQL rows go in as one `INSERT … SELECT FROM unnest(array, array, …)`: a fixed
SQL text with one array parameter per column, which costs far less to build and parse
than a multi-row VALUES list of 8,000 model instances. Elsewhere (SQLite, the embedded
default) Django's bulk_create does the job.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

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
    concrete = [sql.concrete_field(model, name) for name in fields]
    if connection.vendor != "postgresql":
        created = model._default_manager.bulk_create(
            [
                model(**{f.attname: value for f, value in zip(concrete, row, strict=True)})
                for row in rows
            ],
            batch_size=2000,
        )
        back = [sql.concrete_field(model, name).attname for name in returning]
        return [tuple(getattr(obj, name) for name in back) for obj in created] if back else []
    columns = ", ".join(sql.column(model, name) for name in fields)
    arrays = ", ".join(f"%s::{_array_type(f)}" for f in concrete)
    values = [
        [_json(v) for v in column] if isinstance(f, models.JSONField) else list(column)
        for f, column in zip(concrete, zip(*rows, strict=True), strict=True)
    ]
    back_sql = (
        f" RETURNING {', '.join(sql.column(model, n) for n in returning)}" if returning else ""
    )
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {sql.table(model)} ({columns}) SELECT * FROM unnest({arrays}){back_sql}",
            values,
        )
        return [tuple(row) for row in cursor.fetchall()] if returning else []


def _json(value) -> str | None:
    return None if value is None else json.dumps(value, cls=DjangoJSONEncoder)


def _array_type(field: models.Field) -> str:
    db_type = field.rel_db_type(connection) if field.is_relation else field.db_type(connection)
    return f"{db_type}[]"
