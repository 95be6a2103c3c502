"""The hand-written SQL of the hot paths (result entry, page polls) and the live cache.

These are the pieces the load test leans on; here they are checked for being right:
real model instances, the same answers the ORM gives, a fingerprint that moves exactly
when the live pages change, and one build per version however many ask at once.
"""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.core.cache import cache

from tests.support.clock import submit
from tournaments import selectors, sql
from tournaments.api import lookups
from tournaments.errors import NotFound
from tournaments.live import cache as live_cache
from tournaments.models import ApiToken, BoardResult, Pair, ResultState, Round, Table
from tournaments.services import clock
from tournaments.services.registration import withdraw_pair
from tournaments.services.tokens import token_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def running(make_tournament, register_pairs, t0):
    """Round 1 of a four-pair event open at t0."""
    tournament = make_tournament()
    pairs = register_pairs(tournament, 4)
    clock.advance(now=t0)
    round = Round.objects.get(tournament=tournament, number=1)
    return tournament, pairs, round


# --- sql: fixed statements that hand back model instances ------------------------------


def test_select_list_follows_the_models_field_order_whatever_the_callers():
    columns, names = sql.select_list(Table, "x", frozenset({"ew_pair_id", "id", "number"}))
    assert names == ("id", "number", "ew_pair_id")
    assert columns == 'x."id", x."number", x."ew_pair_id"'
    with pytest.raises(ValueError, match="no column"):
        sql.select_list(Table, "x", frozenset({"nonsense"}))


def test_get_table_is_the_table_the_orm_finds_with_its_pairs(running, django_assert_num_queries):
    tournament, _pairs, round = running
    expected = Table.objects.select_related("ns_pair", "ew_pair").get(round=round, number=2)
    with django_assert_num_queries(1):
        found = lookups.get_table(tournament.id, 1, 2)
        seats = (found.ns_pair.player1_id, found.ns_pair.player2_id, found.ew_pair.player2_id)
    assert (found.pk, found.round_id, found.number) == (expected.pk, round.pk, 2)
    assert (found.ns_pair_id, found.ew_pair_id) == (expected.ns_pair_id, expected.ew_pair_id)
    assert seats == (
        expected.ns_pair.player1_id,
        expected.ns_pair.player2_id,
        expected.ew_pair.player2_id,
    )
    # Fields not read are deferred, not wrong: touching one loads it.
    assert found.ns_pair.registration_no == expected.ns_pair.registration_no
    assert "tournament_id" in found.ns_pair.get_deferred_fields()


def test_get_table_names_what_is_missing(running):
    tournament, _pairs, _round = running
    with pytest.raises(NotFound, match="no table 9 in round 1"):
        lookups.get_table(tournament.id, 1, 9)
    with pytest.raises(NotFound, match="no table 1 in round 2"):
        lookups.get_table(tournament.id, 2, 1)


def test_token_user_reads_the_user_and_defers_the_rest(make_user):
    user = make_user(name="Ada")
    token = ApiToken(user=user)
    token.set_key("k" * 40)
    token.save()
    api_token, found = token_user("k" * 40)
    assert api_token.pk == token.pk and api_token.last_used_at is None
    assert (api_token.expires_at, api_token.revoked_at) == (None, None)
    assert "key_hash" in api_token.get_deferred_fields()
    assert (found.pk, found.username, found.is_active, found.is_staff) == (
        user.pk,
        user.username,
        True,
        False,
    )
    assert "password" in found.get_deferred_fields()
    assert token_user("x" * 40) is None


def test_a_saved_deferred_user_keeps_the_fields_it_never_read(make_user):
    user = make_user()
    user.email = "kept@example.org"
    user.save()
    token = ApiToken(user=user)
    token.set_key("z" * 40)
    token.save()
    _token, found = token_user("z" * 40)
    found.is_staff = True
    found.save()  # writes only the fields that were loaded
    user.refresh_from_db()
    assert user.is_staff and user.email == "kept@example.org" and user.has_usable_password()


def test_upsert_inserts_then_updates_the_same_row(running, t0):
    _tournament, pairs, round = running
    table = Table.objects.get(round=round, number=1)
    board = round.boards.get(number=1)
    user = pairs[0].player1
    fields = dict(table=table, board=board, entered_by=user, entered_at=t0)
    first = BoardResult(state=ResultState.PLAYED, contract="4S", declarer="N", tricks=10,
                        ns_score=420, **fields)  # fmt: skip
    sql.upsert(first, unique_fields=("table", "board"), update_fields=("contract", "tricks"))
    assert first.pk and not first._state.adding
    again = BoardResult(state=ResultState.PLAYED, contract="3NT", declarer="N", tricks=9,
                        ns_score=400, **fields)  # fmt: skip
    sql.upsert(again, unique_fields=("table", "board"), update_fields=("contract", "tricks"))
    assert again.pk == first.pk
    stored = BoardResult.objects.get(table=table, board=board)
    # Only the update fields move on a clash.
    assert (stored.contract, stored.tricks, stored.ns_score) == ("3NT", 9, 420)


