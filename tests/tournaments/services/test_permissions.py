"""Organiser powers are Django permissions (docs/SECURITY.md).

For each power, a staff user holding every permission of the "Tournament directors"
group except that power's is refused on every path (admin action, admin form, service,
API) and nothing changes; a member of the group (staff, not a superuser) succeeds.
"""

from __future__ import annotations

import importlib
from datetime import timedelta

import pytest
from django.apps import apps as django_apps
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.db import connection
from django.db.migrations.recorder import MigrationRecorder
from django.urls import reverse
from django.utils import timezone

from tests.support.api import Api, assert_error, snapshot, token_for
from tournaments.errors import NotAllowed, PermissionRequired
from tournaments.models import (
    BoardResult,
    MasterPointAward,
    Pair,
    PlayerProfile,
    Round,
    Standing,
    Table,
    Tournament,
)
from tournaments.services import clock, registration, results, setup
from tournaments.services.permissions import (
    ADD_TOURNAMENT,
    DIRECT_RESULTS,
    DIRECTORS_GROUP,
    MANAGE_PLAYERS,
    RUN_CLOCK,
)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]
User = get_user_model()

# What the group must hold, written out here rather than read from the code under test.
GROUP_PERMISSIONS = {
    ("tournaments", "run_clock"),
    ("tournaments", "direct_results"),
    ("tournaments", "manage_players"),
    ("tournaments", "comment_broadcasts"),
    ("tournaments", "grant_club_membership"),
    ("tournaments", "add_tournament"),
    ("tournaments", "change_tournament"),
    ("tournaments", "view_tournament"),
    ("tournaments", "add_pair"),
    ("tournaments", "view_pair"),
    ("tournaments", "view_round"),
    ("tournaments", "view_table"),
    ("tournaments", "view_board"),
    ("tournaments", "change_boardresult"),
    ("tournaments", "view_boardresult"),
    ("tournaments", "view_standing"),
    ("tournaments", "view_pairboardscore"),
    ("tournaments", "view_masterpointaward"),
    ("tournaments", "view_playerprofile"),
    ("tournaments", "change_ranktitle"),
    ("tournaments", "view_ranktitle"),
    ("tournaments", "view_clockheartbeat"),
    # team events, read only in admin (migration 0025)
    ("tournaments", "view_team"),
    ("tournaments", "view_teammember"),
    ("tournaments", "view_match"),
    ("tournaments", "view_teamstanding"),
    ("auth", "view_user"),
}


def group_permissions() -> set[tuple[str, str]]:
    group = Group.objects.get(name=DIRECTORS_GROUP)
    return set(group.permissions.values_list("content_type__app_label", "codename"))


def state() -> dict:
    """Every row an organiser's power could change."""
    data = snapshot()
    data["Standing"] = list(Standing.objects.order_by("pk").values())
    data["MasterPointAward"] = list(MasterPointAward.objects.order_by("pk").values())
    data["PlayerProfile"] = list(PlayerProfile.objects.order_by("pk").values())
    return data


@pytest.fixture
def staff_without(make_user):
    """staff_without(perm): staff, every permission of the group but `perm`."""

    def make(permission: str):
        app_label, codename = permission.split(".")
        user = make_user()
        user.is_staff = True
        user.save(update_fields=["is_staff"])
        user.user_permissions.set(
            Permission.objects.filter(group__name=DIRECTORS_GROUP).exclude(
                content_type__app_label=app_label, codename=codename
            )
        )
        assert user.is_staff and not user.is_superuser
        assert not User.objects.get(pk=user.pk).has_perm(permission)
        return user

    return make


