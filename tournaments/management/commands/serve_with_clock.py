"""`make run`: the web server and the in-process round clock side by side.

The web server is the ASGI server (uvicorn) serving pages, static files (WhiteNoise, as
under WSGI) and the live tables' WebSockets from one process, on the in-memory channel
layer; the clock ticks inside that same process (`config.asgi_embedded`), so the round
close reaches the connected seats. Server, demo players and the online demo's robots
(`play_robots --demo`) run as child processes; Ctrl-C (or SIGTERM) stops them together.
"""

import os
import signal
import subprocess
import sys
import time

from django.core.management import get_commands
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Serve the site (pages and WebSockets, uvicorn) and run the round clock beside it."

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", default="8000")
        parser.add_argument(
            "--bluechip-port",
            default="2000",
            help="the Blue Chip gateway's port (programs' seats, SPEC 14); 0: none",
        )
        parser.add_argument(
            "--no-demo-players",
            action="store_true",
            help="do not start the simulated players of the demo tournament",
        )

    def handle(self, *args, host, port, bluechip_port, no_demo_players, **options):
        manage = [sys.executable, "manage.py"]
        commands = [asgi_server(host=host, port=port)]
        # The gateway runs in the server's process (config.asgi_embedded): the in-memory
        # channel layer carries its programs' moves to the tables' sockets only there.
        if bluechip_port not in ("", "0"):
            os.environ["BLUECHIP_GATEWAY_PORT"] = str(bluechip_port)
        if not no_demo_players and "play_demo" in get_commands():
            commands.append(manage + ["play_demo"])
        if not no_demo_players and "play_robots" in get_commands():
            commands.append(manage + robots_command(host=host, port=port))
        children = [subprocess.Popen(cmd) for cmd in commands]
        stopping = False

        def stop(signum, frame):
            nonlocal stopping
            stopping = True

        signal.signal(signal.SIGINT, stop)
        signal.signal(signal.SIGTERM, stop)
        try:
            while not stopping and all(child.poll() is None for child in children):
                time.sleep(0.5)
        finally:
            for child in children:
                if child.poll() is None:
                    child.send_signal(signal.SIGTERM)
            for child in children:
                try:
                    child.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    child.kill()


def robots_command(*, host: str, port: str) -> list[str]:
    """The online demo's robots, playing through this server's WebSockets."""
    from tournaments.demo.online import DEMO_CLAIM_AFTER, DEMO_PACE

    near = "127.0.0.1" if host in ("0.0.0.0", "", "::") else host
    return ["play_robots", "--demo", "--url", f"ws://{near}:{port}", "--pace", DEMO_PACE] + [
        "--claim-after",
        str(DEMO_CLAIM_AFTER),
        "--double-dummy",
    ]


def asgi_server(*, host: str, port: str) -> list[str]:
    """The ASGI server's command line: one process serving the site and the clock."""
    return [sys.executable, "-m", "uvicorn", "config.asgi_embedded:application"] + [
        "--host",
        host,
        "--port",
        str(port),
        # The clock starts with the server and stops with it.
        "--lifespan",
        "on",
        # The client's address is the connection's: uvicorn would otherwise take it from
        # X-Forwarded-For sent from 127.0.0.1 (its default), so any local client could
        # forge it past the lockout and the limits. Behind a proxy the application reads
        # the header itself, as TRUSTED_PROXIES says (tournaments/limits.py).
        "--no-proxy-headers",
        # A table's message is a few hundred bytes: frames over 16 KiB are cut here,
        # before the application reads them (SOCKET_MAX_MESSAGE_CHARS, docs/SECURITY.md).
        "--ws-max-size",
        "16384",
    ]
