"""Limits on what one client can make the server do: a rate per user or address for API
writes and sign-up, and the login lockout's thresholds (django-axes).

Every limit is a setting (config/settings/base.py), so a benchmark or a big club behind
one address can raise or switch it off. The rates are fixed windows counted in the cache
(Redis in production, shared by every worker): two cache operations a request, whatever
the limit, which matters on the result-entry hot path.
"""

from __future__ import annotations

import functools
import hashlib
import ipaddress
import logging
import time
from datetime import timedelta

from axes.handlers.database import AxesDatabaseHandler
from django.conf import settings
from django.core.cache import cache
from django.shortcuts import render
from django.utils.translation import gettext as _
from ninja.throttling import BaseThrottle

logger = logging.getLogger(__name__)

PERIODS = {"s": 1, "sec": 1, "min": 60, "m": 60, "hour": 3600, "h": 3600, "day": 86400, "d": 86400}


def client_address(request) -> str:
    """The client's address, as the limits and the login lockout count it.

    REMOTE_ADDR (the server must not rewrite it from proxy headers: uvicorn runs with
    --no-proxy-headers), unless TRUSTED_PROXIES says whose X-Forwarded-For to believe.
    The header is read from the right, since a client can put anything on its left:
    with a number N of proxies, the address N hops from the right (the one the outermost
    proxy saw); with a list of proxy networks, only when REMOTE_ADDR is among them, and
    then the right-most address that is not a trusted proxy's."""
    remote = request.META.get("REMOTE_ADDR", "") or ""
    trusted = getattr(settings, "TRUSTED_PROXIES", 0)
    if not trusted:
        return remote
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
    hops = [hop.strip() for hop in forwarded.split(",") if hop.strip()]
    if isinstance(trusted, int):
        if hops and _is_address(hops[-min(trusted, len(hops))]):
            return hops[-min(trusted, len(hops))]
        return remote
    networks = _networks(tuple(trusted))
    address = remote
    # Walk left while the address in hand is a trusted proxy's: that proxy wrote the hop
    # before it. A hop that is no address ends the walk at the last one believed.
    while hops and _among(address, networks):
        hop = hops.pop()
        if not _is_address(hop):
            break
        address = hop
    return address


@functools.lru_cache(maxsize=8)
def _networks(trusted: tuple[str, ...]) -> tuple:
    return tuple(ipaddress.ip_network(network, strict=False) for network in trusted)


def _among(address: str, networks: tuple) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip.version == network.version and ip in network for network in networks)


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
    """Axes' database handler, locking the account from one address and the address.

    AXES_LOCKOUT_PARAMETERS counts the failures on (account, address) and on the
    address: an account is locked from an address after LOGIN_FAILURES_PER_ACCOUNT
    failures there, so its owner elsewhere still logs in; every login from an address is
    locked after LOGIN_FAILURES_PER_ADDRESS failures (higher: a club's players may all
    log in through one address). Axes compares one number with AXES_FAILURE_LIMIT (the
    account's), so the address's count is scaled to it: floor(n × account / address)
    reaches account exactly when n reaches address.

    Failures are remembered LOGIN_LOCKOUT_MAX_MINUTES (they make the cool-off grow,
    `login_cool_off`) but only those within the cool-off count towards a lock."""

    def get_failures(self, request, credentials=None) -> int:
        # limits.py is named in settings (axes' handler): no model machinery at import.
        from django.db.models import Sum

        account = settings.LOGIN_FAILURES_PER_ACCOUNT
        thresholds = {("ip_address",): settings.LOGIN_FAILURES_PER_ADDRESS}
        worst = 0
        for parameter, attempts in zip(
            settings.AXES_LOCKOUT_PARAMETERS,
            self.get_user_attempts(request, credentials),
            strict=True,
        ):
            key = (parameter,) if isinstance(parameter, str) else tuple(parameter)
            n = attempts.aggregate(n=Sum("failures_since_start"))["n"] or 0
            worst = max(worst, n * account // thresholds.get(key, account))
        return worst

    def clean_expired_user_attempts(self, request=None, credentials=None) -> int:
        # Axes deletes every failure older than this request's cool-off, which would wipe
        # another address's longer one: failures are kept as long as the longest.
        from axes.models import AccessAttempt
        from django.utils import timezone

        horizon = timezone.now() - timedelta(minutes=settings.LOGIN_LOCKOUT_MAX_MINUTES)
        count, _ = AccessAttempt.objects.filter(attempt_time__lte=horizon).delete()
        return count

    def reset_user_attempts(self, request, credentials=None) -> int:
        # After a successful login (AXES_RESET_ON_SUCCESS): forget that account's failures
        # from that address, never the address's failures on other accounts.
        from axes.helpers import get_client_username
        from axes.models import AccessAttempt

        username = get_client_username(request, credentials)
        count, _ = AccessAttempt.objects.filter(
            username=username, ip_address=request.axes_ip_address
        ).delete()
        return count


def login_cool_off(request=None) -> timedelta:
    """How long a login lockout lasts for this request's address (AXES_COOLOFF_TIME):
    LOGIN_LOCKOUT_MINUTES, doubled for every LOGIN_FAILURES_PER_ADDRESS failures from the
    address remembered (LOGIN_LOCKOUT_MAX_MINUTES), and never longer than that. An
    address guessing passwords waits longer and longer; a club's occasional typos never
    reach the first doubling."""
    base = timedelta(minutes=settings.LOGIN_LOCKOUT_MINUTES)
    longest = timedelta(minutes=settings.LOGIN_LOCKOUT_MAX_MINUTES)
    address = getattr(request, "axes_ip_address", None)
    if not address:  # axes' commands and checks ask without a login request
        return base
    from axes.models import AccessAttempt
    from django.db.models import Sum

    failures = AccessAttempt.objects.filter(ip_address=address).aggregate(
        n=Sum("failures_since_start")
    )["n"]
    doublings = min((failures or 0) // max(1, settings.LOGIN_FAILURES_PER_ADDRESS), 16)
    return min(base * 2**doublings, longest)


def login_locked_out(request, original_response=None, credentials=None):
    """The login page again, with the reason and status 429, instead of a bare 403."""
    # limits.py is named in settings (axes' handler): no auth forms at import.
    from django.contrib.auth.forms import AuthenticationForm

    minutes = int(login_cool_off(request).total_seconds() // 60)
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