def _build_events() -> dict[str, int]:
    """scheduled, running (round 1 open), paused (round 1 open) and finished (one round,
    cut off: not played) events of four pairs each, on the real clock: the ids of what
    the tests use. Built as conftest's organiser, make_tournament and register_pairs
    build (those are per test)."""
    from django.contrib.auth.hashers import make_password

    from tournaments.services.bulk_registration import register_pairs_in_bulk

    organiser = User.objects.create_user(
        "organiser", password="pw-organiser", is_staff=True, is_superuser=True
    )
    now = timezone.now()
    numbers = iter(range(1, 1000))

    def make(**fields):
        t = Tournament.objects.create(
            name=f"Swiss {len(made) + 1}",
            start_at=now + timedelta(hours=1),
            registration_opens_at=now - timedelta(days=1),
            round_length=timedelta(minutes=30),
            gap_length=timedelta(0),
            scoring_method="IMP",
            **{"rounds": 3, "boards_per_round": 2, **fields},
        )
        names = [f"events-player{next(numbers)}" for _ in range(8)]
        users = User.objects.bulk_create(
            User(username=name, password=make_password("pw-" + name)) for name in names
        )
        PlayerProfile.objects.bulk_create(PlayerProfile(user=user) for user in users)
        register_pairs_in_bulk(tournament=t, players=users, at=now)
        made.append(t)
        return t

    made: list[Tournament] = []
    scheduled, running, paused = make(), make(rounds=2), make(rounds=2)
    finished = make(rounds=1, boards_per_round=1)
    for t in (running, paused, finished):
        clock.start_now(tournament=t, by=organiser)
    clock.pause(tournament=paused, by=organiser)
    clock.close_round_now(tournament=finished, by=organiser)
    for t in (scheduled, running, paused, finished):
        t.refresh_from_db()
    assert (finished.status, paused.status) == ("finished", "paused")
    # Stale totals, so that a re-score visibly puts them right.
    Pair.objects.filter(tournament=finished).update(total=99)
    # Free players an organiser may register as a pair.
    User.objects.create_user("free-east"), User.objects.create_user("free-west")
    result = BoardResult.objects.filter(board__tournament=finished).order_by("id").first()
    return {
        "scheduled": scheduled.pk,
        "running": running.pk,
        "paused": paused.pk,
        "finished": finished.pk,
        "finished_round": Round.objects.get(tournament=finished).pk,
        "finished_result": result.pk,
        "running_table": Table.objects.get(round__tournament=running, number=1).pk,
        "scheduled_pair": Pair.objects.filter(tournament=scheduled).order_by("id").first().pk,
    }


@pytest.fixture(scope="module")
def _events_for_the_module(django_db_setup, django_db_blocker):
    """The events, built once for the module: Django's setUpTestData. They are written
    in a transaction of the module's own that each test's transaction nests in (a
    savepoint, rolled back after the test, whatever it changed), and rolled back after
    the module. Built for each test they were two thirds of the file's time."""
    from django.db import transaction

    with django_db_blocker.unblock():
        module = transaction.atomic()
        module.__enter__()
        # What TestCase marks its class-wide transaction with: the clock's durable
        # transactions may run inside it (as inside each test's).
        connection.atomic_blocks[-1]._from_testcase = True
        try:
            ids = _build_events()
        except BaseException:
            transaction.set_rollback(True)
            module.__exit__(None, None, None)
            raise
    yield ids
    with django_db_blocker.unblock():
        transaction.set_rollback(True)
        module.__exit__(None, None, None)


@pytest.fixture
def events(_events_for_the_module, db):
    """The module's events, read afresh for each test (a test's changes to the objects
    go with its transaction)."""
    ids = _events_for_the_module
    return {
        **{
            name: Tournament.objects.get(pk=ids[name])
            for name in ("scheduled", "running", "paused", "finished")
        },
        "finished_round": Round.objects.get(pk=ids["finished_round"]),
        "finished_result": BoardResult.objects.get(pk=ids["finished_result"]),
        "running_table": Table.objects.select_related("ns_pair", "ew_pair").get(
            pk=ids["running_table"]
        ),
        "scheduled_pair": Pair.objects.get(pk=ids["scheduled_pair"]),
    }


