"""The versioned JSON API (django-ninja), mounted at /api/v1/ by config/urls.py."""

from __future__ import annotations

from ninja import NinjaAPI

from . import docs, errors
from .broadcasts import router as broadcasts_router
from .club import router as club_router
from .club_rate import router as club_rate_router
from .endpoints import router
from .ladder import router as ladder_router
from .movements import router as movements_router
from .play import router as play_router
from .programs import router as programs_router
from .settings_change import router as settings_router
from .teams import router as teams_router
from .vugraph import router as vugraph_router

api = NinjaAPI(
    title="Swiss pairs director API",
    version="1",
    description=(
        "Results are public; writing needs `Authorization: Bearer <token>`, most writes "
        "a tournament director's token (a staff account holding the permission for it). "
        "`manage.py api_token <username>` (or admin, API tokens) "
        "issues a token and shows its key once: only a hash is stored. Tokens may expire "
        "(`--expires-in-days`) and are revoked with `api_token --revoke <prefix>` or in "
        "admin; an expired or revoked token is refused with 401. Writes are rate-limited "
        "per user and per address (429 with a message when exceeded). "
        'Every refusal is `{"error": "<message>"}` with a 4xx status.'
    ),
    urls_namespace="api",
    docs=docs.OfflineSwagger(),
    docs_url="/docs",
    openapi_url="/openapi.json",
)
errors.install(api)
api.add_router("/", router)
api.add_router("/", play_router)
api.add_router("/", settings_router)
api.add_router("/", movements_router)
api.add_router("/", teams_router)
api.add_router("/", ladder_router)
api.add_router("/", broadcasts_router)
api.add_router("/", vugraph_router)
api.add_router("/", club_rate_router)
api.add_router("/", club_router)
api.add_router("/", programs_router)


@api.get("/docs/assets/{name}", include_in_schema=False, url_name="docs-asset")
def docs_asset(request, name: str):
    return docs.asset_response(name)
