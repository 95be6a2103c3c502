from django.contrib import admin
from django.urls import include, path

from tournaments.api import api

urlpatterns = [
    path("admin/", admin.site.urls),
    path("i18n/", include("django.conf.urls.i18n")),
    path("api/v1/", api.urls),
    path("", include("tournaments.urls")),
]

# A body found too large while read is a 413 with the reason (config/security.py).
handler400 = "config.security.bad_request"