# --- the group ------------------------------------------------------------------------


def test_the_group_exists_after_migrate_with_exactly_the_intended_permissions():
    applied = MigrationRecorder(connection).applied_migrations()
    assert ("tournaments", "0007_organiser_permissions") in applied
    assert group_permissions() == GROUP_PERMISSIONS
    custom = dict(Tournament._meta.permissions)
    assert set(custom) == {
        "run_clock", "direct_results", "manage_players", "comment_broadcasts", "club_member",
        "grant_club_membership",
    }  # fmt: skip


def test_the_migration_is_idempotent_and_reversible(director):
    migration = importlib.import_module("tournaments.migrations.0007_organiser_permissions")
    teams = importlib.import_module("tournaments.migrations.0025_directors_see_teams")
    commentary = importlib.import_module("tournaments.migrations.0029_broadcasts")
    club = importlib.import_module("tournaments.migrations.0031_club")
    migration.add_directors_group(django_apps, None)
    teams.add_views(django_apps, None)
    commentary.add_commentary(django_apps, None)
    club.add_granting(django_apps, None)
    assert group_permissions() == GROUP_PERMISSIONS
    club.remove_granting(django_apps, None)
    assert ("tournaments", "grant_club_membership") not in group_permissions()
    club.add_granting(django_apps, None)
    club.add_granting(django_apps, None)
    assert group_permissions() == GROUP_PERMISSIONS
    commentary.remove_commentary(django_apps, None)
    assert ("tournaments", "comment_broadcasts") not in group_permissions()
    commentary.add_commentary(django_apps, None)
    commentary.add_commentary(django_apps, None)
    assert group_permissions() == GROUP_PERMISSIONS
    assert Group.objects.filter(name=DIRECTORS_GROUP).count() == 1
    teams.remove_views(django_apps, None)
    assert not group_permissions() & {("tournaments", "view_team"), ("tournaments", "view_match")}
    teams.add_views(django_apps, None)
    teams.add_views(django_apps, None)
    assert group_permissions() == GROUP_PERMISSIONS
    migration.remove_directors_group(django_apps, None)
    assert not Group.objects.filter(name=DIRECTORS_GROUP).exists()
    assert User.objects.filter(pk=director.pk).exists()  # the accounts stay
    migration.add_directors_group(django_apps, None)
    teams.add_views(django_apps, None)
    commentary.add_commentary(django_apps, None)
    club.add_granting(django_apps, None)
    assert group_permissions() == GROUP_PERMISSIONS


def test_a_director_is_staff_but_not_superuser_and_holds_every_power(director):
    assert director.is_staff and not director.is_superuser
    fresh = User.objects.get(pk=director.pk)
    for permission in (RUN_CLOCK, DIRECT_RESULTS, MANAGE_PLAYERS, ADD_TOURNAMENT):
        assert fresh.has_perm(permission), permission


# --- services -------------------------------------------------------------------------

