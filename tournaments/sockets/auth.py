"""Who is at the other end of a table's WebSocket, and from which page and address.

People come with their session cookie (Channels' `AuthMiddlewareStack`), from a page of
this site; programs (robots, club systems, tests) with an API token in an
`Authorization: Bearer` header. The token is checked by the service the API's bearer
authentication asks too (`services.tokens.user_of_key`), so an expired or revoked token
is refused here exactly as over HTTP.

The page: a browser sends `Origin` on every WebSocket and sends the player's cookie
with it whoever's page opened the socket, so the origin is compared whole — scheme, host
and port — as Django's CSRF check compares a form's (`site_origin`): the request's own
`Host` (an allowed host) with the scheme the server is reached by, another name of the
site in ALLOWED_HOSTS at that same scheme and port, or an origin of
CSRF_TRUSTED_ORIGINS. A socket without `Origin` is a program's: it is let in with a
token or as anonymous, never on a cookie (`CookieWithoutOrigin`).

A key in the URL (`?token=…`, `?key=…`, or any query value shaped like a key) is
refused, never used: servers and proxies write URLs to their access logs, so a key sent
there is a key written to disk. The query string is blanked in the connection's scope
before anything can log it (uvicorn logs the handshake from that same scope), the key
is revoked if it is a live one, and the client is told why (close code 4401).

`socket_address` is the client's address by the HTTP side's rule
(`limits.client_address`: REMOTE_ADDR, or what the trusted proxies saw).
"""

from __future__ import annotations

import re
from importlib import import_module
from types import SimpleNamespace
from urllib.parse import parse_qsl, urlsplit

from channels.security.websocket import WebsocketDenier
from django.conf import settings
from django.contrib import auth
from django.contrib.auth.models import AnonymousUser
from django.http.request import split_domain_port, validate_host
from django.utils import translation
from django.utils.translation import gettext as _

from .. import limits
from ..services import tokens
from .pool import table_db

# Set in the scope when the client must be told why it is not let in and closed with
# CLOSE_UNAUTHENTICATED (a refused token, a key in the URL, a cookie without Origin),
# instead of being treated as anonymous.
AUTH_REFUSAL = "auth_refusal"
# How the scope's user proved who they are, for the consumer to check again while the
# socket is open (`credential_refusal`): ("token", key), ("session", session key), or
# absent for anonymous.
CREDENTIAL = "credential"
# Set by `KeyInUrlGuard`: the query values that were (or looked like) API keys.
KEYS_IN_URL = "keys_in_url"
# Set by `SiteOriginValidator`: whether the client sent an Origin (a browser does).
HAS_ORIGIN = "has_origin"

# Query parameters that name a key, whatever their value (compared in lower case).
KEY_PARAMETERS = frozenset(
    {"token", "key", "api_key", "apikey", "api-key", "access_token", "auth", "authorization",
     "bearer", "api_token"}
)  # fmt: skip
# A query value shaped like an API key (40 hex digits, 64 for some older ones), with or
# without "Bearer ": refused and revoked whatever its parameter is called.
KEY_SHAPE = re.compile(r"(?:bearer\s+)?([0-9a-f]{40}|[0-9a-f]{64})", re.IGNORECASE)
DEFAULT_PORTS = {"http": 80, "https": 443}


