import os

from django.core.wsgi import get_wsgi_application

# The servers' entry points: production unless told otherwise, so a forgotten
# variable fails closed (no DEBUG, no development key). `manage.py` stays on the
# embedded default for `make run`.
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")
application = get_wsgi_application()
