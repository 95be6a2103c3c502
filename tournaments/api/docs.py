"""Interactive API docs that work offline.

ninja's Swagger page loads its assets through `{% static %}`, which only resolves when
"ninja" is in INSTALLED_APPS, and otherwise falls back to a CDN — neither works on an
offline install. The assets ship inside the ninja package, so the API serves them
itself (cached for a day) and the page references them there.
"""

from __future__ import annotations

import json
import mimetypes
from pathlib import Path

import ninja
from django.http import FileResponse, Http404, HttpResponse
from django.urls import reverse
from django.utils.html import escape
from ninja.openapi.docs import Swagger

ASSET_DIR = Path(ninja.__file__).resolve().parent / "static" / "ninja"
ASSETS = {
    "swagger-ui.css",
    "swagger-ui-bundle.js",
    "swagger-ui-init.js",
    "favicon.png",
    "favicon.svg",
}

PAGE = """<!DOCTYPE html>
<html>
<head>
<meta charset="utf-8">
<title>{title}</title>
<link rel="stylesheet" href="{css}">
<link rel="icon" href="{icon}" type="image/png">
</head>
<body>
<script type="application/json" id="swagger-settings">{settings}</script>
<div id="swagger-ui"></div>
<script src="{bundle}"></script>
<script src="{init}"></script>
</body>
</html>
"""


def asset_url(api, name: str) -> str:
    return reverse(f"{api.urls_namespace}:docs-asset", kwargs={"name": name})


class OfflineSwagger(Swagger):
    def render_page(self, request, api, **kwargs) -> HttpResponse:
        settings = dict(self.settings, url=self.get_openapi_url(api, kwargs))
        # "</" inside the JSON would end the script element early.
        settings_json = json.dumps(settings).replace("</", "<\\/")
        html = PAGE.format(
            title=escape(api.title),
            css=asset_url(api, "swagger-ui.css"),
            icon=asset_url(api, "favicon.png"),
            bundle=asset_url(api, "swagger-ui-bundle.js"),
            init=asset_url(api, "swagger-ui-init.js"),
            settings=settings_json,
        )
        return HttpResponse(html, content_type="text/html; charset=utf-8")


def asset_response(name: str) -> FileResponse:
    if name not in ASSETS:
        raise Http404(name)
    content_type = mimetypes.guess_type(name)[0] or "application/octet-stream"
    if content_type.startswith("text/") or content_type.endswith("javascript"):
        content_type += "; charset=utf-8"
    response = FileResponse((ASSET_DIR / name).open("rb"), content_type=content_type)
    response["Cache-Control"] = "public, max-age=86400"
    return response
