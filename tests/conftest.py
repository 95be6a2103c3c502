"""Shared fixtures. The database is the real PostgreSQL that `make test` starts."""

from __future__ import annotations

import itertools
import os
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import settings as hypothesis_settings

from tournaments.double_dummy import endplay_without_its_dealer

# Before any test module imports endplay (to read PBN back, to check play): its
# subpackages without the package's __init__, which imports matplotlib (a second of CPU in
# each worker); the __init__ still runs if a test asks the package itself for a name.
endplay_without_its_dealer()

# No property test of the suite has a time limit per example: on a machine shared with
# other work (and with the suite's own parallel workers) one slow example is no failure.
# The examples drawn are each test's own (`max_examples`, never lowered here).
hypothesis_settings.register_profile("suite", deadline=None)
hypothesis_settings.load_profile("suite")

# Fixtures shared by the API, export and server tests.
pytest_plugins = [
    "tests.support.api",
    "tests.support.exports",
    "tests.support.servers",
    "tests.support.online",
    "tests.support.browser.fixtures",
    "tests.support.pages",
    "tests.support.club",
]


def pytest_collection_modifyitems(config, items):
    """Marks `alone` the timing tests tests/support/alone.py names (test.sh runs them by
    themselves, after the parallel run); and, in pytest-xdist's workers, orders the files
    longest first (tests/support/schedule.py)."""
    from tests.support.alone import ALONE

    for item in items:
        if item.nodeid.split("[")[0] in ALONE:
            item.add_marker(pytest.mark.alone)
    if hasattr(config, "workerinput"):
        from tests.support.schedule import longest_first

        longest_first(items)


def pytest_collection_finish(session):
    """What collection built (every module, class and function of the site, its
    libraries and the tests) lives as long as the process: moved out of the cyclic
    garbage collector's sight (gc.freeze), so that each full collection while the tests
    run, and the five pytest makes at the end to report unraisable exceptions, look
    only at what the tests made (they spent a second or two a process going over the
    imports)."""
    import gc

    gc.collect()
    gc.freeze()


@pytest.fixture(scope="session")
def django_db_modify_db_settings(
    django_db_modify_db_settings_parallel_suffix, django_db_use_migrations, django_db_blocker
):
    """Each test database (one per xdist worker) is a copy of one migrated template:
    tests/support/database.py.

    This process's sessions are named, its threads' too (the socket tests' consumers
    run in threads with connections of their own, idle until the thread's next query):
    tests/support/servers.py waits for the servers' sessions to end, not for these (it
    waited its whole 10 s after every server stopped once a socket test had run)."""
    from django.conf import settings

    for database in settings.DATABASES.values():
        database.setdefault("OPTIONS", {})["application_name"] = "swiss-test-runner"
    if django_db_use_migrations:
        from tests.support.database import use_template

        with django_db_blocker.unblock():
            use_template()


_counter = itertools.count(1)

T0 = datetime(2026, 12, 1, 6, 0, tzinfo=UTC)  # 14:00 in Shanghai


@pytest.fixture(scope="session", autouse=True)
def _shifted_clock():
    """TESTS_SHIFT_DAYS=400 runs the tests (in this process: not the servers they start,
    nor a browser's own clock) that many days after the real date, with the clock still
    ticking: a test that passes only near T0's date fails so. Each test that travels in
    time still travels where it says."""
    days = int(os.environ.get("TESTS_SHIFT_DAYS") or 0)
    if not days:
        yield
        return
    import time_machine

    with time_machine.travel(datetime.now(UTC) + timedelta(days=days), tick=True):
        yield


@pytest.fixture
def t0() -> datetime:
    return T0


@pytest.fixture
def make_user(db, django_user_model):
    def make(username: str | None = None, *, staff: bool = False, name: str = ""):
        username = username or f"player{next(_counter)}"
        user = django_user_model.objects.create_user(
            username=username, password="pw-" + username, is_staff=staff, is_superuser=staff
        )
        if name:
            user.profile.display_name = name
            user.profile.save()
        return user

    return make


@pytest.fixture
def organiser(make_user):
    return make_user("organiser", staff=True)


@pytest.fixture
def director(make_user):
    """A tournament director as docs/SECURITY.md advises: staff in the "Tournament
    directors" group, not a superuser."""
    from tournaments.services.permissions import directors_group

    user = make_user("director", staff=False)
    user.is_staff = True
    user.save(update_fields=["is_staff"])
    user.groups.add(directors_group())
    return user


