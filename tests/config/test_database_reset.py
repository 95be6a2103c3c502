"""After a transactional test the database is as it was created (tests/support/database.py's
Reset, installed by tests/conftest.py's django_db_setup): the tables the test wrote are
empty again, and the rows the migrations and post_migrate wrote (content types,
permissions, the directors' group, rank titles) are back under their own ids, whatever the
test did to them. The tests of this file run in order: each checks what the one before it
left."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group, Permission
from django.contrib.contenttypes.models import ContentType
from django.db import connection

from tests.support.database import Reset

pytestmark = pytest.mark.django_db(transaction=True)

# What the database held before the first test of this file wrote to it.
AS_CREATED: dict[str, list] = {}


def _rows() -> dict[str, list]:
    from tournaments.models import RankTitle

    return {
        "content types": list(ContentType.objects.order_by("pk").values_list()),
        "permissions": list(Permission.objects.order_by("pk").values_list()),
        "groups": [
            (group.pk, group.name, sorted(group.permissions.values_list("pk", flat=True)))
            for group in Group.objects.order_by("pk")
        ],
        "rank titles": list(RankTitle.objects.order_by("pk").values_list()),
    }


def _written_tables() -> list[str]:
    """The tables the template leaves empty that hold rows now."""
    empty = set(connection.introspection.django_table_names(only_existing=True))
    empty -= {"django_content_type", "auth_permission", "auth_group", "auth_group_permissions"}
    empty -= {"tournaments_ranktitle"}
    with connection.cursor() as cursor:
        written = []
        for table in sorted(empty):
            cursor.execute(f"SELECT EXISTS (SELECT FROM {connection.ops.quote_name(table)})")
            if cursor.fetchone()[0]:
                written.append(table)
    return written


def _spoil(make_user, users: int) -> None:
    """Writes rows where the template has none, and changes, deletes and adds rows where
    it has some."""
    from django.contrib.auth.models import User

    from tournaments.models import RankTitle

    AS_CREATED.setdefault("rows", _rows())
    assert AS_CREATED["rows"]["rank titles"] and AS_CREATED["rows"]["groups"]
    director = make_user(staff=True)
    director.groups.add(Group.objects.get())
    User.objects.bulk_create(User(username=f"crowd{i}") for i in range(users))
    RankTitle.objects.filter(level=1).update(name_en="Changed")
    RankTitle.objects.filter(level=12).delete()
    Group.objects.get().permissions.clear()
    Group.objects.create(name="Not the template's")
    ContentType.objects.get_for_model(RankTitle).delete()  # its permissions go with it
    ContentType.objects.create(app_label="nowhere", model="nothing")
    assert _written_tables()


def _as_created() -> None:
    from tournaments.models import RankTitle

    assert _written_tables() == []
    assert _rows() == AS_CREATED["rows"]
    # Django's cache of content types answers with the rows as they are.
    assert ContentType.objects.get_for_model(RankTitle).pk == next(
        pk
        for pk, app_label, model in AS_CREATED["rows"]["content types"]
        if (app_label, model) == ("tournaments", "ranktitle")
    )


def test_a_few_rows_written_and_the_template_rows_spoiled(make_user):
    _spoil(make_user, users=10)


def test_after_it_the_database_is_as_created():
    _as_created()


def test_without_a_superuser_the_rows_are_deleted_with_their_foreign_keys_checked(make_user):
    reset = Reset()
    reset.unchecked = False  # as for a database user that may not skip the checks
    _spoil(make_user, users=10)
    reset()
    _as_created()


def test_many_rows_are_truncated_and_the_template_rows_put_back(make_user):
    reset = Reset()
    reset.delete_at_most = 5  # so that the rows are truncated, not deleted
    _spoil(make_user, users=20)
    reset()
    _as_created()


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_a_serialized_rollback_test_after_a_plain_one_finds_the_template_rows():
    # Django's flush wrote the content types again under new ids, and loading the
    # contents serialized at creation then failed on their unique names.
    _as_created()
