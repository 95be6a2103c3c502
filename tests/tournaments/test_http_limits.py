"""Malformed or hostile HTTP input gets a 4xx, never a 500: numbers in URLs beyond any
row (404, on PostgreSQL and on SQLite), bodies over DATA_UPLOAD_MAX_MEMORY_SIZE (413);
and every answer carries the Content-Security-Policy (config/security.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import RequestDataTooBig
from django.test import Client, RequestFactory
from django.urls import Resolver404, resolve

from config.security import bad_request

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
TOO_BIG = "99999999999999999999"  # 20 digits: beyond any 64-bit integer
JUST_OVER = str(2**63)
LARGEST = str(2**63 - 1)
PATHS = [
    "/t/{n}/",
    "/t/{n}/standings/",
    "/t/1/boards/{n}/",
    "/t/{n}/pairs/1/card/",
    "/t/{n}/tables/1/",
    "/t/{n}/tables/1/play/",
    "/t/1/tables/{n}/play/",
    "/console/{n}/",
]


# --- numbers in URLs -----------------------------------------------------------------


@pytest.mark.parametrize("number", [TOO_BIG, JUST_OVER, "1" * 40])
def test_a_number_beyond_any_row_does_not_resolve(number):
    for path in PATHS:
        with pytest.raises(Resolver404):
            resolve(path.format(n=number))


def test_the_largest_row_number_still_resolves():
    assert resolve(f"/t/{LARGEST}/").kwargs == {"tournament_id": 2**63 - 1}


def test_the_pages_answer_404_for_huge_numbers(organiser):
    client = Client(raise_request_exception=False)
    client.force_login(organiser)  # the console's pages too, past their login
    for number in (TOO_BIG, JUST_OVER, LARGEST):
        for path in PATHS:
            assert client.get(path.format(n=number)).status_code == 404, path


SQLITE_PROBE = """
import django
django.setup()
from django.core.management import call_command
call_command("migrate", verbosity=0)
from django.test import Client
from django.test.utils import setup_test_environment
setup_test_environment()
client = Client(raise_request_exception=False)
print(__import__("json").dumps({p: client.get(p).status_code for p in PATHS}))
"""


def test_the_pages_answer_404_for_huge_numbers_on_sqlite(tmp_path):
    """`make run`'s database: SQLite's driver raises on a number it cannot bind, so the
    URL must stop it before any query."""
    paths = [path.format(n=n) for path in PATHS for n in (TOO_BIG, JUST_OVER)]
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.base",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'probe.sqlite3'}",
        "CELERY_BROKER_URL": "",
        "REDIS_URL": "",
        "CHANNEL_LAYER_URL": "",
        "DEBUG": "false",
        "PYTHONPATH": str(ROOT),
    }
    script = f"PATHS = {paths!r}\n" + SQLITE_PROBE
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-3000:]
    statuses = json.loads(done.stdout.strip().splitlines()[-1])
    assert statuses == {path: 404 for path in paths}, done.stderr[-3000:]


# --- request bodies ------------------------------------------------------------------

LIMIT = 2_621_440


def big_body(settings) -> bytes:
    return b"x" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1)


def test_a_body_over_the_limit_is_413_on_the_pages(settings):
    assert settings.DATA_UPLOAD_MAX_MEMORY_SIZE == LIMIT
    client = Client(raise_request_exception=False)
    for path in ("/accounts/login/", "/accounts/signup/", "/admin/login/", "/t/1/register/"):
        response = client.post(
            path, big_body(settings), content_type="application/x-www-form-urlencoded"
        )
        assert response.status_code == 413, path
        assert "The request is too large: at most 2,560 KB" in response.content.decode()


def test_a_body_over_the_limit_is_413_on_the_api_even_under_debug(settings):
    settings.DEBUG = True  # ninja answered 500 with a traceback here
    response = Client(raise_request_exception=False).post(
        "/api/v1/players", big_body(settings), content_type="application/json"
    )
    assert response.status_code == 413
    assert response.json() == {"error": "The request is too large: at most 2,560 KB is accepted."}


def test_the_413_is_translated(settings):
    response = Client(HTTP_ACCEPT_LANGUAGE="zh-hans", raise_request_exception=False).post(
        "/accounts/login/", big_body(settings), content_type="application/x-www-form-urlencoded"
    )
    assert response.status_code == 413
    assert "请求过大" in response.content.decode()


def test_a_body_within_the_limit_is_read_as_before(make_user):
    make_user("kim")
    response = Client().post("/accounts/login/", {"username": "kim", "password": "pw-kim"})
    assert response.status_code == 302


def test_a_body_found_too_large_while_read_is_413_too():
    """Sent without a length (chunked), the body is measured as it is read: Django's
    400 for RequestDataTooBig becomes the same 413 (handler400)."""
    request = RequestFactory().post("/accounts/login/")
    response = bad_request(request, RequestDataTooBig("too big"))
    assert response.status_code == 413
    assert bad_request(request, ValueError("other")).status_code == 400


# --- Content-Security-Policy ---------------------------------------------------------


def policy_of(response) -> dict[str, str]:
    header = response["Content-Security-Policy"]
    return dict(part.strip().split(" ", 1) for part in header.split(";"))


def test_every_answer_carries_the_policy(organiser):
    client = Client()
    answers = {
        "page": client.get("/"),
        "login": client.get("/accounts/login/"),
        "api": client.get("/api/v1/tournaments"),
        "api docs": client.get("/api/v1/docs"),
        "not found": client.get("/t/1/"),
    }
    client.force_login(organiser)
    answers["admin"] = client.get("/admin/")
    for name, response in answers.items():
        policy = policy_of(response)
        assert policy["script-src"] == "'self'", name  # no inline script, no eval
        assert policy["default-src"] == "'self'", name
        assert policy["frame-ancestors"] == "'none'", name
        assert policy["object-src"] == "'none'" and policy["base-uri"] == "'self'", name
        assert policy["connect-src"] == "'self' ws://testserver", name


def test_the_policy_names_the_secure_websocket_over_https():
    response = Client().get("/", secure=True)
    assert policy_of(response)["connect-src"] == "'self' wss://testserver"


def test_the_pages_have_no_inline_script():
    """What the policy forbids is not in the templates: no inline <script>, no on…=
    handlers, no javascript: links, no htmx that evaluates code."""
    import re

    offenders = []
    for template in (ROOT / "templates").rglob("*.html"):
        text = template.read_text()
        for script in re.findall(r"<script\b[^>]*>", text):
            if "src=" not in script and "application/json" not in script:
                offenders.append(f"{template}: {script}")
        if re.search(r"\son[a-z]+\s*=|javascript:|hx-on|js:|hx-vals", text):
            offenders.append(f"{template}: inline handler or evaluated htmx")
    assert offenders == []
