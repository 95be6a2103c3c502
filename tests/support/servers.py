"""Real servers for the tests that need them: a private redis-server, free ports, stopping a
child process, the database URL a worker process should use."""

from __future__ import annotations

import os
import random
import shutil
import socket
import subprocess
import time
from urllib.parse import urlsplit, urlunsplit

import pytest
from django.db import connection

# Ports for the servers tests start: below Linux's ephemeral range (32768-60999, which the
# kernel hands to outgoing connections and to bind(0)), one block per xdist worker, so a
# port found free is not taken before the server binds it, by another worker's server or
# by some connection's local end.
PORT_BASE = 20_000
PORTS_PER_WORKER = 600
_next_port: dict[str, int] = {}


def _worker_index() -> int:
    """0 for gw0 (or a run without xdist), 1 for gw1, …"""
    name = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    return int(name[2:]) if name[2:].isdigit() else 0


def free_port() -> int:
    """A localhost port nobody listens on, from this worker's own block (tried in turn
    from a random place: another suite running beside this one rarely starts at the
    same)."""
    first = PORT_BASE + PORTS_PER_WORKER * (_worker_index() % 20)
    offset = _next_port.setdefault("offset", random.randrange(PORTS_PER_WORKER))
    for step in range(PORTS_PER_WORKER):
        port = first + (offset + step) % PORTS_PER_WORKER
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
        _next_port["offset"] = offset + step + 1
        return port
    raise RuntimeError(f"no free port in {first}-{first + PORTS_PER_WORKER - 1}")


def stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


@pytest.fixture
def redis_url(tmp_path):
    """A private redis-server on a free localhost port, no persistence; stopped after."""
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.skip("redis-server is not installed (scripts/test.sh installs it)")
    import redis

    port = free_port()
    server = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        + ["--dir", str(tmp_path), "--daemonize", "no"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        client = redis.Redis(host="127.0.0.1", port=port)
        deadline = time.monotonic() + 20
        while True:
            try:
                client.ping()
                break
            except redis.ConnectionError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise
                time.sleep(0.05)
        client.close()
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        stop(server)


def worker_database_url() -> str:
    """The test database (not the one DATABASE_URL names), for a child process."""
    parts = urlsplit(os.environ["DATABASE_URL"])
    return urlunsplit(parts._replace(path="/" + connection.settings_dict["NAME"]))


def wait_for_server_sessions(timeout: float = 10) -> None:
    """Wait for a stopped server's database sessions to end (the test database is dropped
    after the test, which PostgreSQL refuses while another session is connected)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()"
                " AND application_name <> 'swiss-test-runner'"  # this process's own threads'
            )
            if cursor.fetchone()[0] == 0:
                return
        time.sleep(0.2)
