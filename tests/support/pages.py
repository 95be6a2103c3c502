"""Set-up shared by the page tests that go through Django's test client (registered in
tests/conftest.py): a page cache emptied before each test, the server's clock frozen in
round 1, and round 1 of an event opened."""

from __future__ import annotations

from datetime import timedelta

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
