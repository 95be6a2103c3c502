"""Test settings: the suite runs against a real PostgreSQL (`scripts/test.sh` starts one)."""

from .base import *  # noqa: F403
from .base import env

if not env("DATABASE_URL", default=""):
    raise RuntimeError("Tests need DATABASE_URL (make test starts a throwaway PostgreSQL).")

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
LANGUAGE_CODE = "en"