def test_timestamps_read_by_hand_come_back_aware_whatever_the_backend():
    aware = datetime(2026, 11, 29, 17, 5, tzinfo=UTC)
    assert sql.timestamp(aware) is aware and sql.timestamp(None) is None
    # SQLite's driver hands back naive UTC datetimes, or text.
    assert sql.timestamp(datetime(2026, 11, 29, 17, 5)) == aware
    assert sql.timestamp("2026-11-29 17:05:00") == aware
    assert sql.timestamp("2026-11-29 17:05:00").tzinfo is not None


# --- the live version ------------------------------------------------------------------


def test_live_version_moves_exactly_when_the_live_pages_change(organiser, running, t0):
    tournament, pairs, round = running
    version = selectors.live_version(tournament_id=tournament.id)
    assert version and selectors.live_version(tournament_id=tournament.id) == version

    # A result is entered: the standings don't move until the close, nor does the version.
    table = Table.objects.get(round=round, number=1)
    submit(table, 1, "4S", "N", 10, now=t0 + timedelta(minutes=5))
    assert selectors.live_version(tournament_id=tournament.id) == version

    clock.extend_round(
        by=organiser, tournament=tournament, minutes=5, now=t0 + timedelta(minutes=6)
    )
    extended = selectors.live_version(tournament_id=tournament.id)
    assert extended != version

    clock.close_round_now(
        by=organiser, tournament=tournament, now=t0 + timedelta(minutes=10), round_number=1
    )
    closed = selectors.live_version(tournament_id=tournament.id)
    assert closed not in (version, extended)

    clock.rescore_round(by=organiser, round=round)
    rescored = selectors.live_version(tournament_id=tournament.id)
    assert rescored != closed

    pair = Pair.objects.select_related("player1").get(pk=pairs[3].pk)
    withdraw_pair(pair=pair, by=pair.player1, now=t0 + timedelta(minutes=11))
    assert selectors.live_version(tournament_id=tournament.id) != rescored


def test_live_version_of_a_scheduled_and_of_no_tournament(make_tournament):
    tournament = make_tournament()
    assert selectors.live_version(tournament_id=tournament.id).startswith("scheduled|")
    assert selectors.live_version(tournament_id=tournament.id + 1000) is None


# --- the live cache ---------------------------------------------------------------------


@pytest.fixture
def fresh_live_cache():
    cache.clear()
    live_cache.clear_memo()
    yield
    cache.clear()
    live_cache.clear_memo()


def test_one_build_per_version_however_many_ask_at_once(fresh_live_cache):
    builds = []

    def build():
        builds.append(threading.get_ident())
        time.sleep(0.2)  # long enough for every other thread to arrive meanwhile
        return ["standings"]

    key = live_cache.key("test", 1, "v1")
    answers = []
    threads = [
        threading.Thread(target=lambda: answers.append(live_cache.get_or_build(key, build)))
        for _ in range(8)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(builds) == 1 and answers == [["standings"]] * 8
    assert cache.get(key) == ["standings"]  # shared with the other processes


def test_a_version_built_elsewhere_is_read_not_rebuilt(fresh_live_cache):
    key = live_cache.key("test", 2, "v1")
    cache.set(key, "built by the clock", 60)
    assert live_cache.get_or_build(key, lambda: pytest.fail("rebuilt")) == "built by the clock"


def test_the_per_process_memo_is_bounded(fresh_live_cache):
    keys = [live_cache.key("test", 3, n) for n in range(live_cache.MEMO_SIZE + 10)]
    for n, key in enumerate(keys):
        live_cache.get_or_build(key, lambda n=n: n)
    cache.clear()  # only the memo is left
    assert live_cache.get_or_build(keys[-1], lambda: "rebuilt") == len(keys) - 1
    assert live_cache.get_or_build(keys[0], lambda: "rebuilt") == "rebuilt"


# --- warming after the clock moves ---------------------------------------------------------


@pytest.fixture
def shared_cache(tmp_path, settings):
    """A cache other processes would see (files here; Redis in production)."""
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": str(tmp_path / "cache"),
        }
    }
    cache.clear()
    live_cache.clear_memo()
    yield
    cache.clear()
    live_cache.clear_memo()


