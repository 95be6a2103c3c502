"""API tokens: issued (the key is shown once, only its hash is kept), checked and revoked.

The check (`user_of_key`) is the one the API's bearer authentication and the table
server's sockets both ask, so an expired or revoked token is refused alike over HTTP and
on a socket. The table devices of a 1,000-table event present their key thousands of
times a minute, so a check costs one indexed query for the token (by the SHA-256 of the
key, the only form stored) and its user; `last_used_at` (shown in admin) is written at
most once a minute per token.
"""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from .. import sql
from ..errors import ServiceError
from ..models import ApiToken

# 160 random bits as 40 hex digits: the table devices' configuration expects this shape.
KEY_BYTES = 20
MAX_EXPIRY_DAYS = 3650


# Keys are 40 characters (64 for some issued before hashing); a longer one is not a key,
# and is refused before it is hashed.
MAX_KEY_LENGTH = 64


class TokenError(ServiceError):
    pass


class KeyRefused(ServiceError):
    """A known token that no longer works: the message says why (expired, revoked)."""


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


def user_of_key(*, key: str | None, now: datetime | None = None):
    """The active user whose live token `key` is (the token is touched); None for what is
    no key of anyone's (unknown, malformed, or its account closed). A known token that
    expired or was revoked is refused with `KeyRefused`, saying why."""
    key = (key or "").strip()
    # A NUL would reach PostgreSQL as an error, not as a key that doesn't match.
    if not key or len(key) > MAX_KEY_LENGTH or "\x00" in key:
        return None
    found = token_user(key)
    if found is None:
        return None
    token, user = found
    if not user.is_active:
        return None
    now = now or timezone.now()
    refusal = token.refusal(now)
    if refusal is not None:
        raise KeyRefused(refusal)
    touch_token(token=token, now=now)
    return user


def issue_token(
    *,
    user,
    expires_in_days: int | None = None,
    replace: bool = False,
    now: datetime | None = None,
) -> tuple[ApiToken, str]:
    """A new token for `user` and its key, which is not stored and cannot be shown again.

    `replace` revokes the user's other live tokens in the same transaction.
    """
    now = now or timezone.now()
    if expires_in_days is not None and not 1 <= expires_in_days <= MAX_EXPIRY_DAYS:
        raise TokenError(_("A token expires after 1 to %(max)s days.") % {"max": MAX_EXPIRY_DAYS})
    if not user.is_active:
        raise TokenError(_("%(user)s is not an active user.") % {"user": user.get_username()})
    expires_at = now + timedelta(days=expires_in_days) if expires_in_days else None
    for _attempt in range(3):  # a hash clash of 160 random bits: in theory only
        key = secrets.token_hex(KEY_BYTES)
        token = ApiToken(user=user, expires_at=expires_at)
        token.set_key(key)
        try:
            with transaction.atomic():
                if replace:
                    live_tokens(user=user, now=now).update(revoked_at=now)
                token.save()
        except IntegrityError:
            continue
        return token, key
    raise TokenError(_("Could not issue a token; try again."))


def live_tokens(*, user, now: datetime):
    return ApiToken.objects.filter(user=user, revoked_at__isnull=True).filter(
        Q(expires_at__isnull=True) | Q(expires_at__gt=now)
    )


def find_token(*, reference: str) -> ApiToken:
    """The token named by its id or its prefix (as `api_token --list` and admin show
    them); refused when nothing or more than one token matches."""
    reference = reference.strip().rstrip("…")
    if reference.isdigit():
        found = ApiToken.objects.filter(pk=int(reference)).select_related("user").first()
        if found is not None:
            return found
    prefix = reference[: ApiToken.PREFIX_LENGTH]
    matches = []
    if len(prefix) >= 4:  # shorter would name too many
        matches = list(
            ApiToken.objects.filter(prefix__startswith=prefix).select_related("user")[:20]
        )
    if not matches:
        raise TokenError(_("No API token has the id or prefix “%(ref)s”.") % {"ref": reference})
    if len(matches) > 1:
        raise TokenError(
            _("Several API tokens start with “%(ref)s”: name one by its id (%(ids)s).")
            % {"ref": reference, "ids": ", ".join(str(t.pk) for t in matches)}
        )
    return matches[0]


def revoke_tokens(*, tokens, now: datetime | None = None) -> int:
    """Revoke `tokens` (a queryset or a list); the ones already revoked keep their date.
    Returns how many were revoked now."""
    now = now or timezone.now()
    ids = [t.pk for t in tokens]
    return ApiToken.objects.filter(pk__in=ids, revoked_at__isnull=True).update(revoked_at=now)


def revoke_exposed_key(key: str, *, now: datetime | None = None) -> bool:
    """Revoke the live token whose key is `key`, because the key was exposed (sent in a
    URL, which servers and proxies log). True if a token was revoked now; an unknown,
    expired or already revoked key changes nothing."""
    now = now or timezone.now()
    return bool(
        ApiToken.objects.filter(key_hash=ApiToken.hash_key(key), revoked_at__isnull=True)
        .filter(Q(expires_at__isnull=True) | Q(expires_at__gt=now))
        .update(revoked_at=now)
    )


# Robots (`manage.py play_robots`) act with the players' own tokens: each run issues its
# own, which expire by themselves a day later (a run killed without its cleanup leaves no
# key that works forever) and which the run revokes when it stops.
ROBOT_TOKEN_DAYS = 1


def issue_robot_token(*, user, now: datetime | None = None) -> tuple[ApiToken, str]:
    """A token for the robot that plays in `user`'s seat: expiring after ROBOT_TOKEN_DAYS."""
    return issue_token(user=user, expires_in_days=ROBOT_TOKEN_DAYS, now=now)


# A token's `last_used_at` (shown in admin) is written at most once a minute: the result
# entry hot path reads the token on every request and must not write each time.
TOUCH_EVERY = timedelta(minutes=1)


def touch_token(*, token: ApiToken, now: datetime) -> None:
    """Note that `token` was just used (at most one write a minute per token)."""
    if token.last_used_at is None or now - token.last_used_at >= TOUCH_EVERY:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
