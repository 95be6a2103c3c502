"""Production: PostgreSQL, Redis + Celery worker and beat, HTTPS behind a proxy.

Every secret and host comes from the environment; missing ones fail at start-up.
`DJANGO_SETTINGS_MODULE=config.settings.production manage.py check --deploy` is clean.
"""

from django.core.exceptions import ImproperlyConfigured

from .base import *  # noqa: F403
from .base import DATABASES, DEVELOPMENT_SECRET_KEY, env, trusted_proxies

DEBUG = False


def _secret_key() -> str:
    """SECRET_KEY from the environment, refused when it is the repository's public
    development key or too weak to sign sessions (Django's own deploy check: at least
    50 characters, at least 5 different ones)."""
    key = env("SECRET_KEY", default="")
    if not key:
        raise ImproperlyConfigured("Set the SECRET_KEY environment variable.")
    if key == DEVELOPMENT_SECRET_KEY or key.startswith(("insecure-", "django-insecure-")):
        raise ImproperlyConfigured(
            "SECRET_KEY is the public development key: set a secret one, e.g. "
            "python -c 'import secrets; print(secrets.token_urlsafe(50))'."
        )
    if len(key) < 50 or len(set(key)) < 5:
        raise ImproperlyConfigured(
            "SECRET_KEY is too short: use at least 50 random characters, e.g. "
            "python -c 'import secrets; print(secrets.token_urlsafe(50))'."
        )
    return key


SECRET_KEY = _secret_key()
# The demo commands create accounts with published passwords and play fake results.
DEMO_DATA_ALLOWED = False
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS")
DATABASES["default"] = env.db("DATABASE_URL")
DATABASES["default"]["CONN_MAX_AGE"] = env.int("CONN_MAX_AGE", default=60)
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
CELERY_BROKER_URL = env("CELERY_BROKER_URL", default=env("REDIS_URL", default=None))

SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
# Behind a reverse proxy on the same host by default (README: nginx in front of uvicorn on
# 127.0.0.1): its X-Forwarded-For is believed, nobody else's, so a server reached without
# the proxy still counts the real address. A proxy elsewhere: set its address or network.
TRUSTED_PROXIES = trusted_proxies(env("TRUSTED_PROXIES", default="127.0.0.1,::1"))
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=True)
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=60 * 60 * 24 * 30)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=True)
SECURE_HSTS_PRELOAD = env.bool("SECURE_HSTS_PRELOAD", default=True)
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"

STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}

# Pages cache what they show per change of a tournament (tournaments/live/cache.py);
# a shared Redis cache lets every gunicorn worker use one copy, and the clock warm it.
CACHE_URL = env("CACHE_URL", default=CELERY_BROKER_URL or "")
if CACHE_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": CACHE_URL,
            "KEY_PREFIX": "swiss",
        }
    }
    # Every open table page polls every 3 s as its logged-in player: read the session
    # from Redis (written through to the database, so a Redis restart logs nobody out).
    SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"

# Password-reset mail goes out through SMTP (a local MTA unless EMAIL_HOST is set).
EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
EMAIL_HOST = env("EMAIL_HOST", default="localhost")
EMAIL_PORT = env.int("EMAIL_PORT", default=587)
EMAIL_HOST_USER = env("EMAIL_HOST_USER", default="")
EMAIL_HOST_PASSWORD = env("EMAIL_HOST_PASSWORD", default="")
EMAIL_USE_TLS = env.bool("EMAIL_USE_TLS", default=True)
EMAIL_USE_SSL = env.bool("EMAIL_USE_SSL", default=False)
EMAIL_TIMEOUT = env.int("EMAIL_TIMEOUT", default=20)
