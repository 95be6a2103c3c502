"""The path converter of every row number in the site's URLs (`<id:tournament_id>`).

Django's `<int:…>` takes any run of digits, so /t/99999999999999999999/ reached the
database with a number no column can hold: PostgreSQL's lookups answer "no such row",
SQLite's driver raises (a 500). A number beyond a 64-bit integer cannot name a row, so
the URL does not match at all: 404, whatever the view or the database.
"""

from __future__ import annotations

from django.urls import register_converter

from .sql import BIGINT

# Twenty digits is already past the largest bigint (19 digits): the pattern stops a long
# run of digits before it is converted.
_DIGITS = len(str(BIGINT[1]))


class RowId:
    regex = f"[0-9]{{1,{_DIGITS}}}"

    def to_python(self, value: str) -> int:
        number = int(value)
        if number > BIGINT[1]:
            raise ValueError("beyond a 64-bit integer")  # no match: the resolver's 404
        return number

    def to_url(self, value: int) -> str:
        return str(value)


# Registered once, where it is defined: the pages' and the sockets' routes both use it.
ID = "id"
register_converter(RowId, ID)
