"""Bulk inserts for the bell: one statement whatever the field size.

On PostgreSQL rows go in as one `INSERT … SELECT FROM unnest(array, array, …)`: a fixed
SQL text with one array parameter per column, which costs far less to build and parse
than a multi-row VALUES list of 8,000 model instances. Elsewhere (SQLite, the embedded
default) Django's bulk_create does the job.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db import connection, models

from .. import sql


def insert_rows(model: type[models.Model], fields: Sequence[str], rows: Sequence[tuple]) -> None:
    """Insert `rows` (tuples in the order of `fields`, by attribute name) into `model`."""
    if not rows:
        return
    concrete = [sql.concrete_field(model, name) for name in fields]
    if connection.vendor != "postgresql":
        model._default_manager.bulk_create(
            [
                model(**{f.attname: value for f, value in zip(concrete, row, strict=True)})
                for row in rows
            ],
            batch_size=2000,
        )
        return
    columns = ", ".join(sql.column(model, name) for name in fields)
    arrays = ", ".join(f"%s::{_array_type(f)}" for f in concrete)
    values = [list(column) for column in zip(*rows, strict=True)]
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {sql.table(model)} ({columns}) SELECT * FROM unnest({arrays})",
            values,
        )


def _array_type(field: models.Field) -> str:
    db_type = field.rel_db_type(connection) if field.is_relation else field.db_type(connection)
    return f"{db_type}[]"
