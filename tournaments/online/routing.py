"""WebSocket URLs of the live table server (mounted by config/asgi.py)."""

from django.urls import path

from .consumers import BoardConsumer

websocket_urlpatterns = [
    path(
        "ws/tables/<int:table_id>/boards/<int:board>/",
        BoardConsumer.as_asgi(),
        name="ws-table-board",
    ),
]
