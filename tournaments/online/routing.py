"""WebSocket URLs of the live table server (mounted by config/asgi.py)."""

from django.urls import path

from .consumers import BoardConsumer

websocket_urlpatterns = [
    path(
        "ws/tables/<int:table_id>/boards/<int:board>/",
        BoardConsumer.as_asgi(),
        name="ws-table-board",
    ),
    # The same socket named as the HTTP API names the table (tournament, round, table
    # numbers), for programs that know only those.
    path(
        "ws/tournaments/<int:tournament_id>/rounds/<int:number>/tables/<int:table>"
        "/boards/<int:board>/",
        BoardConsumer.as_asgi(),
        name="ws-round-table-board",
    ),
]
