"""Bearer-token authentication for the API (`Authorization: Bearer <key>`).

The table devices of a 1,000-table event call the API thousands of times a minute, so
a request costs one indexed query for the token and its user; `last_used_at` (shown
in admin) is written at most once a minute per token.
"""

from __future__ import annotations

from datetime import timedelta

from django.contrib.auth import get_user_model
from django.utils import timezone
from django.utils.translation import gettext as _
from ninja.security import HttpBearer

from .. import sql
from ..errors import NotAllowed
from ..models import ApiToken

TOUCH_EVERY = timedelta(minutes=1)
MAX_KEY_LENGTH = ApiToken._meta.get_field("key").max_length


USER_FIELDS = frozenset({"id", "username", "is_active", "is_staff", "is_superuser"})


def token_user(key: str) -> tuple | None:
    """(token id, last used at, its user with the fields authorisation reads) in one
    fixed statement; None for an unknown key."""
    User = get_user_model()
    columns, attnames = sql.select_list(User, "u", USER_FIELDS)
    row = sql.fetch_one(
        f"SELECT k.id, k.last_used_at, {columns}"
        f" FROM {sql.quote(ApiToken._meta.db_table)} k"
        f" JOIN {sql.quote(User._meta.db_table)} u ON u.id = k.user_id"
        " WHERE k.key = %s",
        [key],
    )
    if row is None:
        return None
    return row[0], sql.timestamp(row[1]), sql.instance(User, attnames, row[2:])


class TokenAuth(HttpBearer):
    def authenticate(self, request, token):
        token = (token or "").strip()
        # A NUL would reach PostgreSQL as an error, not as a key that doesn't match.
        if not token or len(token) > MAX_KEY_LENGTH or "\x00" in token:
            return None
        found = token_user(token)
        if found is None:
            return None
        token_id, last_used_at, user = found
        if not user.is_active:
            return None
        now = timezone.now()
        if last_used_at is None or now - last_used_at >= TOUCH_EVERY:
            ApiToken.objects.filter(pk=token_id).update(last_used_at=now)
        return user


class OrganiserAuth(TokenAuth):
    """A valid token of a staff user; a valid token of anyone else is refused with 403
    (before the body is read, so a player learns nothing from validation errors).

    Being staff is not enough: each service then checks the permission its power needs
    (`services.permissions`) and refuses with 403 too.
    """

    def authenticate(self, request, token):
        user = super().authenticate(request, token)
        if user is not None and not user.is_staff:
            raise NotAllowed(_("Only an organiser can do this."))
        return user


token_auth = TokenAuth()
organiser_auth = OrganiserAuth()
