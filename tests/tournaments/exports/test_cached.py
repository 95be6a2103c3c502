"""The export downloads are built once per live version of the tournament, like the pages:
a second download reads the cache, a closed round builds a new file."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext
from endplay.parsers import pbn as pbn_parser

from tests.support.api import Api
from tournaments.exports import pbn, usebio
from tournaments.live import cache as live_cache
from tournaments.services import clock

pytestmark = pytest.mark.django_db


@pytest.fixture
def fresh_live_cache():
    cache.clear()
    live_cache.clear_memo()
    yield
    cache.clear()
    live_cache.clear_memo()


@pytest.mark.parametrize(
    ("path", "module"), [("export.pbn", pbn), ("export.xml", usebio)], ids=["pbn", "usebio"]
)
def test_an_export_is_built_once_per_live_version(
    export_running, fresh_live_cache, monkeypatch, director, path, module
):
    tournament, _pairs = export_running
    renders = []
    real_render = module.render

    def counted_render(data):
        renders.append(len(data.boards))
        return real_render(data)

    monkeypatch.setattr(module, "render", counted_render)
    url = f"/tournaments/{tournament.pk}/{path}"
    with CaptureQueriesContext(connection) as first_queries:
        first = Api().get(url)
    assert first.status_code == 200 and renders == [2]
    with CaptureQueriesContext(connection) as again_queries:
        again = Api().get(url)
    assert again.status_code == 200 and again.content == first.content
    assert renders == [2]  # not rebuilt
    # The tournament and its live version; none of the export's reads.
    assert len(again_queries) == 2 < len(first_queries), again_queries.captured_queries

    clock.close_round_now(tournament=tournament, by=director)  # round 2 closes: a new live version
    after = Api().get(url)
    assert after.status_code == 200 and renders == [2, 4]
    assert after.content != first.content
    if module is pbn:
        boards = pbn_parser.loads(after.content.decode("utf-8"))
        assert [b.board_num for b in boards] == [1, 2, 3, 4]


def test_a_refused_export_is_not_cached(make_tournament, fresh_live_cache):
    tournament = make_tournament()
    assert Api().get(f"/tournaments/{tournament.pk}/export.pbn").status_code == 409
    assert Api().get(f"/tournaments/{tournament.pk}/export.pbn").status_code == 409
