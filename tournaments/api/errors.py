"""Every refusal as `{"error": "<message>"}` with a 4xx status, never a 500 for bad input:
the handlers `install` puts on the API map each refusal to its status (a service's
refusal to its `ServiceError.status_code`), and `write` is what every write declares:
who may call it, the write limit, and its result or those refusals
(`@router.post(path, **write(200, ResultOut), …)`)."""

from __future__ import annotations

from django.core.exceptions import ObjectDoesNotExist, RequestDataTooBig
from django.http import Http404
from django.utils.translation import gettext as _
from ninja.errors import AuthenticationError, HttpError, Throttled, ValidationError

from config.security import too_large_message

from .. import limits
from ..errors import ServiceError
from .auth import TokenRefused, organiser_auth
from .schemas import ErrorOut

# What a write can answer instead of its result: a bad value (400), no valid token (401),
# no permission (403), nothing there (404), a state that refuses it (409), a malformed
# request (422), too many writes (429).
WRITE_ERRORS = {status: ErrorOut for status in (400, 401, 403, 404, 409, 422, 429)}


def write(status: int, result, *, auth=organiser_auth) -> dict:
    """A write's route declaration besides its path and text: who may call it (an
    organiser's token unless `auth` says otherwise), the write limit, and its result
    with `status` or a refusal."""
    return {
        "auth": auth,
        "throttle": limits.API_WRITE_LIMITS,
        "response": {status: result, **WRITE_ERRORS},
    }


def _error(api, request, message: str, status: int, **headers):
    response = api.create_response(request, {"error": str(message)}, status=status)
    for name, value in headers.items():
        response[name.replace("_", "-")] = value
    return response


def _field(loc) -> str:
    # ninja prefixes the source ("body", "path", "query") and, for bodies, the
    # endpoint's parameter name; the client only knows the field path.
    parts = [str(p) for p in loc]
    if parts[:1] == ["body"]:
        parts = parts[2:] if parts[1:2] == ["payload"] else parts[1:]
    elif len(parts) > 1:
        parts = parts[1:]
    return ".".join(parts) or "request body"


def validation_message(errors) -> str:
    details = [f"{_field(e.get('loc', ()))}: {e.get('msg', '')}" for e in errors[:10]]
    return _("Invalid request: %(details)s") % {"details": "; ".join(details)}


def install(api) -> None:
    def service_error(request, exc: ServiceError):
        return _error(api, request, str(exc), exc.status_code)

    def validation_error(request, exc: ValidationError):
        return _error(api, request, validation_message(exc.errors), 422)

    def authentication_error(request, exc: AuthenticationError):
        message = _("Authentication required: send the header “Authorization: Bearer <token>”.")
        if isinstance(exc, TokenRefused):  # a known token that expired or was revoked
            message = exc.message
        return _error(api, request, message, 401, WWW_Authenticate="Bearer")

    def http_error(request, exc: HttpError):
        message = exc.message
        if exc.status_code == 400 and message.startswith("Cannot parse request body"):
            message = _("The request body is not valid JSON.")
        return _error(api, request, message, exc.status_code)

    def throttled(request, exc: Throttled):
        wait = getattr(request, "limit_retry_after", None)
        message = limits.too_many_requests_message(wait)
        return _error(api, request, message, 429, Retry_After=str(max(1, round(wait or 60))))

    def not_found(request, exc: Exception):
        return _error(api, request, _("Not found."), 404)

    def too_large(request, exc: RequestDataTooBig):
        # A body sent without its length is found too large only while ninja reads it.
        return _error(api, request, too_large_message(), 413)

    api.add_exception_handler(ServiceError, service_error)
    api.add_exception_handler(RequestDataTooBig, too_large)
    api.add_exception_handler(ValidationError, validation_error)
    api.add_exception_handler(AuthenticationError, authentication_error)
    api.add_exception_handler(HttpError, http_error)
    api.add_exception_handler(Throttled, throttled)
    api.add_exception_handler(Http404, not_found)
    api.add_exception_handler(ObjectDoesNotExist, not_found)
