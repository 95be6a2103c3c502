"""The client's address the limits and the login lockout count: a forged X-Forwarded-For
must not move it, neither in the server (uvicorn, as `make run` starts it) nor in the
application (tournaments/limits.py: client_address, as TRUSTED_PROXIES says)."""

from __future__ import annotations

import os
import re
import subprocess

import pytest
import requests
from django.test import RequestFactory

from tests.support.servers import free_port, stop, wait_for_server_sessions, worker_database_url
from tests.support.uvicorn import wait_until_listening
from tournaments.limits import client_address
from tournaments.management.commands.serve_with_clock import asgi_server


def request_from(remote: str, forwarded: str | None = None):
    extra = {"REMOTE_ADDR": remote}
    if forwarded is not None:
        extra["HTTP_X_FORWARDED_FOR"] = forwarded
    return RequestFactory().get("/", **extra)


# --- the server's command line -------------------------------------------------------


def test_the_server_never_takes_the_address_from_proxy_headers():
    command = asgi_server(host="127.0.0.1", port="8000")
    assert "--no-proxy-headers" in command
    assert not any(part.startswith("--forwarded-allow-ips") for part in command)


@pytest.mark.django_db(transaction=True)
def test_a_forged_forwarded_for_does_not_escape_the_login_lockout(make_user, tmp_path):
    """`make run`'s server on 127.0.0.1: five wrong passwords from there, each claiming
    another address in X-Forwarded-For, still lock the account from 127.0.0.1."""
    make_user("zoe")
    port, log_path = free_port(), tmp_path / "server.log"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "DATABASE_URL": worker_database_url(),
        "CHANNEL_LAYER_URL": "",
        "CELERY_BROKER_URL": "",
        "REDIS_URL": "",
    }
    command = asgi_server(host="127.0.0.1", port=str(port)) + ["--no-access-log"]
    server = subprocess.Popen(command, env=env, stdout=log_path.open("w"), stderr=subprocess.STDOUT)
    try:
        wait_until_listening(port, server, log_path)
        base = f"http://127.0.0.1:{port}"
        session = requests.Session()

        def log_in(password: str, forged: str) -> int:
            page = session.get(f"{base}/accounts/login/", timeout=10).text
            token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
            return session.post(
                f"{base}/accounts/login/",
                {"username": "zoe", "password": password, "csrfmiddlewaretoken": token},
                headers={"X-Forwarded-For": forged, "Referer": f"{base}/accounts/login/"},
                allow_redirects=False,
                timeout=10,
            ).status_code

        statuses = [log_in("wrong", f"203.0.113.{n}") for n in range(1, 6)]
        assert statuses == [200, 200, 200, 200, 429], log_path.read_text()[-3000:]
        # The right password, from yet another "address": still 127.0.0.1, still locked.
        assert log_in("pw-zoe", "198.51.100.77") == 429
    finally:
        stop(server)
        wait_for_server_sessions()
    from axes.models import AccessAttempt

    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {"127.0.0.1"}


# --- the application: TRUSTED_PROXIES ------------------------------------------------


def test_with_no_trusted_proxy_the_header_is_ignored(settings):
    settings.TRUSTED_PROXIES = 0  # nothing in front: the header is the client's to forge
    assert client_address(request_from("10.0.0.1", "6.6.6.6, 203.0.113.5")) == "10.0.0.1"


def test_a_number_of_proxies_counts_hops_from_the_right(settings):
    request = request_from("10.0.0.1", "6.6.6.6, 203.0.113.5")
    settings.TRUSTED_PROXIES = 1  # one proxy: it appended the address it saw
    assert client_address(request) == "203.0.113.5"
    settings.TRUSTED_PROXIES = 2
    assert client_address(request) == "6.6.6.6"
    assert client_address(request_from("10.0.0.1", "unknown")) == "10.0.0.1"


def test_listed_proxies_are_believed_only_from_their_own_addresses(settings):
    settings.TRUSTED_PROXIES = ["127.0.0.1", "10.0.0.0/8"]
    # From the proxy: the address it saw.
    assert client_address(request_from("127.0.0.1", "203.0.113.5")) == "203.0.113.5"
    # From anywhere else the header is the client's own writing: ignored.
    assert client_address(request_from("198.51.100.9", "203.0.113.5")) == "198.51.100.9"
    # A forged left part is skipped: the right-most address that is no trusted proxy's.
    chain = "1.2.3.4, 203.0.113.5, 10.1.2.3"  # client forged 1.2.3.4; two proxies
    assert client_address(request_from("127.0.0.1", chain)) == "203.0.113.5"
    # A hop that is no address ends the walk at the last address believed.
    assert client_address(request_from("127.0.0.1", "bogus")) == "127.0.0.1"
    assert client_address(request_from("127.0.0.1", "bogus, 10.9.9.9")) == "10.9.9.9"
    # Nothing forwarded: the proxy's own address.
    assert client_address(request_from("10.0.0.2")) == "10.0.0.2"


def test_listed_proxies_match_ipv6_too(settings):
    settings.TRUSTED_PROXIES = ["::1", "fd00::/8"]
    assert client_address(request_from("::1", "2001:db8::5")) == "2001:db8::5"
    assert client_address(request_from("2001:db8::9", "203.0.113.5")) == "2001:db8::9"


def test_the_setting_reads_a_number_or_a_list_and_refuses_a_wrong_network():
    from django.core.exceptions import ImproperlyConfigured

    from config.settings.base import trusted_proxies

    assert trusted_proxies("0") == 0 and trusted_proxies(" 2 ") == 2
    assert trusted_proxies("127.0.0.1, 10.0.0.0/8") == ["127.0.0.1", "10.0.0.0/8"]
    with pytest.raises(ImproperlyConfigured):
        trusted_proxies("127.0.0.1,not-a-network")
