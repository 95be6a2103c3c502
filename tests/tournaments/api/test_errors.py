"""One mapping of refusals to statuses for the whole API (`tournaments/api/errors.py`):
what a service can refuse with is what every write declares, and every write, in
`endpoints` as in `settings_change`, declares the same refusals."""

from __future__ import annotations

import pytest
from django.test import Client

import tournaments.services  # noqa: F401  (every service's errors defined)
from tournaments.api.errors import WRITE_ERRORS
from tournaments.errors import ServiceError

pytestmark = pytest.mark.django_db


def _subclasses(cls: type) -> set[type]:
    found = set(cls.__subclasses__())
    for sub in list(found):
        found |= _subclasses(sub)
    return found


def test_every_service_refusal_has_a_declared_status():
    statuses = {error: error.status_code for error in _subclasses(ServiceError) | {ServiceError}}
    undeclared = {error.__name__: s for error, s in statuses.items() if s not in WRITE_ERRORS}
    assert not undeclared


def test_every_write_declares_every_refusal():
    schema = Client().get("/api/v1/openapi.json").json()
    writes = {
        (method.upper(), path): operation
        for path, item in schema["paths"].items()
        for method, operation in item.items()
        if method in {"post", "put", "patch", "delete"}
    }
    base = "/api/v1/tournaments/{tournament_id}"
    assert ("PATCH", base + "/scoring-settings") in writes  # the settings module's too
    assert ("PATCH", base + "/schedule") in writes
    for name, operation in writes.items():
        declared = {int(status) for status in operation["responses"]}
        assert set(WRITE_ERRORS) <= declared, (name, set(WRITE_ERRORS) - declared)
