"""Errors the services raise for refused input; the message is meant for the person."""

from django.utils.translation import gettext


class ServiceError(Exception):
    """A request was refused; nothing was changed. `str(error)` is the plain-words reason."""

    status_code = 400

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return str(self.message)


class RegistrationError(ServiceError):
    pass


class NotAllowed(ServiceError):
    status_code = 403


class NotFound(ServiceError):
    status_code = 404


class ResultRefused(ServiceError):
    pass


class RoundClosed(ResultRefused):
    """A result arrived after the bell."""

    status_code = 409


class ClockError(ServiceError):
    status_code = 409


def scoring_message(error) -> str:
    """A scoring engine refusal in the active language: the engine keeps its English
    template and the values apart (`scoring.errors`), so the template is translated
    first and then filled in."""
    template = getattr(error, "message", None)
    if not isinstance(template, str):
        return str(error)
    params = getattr(error, "params", None) or {}
    translated = gettext(template)
    return translated % params if params else translated


class PermissionRequired(NotAllowed):
    """The person lacks the Django permission an organiser's power needs
    (`services.permissions.require`)."""

    def __init__(self, message: str, *, permission: str):
        super().__init__(message)
        self.permission = permission


class PlayRefused(ServiceError):
    """A call, card, claim or answer at a system table that is refused (illegal, out of
    turn, a stale sequence number, after the bell); nothing was stored."""

    status_code = 409