SERVICE_CALLS = {
    "start_now": (RUN_CLOCK, lambda e, by: clock.start_now(tournament=e["scheduled"], by=by)),
    "close_round_now": (
        RUN_CLOCK,
        lambda e, by: clock.close_round_now(tournament=e["running"], by=by, round_number=1),
    ),
    "extend_round": (
        RUN_CLOCK,
        lambda e, by: clock.extend_round(tournament=e["running"], minutes=5, by=by),
    ),
    "pause": (RUN_CLOCK, lambda e, by: clock.pause(tournament=e["running"], by=by)),
    "resume": (RUN_CLOCK, lambda e, by: clock.resume(tournament=e["paused"], by=by)),
    "rescore_round": (
        RUN_CLOCK,
        lambda e, by: clock.rescore_round(round=e["finished_round"], by=by),
    ),
    "director_set_result": (
        DIRECT_RESULTS,
        lambda e, by: results.director_set_result(
            table=e["finished_result"].table,
            board_number=e["finished_result"].board.number,
            by=by,
            ns_adjustment="A+",
            ew_adjustment="A-",
            reason="fouled board",
        ),
    ),
    "submit_result": (
        DIRECT_RESULTS,
        lambda e, by: results.submit_result(
            table=e["running_table"],
            board_number=1,
            entry=results.ContractEntry(contract="3NT", declarer="N", tricks=9),
            user=by,
        ),
    ),
    "register_pair": (
        MANAGE_PLAYERS,
        lambda e, by: registration.register_pair(
            tournament=e["scheduled"], usernames=["free-east", "free-west"], by=by
        ),
    ),
    "withdraw_pair": (
        MANAGE_PLAYERS,
        lambda e, by: registration.withdraw_pair(pair=e["scheduled_pair"], by=by),
    ),
    "create_player": (
        MANAGE_PLAYERS,
        lambda e, by: setup.create_player(username="newcomer", display_name="新人", by=by),
    ),
    "create_tournament": (
        ADD_TOURNAMENT,
        lambda e, by: setup.create_tournament(
            name="Thursday Swiss",
            start_at=timezone.now() + timedelta(days=1),
            rounds=3,
            boards_per_round=2,
            round_minutes=20,
            by=by,
        ),
    ),
}


@pytest.mark.parametrize("name", SERVICE_CALLS)
def test_a_service_refuses_staff_without_the_permission(name, events, staff_without):
    permission, call = SERVICE_CALLS[name]
    user = staff_without(permission)
    before = state()
    with pytest.raises(NotAllowed) as refused:
        call(events, user)
    assert state() == before
    if name not in ("submit_result", "withdraw_pair"):  # their refusal names the table/pair
        assert isinstance(refused.value, PermissionRequired)
        assert refused.value.permission == permission
        assert "tournament director" in str(refused.value)


@pytest.mark.parametrize("name", SERVICE_CALLS)
def test_a_director_may_use_each_power(name, events, director):
    _permission, call = SERVICE_CALLS[name]
    before = state()
    call(events, User.objects.get(pk=director.pk))
    assert state() != before


# register_pair is the one the system may call (simulation, demo); submitting a result
# and withdrawing are a person's own actions.
@pytest.mark.parametrize(
    "name",
    [n for n in SERVICE_CALLS if n not in ("register_pair", "submit_result", "withdraw_pair")],
)
def test_no_user_is_not_the_system_where_a_person_is_needed(name, events):
    _permission, call = SERVICE_CALLS[name]
    before = state()
    with pytest.raises(PermissionRequired):
        call(events, None)
    assert state() == before


def test_the_system_registers_pairs_for_the_simulation_and_the_demo(events, make_user):
    a, b = make_user(), make_user()
    pair = registration.register_pair(
        tournament=events["scheduled"], usernames=[a.username, b.username], by=None
    )
    assert pair.status == "confirmed"


def test_the_pair_itself_may_still_withdraw_and_players_still_enter_results(events):
    pair = events["scheduled_pair"]
    registration.withdraw_pair(pair=pair, by=pair.player2)
    table = events["running_table"]
    stored = results.submit_result(
        table=table,
        board_number=1,
        entry=results.ContractEntry(contract="3NT", declarer="N", tricks=9),
        user=table.ns_pair.player1,
    )
    assert stored.ns_score is not None


# --- admin actions --------------------------------------------------------------------


def _url(model: str) -> str:
    return reverse(f"admin:tournaments_{model}_changelist")


