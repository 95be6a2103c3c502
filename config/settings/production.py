"""Production: PostgreSQL, Redis + Celery worker and beat, HTTPS behind a proxy.

Every secret and host comes from the environment; missing ones fail at start-up.
`DJANGO_SETTINGS_MODULE=config.settings.production manage.py check --deploy` is clean.
"""

from .base import *  # noqa: F403
from .base import DATABASES, env

DEBUG = False
SECRET_KEY = env("SECRET_KEY")
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS")
DATABASES["default"] = env.db("DATABASE_URL")
DATABASES["default"]["CONN_MAX_AGE"] = env.int("CONN_MAX_AGE", default=60)
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
CELERY_BROKER_URL = env("CELERY_BROKER_URL", default=env("REDIS_URL", default=None))

SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
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

# Pages cache what they show per change of a tournament (tournaments/live_cache.py);
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
