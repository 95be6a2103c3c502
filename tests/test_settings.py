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
