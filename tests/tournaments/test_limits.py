"""Limits on what one client can make the server do: the login lockout (django-axes),
rate limits on API writes and on sign-up, and the client address behind proxies."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.test import Client, override_settings

from tests.support.api import Api, assert_error, result_path, snapshot, table_of, token_for
from tournaments.models import BoardResult

pytestmark = pytest.mark.django_db

LOCKED = "Too many failed logins for this account or from your address"
LOCKED_ZH = "登录失败次数过多"


def log_in(client: Client, username: str, password: str, *, path="/accounts/login/", **extra):
    return client.post(path, {"username": username, "password": password}, **extra)


def logged_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


@pytest.fixture
def fresh_cache():
    cache.clear()
    yield
    cache.clear()


def _hold_at_next(period: int):
    start = (int(time.time() // period) + 1) * period + 1
    return time_machine.travel(datetime.fromtimestamp(start, UTC), tick=False)


@pytest.fixture
def minute_window():
    """Time held just after the next minute starts (less than a minute ahead, inside the
    open round): the fixed-window counts never straddle a boundary mid-test."""
    with _hold_at_next(60):
        yield


@pytest.fixture
def hour_window():
    with _hold_at_next(3600):
        yield


# --- login lockout -------------------------------------------------------------------


def test_ten_wrong_passwords_then_the_right_one_is_refused_with_the_reason(make_user):
    make_user("ann")
    client = Client()
    statuses = [log_in(client, "ann", "wrong").status_code for _ in range(10)]
    assert statuses[:4] == [200] * 4  # the form again: "enter a correct username…"
    assert set(statuses[4:]) == {429}  # the fifth failure locks the account
    response = log_in(client, "ann", "pw-ann")
    assert response.status_code == 429 and not logged_in(client)
    html = response.content.decode()
    assert LOCKED in html and "15 minutes" in html
    assert '<form method="post"' in html  # the login page, not a bare error page
    # From another address the owner still logs in: the lock is the account from this
    # address (tests/tournaments/test_login_lockout.py), or anyone could lock anyone out.
    other = Client(REMOTE_ADDR="10.1.2.3")
    assert log_in(other, "ann", "pw-ann").status_code == 302 and logged_in(other)


def test_the_lockout_message_is_translated(make_user):
    make_user("bea")
    client = Client(HTTP_ACCEPT_LANGUAGE="zh-hans")
    for _ in range(5):
        log_in(client, "bea", "wrong")
    response = log_in(client, "bea", "pw-bea")
    assert response.status_code == 429
    assert LOCKED_ZH in response.content.decode()


def test_an_address_is_locked_after_many_failures_on_any_accounts(make_user, settings):
    make_user("cat")
    attacker = Client(REMOTE_ADDR="203.0.113.9")
    for n in range(settings.LOGIN_FAILURES_PER_ADDRESS):
        log_in(attacker, f"nobody{n}", "guess")  # a different account each time
    response = log_in(attacker, "cat", "pw-cat")
    assert response.status_code == 429 and not logged_in(attacker)
    assert LOCKED in response.content.decode()
    # Another address is not affected, and neither is the account.
    elsewhere = Client(REMOTE_ADDR="198.51.100.7")
    assert log_in(elsewhere, "cat", "pw-cat").status_code == 302 and logged_in(elsewhere)


def test_a_few_failures_from_one_address_do_not_lock_it(make_user, settings):
    """A club's players share an address: fewer failures than its threshold pass."""
    make_user("dan")
    club = Client(REMOTE_ADDR="192.0.2.50")
    for n in range(settings.LOGIN_FAILURES_PER_ADDRESS - 1):
        log_in(club, f"member{n % 4}", "typo")
    assert log_in(club, "dan", "pw-dan").status_code == 302 and logged_in(club)


def test_the_admin_login_is_locked_as_well(organiser):
    client = Client()
    for _ in range(5):
        log_in(client, "organiser", "wrong", path="/admin/login/")
    response = log_in(client, "organiser", "pw-organiser", path="/admin/login/")
    assert response.status_code == 429 and not logged_in(client)
    assert LOCKED in response.content.decode()


def test_the_lockout_ends_after_the_cool_off(make_user):
    make_user("eli")
    client = Client()
    for _ in range(5):
        log_in(client, "eli", "wrong")
    assert log_in(client, "eli", "pw-eli").status_code == 429
    with time_machine.travel(datetime.now(UTC) + timedelta(minutes=16)):
        assert log_in(client, "eli", "pw-eli").status_code == 302 and logged_in(client)