# action: (permission, model admin, target, extra POST data)
ADMIN_ACTIONS = {
    "start_now": (RUN_CLOCK, "tournament", "scheduled", {"apply": "1"}),
    "close_round_now": (RUN_CLOCK, "tournament", "running", {"apply": "1", "round": "1"}),
    "extend_round": (
        RUN_CLOCK,
        "tournament",
        "running",
        {"apply": "1", "minutes": "5", "round": "1"},
    ),
    "pause": (RUN_CLOCK, "tournament", "running", {}),
    "resume": (RUN_CLOCK, "tournament", "paused", {}),
    "rescore_last_round": (RUN_CLOCK, "tournament", "finished", {}),
    "rescore": (RUN_CLOCK, "round", "finished_round", {}),
    "adjust": (
        DIRECT_RESULTS,
        "boardresult",
        "finished_result",
        {"apply": "1", "ns_adjustment": "A+", "ew_adjustment": "A-", "reason": "fouled board"},
    ),
    "withdraw": (MANAGE_PLAYERS, "pair", "scheduled_pair", {}),
}


def _post_action(client, action: str, events) -> tuple:
    _permission, model, target, extra = ADMIN_ACTIONS[action]
    obj = events[target]
    data = {"action": action, "_selected_action": [str(obj.pk)]}
    for key, value in extra.items():
        data[f"round_{obj.pk}" if key == "round" else key] = value
    response = client.post(_url(model), data, follow=True)
    messages = [(m.level_tag, str(m)) for m in response.context["messages"]]
    return response, messages


def _offered(client, model: str) -> set[str]:
    page = client.get(_url(model))
    assert page.status_code == 200
    form = page.context["action_form"]
    return {name for name, _label in form.fields["action"].choices} if form else set()


@pytest.mark.parametrize("action", ADMIN_ACTIONS)
def test_an_admin_action_refuses_staff_without_the_permission(
    action, events, staff_without, client
):
    permission, model, _target, _extra = ADMIN_ACTIONS[action]
    client.force_login(staff_without(permission))
    assert action not in _offered(client, model)
    before = state()
    response, messages = _post_action(client, action, events)
    assert response.status_code == 200
    assert not [m for m in messages if m[0] == "success"], messages
    assert state() == before


@pytest.mark.parametrize("action", ADMIN_ACTIONS)
def test_a_director_runs_each_admin_action(action, events, director, client):
    _permission, model, _target, _extra = ADMIN_ACTIONS[action]
    client.force_login(director)
    assert action in _offered(client, model)
    before = state()
    _response, messages = _post_action(client, action, events)
    assert [level for level, _text in messages] == ["success"], messages
    assert state() != before


def test_the_result_change_form_refuses_staff_without_direct_results(
    events, staff_without, director, client
):
    result = events["finished_result"]
    url = reverse("admin:tournaments_boardresult_change", args=[result.pk])
    form = {
        "contract": "4S",
        "declarer": "S",
        "tricks": "10",
        "result_text": "",
        "lead": "",
        "adjustment_reason": "entered late",
        "_save": "Save",
    }
    client.force_login(staff_without(DIRECT_RESULTS))
    before = state()
    assert client.post(url, form).status_code == 403
    assert state() == before

    client.force_login(director)
    assert client.post(url, form).status_code == 302
    result.refresh_from_db()
    assert (result.contract, result.adjusted_by_id) == ("4S", director.pk)


def test_adding_a_pair_in_admin_needs_manage_players(events, staff_without, director, client):
    a, b = User.objects.create_user("east"), User.objects.create_user("west")
    form = {
        "tournament": events["scheduled"].pk,
        "player1": a.pk,
        "player2": b.pk,
        "_save": "Save",
    }
    url = reverse("admin:tournaments_pair_add")
    client.force_login(staff_without(MANAGE_PLAYERS))
    before = state()
    assert client.post(url, form).status_code == 403
    assert state() == before

    client.force_login(director)
    assert client.post(url, form).status_code == 302
    pair = Pair.objects.get(tournament=events["scheduled"], player1=a)
    assert (pair.status, pair.player2) == ("confirmed", b)


def test_adding_a_tournament_in_admin_is_djangos_own_permission(staff_without, director, client):
    url = reverse("admin:tournaments_tournament_add")
    client.force_login(staff_without(ADD_TOURNAMENT))
    assert client.get(url).status_code == 403
    client.force_login(director)
    assert client.get(url).status_code == 200


