"""A real uvicorn serving the site to a test (as tests/tournaments/online/test_ws_servers.py
starts one), importable from any test package: free port, start, wait, stop."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from urllib.parse import urlsplit, urlunsplit

from django.db import connection


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def worker_database_url() -> str:
    """The test database, for a child process."""
    parts = urlsplit(os.environ["DATABASE_URL"])
    return urlunsplit(parts._replace(path="/" + connection.settings_dict["NAME"]))


def start_server(
    *,
    port: int,
    log,
    redis: str = "",
    app: str = "config.asgi:application",
    lifespan: str = "off",
    workers: int = 1,
    extra_env: dict | None = None,
) -> subprocess.Popen:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "DATABASE_URL": worker_database_url(),
        "CHANNEL_LAYER_URL": redis,  # empty: the in-memory channel layer
        "CELERY_BROKER_URL": "",
        "REDIS_URL": "",
        **(extra_env or {}),
    }
    command = [sys.executable, "-m", "uvicorn", app]
    command += ["--host", "127.0.0.1", "--port", str(port), "--lifespan", lifespan]
    return subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)


def wait_until_listening(port: int, server: subprocess.Popen, log_path) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if server.poll() is not None:
            break
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"server on {port} did not start:\n{log_path.read_text()[-3000:]}")


def stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
