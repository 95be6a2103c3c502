"""The Blue Chip table-manager gateway (SPEC 14): programs take reserved seats over TCP."""

import asyncio
import signal

from django.core.management.base import BaseCommand, CommandError

from tournaments.bluechip.gateway import LOOPBACK, Gateway, Options, addresses


class Command(BaseCommand):
    help = (
        "Serve the Blue Chip table-manager protocol (version 18): a program connects with "
        "the ticket of a reserved seat as its team name and plays that seat."
    )

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1", help="the address to listen on")
        parser.add_argument("--port", type=int, default=2000)
        parser.add_argument(
            "--allow",
            action="append",
            default=None,
            help="a network programs may connect from (repeat); default: this machine only",
        )

    def handle(self, *args, host, port, allow, **options):
        try:
            allowed = addresses(allow or LOOPBACK)
        except ValueError as error:
            raise CommandError(f"--allow: {error}") from None
        gateway = Gateway(Options(host=host, port=port, allow=allowed))
        self.stdout.write(f"bluechip_gateway: on {host}:{port}, programs from {', '.join(allowed)}")
        asyncio.run(self._run(gateway))
        self.stdout.write("bluechip_gateway: stopped")

    async def _run(self, gateway):
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, stop.set)
        await gateway.serve(stop)