def test_a_locked_account_keeps_its_api_token(api_running, english):
    tournament, _pairs = api_running
    player = table_of(tournament, 1, 1).ns_pair.player1
    for _ in range(5):
        log_in(Client(), player.username, "wrong")
    assert log_in(Client(), player.username, f"pw-{player.username}").status_code == 429
    body = {"contract": "2H", "declarer": "N", "tricks": 8}
    assert Api(token_for(player)).put(result_path(tournament), body).status_code == 200


# --- API write rates -----------------------------------------------------------------


@override_settings(API_WRITE_RATE_PER_USER="3/min", API_WRITE_RATE_PER_ADDRESS="")
def test_api_writes_over_the_user_rate_get_429_and_write_nothing(
    api_running, fresh_cache, minute_window, english
):
    tournament, _pairs = api_running
    player = table_of(tournament, 1, 1).ns_pair.player1
    api = Api(token_for(player))
    body = {"contract": "2H", "declarer": "N", "tricks": 8}
    for _ in range(3):
        assert api.put(result_path(tournament, board=1), body).status_code == 200
    before = snapshot()
    response = api.put(result_path(tournament, board=2), body)
    assert_error(response, 429, "Too many requests")
    assert 1 <= int(response["Retry-After"]) <= 60
    assert snapshot() == before
    assert not BoardResult.objects.filter(board__number=2).exists()
    # Another player (another token) is not held back; reads never are.
    partner = table_of(tournament, 1, 2).ns_pair.player1
    assert Api(token_for(partner)).put(result_path(tournament, table=2), body).status_code == 200
    assert api.get(f"/tournaments/{tournament.pk}/standings").status_code == 200


@override_settings(API_WRITE_RATE_PER_USER="", API_WRITE_RATE_PER_ADDRESS="3/min")
def test_api_writes_over_the_address_rate_get_429(api_running, fresh_cache, minute_window):
    tournament, _pairs = api_running
    body = {"contract": "2H", "declarer": "N", "tricks": 8}
    players = [table_of(tournament, 1, t).ns_pair.player1 for t in (1, 2)]
    for n in range(3):
        path = result_path(tournament, table=n % 2 + 1)
        assert Api(token_for(players[n % 2])).put(path, body).status_code == 200
    before = snapshot()
    refused = Api(token_for(players[1])).put(result_path(tournament, table=2, board=2), body)
    assert_error(refused, 429)
    assert snapshot() == before
    from_elsewhere = Api(token_for(players[1]))
    from_elsewhere.client.defaults["REMOTE_ADDR"] = "198.51.100.20"
    path = result_path(tournament, table=2, board=2)
    assert from_elsewhere.put(path, body).status_code == 200


def test_the_default_rates_let_a_table_enter_a_round_in_a_burst(api_running, fresh_cache):
    """The production defaults: a table's whole round (and corrections) in seconds."""
    tournament, _pairs = api_running
    player = table_of(tournament, 1, 1).ns_pair.player1
    api = Api(token_for(player))
    body = {"contract": "2H", "declarer": "N", "tricks": 8}
    with override_settings(
        API_WRITE_RATE_PER_USER="120/min", API_WRITE_RATE_PER_ADDRESS="1200/min"
    ):
        for _ in range(20):
            for board in (1, 2):
                assert api.put(result_path(tournament, board=board), body).status_code == 200


# --- sign-up -------------------------------------------------------------------------


def signup(client: Client, username: str):
    return client.post(
        "/accounts/signup/",
        {"username": username, "password1": "a-long-pass-9876", "password2": "a-long-pass-9876"},
    )


@override_settings(SIGNUP_RATE="2/hour")
def test_sign_ups_over_the_rate_get_429_and_create_no_account(fresh_cache, hour_window):
    User = get_user_model()
    for n in range(2):
        assert signup(Client(), f"new{n}").status_code == 302
    response = signup(Client(), "new2")
    assert response.status_code == 429
    html = response.content.decode()
    assert "Too many sign-ups from your address" in html and '<form method="post"' in html
    assert not User.objects.filter(username="new2").exists()
    assert signup(Client(REMOTE_ADDR="198.51.100.30"), "new3").status_code == 302


@override_settings(SIGNUP_RATE="1/hour")
def test_the_sign_up_refusal_is_translated(fresh_cache, hour_window):
    signup(Client(), "first")
    response = signup(Client(HTTP_ACCEPT_LANGUAGE="zh-hans"), "second")
    assert response.status_code == 429
    assert "注册次数过多" in response.content.decode()


# The client's address behind proxies: tests/tournaments/test_client_address.py.