def header(scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return value.decode("latin-1")
    return None


def presented_token(scope) -> str | None:
    """The API key from the `Authorization: Bearer` header."""
    value = header(scope, b"authorization")
    if value is not None:
        scheme, _sep, key = value.partition(" ")
        if scheme.lower() == "bearer":
            return key.strip()
    return None


# --- the client's address ---------------------------------------------------------


def socket_meta(scope) -> dict[str, str]:
    """The scope as a request's META: REMOTE_ADDR and the headers as HTTP_* (what
    `limits.client_address` reads)."""
    client = scope.get("client") or ("", 0)
    meta = {"REMOTE_ADDR": str(client[0] or "")}
    for name, value in scope.get("headers", ()):
        key = "HTTP_" + name.decode("latin-1").upper().replace("-", "_")
        text = value.decode("latin-1")
        # Repeated headers are joined as a WSGI/ASGI server joins them for Django.
        meta[key] = f"{meta[key]},{text}" if key in meta else text
    return meta


def socket_address(scope) -> str:
    """The client's address by the same rule as HTTP's (`limits.client_address`)."""
    return limits.client_address(SimpleNamespace(META=socket_meta(scope)))


# --- the page that opened the socket ----------------------------------------------


def server_scheme(scope) -> str:
    """ "https" or "http": how the client reached the server, as Django's `is_secure`
    decides (the proxy's header when SECURE_PROXY_SSL_HEADER names one and it is
    present, else the connection's own scheme)."""
    proxy_header = getattr(settings, "SECURE_PROXY_SSL_HEADER", None)
    if proxy_header:
        name, secure_value = proxy_header
        value = socket_meta(scope).get(name)
        if value is not None:
            return "https" if value.split(",")[0].strip() == secure_value else "http"
    return "https" if scope.get("scheme") in ("wss", "https") else "http"


def _allowed_hosts() -> list[str]:
    hosts = list(settings.ALLOWED_HOSTS)
    if settings.DEBUG and not hosts:  # as Django's own default in development
        hosts = [".localhost", "127.0.0.1", "[::1]"]
    return hosts


def _origin_host(hostname: str) -> str:
    """An origin's hostname as ALLOWED_HOSTS and the Host header write it."""
    return f"[{hostname}]" if ":" in hostname else hostname


def site_origin(scope, origin: str) -> bool:
    """Whether `origin` (the Origin header) is a page of this site, scheme, host and port
    compared: see the module's docstring."""
    try:
        parsed = urlsplit(origin)
        origin_port = parsed.port or DEFAULT_PORTS.get(parsed.scheme)
    except ValueError:
        return False
    if parsed.scheme not in DEFAULT_PORTS or not parsed.hostname or parsed.path:
        return False
    scheme = server_scheme(scope)
    origin_host = _origin_host(parsed.hostname)
    host = header(scope, b"host")
    if host is None and scope.get("server"):
        server_host, server_port = scope["server"][0], scope["server"][1]
        host = f"{_origin_host(server_host)}:{server_port}" if server_port else server_host
    domain, port = split_domain_port(host) if host else ("", "")
    request_port = int(port) if port else DEFAULT_PORTS[scheme]
    allowed = _allowed_hosts()
    if parsed.scheme == scheme and origin_port == request_port:
        # The request's own host (Django's CSRF check: "scheme://Host"), if it is one
        # the site answers to; or another of the site's exact names at the same port.
        if domain and origin_host == domain and validate_host(domain, allowed):
            return True
        if origin_host in {h.lower() for h in allowed if not h.startswith(".") and h != "*"}:
            return True
    return _trusted_origin(parsed.scheme, parsed.netloc.lower())


def _trusted_origin(scheme: str, netloc: str) -> bool:
    """CSRF_TRUSTED_ORIGINS, read as Django's CSRF check reads it: exact origins, or
    "scheme://*.domain" for the domain's subdomains."""
    for trusted in getattr(settings, "CSRF_TRUSTED_ORIGINS", ()):
        parts = urlsplit(trusted.lower())
        if parts.scheme != scheme:
            continue
        if parts.netloc == netloc:
            return True
        if parts.netloc.startswith("*.") and netloc.endswith(parts.netloc[1:]):
            return True
    return False


class SiteOriginValidator:
    """Refuses at the handshake (HTTP 403) a WebSocket opened by a page of another site,
    which would ride on the player's session cookie; notes whether an Origin came."""

    def __init__(self, application):
        self.application = application

    async def __call__(self, scope, receive, send):
        origin = header(scope, b"origin")
        if origin is not None and not site_origin(scope, origin):
            return await WebsocketDenier()(scope, receive, send)
        scope = dict(scope)
        scope[HAS_ORIGIN] = origin is not None
        return await self.application(scope, receive, send)


# --- keys in the URL --------------------------------------------------------------


def keys_in_query(query_string: bytes) -> tuple[bool, list[str]]:
    """(whether the query carries a key, the values shaped like keys)."""
    pairs = parse_qsl(query_string.decode("latin-1"), keep_blank_values=True)
    named = any(name.strip().lower() in KEY_PARAMETERS for name, _value in pairs)
    keys = [m.group(1) for _name, value in pairs if (m := KEY_SHAPE.fullmatch(value.strip()))]
    return named or bool(keys), keys


class KeyInUrlGuard:
    """Outermost: a query string carrying a key is blanked in the server's own scope
    (the same dict uvicorn logs the handshake's path and query from, at the accept), so
    the key is never written to a log; the key itself goes on in memory only, for
    `TokenAuthMiddleware` to revoke and refuse."""

    def __init__(self, application):
        self.application = application

    async def __call__(self, scope, receive, send):
        carries, keys = keys_in_query(scope.get("query_string", b""))
        if carries:
            scope["query_string"] = b"redacted"  # in place: the server's log reads it
            scope = dict(scope)
            scope[KEYS_IN_URL] = keys
        return await self.application(scope, receive, send)


# --- the user ---------------------------------------------------------------------


@table_db
def _token_user(key: str):
    """(user, refusal): the token's active user, or None and the reason to tell."""
    try:
        user = tokens.user_of_key(key=key)
    except tokens.KeyRefused as refused:
        return None, str(refused)
    if user is None:
        return None, _("Unknown API token.")
    return user, None


@table_db
def _revoke_keys(keys: list[str]) -> int:
    return sum(tokens.revoke_exposed_key(key) for key in keys)


def _key_in_url_refusal(revoked: int) -> str:
    message = _(
        "API keys are not accepted in the URL (servers log URLs): send the key in the "
        "Authorization header (Authorization: Bearer <key>)."
    )
    if revoked:
        message += " " + _(
            "The key sent in the URL has been revoked, since it may now be in a log: "
            "ask for a new one (manage.py api_token)."
        )
    return message


def socket_language(scope) -> str:
    """The language the site's pages speak to this client, chosen as `LocaleMiddleware`
    chooses it (the site's URLs carry no language): the language cookie (set by the
    pages' language switch), else the browser's Accept-Language, else LANGUAGE_CODE.
    Accounts keep no language of their own: a program gets its Accept-Language's."""
    request = SimpleNamespace(
        COOKIES=scope.get("cookies") or {}, META=socket_meta(scope), path_info="/"
    )
    return translation.get_language_from_request(request)  # type: ignore[arg-type]  # reads COOKIES and META only


class TokenAuthMiddleware:
    """Replaces the session's user by the token's when the client presents a token.

    Goes inside `AuthMiddlewareStack`: a token, when given, wins over a cookie, and a
    refused token never falls back to the session (a program must learn its key is bad).
    Records the credential (`CREDENTIAL`) for the consumer to check again later.

    Also speaks the client's language (`socket_language`) for the whole connection:
    every text the socket sends — a refusal, a rule of play, the bell — is translated as
    the pages would translate it. Each connection is its own task, so the language is
    its own (Django's active language is a context variable there).
    """

    def __init__(self, inner):
        self.inner = inner

    async def __call__(self, scope, receive, send):
        with translation.override(socket_language(scope)):
            return await self._authenticated(scope, receive, send)

    async def _authenticated(self, scope, receive, send):
        if KEYS_IN_URL in scope:
            # Not used, not even to say whether it is valid: the key may be in a log.
            revoked = await _revoke_keys(scope[KEYS_IN_URL]) if scope[KEYS_IN_URL] else 0
            scope = dict(scope, user=AnonymousUser())
            scope[AUTH_REFUSAL] = _key_in_url_refusal(revoked)
            return await self.inner(scope, receive, send)
        key = presented_token(scope)
        if key is not None:
            user, refusal = await _token_user(key)
            scope = dict(scope, user=user or AnonymousUser())
            if refusal is not None:
                scope[AUTH_REFUSAL] = refusal
            else:
                scope[CREDENTIAL] = ("token", key)
            return await self.inner(scope, receive, send)
        user = scope.get("user")
        if getattr(user, "is_authenticated", False):
            if not scope.get(HAS_ORIGIN, False):
                # Browsers always send Origin: a cookie without one is a program's, and
                # a program proves who it is by its token.
                scope = dict(scope, user=AnonymousUser())
                scope[AUTH_REFUSAL] = _(
                    "A login cookie is accepted only from the site's own pages: a program "
                    "sends its API key in the Authorization header (Authorization: Bearer "
                    "<key>)."
                )
            else:
                scope = dict(scope)
                scope[CREDENTIAL] = ("session", scope["session"].session_key)
        return await self.inner(scope, receive, send)


# --- checked again while the socket is open -----------------------------------------


def credential_refusal(credential, user_id) -> str | None:
    """Why the credential a socket was opened with no longer holds for `user_id` (the
    session ended — logged out, expired, the password changed —, the token was revoked
    or expired, the account closed), or None while it does. Synchronous: the consumer
    runs it in the table server's pool."""
    if credential is None:
        return None
    kind, secret = credential
    if kind == "token":
        try:
            user = tokens.user_of_key(key=secret)
        except tokens.KeyRefused as refused:
            return str(refused)
        if user is None or user.pk != user_id:
            return _("This API token no longer works.")
        return None
    engine = import_module(settings.SESSION_ENGINE)
    request = SimpleNamespace(session=engine.SessionStore(secret))
    user = auth.get_user(request)  # verifies the session, its user and the password hash
    if not user.is_authenticated or user.pk != user_id:
        return _("Your login has ended (you logged out or it expired): log in again.")
    return None
