"""Create (or print) a player's or organiser's API token."""

import secrets

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import IntegrityError

from tournaments.models import ApiToken


class Command(BaseCommand):
    help = "Print USERNAME's API token, creating one if they have none (--reset: a new one)."

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument(
            "--reset", action="store_true", help="replace the token; the old one stops working"
        )

    def handle(self, *args, username, reset, **options):
        User = get_user_model()
        try:
            user = User.objects.get(username__iexact=username)
        except User.DoesNotExist:
            raise CommandError(f"There is no user called “{username}”.") from None
        if reset:
            ApiToken.objects.filter(user=user).delete()
        try:
            token, _created = ApiToken.objects.get_or_create(
                user=user, defaults={"key": secrets.token_hex(20)}
            )
        except IntegrityError:  # created at the same moment by another process
            token = ApiToken.objects.get(user=user)
        self.stdout.write(token.key)
