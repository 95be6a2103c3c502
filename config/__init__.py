"""Django project configuration; the Celery app is loaded with Django so tasks register."""

from .celery import app as celery_app

__all__ = ("celery_app",)
