"""Shared helpers for the API tests (imported by test_api_*.py and test_exports_*.py).

`Api` wraps Django's test client with a bearer token and JSON bodies; `snapshot()`
dumps every table a refused request could touch, so a test can assert nothing changed.
"""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone, translation

from tournaments.models import (
    ApiToken,
    Board,
    BoardResult,
    Pair,
    PairBoardScore,
    PairMember,
    Round,
    Table,
    Tournament,
)
from tournaments.services.tokens import issue_token, live_tokens

PREFIX = "/api/v1"

SNAPSHOT_MODELS = (Tournament, Pair, PairMember, Round, Board, Table, BoardResult, PairBoardScore)


def snapshot() -> dict:
    from django.contrib.auth import get_user_model

    data = {m.__name__: list(m.objects.order_by("pk").values()) for m in SNAPSHOT_MODELS}
    data["User"] = list(get_user_model().objects.order_by("pk").values("pk", "username"))
    # last_used_at is bookkeeping, not a change a refusal could make.
    data["ApiToken"] = list(
        ApiToken.objects.order_by("pk").values(
            "pk", "key_hash", "user_id", "expires_at", "revoked_at"
        )
    )
    return data


_keys: dict[int, str] = {}  # only the hash is stored: the keys tests were handed


def token_for(user) -> str:
    """A working key of `user`'s, the same one on every call while it works."""
    key = _keys.get(user.pk)
    if (
        key is None
        or not live_tokens(user=user, now=timezone.now())
        .filter(key_hash=ApiToken.hash_key(key))
        .exists()
    ):
        _token, key = issue_token(user=user)
        _keys[user.pk] = key
    return key


class Api:
    def __init__(self, token: str | None = None):
        self.client = Client()
        self.token = token

    def _headers(self, token):
        token = self.token if token is None else token
        return {"HTTP_AUTHORIZATION": f"Bearer {token}"} if token else {}

    def get(self, path, token=None, **params):
        return self.client.get(PREFIX + path, params, **self._headers(token))

    def _send(self, method, path, body, token, raw):
        data = raw if raw is not None else ("" if body is None else json.dumps(body))
        return getattr(self.client, method)(
            PREFIX + path, data=data, content_type="application/json", **self._headers(token)
        )

    def post(self, path, body=None, token=None, raw=None):
        return self._send("post", path, body, token, raw)

    def put(self, path, body=None, token=None, raw=None):
        return self._send("put", path, body, token, raw)


def assert_error(response, status: int, fragment: str = "") -> dict:
    assert response.status_code == status, (response.status_code, response.content[:500])
    body = response.json()
    assert set(body) == {"error"}, body
    assert isinstance(body["error"], str) and body["error"], body
    assert fragment.lower() in body["error"].lower(), body["error"]
    return body


@pytest.fixture
def english():
    # Messages are compared in English; a page test may have left Chinese active.
    with translation.override("en"):
        yield


@pytest.fixture
def organiser_api(organiser):
    return Api(token_for(organiser))


@pytest.fixture
def public_api():
    return Api()


@pytest.fixture
def api_running(organiser, make_tournament, register_pairs):
    """A started IMP tournament (4 pairs, 2 tables, 3 rounds × 2 boards), round 1 open now."""
    from tournaments.services import clock

    tournament = make_tournament(
        start_at=timezone.now() + timedelta(hours=1),
        registration_opens_at=timezone.now() - timedelta(days=1),
        round_length=timedelta(minutes=30),
    )
    pairs = register_pairs(tournament, 4, now=timezone.now())
    clock.start_now(by=organiser, tournament=tournament)
    tournament.refresh_from_db()
    return tournament, pairs


def table_of(tournament, round_number: int, table_number: int) -> Table:
    return Table.objects.select_related("ns_pair", "ew_pair").get(
        round__tournament=tournament, round__number=round_number, number=table_number
    )


def result_path(tournament, round_number=1, table=1, board=1) -> str:
    return f"/tournaments/{tournament.pk}/rounds/{round_number}/tables/{table}/boards/{board}"
