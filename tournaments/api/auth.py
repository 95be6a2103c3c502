"""Bearer-token authentication for the API (`Authorization: Bearer <key>`).

The table devices of a 1,000-table event call the API thousands of times a minute, so
a request costs one indexed query for the token (by the SHA-256 of the key, the only
form stored) and its user; `last_used_at` (shown in admin) is written at most once a
minute per token. An expired or revoked token is refused with 401 and says why.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.utils import timezone
from django.utils.translation import gettext as _
from ninja.errors import AuthenticationError
from ninja.security import HttpBearer

from .. import sql
from ..errors import NotAllowed
from ..models import ApiToken
from ..services import tokens

# Keys are 40 characters (64 for some issued before hashing); a longer header is not a
# key, and is refused before it is hashed.
MAX_KEY_LENGTH = 64


class TokenRefused(AuthenticationError):
    """A known token that no longer works: the message says why (expired, revoked)."""

    def __init__(self, message: str) -> None:
        super().__init__(401, str(message))


USER_FIELDS = frozenset({"id", "username", "is_active", "is_staff", "is_superuser"})


TOKEN_FIELDS = frozenset({"id", "last_used_at", "expires_at", "revoked_at"})


def token_user(key: str) -> tuple | None:
    """(the token with the fields checked here, its user with the fields authorisation
    reads) in one fixed statement, an indexed lookup by the key's hash; None for an
    unknown key."""
    User = get_user_model()
    token_columns, token_attnames = sql.select_list(ApiToken, "k", TOKEN_FIELDS)
    columns, attnames = sql.select_list(User, "u", USER_FIELDS)
    row = sql.fetch_one(
        f"SELECT {token_columns}, {columns}"
        f" FROM {sql.quote(ApiToken._meta.db_table)} k"
        f" JOIN {sql.quote(User._meta.db_table)} u ON u.id = k.user_id"
        " WHERE k.key_hash = %s",
        [ApiToken.hash_key(key)],
    )
    if row is None:
        return None
    n = len(token_attnames)
    values = dict(zip(token_attnames, row[:n], strict=True))
    for name in ("last_used_at", "expires_at", "revoked_at"):
        values[name] = sql.timestamp(values[name])
    token = sql.instance(ApiToken, token_attnames, [values[a] for a in token_attnames])
    return token, sql.instance(User, attnames, row[n:])


class TokenAuth(HttpBearer):
    def authenticate(self, request, token):
        token = (token or "").strip()
        # A NUL would reach PostgreSQL as an error, not as a key that doesn't match.
        if not token or len(token) > MAX_KEY_LENGTH or "\x00" in token:
            return None
        found = token_user(token)
        if found is None:
            return None
        api_token, user = found
        if not user.is_active:
            return None
        now = timezone.now()
        refusal = api_token.refusal(now)
        if refusal is not None:
            raise TokenRefused(refusal)
        tokens.touch_token(token=api_token, now=now)
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
