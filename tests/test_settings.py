"""Production settings pass Django's deployment checks; the embedded default needs no services."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


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
ApiToken.objects.create(user_id=table.ns_pair.player1_id, key="k" * 40)
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
