"""Production settings pass Django's deployment checks; the embedded default needs no services."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run_manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "SECRET_KEY")}
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_production_settings_pass_check_deploy():
    result = run_manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        DJANGO_SETTINGS_MODULE="config.settings.production",
        SECRET_KEY="k" * 20 + "-production-secret-for-the-check-0123456789abcdef",
        ALLOWED_HOSTS="bridge.example.org",
        DATABASE_URL="postgres://swiss:secret@db.example.org:5432/swiss",
        CELERY_BROKER_URL="redis://redis.example.org:6379/0",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_production_settings_refuse_to_start_without_a_secret_key():
    result = run_manage(
        "check",
        DJANGO_SETTINGS_MODULE="config.settings.production",
        ALLOWED_HOSTS="bridge.example.org",
        DATABASE_URL="postgres://swiss:secret@db.example.org:5432/swiss",
    )
    assert result.returncode != 0
    assert "SECRET_KEY" in result.stderr


def test_embedded_default_is_sqlite_without_a_broker(tmp_path):
    script = (
        "from django.conf import settings;"
        "print(settings.DATABASES['default']['ENGINE'], settings.CELERY_BROKER_URL)"
    )
    result = run_manage(
        "shell",
        "-c",
        script,
        DJANGO_SETTINGS_MODULE="config.settings.base",
        CELERY_BROKER_URL="",
        REDIS_URL="",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split()[-2:] == ["django.db.backends.sqlite3", "None"]


# The suite's database is PostgreSQL; the embedded default's hand-written SQL (result
# entry, the API token, timestamps SQLite hands back naive or as text) runs here.
ENTRY_AFTER_THE_EVENT = """
import json
from django.test import Client
from tournaments.models import ApiToken, Board, Table
table = Table.objects.select_related("round", "ns_pair").order_by("-round__number").first()
board = Board.objects.filter(round=table.round).order_by("number").first()
token = ApiToken(user_id=table.ns_pair.player1_id)
token.set_key("k" * 40)
token.save()
path = (f"/api/v1/tournaments/{table.round.tournament_id}/rounds/{table.round.number}"
        f"/tables/{table.number}/boards/{board.number}")
response = Client().put(path, json.dumps({"contract": "3NT", "declarer": "S", "tricks": 9}),
    content_type="application/json", HTTP_AUTHORIZATION="Bearer " + "k" * 40,
    HTTP_HOST="localhost", HTTP_ACCEPT_LANGUAGE="en")
print(response.status_code, response.json()["error"])
"""


def test_the_embedded_default_plays_an_event_and_refuses_a_late_entry_on_sqlite(tmp_path):
    env = {
        "DJANGO_SETTINGS_MODULE": "config.settings.base",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "CELERY_BROKER_URL": "",
        "ALLOWED_HOSTS": "localhost",
    }
    assert run_manage("migrate", "-v0", **env).returncode == 0
    played = run_manage(
        "simulate", "--pairs", "6", "--rounds", "2", "--boards", "2", "--seed", "5", **env
    )
    assert played.returncode == 0, played.stdout[-2000:] + played.stderr[-2000:]
    assert "hand records analysed: 4" in played.stdout  # claimed and stored on SQLite too
    late = run_manage("shell", "-c", ENTRY_AFTER_THE_EVENT, **env)
    assert late.returncode == 0, late.stderr[-2000:]
    status, message = late.stdout.strip().splitlines()[-1].split(" ", 1)
    assert status == "409" and "closed at" in message, late.stdout


PRODUCTION = {
    "DJANGO_SETTINGS_MODULE": "config.settings.production",
    "SECRET_KEY": "k" * 20 + "-production-secret-for-the-check-0123456789abcdef",
    "ALLOWED_HOSTS": "bridge.example.org",
    "DATABASE_URL": "postgres://swiss:secret@db.example.org:5432/swiss",
    "CELERY_BROKER_URL": "redis://redis.example.org:6379/0",
}


def run_python(code: str, **env: str) -> subprocess.CompletedProcess:
    drop = ("DATABASE_URL", "SECRET_KEY", "DJANGO_SETTINGS_MODULE")
    clean = {k: v for k, v in os.environ.items() if k not in drop}
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_production_refuses_the_public_development_key():
    from config.settings.base import DEVELOPMENT_SECRET_KEY

    result = run_manage("check", **{**PRODUCTION, "SECRET_KEY": DEVELOPMENT_SECRET_KEY})
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert "SECRET_KEY is the public development key" in result.stderr


def test_production_refuses_a_short_key():
    result = run_manage("check", **{**PRODUCTION, "SECRET_KEY": "short-but-not-empty"})
    assert result.returncode != 0
    assert "SECRET_KEY is too short" in result.stderr


def test_the_servers_entry_points_default_to_production_settings():
    show = "from django.conf import settings; print(settings.SETTINGS_MODULE, settings.DEBUG)"
    for module in ("config.wsgi", "config.asgi", "config.celery"):
        env = {k: v for k, v in PRODUCTION.items() if k != "DJANGO_SETTINGS_MODULE"}
        result = run_python(f"import {module}; {show}", **env)
        assert result.returncode == 0, module + result.stderr[-2000:]
        assert result.stdout.split()[-2:] == ["config.settings.production", "False"], module
        # …and so refuse to start without a secret key rather than fall back to DEBUG.
        env.pop("SECRET_KEY")
        missing = run_python(f"import {module}; {show}", **env)
        assert missing.returncode != 0 and "SECRET_KEY" in missing.stderr, module


def test_manage_py_stays_on_the_embedded_default():
    show = "from django.conf import settings; print(settings.SETTINGS_MODULE, settings.DEBUG)"
    result = run_python(
        f"import sys, manage; sys.argv = ['manage.py', 'shell', '-c', {show!r}]; manage.main()"
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.split()[-2:] == ["config.settings.base", "True"]


def test_demo_commands_refuse_under_production_settings():
    for command in (["seed_demo"], ["play_demo", "--once"], ["simulate", "--pairs", "4"]):
        result = run_manage(*command, **PRODUCTION)
        assert result.returncode != 0, command
        assert "Demo data is refused under these settings" in result.stderr, (
            command,
            result.stderr[-2000:],
        )
