"""Set-up shared by the page tests that go through Django's test client (registered in
tests/conftest.py): a page cache emptied before each test, the server's clock frozen in
round 1, round 1 of an event opened (as a tuple, or by name), and a page without its
CSRF tokens for tests that a short text is absent."""

from __future__ import annotations

import re
from datetime import timedelta
from types import SimpleNamespace

import pytest
import time_machine
from django.core.cache import cache
from django.utils import translation

from tournaments.live import cache as live_cache
from tournaments.models import Round, Table
from tournaments.services.clock import advance


@pytest.fixture
def fresh_pages():
    """Pages cache what they render per tournament state: each test starts from nothing.
    A request in Chinese leaves Chinese active in this thread (LocaleMiddleware does not
    reset it): later tests expect the services' English messages.
    A module asks for it with `pytest.mark.usefixtures("fresh_pages")`."""
    cache.clear()
    live_cache.clear_memo()
    yield
    translation.deactivate()


@pytest.fixture
def clock(t0):
    """The server's clock, frozen five minutes into round 1 (views use timezone.now())."""
    with time_machine.travel(t0 + timedelta(minutes=5), tick=False) as traveller:
        yield traveller


def open_round_one(make_tournament, register_pairs, t0, *, pairs: int, **fields) -> tuple:
    """A tournament (`fields` as make_tournament takes them) with `pairs` new pairs, round
    1 opened by the clock at t0. Returns the tournament, its pairs in registration order,
    round 1 and round 1's tables by number."""
    tournament = make_tournament(**fields)
    registered = register_pairs(tournament, pairs)
    advance(now=t0)
    round1 = Round.objects.get(tournament=tournament, number=1)
    tables = list(Table.objects.filter(round=round1).order_by("number"))
    return tournament, registered, round1, tables


def round_one_event(make_tournament, register_pairs, t0, **fields) -> SimpleNamespace:
    """open_round_one with four pairs, by name: t, pairs, round, tables; ns and ns_partner
    (North-South at table 1: pair 1), ew (East-West at table 1: pair 2's player 1) and
    other (pair 3's player 1, at table 2)."""
    tournament, pairs, round1, tables = open_round_one(
        make_tournament, register_pairs, t0, pairs=4, **fields
    )
    return SimpleNamespace(
        t=tournament,
        pairs=pairs,
        round=round1,
        tables=tables,
        ns=pairs[0].player1,
        ns_partner=pairs[0].player2,
        ew=pairs[1].player1,
        other=pairs[2].player1,
    )


def without_tokens(html: str) -> str:
    """A page without its CSRF tokens (64 random letters and digits each), so that a test
    that a short text such as "7NT" is absent cannot be failed by a token's chance."""
    return re.sub(r"[A-Za-z0-9]{64}", "", html)
