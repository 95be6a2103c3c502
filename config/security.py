"""HTTP-level defences every answer goes through: the Content-Security-Policy header, and
413 for a request body larger than the site reads (DATA_UPLOAD_MAX_MEMORY_SIZE).

The policy lets a page run only the site's own scripts (static/js: no inline script, no
eval; htmx 2 evaluates nothing unless a page uses hx-on or "js:" values, and none does),
talk only to its own host (the live table's WebSocket included), and never be framed.
Styles may be inline: the pages put a small <style> for "your table" and the admin a few
style attributes; a style cannot run code. The API docs (Swagger UI, served from the
ninja package, `tournaments/api/docs.py`) keep the same policy.
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpResponse, JsonResponse
from django.utils.translation import gettext as _
from django.views import defaults

POLICY = {
    "default-src": "'self'",
    "script-src": "'self'",
    "style-src": "'self' 'unsafe-inline'",
    "img-src": "'self' data:",
    "font-src": "'self'",
    "connect-src": "'self'",  # the WebSocket's origin is added per request
    "object-src": "'none'",
    "base-uri": "'self'",
    "form-action": "'self'",
    "frame-ancestors": "'none'",
}


def content_security_policy(request) -> str:
    directives = dict(POLICY)
    # 'self' covers ws:/wss: to the page's own host in CSP 3 browsers only; naming the
    # origin keeps the live table working in the others.
    try:
        host = request.get_host()
    except Exception:  # a disallowed Host: its 400 page needs no WebSocket
        host = ""
    if host:
        scheme = "wss" if request.is_secure() else "ws"
        directives["connect-src"] += f" {scheme}://{host}"
    return "; ".join(f"{name} {value}" for name, value in directives.items())


class ContentSecurityPolicyMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if "Content-Security-Policy" not in response:
            response["Content-Security-Policy"] = content_security_policy(request)
        return response


def too_large_message() -> str:
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE or 0
    return _("The request is too large: at most %(size)s KB is accepted.") % {
        "size": f"{limit // 1024:,}"
    }


def too_large(request) -> HttpResponse:
    """413 with the reason: JSON for the API (as its other refusals), text otherwise."""
    message = too_large_message()
    if request.path.startswith("/api/"):
        return JsonResponse({"error": message}, status=413)
    return HttpResponse(message, status=413, content_type="text/plain; charset=utf-8")


class RequestSizeLimitMiddleware:
    """413 before anything reads a body whose declared length is over the limit.

    Django itself raises RequestDataTooBig when the body is read, a SuspiciousOperation
    answered 400, and inside the API (django-ninja, under DEBUG) a 500 with the
    traceback. The site takes no file uploads, so the limit applies to every body."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        if limit is not None and length > limit:
            return too_large(request)
        return self.get_response(request)


def bad_request(request, exception, template_name=defaults.ERROR_400_TEMPLATE_NAME):
    """handler400: a body found too large only while read (sent without a length) is
    still a 413 with the reason; every other bad request is Django's 400."""
    if isinstance(exception, RequestDataTooBig):
        return too_large(request)
    return defaults.bad_request(request, exception, template_name)