@pytest.fixture
def make_tournament(db):
    from tournaments.models import Tournament

    def make(**overrides):
        fields = {
            "name": f"Swiss {next(_counter)}",
            "registration_opens_at": T0 - timedelta(days=1),
            "start_at": T0,
            "rounds": 3,
            "boards_per_round": 2,
            "round_length": timedelta(minutes=20),
            "gap_length": timedelta(0),
            "scoring_method": "IMP",
        }
        fields.update(overrides)
        return Tournament.objects.create(**fields)

    return make


@pytest.fixture
def register_pairs(db, django_user_model):
    """register_pairs(tournament, n) -> n confirmed pairs of new players (each user's
    password "pw-" + username), numbered on from the tournament's last registration.

    The rows `registration.register_pair` writes, in a few statements for all n pairs
    (`bulk_registration`): registered pair by pair through every check, the fixture was a
    tenth of the suite's time. The checks are `register_pair`'s tests' (and, as it does,
    the fixture refuses once round 1 has started)."""
    from django.contrib.auth.hashers import make_password

    from tournaments.errors import RegistrationError
    from tournaments.models import PlayerProfile, Tournament
    from tournaments.services.bulk_registration import register_pairs_in_bulk
    from tournaments.services.registration import before_start, registration_problem

    def register(tournament, n: int, *, now: datetime = T0 - timedelta(hours=1)):
        as_stored = Tournament.objects.get(pk=tournament.pk)
        if not before_start(as_stored):
            raise RegistrationError(registration_problem(as_stored, now) or "")
        names = [f"player{next(_counter)}" for _ in range(2 * n)]
        users = django_user_model.objects.bulk_create(
            django_user_model(username=name, password=make_password("pw-" + name)) for name in names
        )
        PlayerProfile.objects.bulk_create(PlayerProfile(user=user) for user in users)
        return register_pairs_in_bulk(tournament=as_stored, players=users, at=now)

    return register


@pytest.fixture(autouse=True)
def _default_language():
    """A request in Chinese (LocaleMiddleware) or a test's translation.activate leaves
    that language active in this thread; the next test starts in the default language,
    whichever test ran before it in this worker."""
    yield
    from django.utils import translation

    translation.deactivate()


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker, request):
    """After each transactional test the database is put back as it was created, the
    data migrations' rows (rank titles, the directors' group) and post_migrate's
    (content types, permissions) included, under their own ids: tests/support/database.py's
    Reset, instead of Django's flush (a quarter of a second a test). So every test starts
    from the same rows, whichever ran before it in this worker.

    serialized_rollback (the browser tests ask for it, to find the rank titles) is then
    the reset's already: the contents serialized at creation are dropped, so that Django
    does not load them again before each such test."""
    from django.db import DatabaseError, connections
    from django.test import TransactionTestCase
    from pytest_django.fixtures import _get_databases_for_setup

    from tests.support.database import Reset

    # The databases pytest-django made: none when no test collected needs one (a file of
    # subprocess tests run by itself), and then there is nothing to put back.
    created, _serialized = _get_databases_for_setup(request.session.items)
    with django_db_blocker.unblock():
        if "default" in created:
            _put_back_data_migration_rows()  # a database made without the migrations
        resets = {
            alias: Reset(alias)
            for alias in connections
            if alias in created and connections[alias].vendor == "postgresql"
        }
        for alias in resets:
            vars(connections[alias]).pop("_test_serialized_contents", None)
    flush = TransactionTestCase._fixture_teardown

    def reset_after_test(test):
        aliases = test._databases_names(include_mirrors=False)
        if test.available_apps is not None or not set(aliases) <= set(resets):
            flush(test)  # a subset of the apps: Django's own way
            return
        for alias in aliases:
            try:
                resets[alias]()
            except DatabaseError:
                # Rows the reset could not delete (a constraint of the test's own): the
                # flush truncates everything, the reset then puts the template's rows back.
                flush(test)
                resets[alias]()

    patch = pytest.MonkeyPatch()
    patch.setattr(TransactionTestCase, "_fixture_teardown", reset_after_test)
    yield
    patch.undo()


def _put_back_data_migration_rows() -> None:
    from django.contrib.auth.models import Group

    from tournaments.models import RankTitle
    from tournaments.services.permissions import DIRECTORS_GROUP, ensure_directors_group

    if not Group.objects.filter(name=DIRECTORS_GROUP).exists():
        ensure_directors_group()

    if not RankTitle.objects.exists():
        import scoring

        RankTitle.objects.bulk_create(
            RankTitle(level=i, code=code, name_zh=zh, name_en=en, min_master_points=m)
            for i, ((code, zh, en), m) in enumerate(
                zip(scoring.RANK_TITLES, scoring.DEFAULT_TITLE_THRESHOLDS, strict=True), start=1
            )
        )
