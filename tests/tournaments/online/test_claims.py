"""Claims at the system's tables (issue 24, Law 68): the claimer's hand is faced for the
opponents while the claim waits, the view says the claim's total and outcome, and the
claimer's statement is checked, stored with the claim and shown in the record."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from tests.support.online import players_by_seat, table_at
from tournaments.errors import PlayRefused
from tournaments.models import PlayAction
from tournaments.selectors.records import records_of
from tournaments.services import clock, table_play

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]


def _act(table, users, seat, **action):
    view = table_play.board_view(table=table, board_number=1, user=users[seat])
    return table_play.act(
        table=table, board_number=1, user=users[seat], action={"seq": view["next_seq"], **action}
    )


def _after_the_lead(tournament):
    """Board 1 at table 1: 1C by North passed out, East has led. (table, users)."""
    table = table_at(tournament)
    users = players_by_seat(table)
    for seat, call in (("N", "1C"), ("E", "P"), ("S", "P"), ("W", "P")):
        _act(table, users, seat, type="call", call=call)
    lead = table_play.board_view(table=table, board_number=1, user=users["E"])["legal"][0]
    _act(table, users, "E", type="card", card=lead)
    return table, users


def _view(table, users, seat):
    return table_play.board_view(table=table, board_number=1, user=users[seat])


def test_a_claim_faces_the_claimers_hand_says_its_total_and_keeps_its_statement(
    online_running,
):
    tournament, _pairs = online_running
    table, users = _after_the_lead(tournament)
    north_hand = _view(table, users, "N")["hands"]["N"]
    assert "N" not in _view(table, users, "E")["hands"]
    _act(table, users, "N", type="claim", tricks=9, statement="  draw trumps,\n run the clubs ")
    for seat in "NESW":
        view = _view(table, users, seat)
        assert view["hands"]["N"] == north_hand, seat  # Law 68: faced for all four
        assert view["claim"] == {
            "seat": "N",
            "tricks": 9,
            "won": 0,
            "total": 9,
            "statement": "draw trumps, run the clubs",  # one line of plain text
            "awaiting": ["E", "W"],
            "contract": "1C",
            "declarer": "N",
            "outcome": {"made": True, "overtricks": 2},
        }
    # East and West see their own hand, dummy's and the claimer's: never their partner's.
    assert set(_view(table, users, "E")["hands"]) == {"E", "S", "N"}
    assert set(_view(table, users, "W")["hands"]) == {"W", "S", "N"}
    stored = PlayAction.objects.get(table=table, kind="claim")
    assert stored.statement == "draw trumps, run the clubs"

    # Rejected: play goes on and North's hand is North's alone again.
    _act(table, users, "W", type="reject")
    east = _view(table, users, "E")
    assert east["claim"] is None and set(east["hands"]) == {"E", "S"}


def test_a_concession_says_how_many_down(online_running):
    tournament, _pairs = online_running
    table, users = _after_the_lead(tournament)
    _act(table, users, "N", type="claim", tricks=4)
    claim = _view(table, users, "W")["claim"]
    assert claim["statement"] == "" and claim["total"] == 4
    assert claim["outcome"] == {"made": False, "undertricks": 3}


@pytest.mark.parametrize(
    ("statement", "says"),
    [
        ("x" * 501, "at most 500 characters"),
        ("ruff \u202ethe spades", "direction of text"),
        ("ring \x07 the bell", "control characters"),
        (["a", "list"], "is a text"),
    ],
)
def test_a_statement_that_is_not_plain_text_or_too_long_is_refused_and_nothing_stored(
    online_running, statement, says
):
    tournament, _pairs = online_running
    table, users = _after_the_lead(tournament)
    before = PlayAction.objects.filter(table=table).count()
    with pytest.raises(PlayRefused) as refused:
        _act(table, users, "N", type="claim", tricks=9, statement=statement)
    assert says in str(refused.value)
    assert PlayAction.objects.filter(table=table).count() == before
    assert _view(table, users, "E")["claim"] is None


def test_the_accepted_claims_statement_is_in_the_record_and_on_the_board_page(
    online_running, organiser
):
    tournament, _pairs = online_running
    table, users = _after_the_lead(tournament)
    _act(table, users, "N", type="claim", tricks=12, statement="cross-ruff <b>the rest</b>")
    _act(table, users, "E", type="accept")
    _act(table, users, "W", type="accept")
    board = tournament.boards.get(number=1)
    (record,) = records_of(boards=[board])[board.pk]
    assert record.claim.statement == "cross-ruff <b>the rest</b>"
    clock.close_round_now(tournament=tournament, by=organiser, round_number=1)
    page = Client().get(reverse("board", args=[tournament.pk, 1]))
    assert page.status_code == 200
    text = page.content.decode()
    assert "claimed 12 of the remaining tricks" in text, text[text.find("<main") :][:3000]
    assert "The claimer's statement:" in text
    assert "cross-ruff &lt;b&gt;the rest&lt;/b&gt;" in text  # escaped: shown as typed
    assert "<b>the rest</b>" not in text