@pytest.fixture
def eager_tasks():
    """Celery runs the tasks a task queues in this process (no broker in these tests;
    tests/tournaments/test_celery_clock.py has the real worker)."""
    from config.celery import app

    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = False


def test_the_clock_tick_warms_what_the_pages_of_a_moved_tournament_ask_for(
    shared_cache, eager_tasks, running, t0
):
    from tournaments.live.cached import warm
    from tournaments.tasks import clock_tick

    tournament, _pairs, round = running
    assert live_cache.is_shared()
    # The whole test stays at the bell: the cache's expiry times are the travelled time's,
    # so read back in the real present they would all have expired.
    with time_machine.travel(round.ends_at + timedelta(seconds=1), tick=False):
        events = clock_tick()  # the bell: round 1 closes, round 2 opens
        assert any("round 1" in e.lower() for e in events), events
        version = selectors.live_version(tournament_id=tournament.id)
        round_2 = Round.objects.get(tournament=tournament, number=2)
        for key in [
            live_cache.key("standings", tournament.id, version),
            live_cache.key("grid", tournament.id, version),
            live_cache.key("api-standings", tournament.id, version),
            live_cache.key("seating", tournament.id, round_2.pk, version, "en"),
            live_cache.key("seating", tournament.id, round_2.pk, version, "zh-hans"),
        ]:
            assert cache.get(key) is not None, key
    assert warm(tournament_id=tournament.id + 1000) is False  # no such tournament


def test_nothing_is_warmed_into_a_cache_no_other_process_sees(running):
    from tournaments.live.cached import warm

    tournament, _pairs, _round = running
    cache.clear()
    live_cache.clear_memo()
    assert not live_cache.is_shared()  # the test settings' per-process memory
    assert warm(tournament_id=tournament.id) is False


# --- what the review of the hot paths found ---------------------------------------------


def test_numbers_no_database_integer_holds_are_missing_rows_not_errors(running, t0):
    tournament, _pairs, _round = running
    huge = 2**70
    assert not sql.storable(huge) and sql.storable(2**63 - 1, -(2**63), 0)
    with pytest.raises(NotFound, match="no table"):
        lookups.get_table(huge, 1, 1)
    with pytest.raises(NotFound, match="no table"):
        lookups.get_table(tournament.id, 1, huge)
    assert selectors.live_version(tournament_id=huge) is None
    table = Table.objects.get(round__tournament=tournament, number=1)
    with pytest.raises(NotFound, match=f"Board {huge} is not played in round 1"):
        submit(table, huge, "3NT", "N", 9, now=t0 + timedelta(minutes=1))


def test_an_organiser_re_entering_over_an_adjusted_score_replaces_the_adjustment(
    running, organiser, t0
):
    from tournaments.services import results

    _tournament, _pairs, round = running
    table = Table.objects.select_related("ns_pair", "ew_pair").get(round=round, number=1)
    results.director_set_result(
        table=table, board_number=1, by=organiser, ns_adjustment="A", ew_adjustment="A",
        reason="board fouled", now=t0 + timedelta(minutes=2),
    )  # fmt: skip
    entry = results.ContractEntry(contract="3NT", declarer="N", tricks=9)
    results.submit_result(
        table=table, board_number=1, entry=entry, user=organiser, now=t0 + timedelta(minutes=3)
    )
    stored = BoardResult.objects.get(table=table, board__number=1)
    assert (stored.state, stored.ns_score) == (ResultState.PLAYED, 400)
    assert (stored.adjusted_by, stored.adjustment_reason) == (None, "")
    assert (stored.ns_adjustment, stored.ew_adjustment) == ("", "")


def test_a_failed_build_leaves_no_lock_behind(fresh_live_cache):
    key = live_cache.key("test", 4, "v1")

    def broken():
        raise RuntimeError("database gone")

    with pytest.raises(RuntimeError):
        live_cache.get_or_build(key, broken)
    assert key not in live_cache._build_locks
    assert live_cache.get_or_build(key, lambda: "built") == "built"


def test_a_value_the_shared_cache_cannot_give_back_is_built_again(fresh_live_cache):
    """After a deploy Redis may hold values pickled by other code; they are a miss, not
    an error on every page."""
    key = live_cache.key("test", 5, "v1")
    assert key.startswith(f"live:v{live_cache.SCHEMA}:")

    class Unreadable:
        def __reduce__(self):
            return (_gone, ())

    cache.set(key, Unreadable(), 60)
    assert live_cache.get_or_build(key, lambda: "rebuilt") == "rebuilt"


def _gone():
    raise AttributeError("Can't get attribute 'Line' on <module 'tournaments.views.cached'>")
