"""The Celery app: `celery -A config worker` and `celery -A config beat`."""

import os

from celery import Celery

# The servers' entry points: production unless told otherwise, so a forgotten
# variable fails closed (no DEBUG, no development key). `manage.py` stays on the
# embedded default for `make run`.
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")

app = Celery("config")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
