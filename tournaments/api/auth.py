"""Bearer-token authentication for the API (`Authorization: Bearer <key>`).

The table devices of a 1,000-table event call the API thousands of times a minute, so
a request costs one indexed query for the token and its user; `last_used_at` (shown
in admin) is written at most once a minute per token.
"""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone
from django.utils.translation import gettext as _
from ninja.security import HttpBearer

from ..errors import NotAllowed
from ..models import ApiToken

TOUCH_EVERY = timedelta(minutes=1)
MAX_KEY_LENGTH = ApiToken._meta.get_field("key").max_length


class TokenAuth(HttpBearer):
    def authenticate(self, request, token):
        token = (token or "").strip()
        # A NUL would reach PostgreSQL as an error, not as a key that doesn't match.
        if not token or len(token) > MAX_KEY_LENGTH or "\x00" in token:
            return None
        found = ApiToken.objects.select_related("user").filter(key=token).first()
        if found is None or not found.user.is_active:
            return None
        now = timezone.now()
        if found.last_used_at is None or now - found.last_used_at >= TOUCH_EVERY:
            ApiToken.objects.filter(pk=found.pk).update(last_used_at=now)
        return found.user


class OrganiserAuth(TokenAuth):
    """A valid token of a staff user; a valid token of anyone else is refused with 403
    (before the body is read, so a player learns nothing from validation errors)."""

    def authenticate(self, request, token):
        user = super().authenticate(request, token)
        if user is not None and not user.is_staff:
            raise NotAllowed(_("Only an organiser can do this."))
        return user


token_auth = TokenAuth()
organiser_auth = OrganiserAuth()
