"""Settings shared by every mode, driven by environment variables.

The embedded default (no variables set) is a SQLite file and the in-process round
clock (`manage.py run_clock`), so `make run` needs neither PostgreSQL nor Redis.
Production sets DATABASE_URL and CELERY_BROKER_URL (see config/settings/production.py).
"""

import ipaddress
from pathlib import Path

import environ
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

BASE_DIR = Path(__file__).resolve().parent.parent.parent

env = environ.Env()
env.read_env(BASE_DIR / ".env", overwrite=False) if (BASE_DIR / ".env").exists() else None


def trusted_proxies(value: str) -> int | list[str]:
    """TRUSTED_PROXIES as a number of proxies ("1") or a list of their addresses and
    networks ("127.0.0.1,10.0.0.0/8"); a wrong address stops the start-up."""
    value = value.strip()
    if value.isdigit():
        return int(value)
    networks = [item.strip() for item in value.split(",") if item.strip()]
    for network in networks:
        try:
            ipaddress.ip_network(network, strict=False)
        except ValueError as error:
            raise ImproperlyConfigured(f"TRUSTED_PROXIES: {error}") from None
    return networks


# Public (it is in the repository): production refuses to start with it.
DEVELOPMENT_SECRET_KEY = "insecure-dev-key-change-me-in-production-0123456789"
SECRET_KEY = env("SECRET_KEY", default=DEVELOPMENT_SECRET_KEY)
DEBUG = env.bool("DEBUG", default=True)
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "django_htmx",
    "axes",
    "tournaments",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Every answer, static files and error pages too, says what a page may load.
    "config.security.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    # After the language is chosen (its refusal is translated), before anything reads a
    # body: a request larger than DATA_UPLOAD_MAX_MEMORY_SIZE gets 413.
    "config.security.RequestSizeLimitMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Last: turns a locked-out login into the login page with the reason (status 429).
    "axes.middleware.AxesMiddleware",
]

# The largest request body read (Django's default, 2.5 MB): the site takes no file
# uploads, and its largest requests (a tournament's settings, a result) are a few KB.
DATA_UPLOAD_MAX_MEMORY_SIZE = env.int("DATA_UPLOAD_MAX_MEMORY_SIZE", default=2_621_440)

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.i18n",
            ],
        },
    },
]

