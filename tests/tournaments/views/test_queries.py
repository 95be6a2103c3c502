"""A 2,000-pair event: every players' and public page costs a bounded number of queries.

The event is built with bulk inserts and played through the real clock service (seating,
scoring, standings), so the pages read what a real event of that size leaves behind.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.core.cache import cache
from django.urls import reverse
from django.utils import translation

from tests.support.browser.events import bulk_pairs, fill_round, play_rounds
from tournaments.live import cache as live_cache
from tournaments.models import Pair, Round, Table
from tournaments.services import analysis
from tournaments.services.clock import advance

pytestmark = pytest.mark.django_db

PAIRS = 2000
# Per page, session and user lookups included. Generous enough for harmless template
# changes, far below anything that grows with the field (2,000 pairs, 1,000 tables).
BOUNDS = {
    "home": 9,  # with the live broadcasts' list (one query)
    "tournament": 12,
    "fragment_unchanged": 3,
    "fragment": 12,
    "results": 10,
    "board": 14,
    "pair": 12,
    "profile": 8,
    "table": 10,
    "table_updates": 8,
}


@pytest.fixture(autouse=True)
def _fresh_cache():
    cache.clear()
    live_cache.clear_memo()
    yield
    translation.deactivate()


@pytest.fixture
def big(make_tournament, t0):
    tournament = make_tournament(
        name="Big Swiss", rounds=3, boards_per_round=2, scoring_method="MP"
    )
    pairs = bulk_pairs(tournament, PAIRS)
    # A few tables leave their boards unplayed, so some pairs fall under the threshold.
    current = play_rounds(tournament, 2, skip_every=97)
    return tournament, pairs, current


def test_big_event_pages_use_a_bounded_number_of_queries(
    client, big, django_assert_max_num_queries
):
    tournament, pairs, round3 = big
    assert round3.number == 3 and round3.status == "open"
    table = Table.objects.filter(round=round3).order_by("number").last()
    player = table.ew_pair.player1
    t = tournament.id

    with time_machine.travel(round3.starts_at + timedelta(minutes=3), tick=False):
        with django_assert_max_num_queries(BOUNDS["home"]):
            assert client.get(reverse("home")).status_code == 200
        with django_assert_max_num_queries(BOUNDS["tournament"]):
            response = client.get(reverse("tournament", args=[t]))
        assert response.status_code == 200
        assert response.context["seating_tables"] == PAIRS // 2
        # The live standings show the top and the player's neighbourhood, not 2,000 rows.
        assert len(response.context["standings"]) < 100

        client.force_login(player)
        with django_assert_max_num_queries(BOUNDS["home"]):
            response = client.get(reverse("home"))
        assert [s["table"] for s in response.context["seats"]] == [table]
        with django_assert_max_num_queries(BOUNDS["tournament"]):
            response = client.get(reverse("tournament", args=[t]))
        assert response.context["my_table"] == table
        assert any(r and r.pair_id == table.ew_pair_id for r in response.context["standings"])

        fragment = reverse("standings_fragment", args=[t])
        version = response.context["live_version"]
        with django_assert_max_num_queries(BOUNDS["fragment_unchanged"]):
            assert client.get(fragment, {"v": version}).status_code == 204
        with django_assert_max_num_queries(BOUNDS["fragment"]):
            assert client.get(fragment, {"v": "stale"}).status_code == 200

        with django_assert_max_num_queries(BOUNDS["results"]):
            response = client.get(reverse("results", args=[t]))
        assert response.context["pair_count"] == PAIRS
        assert len(response.context["rows"]) == 100
        with django_assert_max_num_queries(BOUNDS["results"]):
            response = client.get(reverse("results", args=[t]), {"page": 20})
        assert len(response.context["rows"]) == 100
        with django_assert_max_num_queries(BOUNDS["results"]):
            client.get(reverse("results", args=[t]), {"q": player.username})

        # Before the clock has analysed the board, then after: the page only reads it.
        for view in ("analysis pending", "analysis stored"):
            if view == "analysis stored":
                analysis.analyse_pending_boards(tournament_id=t, limit=None)
            with django_assert_max_num_queries(BOUNDS["board"]):
                response = client.get(reverse("board", args=[t, 3]))
            html = response.content.decode()
            assert html.count("<tr data-table=") == PAIRS // 2
            assert ("dd-table" in html) == (view == "analysis stored")

        with django_assert_max_num_queries(BOUNDS["pair"]):
            assert client.get(reverse("pair", args=[t, table.ew_pair_id])).status_code == 200
        with django_assert_max_num_queries(BOUNDS["profile"]):
            assert client.get(reverse("profile", args=[player.username])).status_code == 200

        table_url = reverse("table", args=[t, table.round.number, table.number])
        with django_assert_max_num_queries(BOUNDS["table"]):
            page = client.get(table_url)
        assert page.status_code == 200
        with django_assert_max_num_queries(BOUNDS["table_updates"]):
            client.get(reverse("table_updates", args=[t, table.id]))

    # The event ends: final ranking, master points, the same bounds.
    fill_round(round3, seed=3, skip_every=97)
    advance(now=round3.ends_at)
    tournament.refresh_from_db()
    assert tournament.status == "finished"
    client.logout()
    with django_assert_max_num_queries(BOUNDS["home"]):
        assert client.get(reverse("home")).status_code == 200
    with django_assert_max_num_queries(BOUNDS["tournament"]):
        assert client.get(reverse("tournament", args=[t])).status_code == 200
    with django_assert_max_num_queries(BOUNDS["results"]):
        response = client.get(reverse("results", args=[t]))
    first, last = response.context["rows"][0]["line"], response.context["rows"][-1]["line"]
    assert first.rank == 1 and first.master_points == 3
    winner = Pair.objects.get(pk=first.pair_id).player1
    with django_assert_max_num_queries(BOUNDS["profile"]):
        client.get(reverse("profile", args=[winner.username]))
    with django_assert_max_num_queries(BOUNDS["pair"]):
        client.get(reverse("pair", args=[t, last.pair_id]))
    assert Round.objects.filter(tournament=tournament).count() == 3
