"""scripts/test.sh's workers take the test files longest first (tests/support/schedule.py)
and each test database is a copy of one migrated template (tests/support/database.py)."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from tests.support import schedule


@dataclass
class Item:
    nodeid: str
    marks: set[str] = field(default_factory=set)

    def get_closest_marker(self, name: str):
        return name if name in self.marks else None


def files(items: list[Item]) -> list[str]:
    order: list[str] = []
    for item in items:
        if (path := schedule.file_of(item.nodeid)) not in order:
            order.append(path)
    return order


def test_files_go_longest_first_and_keep_their_tests_in_order(monkeypatch):
    monkeypatch.setattr(schedule, "SECONDS", {"tests/a.py": 5, "tests/b.py": 80, "tests/c.py": 30})
    items = [Item(f"tests/{name}.py::test_{i}") for name in "abc" for i in range(3)]
    schedule.longest_first(items)
    assert files(items) == ["tests/b.py", "tests/c.py", "tests/a.py"]
    assert [item.nodeid for item in items[:3]] == [f"tests/b.py::test_{i}" for i in range(3)]


def test_a_new_file_goes_before_the_short_known_ones_browser_tests_counting_more(monkeypatch):
    monkeypatch.setattr(schedule, "SECONDS", {"tests/short.py": 2, "tests/long.py": 60})
    items = [
        Item("tests/short.py::test_one"),
        Item("tests/new_unit.py::test_one"),
        Item("tests/long.py::test_one"),
        *(Item(f"tests/new_pages.py::test_{i}", {"browser"}) for i in range(2)),
    ]
    schedule.longest_first(items)
    # new_pages: 2 browser tests, 18 s; new_unit: the floor, 10 s.
    assert files(items) == [
        "tests/long.py",
        "tests/new_pages.py",
        "tests/new_unit.py",
        "tests/short.py",
    ]


@pytest.mark.django_db
def test_the_test_database_is_a_copy_of_the_template_of_these_sources():
    from django.db import connection

    from tests.support.database import fingerprint

    template = connection.settings_dict["TEST"]["TEMPLATE"]
    assert template.endswith("_tpl_" + fingerprint())
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_database WHERE datname = %s", [template])
        assert cursor.fetchone() == (1,)