DATABASES = {
    "default": env.db("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # IMMEDIATE takes SQLite's write lock at BEGIN, so a result entry and the round
    # close serialise instead of failing with "database is locked" mid-transaction.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {"transaction_mode": "IMMEDIATE", "timeout": 20}
    )
else:
    DATABASES["default"].setdefault("CONN_MAX_AGE", env.int("CONN_MAX_AGE", default=60))
    DATABASES["default"].setdefault("CONN_HEALTH_CHECKS", True)

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = env("LANGUAGE_CODE", default="en")
LANGUAGES = [("zh-hans", _("Simplified Chinese")), ("en", _("English"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = env("TIME_ZONE", default="Asia/Shanghai")  # what pages show; storage is UTC
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}

# Limits on what one client can make the server do (tournaments/limits.py). Rates are
# "count/period" (s, min, hour, day); an empty value switches a limit off.
#
# Which reverse proxies' X-Forwarded-For is believed (tournaments/limits.py:
# client_address): "0", nothing (the client's own address, REMOTE_ADDR: a client can
# write anything in the header); a number N, the N proxies in front (the address the
# outermost one saw, N hops from the right); or their addresses and networks
# ("127.0.0.1,10.0.0.0/8"), believed only from a REMOTE_ADDR among them. The ASGI server
# must not rewrite REMOTE_ADDR itself (uvicorn --no-proxy-headers).
TRUSTED_PROXIES = trusted_proxies(env("TRUSTED_PROXIES", default="0"))
# API writes per user (token) and per address. A table enters about four results in a
# round; a whole 1,000-table event enters 4,000 in the last minute, but from 1,000
# devices, so the per-user rate is never reached in play. The per-address rate allows a
# large club whose tables all share one address.
API_WRITE_RATE_PER_USER = env("API_WRITE_RATE_PER_USER", default="120/min")
API_WRITE_RATE_PER_ADDRESS = env("API_WRITE_RATE_PER_ADDRESS", default="1200/min")
SIGNUP_RATE = env("SIGNUP_RATE", default="10/hour")  # sign-up attempts per address
# Login lockout (django-axes, tournaments/limits.py: LoginLockout). Failures lock the
# account from the address they came from, never the account everywhere (anyone could
# lock anyone out), and every login from an address with many failures on any accounts
# (more allowed: a club's players share one address). The lock lasts LOGIN_LOCKOUT_MINUTES
# after the last counted failure, doubled for every LOGIN_FAILURES_PER_ADDRESS failures
# the address made in the last LOGIN_LOCKOUT_MAX_MINUTES, which is also how long failures
# are remembered: after a lock, each further wrong guess locks again.
LOGIN_FAILURES_PER_ACCOUNT = env.int("LOGIN_FAILURES_PER_ACCOUNT", default=5)  # from one address
LOGIN_FAILURES_PER_ADDRESS = env.int("LOGIN_FAILURES_PER_ADDRESS", default=20)
LOGIN_LOCKOUT_MINUTES = env.int("LOGIN_LOCKOUT_MINUTES", default=15)
LOGIN_LOCKOUT_MAX_MINUTES = env.int("LOGIN_LOCKOUT_MAX_MINUTES", default=24 * 60)
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_HANDLER = "tournaments.limits.LoginLockout"
AXES_FAILURE_LIMIT = LOGIN_FAILURES_PER_ACCOUNT
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"], "ip_address"]
AXES_COOLOFF_TIME = "tournaments.limits.login_cool_off"
AXES_CLIENT_IP_CALLABLE = "tournaments.limits.client_address"
AXES_LOCKOUT_CALLABLE = "tournaments.limits.login_locked_out"
# A successful login wipes the failures on that account from that address only
# (LoginLockout.reset_user_attempts): the owner's own typos are forgotten, while a player
# cannot clear the count of the address they guess other accounts' passwords from.
AXES_RESET_ON_SUCCESS = True
# Attempts while locked out are refused without being counted: the lockout ends a
# cool-off after the failures that caused it, and an attack writes nothing more.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_DISABLE_ACCESS_LOG = True  # failures are kept; no row per successful login
AXES_VERBOSE = False

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

# Celery: unset broker = no broker; the embedded clock (`run_clock`) drives the rounds.
CELERY_BROKER_URL = env("CELERY_BROKER_URL", default=env("REDIS_URL", default="")) or None
CELERY_RESULT_BACKEND = None
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_IGNORE_RESULT = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# With acks_late a tick cut short by a lost broker connection is redelivered; cancelling
# it is harmless because the next tick redoes whatever it had not committed.
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = True
# The tick is cheap and idempotent; beat calls it every few seconds and a tick that
# could not run before the next one is due is simply dropped (`expires`).
CLOCK_TICK_SECONDS = env.float("CLOCK_TICK_SECONDS", default=2.0)
CELERY_BEAT_SCHEDULE = {
    "tournament-clock-tick": {
        "task": "tournaments.tasks.clock_tick",
        "schedule": CLOCK_TICK_SECONDS,
        "options": {"expires": CLOCK_TICK_SECONDS * 0.9},
    },
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env("LOG_LEVEL", default="INFO")},
    # axes logs every login failure at INFO; its lockouts are WARNINGs.
    "loggers": {
        "django.db.backends": {"level": "WARNING"},
        "axes": {"level": "WARNING"},
        # Each server process's one line per bell: how its sockets answered it
        # (tournaments/sockets/bell_tally.py; bench_play reads it with LOG_LEVEL=WARNING).
        "tournaments.sockets.bell_tally": {"level": env("BELL_LOG_LEVEL", default="INFO")},
    },
}

# The live table server (tournaments/sockets/consumers.py): the channel layer carries each
# stored action to every connected seat of its table. Between several server processes
# that must be Redis; the embedded default (`make run`: one process) keeps it in memory.
CHANNEL_LAYER_URL = env("CHANNEL_LAYER_URL", default=CELERY_BROKER_URL or "")
# "pubsub" (Redis publish/subscribe: one PUBLISH per action, each process hears it once
# and hands it to its own sockets) or "core" (channels-redis' list-based layer: a copy
# per socket, fetched one by one); BENCHMARKS.md has both.
CHANNEL_LAYER_KIND = env("CHANNEL_LAYER_KIND", default="pubsub")
# Threads (each with its own database connection) per server process for the live
# tables' database calls (`tournaments/sockets/pool.py`).
TABLE_SERVER_DB_THREADS = env.int("TABLE_SERVER_DB_THREADS", default=4)
# Seconds between a server process's full garbage collections (config/collector.py;
# 0: none). Allocations never start one: at thousands of sockets it stops the process
# for a few hundred milliseconds.
SERVER_FULL_COLLECTION_SECONDS = env.float("SERVER_FULL_COLLECTION_SECONDS", default=600.0)
# Whether importing `config.asgi` sets the process's collector for holding sockets: the
# servers' processes do; the test suite, which imports it to talk to the real
# application in its own process, does not (config/settings/test.py).
SERVER_TUNES_COLLECTOR = True
_CHANNEL_LAYER_BACKENDS = {
    "pubsub": "channels_redis.pubsub.RedisPubSubChannelLayer",
    "core": "channels_redis.core.RedisChannelLayer",
}
if CHANNEL_LAYER_KIND not in _CHANNEL_LAYER_BACKENDS:
    raise ImproperlyConfigured(
        f"CHANNEL_LAYER_KIND must be one of {', '.join(_CHANNEL_LAYER_BACKENDS)}"
    )
if CHANNEL_LAYER_URL:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": _CHANNEL_LAYER_BACKENDS[CHANNEL_LAYER_KIND],
            "CONFIG": {"hosts": [CHANNEL_LAYER_URL], "prefix": "swiss-tables"},
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

# E-mail (password reset): printed on the console in development; production sends
# through SMTP (config/settings/production.py).
EMAIL_BACKEND = env("EMAIL_BACKEND", default="django.core.mail.backends.console.EmailBackend")
DEFAULT_FROM_EMAIL = env("DEFAULT_FROM_EMAIL", default="Swiss pairs <noreply@localhost>")
PASSWORD_RESET_RATE = env("PASSWORD_RESET_RATE", default="5/hour")  # requests per address
PASSWORD_RESET_TIMEOUT = env.int("PASSWORD_RESET_TIMEOUT", default=60 * 60 * 24)  # seconds

# The live table server's limits on one client (tournaments/sockets/consumers.py and
# auth.py; docs/PLAY_PROTOCOL.md). Each message a socket sends, and each socket it
# opens, counts against API_WRITE_RATE_PER_USER and _PER_ADDRESS above, in the same
# budget as the API's writes (over it: refused and closed with 4429). How long a socket's
# login session or API token is trusted before it is read again (logged out, revoked,
# expired: closed with 4401); the longest message a socket may send, in characters (a
# table's is a few hundred; longer: closed with 1009); and how many sockets without a
# login one address may hold open, counted in the cache across the server processes
# (0: no cap).
SOCKET_RECHECK_SECONDS = env.float("SOCKET_RECHECK_SECONDS", default=10.0)
SOCKET_MAX_MESSAGE_CHARS = env.int("SOCKET_MAX_MESSAGE_CHARS", default=4096)
ANONYMOUS_SOCKETS_PER_ADDRESS = env.int("ANONYMOUS_SOCKETS_PER_ADDRESS", default=100)
SOCKET_MESSAGE_BURST = env.int("SOCKET_MESSAGE_BURST", default=10)
