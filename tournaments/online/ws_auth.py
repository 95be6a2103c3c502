"""Who is at the other end of a table's WebSocket.

People come with their session cookie (Channels' `AuthMiddlewareStack`); programs
(robots, club systems, tests) with an API token in an `Authorization: Bearer` header.
The token is checked by the API's own lookup (`tournaments.api.auth.TokenAuth`), so an
expired or revoked token is refused here exactly as over HTTP.

A key in the URL (`?token=…`) is refused, never used: servers and proxies write URLs to
their access logs (uvicorn does), so a key sent there is a key written to disk. The
client is told to send it in the Authorization header (close code 4401).
"""

from __future__ import annotations

from urllib.parse import parse_qs

from channels.security.websocket import OriginValidator
from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.utils.translation import gettext as _

from ..api.auth import TokenAuth, TokenRefused
from .db import table_db

# Set in the scope when a token was presented and refused: the consumer accepts, says
# why, and closes with CLOSE_UNAUTHENTICATED instead of treating the client as anonymous.
TOKEN_REFUSAL = "token_refusal"


def presented_token(scope) -> str | None:
    """The API key from the `Authorization: Bearer` header."""
    for name, value in scope.get("headers", ()):
        if name == b"authorization":
            scheme, _sep, key = value.decode("latin-1").partition(" ")
            if scheme.lower() == "bearer":
                return key.strip()
    return None


def token_in_url(scope) -> bool:
    """A `token` query parameter was sent (whatever its value): refused, see above."""
    query = parse_qs(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)
    return "token" in query


@table_db
def _token_user(key: str):
    """(user, refusal): the token's active user, or None and the reason to tell."""
    try:
        user = TokenAuth().authenticate(None, key)
    except TokenRefused as refused:
        return None, str(refused.message)
    if user is None:
        return None, _("Unknown API token.")
    return user, None


class TokenAuthMiddleware:
    """Replaces the session's user by the token's when the client presents a token.

    Goes inside `AuthMiddlewareStack`: a token, when given, wins over a cookie, and a
    refused token never falls back to the session (a program must learn its key is bad).
    """

    def __init__(self, inner):
        self.inner = inner

    async def __call__(self, scope, receive, send):
        if token_in_url(scope):
            # Not looked up, not even to say whether it is valid: the key is in a log now.
            scope = dict(scope, user=AnonymousUser())
            scope[TOKEN_REFUSAL] = _(
                "API keys are not accepted in the URL (servers log URLs): send the key in "
                "the Authorization header (Authorization: Bearer <key>)."
            )
            return await self.inner(scope, receive, send)
        key = presented_token(scope)
        if key is not None:
            user, refusal = await _token_user(key)
            scope = dict(scope, user=user or AnonymousUser())
            if refusal is not None:
                scope[TOKEN_REFUSAL] = refusal
        return await self.inner(scope, receive, send)


class BrowserOriginValidator(OriginValidator):
    """Refuses a WebSocket opened by a page of another site (it would ride on the
    player's session cookie). Browsers always send `Origin` on a WebSocket; a program
    without one proves who it is by its token, or is anonymous."""

    def valid_origin(self, parsed_origin) -> bool:
        return parsed_origin is None or super().valid_origin(parsed_origin)


def browser_origin_validator(application):
    hosts = list(settings.ALLOWED_HOSTS)
    if settings.DEBUG and not hosts:
        hosts = ["localhost", "127.0.0.1", "[::1]"]
    return BrowserOriginValidator(application, hosts)
