"""Bearer-token authentication for the API (`Authorization: Bearer <key>`).

The check is the tokens service's (`services.tokens.user_of_key`: one indexed query); an
expired or revoked token is refused with 401 and says why.
"""

from __future__ import annotations

from django.utils.translation import gettext as _
from ninja.errors import AuthenticationError
from ninja.security import HttpBearer

from ..errors import NotAllowed
from ..services import tokens


class TokenRefused(AuthenticationError):
    """A known token that no longer works: the message says why (expired, revoked)."""

    def __init__(self, message: str) -> None:
        super().__init__(401, str(message))


class TokenAuth(HttpBearer):
    def authenticate(self, request, token):
        try:
            return tokens.user_of_key(key=token)
        except tokens.KeyRefused as refused:
            raise TokenRefused(str(refused)) from None


class OrganiserAuth(TokenAuth):
    """A valid token of a staff user; a valid token of anyone else is refused with 403
    (before the body is read, so a player learns nothing from validation errors).

    Being staff is not enough: each service then checks the permission its power needs
    (`services.permissions`) and refuses with 403 too.
    """

    def authenticate(self, request, token):
        user = super().authenticate(request, token)
        if user is not None and not user.is_staff:
            raise NotAllowed(_("Only an organiser can do this."))
        return user


token_auth = TokenAuth()
organiser_auth = OrganiserAuth()
