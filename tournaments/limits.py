"""Limits on what one client can make the server do: a rate per user or address for API
writes and sign-up, and the login lockout's thresholds (django-axes).

Every limit is a setting (config/settings/base.py), so a benchmark or a big club behind
one address can raise or switch it off. The rates are fixed windows counted in the cache
(Redis in production, shared by every worker): two cache operations a request, whatever
the limit, which matters on the result-entry hot path.
"""

from __future__ import annotations

import hashlib
import ipaddress
import logging
import time

from axes.handlers.database import AxesDatabaseHandler
from django.conf import settings
from django.core.cache import cache
from django.shortcuts import render
from django.utils.translation import gettext as _
from ninja.throttling import BaseThrottle

logger = logging.getLogger(__name__)

PERIODS = {"s": 1, "sec": 1, "min": 60, "m": 60, "hour": 3600, "h": 3600, "day": 86400, "d": 86400}


def client_address(request) -> str:
    """The client's address: REMOTE_ADDR, or behind TRUSTED_PROXIES reverse proxies the
    address the outermost trusted proxy saw (counted from the right of X-Forwarded-For,
    since a client can put anything on the left)."""
    remote = request.META.get("REMOTE_ADDR", "") or ""
    proxies = getattr(settings, "TRUSTED_PROXIES", 0)
    if proxies:
        forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
        hops = [hop.strip() for hop in forwarded.split(",") if hop.strip()]
        if hops and _is_address(hops[-min(proxies, len(hops))]):
            return hops[-min(proxies, len(hops))]
    return remote


def _is_address(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def parse_rate(rate: str | None) -> tuple[int, int] | None:
    """'120/min' -> (120, 60); None or '' -> None (no limit)."""
    if not rate:
        return None
    count, _slash, period = rate.partition("/")
    return int(count), PERIODS[period.strip()]


def hit(scope: str, ident, rate: str | None) -> float | None:
    """Count one request of `ident` against `rate`; None while within it, else the
    seconds until the window ends. A cache that cannot count lets the request through:
    a limit must never take the site down with Redis."""
    parsed = parse_rate(rate)
    if parsed is None:
        return None
    limit, period = parsed
    now = time.time()
    window = int(now // period)
    digest = hashlib.sha1(str(ident).encode()).hexdigest()[:20]
    key = f"limit:{scope}:{digest}:{window}"
    try:
        cache.add(key, 0, period + 1)
        count = cache.incr(key)
    except Exception:
        logger.warning("limits: could not count %s", scope, exc_info=True)
        return None
    if count <= limit:
        return None
    return (window + 1) * period - now


class RateLimit(BaseThrottle):
    """ninja throttle: a rate from settings, counted per user or per address."""

    def __init__(self, scope: str, setting: str, *, per: str):
        self.scope, self.setting, self.per = scope, setting, per
        self.retry_after: float | None = None

    def ident(self, request):
        if self.per == "user":
            user = getattr(request, "auth", None)
            return user.pk if user is not None else None
        return client_address(request)

    def allow_request(self, request) -> bool:
        ident = self.ident(request)
        if ident is None:
            return True
        # One instance serves every request (and thread): the wait is kept on the request.
        wait = hit(self.scope, ident, getattr(settings, self.setting, None))
        if wait is None:
            return True
        request.limit_retry_after = max(wait, getattr(request, "limit_retry_after", 0))
        return False

    def wait(self):  # ninja asks after allow_request; Retry-After comes from the request
        return None


# API writes: per user (token) and per address. Reads are public and cached per version.
API_WRITE_LIMITS = [
    RateLimit("api-write-user", "API_WRITE_RATE_PER_USER", per="user"),
    RateLimit("api-write-address", "API_WRITE_RATE_PER_ADDRESS", per="address"),
]


def too_many_requests_message(wait: float | None) -> str:
    return _("Too many requests: slow down and try again in %(seconds)d seconds.") % {
        "seconds": max(1, round(wait or 60))
    }


def signup_refusal(request) -> str | None:
    """Count a sign-up attempt from this address: None while within SIGNUP_RATE, else
    the message saying when to try again."""
    wait = hit("signup", client_address(request), getattr(settings, "SIGNUP_RATE", None))
    if wait is None:
        return None
    return _("Too many sign-ups from your address: try again in %(minutes)d minutes.") % {
        "minutes": max(1, round(wait / 60))
    }


# --- login lockout (django-axes) ------------------------------------------------------


class LoginLockout(AxesDatabaseHandler):
    """Axes' database handler with a threshold per lockout parameter: an account is locked
    after LOGIN_FAILURES_PER_ACCOUNT failures, an address after LOGIN_FAILURES_PER_ADDRESS
    (higher: a club's players may all log in through one address). Axes compares one
    number with AXES_FAILURE_LIMIT (the account's), so the address's count is scaled to
    it: floor(n × account / address) reaches account exactly when n reaches address."""

    def get_failures(self, request, credentials=None) -> int:
        # limits.py is named in settings (axes' handler): no model machinery at import.
        from django.db.models import Sum

        account = settings.LOGIN_FAILURES_PER_ACCOUNT
        limits = {"username": account, "ip_address": settings.LOGIN_FAILURES_PER_ADDRESS}
        worst = 0
        for parameter, attempts in zip(
            settings.AXES_LOCKOUT_PARAMETERS,
            self.get_user_attempts(request, credentials),
            strict=True,
        ):
            n = attempts.aggregate(n=Sum("failures_since_start"))["n"] or 0
            worst = max(worst, n * account // limits.get(parameter, account))
        return worst


def login_locked_out(request, original_response=None, credentials=None):
    """The login page again, with the reason and status 429, instead of a bare 403."""
    # limits.py is named in settings (axes' handler): no auth forms at import.
    from django.contrib.auth.forms import AuthenticationForm

    minutes = int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)
    message = _(
        "Too many failed logins for this account or from your address: logging in is "
        "locked for %(minutes)d minutes. Try again later."
    ) % {"minutes": minutes}
    form = AuthenticationForm(request)
    return render(
        request,
        "registration/login.html",
        {"form": form, "locked_out": message, "next": request.POST.get("next", "")},
        status=429,
    )
