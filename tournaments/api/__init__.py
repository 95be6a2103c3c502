"""JSON API v1: see app.py for the API object and endpoints.py for its operations."""

from .app import api

__all__ = ["api"]
