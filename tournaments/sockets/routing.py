"""WebSocket URLs of the live table server (mounted by config/asgi.py)."""

from django.urls import path

from .. import converters  # noqa: F401  (registers `<id:…>`)
from .broadcast import BroadcastConsumer
from .consumers import BoardConsumer

# Row ids and numbers beyond 64 bits match no route (a 404 close, never an error).

websocket_urlpatterns = [
    path(
        "ws/tables/<id:table_id>/boards/<id:board>/",
        BoardConsumer.as_asgi(),
        name="ws-table-board",
    ),
    # A kibitzer's socket: anyone may open it (RULES 2: the progress only until the
    # round closes, or every hand when the organiser lets kibitzers watch live).
    path(
        "ws/tables/<id:table_id>/boards/<id:board>/kibitz/",
        BoardConsumer.as_asgi(),
        {"kibitz": True},
        name="ws-table-board-kibitz",
    ),
    # The same socket named as the HTTP API names the table (tournament, round, table
    # numbers), for programs that know only those.
    path(
        "ws/tournaments/<id:tournament_id>/rounds/<id:number>/tables/<id:table>/boards/<id:board>/",
        BoardConsumer.as_asgi(),
        name="ws-round-table-board",
    ),
    # A broadcast's spectators (RULES 12): anyone but the event's players while it runs.
    path(
        "ws/broadcasts/<id:broadcast_id>/",
        BroadcastConsumer.as_asgi(),
        name="ws-broadcast",
    ),
]
