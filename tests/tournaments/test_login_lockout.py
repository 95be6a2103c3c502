"""The login lockout (django-axes, tournaments/limits.py: LoginLockout) locks an account
from the address the failures came from, never the account everywhere: nobody can lock a
player out by guessing at their password. The address's lock grows with its failures."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.test import Client

pytestmark = pytest.mark.django_db

ATTACKER, OWNER, CLUB = "203.0.113.66", "198.51.100.8", "192.0.2.40"


def log_in(client: Client, username: str, password: str):
    return client.post("/accounts/login/", {"username": username, "password": password})


def logged_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


def test_failures_from_one_address_do_not_lock_the_owner_out_elsewhere(make_user):
    make_user("una")
    attacker = Client(REMOTE_ADDR=ATTACKER)
    statuses = [log_in(attacker, "una", "guess").status_code for _ in range(5)]
    assert statuses == [200, 200, 200, 200, 429]  # the fifth failure locks (una, attacker)
    # The attacker is locked even with the right password…
    assert log_in(attacker, "una", "pw-una").status_code == 429 and not logged_in(attacker)
    # …while the owner, from their own address, logs in.
    owner = Client(REMOTE_ADDR=OWNER)
    assert log_in(owner, "una", "pw-una").status_code == 302 and logged_in(owner)
    # And another player at the attacker's address is not locked by five failures.
    make_user("vic")
    neighbour = Client(REMOTE_ADDR=ATTACKER)
    assert log_in(neighbour, "vic", "pw-vic").status_code == 302


def test_after_the_cool_off_each_further_wrong_guess_locks_again(make_user):
    make_user("wes")
    attacker = Client(REMOTE_ADDR=ATTACKER)
    for _ in range(5):
        log_in(attacker, "wes", "guess")
    later = datetime.now(UTC) + timedelta(minutes=16)
    with time_machine.travel(later):
        assert log_in(attacker, "wes", "guess").status_code == 429  # one guess, locked again
    with time_machine.travel(later + timedelta(minutes=16)):
        assert log_in(attacker, "wes", "pw-wes").status_code == 302  # the owner, there


def test_a_successful_login_forgets_only_that_accounts_failures(make_user):
    """The owner's typos are forgotten once they log in; an address's failures on other
    accounts are not (a player cannot clear the count they guess from)."""
    make_user("xia")
    club = Client(REMOTE_ADDR=CLUB)
    for _ in range(4):
        log_in(club, "xia", "typo")
    assert log_in(club, "xia", "pw-xia").status_code == 302
    from axes.models import AccessAttempt

    assert not AccessAttempt.objects.filter(username="xia").exists()
    for n in range(3):
        log_in(Client(REMOTE_ADDR=CLUB), f"other{n}", "guess")
    make_user("yan")
    assert log_in(Client(REMOTE_ADDR=CLUB), "yan", "pw-yan").status_code == 302
    assert AccessAttempt.objects.filter(ip_address=CLUB).count() == 3


def test_the_address_lock_doubles_with_its_failures(make_user, settings):
    settings.LOGIN_FAILURES_PER_ADDRESS = 4
    make_user("zed")
    spray = Client(REMOTE_ADDR=ATTACKER)
    for n in range(4):
        log_in(spray, f"nobody{n}", "guess")  # four accounts: the address is locked
    response = log_in(spray, "zed", "pw-zed")
    assert response.status_code == 429 and "30 minutes" in response.content.decode()
    start = datetime.now(UTC)
    with time_machine.travel(start + timedelta(minutes=20)):  # past 15, within 30
        assert log_in(spray, "zed", "pw-zed").status_code == 429
    with time_machine.travel(start + timedelta(minutes=31)):
        for n in range(4):
            log_in(spray, f"again{n}", "guess")
        response = log_in(spray, "zed", "pw-zed")
        assert response.status_code == 429 and "60 minutes" in response.content.decode()
    # Elsewhere, nothing: the account was never locked.
    assert log_in(Client(REMOTE_ADDR=OWNER), "zed", "pw-zed").status_code == 302


def test_the_growth_stops_at_the_longest_lock(make_user, settings):
    settings.LOGIN_FAILURES_PER_ADDRESS = 2
    settings.LOGIN_LOCKOUT_MAX_MINUTES = 20
    spray = Client(REMOTE_ADDR=ATTACKER)
    for n in range(2):  # doubled to 30 minutes, but the longest is 20
        log_in(spray, f"nobody{n}", "guess")
    response = log_in(spray, "nobody0", "guess")
    assert response.status_code == 429 and "20 minutes" in response.content.decode()
    from tournaments.limits import login_cool_off

    assert login_cool_off(None) == timedelta(minutes=15)  # axes asking outside a login


def test_the_thresholds_are_settings(make_user, settings):
    settings.LOGIN_FAILURES_PER_ACCOUNT = settings.AXES_FAILURE_LIMIT = 2
    make_user("amy")
    attacker = Client(REMOTE_ADDR=ATTACKER)
    assert [log_in(attacker, "amy", "guess").status_code for _ in range(2)] == [200, 429]
