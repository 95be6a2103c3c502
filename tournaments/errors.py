"""Errors the services raise for refused input; the message is meant for the person."""


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