# --- API ------------------------------------------------------------------------------


def _api_calls(events) -> dict:
    running, scheduled = events["running"], events["scheduled"]
    tournament = {
        "name": "Friday Swiss",
        "start_at": (timezone.now() + timedelta(days=1)).isoformat(),
        "rounds": 3,
        "boards_per_round": 2,
        "round_minutes": 20,
    }
    return {
        "start": (RUN_CLOCK, "post", f"/tournaments/{scheduled.pk}/start", None),
        "close": (RUN_CLOCK, "post", f"/tournaments/{running.pk}/rounds/1/close", None),
        "result": (
            DIRECT_RESULTS,
            "put",
            f"/tournaments/{running.pk}/rounds/1/tables/1/boards/1",
            {"contract": "3NT", "declarer": "N", "tricks": 9},
        ),
        "players": (MANAGE_PLAYERS, "post", "/players", {"username": "newcomer"}),
        "pairs": (
            MANAGE_PLAYERS,
            "post",
            f"/tournaments/{scheduled.pk}/pairs",
            {"players": ["free-east", "free-west"]},
        ),
        "withdraw": (
            MANAGE_PLAYERS,
            "post",
            f"/tournaments/{scheduled.pk}/pairs/{events['scheduled_pair'].pk}/withdraw",
            None,
        ),
        "tournaments": (ADD_TOURNAMENT, "post", "/tournaments", tournament),
    }


API_CALLS = ["start", "close", "result", "players", "pairs", "withdraw", "tournaments"]


@pytest.mark.parametrize("name", API_CALLS)
def test_an_api_write_refuses_a_staff_token_without_the_permission(name, events, staff_without):
    permission, method, path, body = _api_calls(events)[name]
    api = Api(token_for(staff_without(permission)))
    before = state()
    fragment = "players at table" if name == "result" else ""
    fragment = "organiser" if name == "withdraw" else fragment or "tournament director"
    assert_error(getattr(api, method)(path, body), 403, fragment)
    assert state() == before


@pytest.mark.parametrize("name", API_CALLS)
def test_a_directors_token_may_call_each_api_write(name, events, director):
    _permission, method, path, body = _api_calls(events)[name]
    api = Api(token_for(director))
    before = state()
    response = getattr(api, method)(path, body)
    assert response.status_code in (200, 201), response.content[:500]
    assert state() != before


# --- what a director sees in admin ----------------------------------------------------

ADMIN_PAGES = [
    "tournament",
    "pair",
    "round",
    "board",
    "boardresult",
    "standing",
    "pairboardscore",
    "masterpointaward",
    "playerprofile",
    "ranktitle",
    "clockheartbeat",
]


def test_the_group_is_enough_to_run_an_event_in_admin(events, director, client):
    client.force_login(director)
    for model in ADMIN_PAGES:
        assert client.get(_url(model)).status_code == 200, model
    running = events["running"]
    page = client.get(reverse("admin:tournaments_tournament_change", args=[running.pk]))
    assert page.status_code == 200
    # Its rounds; the pairs are on the console (paginated, searchable), linked from here.
    assert len(page.context["inline_admin_formsets"]) == 1
    assert reverse("console", args=[running.pk]) in page.content.decode()
    assert client.get(reverse("admin:tournaments_pair_add")).status_code == 200
    search = client.get(
        reverse("admin:autocomplete"),
        {"app_label": "tournaments", "model_name": "pair", "field_name": "player1", "term": "free"},
    )
    assert search.status_code == 200
    assert {r["text"] for r in search.json()["results"]} >= {"free-east", "free-west"}
    # Nothing to delete, no accounts to edit.
    user_page = client.get(reverse("admin:auth_user_change", args=[director.pk]))
    assert "_save" not in user_page.content.decode()
    assert "delete_selected" not in _offered(client, "pair")
