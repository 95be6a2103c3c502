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
from django.conf import settings  # noqa: E402

from config.collector import tune_for_sockets  # noqa: E402
from tournaments.sockets.auth import (  # noqa: E402
    KeyInUrlGuard,
    SiteOriginValidator,
    TokenAuthMiddleware,
)
from tournaments.sockets.routing import websocket_urlpatterns  # noqa: E402

# Pages and the API over HTTP; the live tables over WebSockets: people by their session
# cookie from the site's own pages (the whole origin compared), programs by an API token
# (which wins over a cookie when both are present). Outermost, a key sent in the URL is
# taken out of the scope the server logs from (tournaments.sockets.auth.py).
application = ProtocolTypeRouter(
    {
        "http": django_application,
        "websocket": KeyInUrlGuard(
            SiteOriginValidator(
                AuthMiddlewareStack(TokenAuthMiddleware(URLRouter(websocket_urlpatterns)))
            )
        ),
    }
)

# A server process holds thousands of sockets: its collector is set so that no
# collection stops it for long (config/collector.py).
if settings.SERVER_TUNES_COLLECTOR:
    tune_for_sockets(full_collection_seconds=settings.SERVER_FULL_COLLECTION_SECONDS)
