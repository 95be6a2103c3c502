"""A real uvicorn serving the site to a test (as tests/tournaments/online/test_ws_servers.py
starts one), importable from any test package: free port, start, wait, stop."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time

from tests.support.servers import free_port, stop, worker_database_url  # noqa: F401  (re-exported)

# `make run`'s server (config.asgi_embedded: the round clock inside, the channel layer in
# memory): `start_server(port=…, log=…, **EMBEDDED)`.
EMBEDDED = {"app": "config.asgi_embedded:application", "lifespan": "on"}


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
    command += ["--no-proxy-headers"]  # as production runs it (docs/SECURITY.md)
    if workers > 1:  # several server processes under uvicorn's own manager
        command += ["--workers", str(workers)]
    return subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)


def wait_until_listening(port: int, server: subprocess.Popen, log_path) -> None:
    # A server process imports Django and the whole site first: on a loaded 2-core
    # machine (parallel workers, other engineers' runs) that took over 30 s.
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if server.poll() is not None:
            break
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"server on {port} did not start:\n{log_path.read_text()[-3000:]}")
