"""Test settings: the suite runs against a real PostgreSQL (`scripts/test.sh` starts one)."""

from .base import *  # noqa: F403
from .base import env

if not env("DATABASE_URL", default=""):
    raise RuntimeError("Tests need DATABASE_URL (make test starts a throwaway PostgreSQL).")

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
LANGUAGE_CODE = "en"
# The suite sends thousands of API writes from one address (the fuzz run among them);
# the rate limits' own tests switch them on (override_settings). The login lockout stays
# on: its attempts are database rows, rolled back with each test.
API_WRITE_RATE_PER_USER = ""
API_WRITE_RATE_PER_ADDRESS = ""
SIGNUP_RATE = ""
# The suite imports config.asgi (the real application, through Channels' communicator)
# into its own process: that process is a test runner, not a server holding sockets.
SERVER_TUNES_COLLECTOR = False
