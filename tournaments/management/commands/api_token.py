"""Issue, list and revoke API tokens. Only a hash of a key is stored: the key is printed
once, when it is issued."""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from tournaments.errors import ServiceError
from tournaments.models import ApiToken
from tournaments.services import tokens


class Command(BaseCommand):
    help = (
        "Issue a new API token for USERNAME and print its key (shown only this once); "
        "--reset also revokes the user's other tokens. --list [USERNAME] lists tokens, "
        "--revoke PREFIX_OR_ID revokes one."
    )

    def add_arguments(self, parser):
        parser.add_argument("username", nargs="?")
        parser.add_argument(
            "--reset", action="store_true", help="revoke the user's other tokens as well"
        )
        parser.add_argument(
            "--expires-in-days", type=int, default=None, help="the token stops working then"
        )
        parser.add_argument(
            "--list",
            action="store_true",
            dest="list_tokens",
            help="list tokens (of USERNAME, if given)",
        )
        parser.add_argument("--revoke", metavar="PREFIX_OR_ID", help="revoke this token")

    def handle(self, *args, username, reset, expires_in_days, list_tokens, revoke, **options):
        try:
            if revoke:
                self.revoke(revoke)
            elif list_tokens:
                self.list(username)
            else:
                self.issue(username, reset=reset, expires_in_days=expires_in_days)
        except ServiceError as error:
            raise CommandError(str(error)) from error

    def user(self, username: str):
        User = get_user_model()
        try:
            return User.objects.get(username__iexact=username)
        except User.DoesNotExist:
            raise CommandError(f"There is no user called “{username}”.") from None

    def issue(self, username, *, reset: bool, expires_in_days):
        if not username:
            raise CommandError("Name the user: api_token USERNAME (or --list, --revoke).")
        _token, key = tokens.issue_token(
            user=self.user(username), expires_in_days=expires_in_days, replace=reset
        )
        self.stdout.write(key)

    def list(self, username):
        found = ApiToken.objects.select_related("user").order_by("user__username", "created_at")
        if username:
            found = found.filter(user=self.user(username))
        now = timezone.now()
        self.stdout.write(f"{'id':>6}  {'prefix':<9} {'user':<20} {'created':<17} status")
        for token in found:
            refusal = token.refusal(now)
            status = str(refusal) if refusal else "valid"
            if token.expires_at and refusal is None:
                status = f"valid until {timezone.localtime(token.expires_at):%Y-%m-%d %H:%M}"
            used = token.last_used_at
            status += f", last used {timezone.localtime(used):%Y-%m-%d %H:%M}" if used else ""
            self.stdout.write(
                f"{token.pk:>6}  {token.prefix + '…':<9} {token.user.get_username():<20} "
                f"{timezone.localtime(token.created_at):%Y-%m-%d %H:%M}  {status}"
            )

    def revoke(self, reference: str):
        token = tokens.find_token(reference=reference)
        if tokens.revoke_tokens(tokens=[token]):
            self.stdout.write(f"Revoked token {token.pk} ({token.prefix}…) of {token.user}.")
        else:
            self.stdout.write(f"Token {token.pk} ({token.prefix}…) was already revoked.")
