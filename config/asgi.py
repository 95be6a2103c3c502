import gc
import os
import warnings

from django.core.asgi import get_asgi_application

# The servers' entry points: production unless told otherwise, so a forgotten
# variable fails closed (no DEBUG, no development key). `manage.py` stays on the
# embedded default for `make run`.
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")
# WhiteNoise (static files) answers with a file iterator Django reads whole in a thread
# under ASGI: right for small CSS and scripts, and said once per file otherwise.
warnings.filterwarnings(
    "ignore",
    message="StreamingHttpResponse must consume synchronous iterators",
    module="django.core.handlers.asgi",
)
# Django is set up before anything imports models (the consumers do).
django_application = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from tournaments.online.routing import websocket_urlpatterns  # noqa: E402
from tournaments.online.ws_auth import TokenAuthMiddleware, browser_origin_validator  # noqa: E402

# Pages and the API over HTTP; the live tables over WebSockets: people by their session
# cookie, programs by an API token (which wins over a cookie when both are present).
application = ProtocolTypeRouter(
    {
        "http": django_application,
        "websocket": browser_origin_validator(
            AuthMiddlewareStack(TokenAuthMiddleware(URLRouter(websocket_urlpatterns)))
        ),
    }
)

# A server process holds thousands of sockets, each a web of long-lived objects, and a
# full collection walks all of them (a few hundred milliseconds at 2,000 sockets, during
# which no socket of the process is served). What exists at start (Django, the URL and
# model machinery) is frozen out of collection, and a full collection waits for 100
# middle-generation ones instead of 10 (BENCHMARKS.md, live tables). Cycles are still
# collected, minutes later at worst.
gc.freeze()
gc.set_threshold(700, 10, 100)
