"""LIN out and back in (RULES 12): a team match the service robots played online, its
round closed, exported as LIN and imported again gives back what the database holds —
the same players as seated, auctions (alerts and their explanations), cards in the order
played, claims, results, each board's IMPs and the match's score."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.test import RequestFactory

import vugraph
from scoring import SEATS
from teams.match import board_imps
from tests.tournaments.vugraph.conftest import BOARDS, played_match
from tournaments.exports import lin
from tournaments.exports.data import NothingToExport
from tournaments.models import Board, BoardResult, ImportedMatch, PlayAction, Table
from tournaments.selectors import imported_matches
from tournaments.selectors.table_seats import table_seats
from tournaments.services.vugraph_import import import_lin_file
from tournaments.views import vugraph as views

pytestmark = pytest.mark.django_db


def _names(table: Table) -> dict[str, str]:
    from django.contrib.auth import get_user_model

    users = get_user_model().objects.select_related("profile").in_bulk(table_seats(table).values())
    from tournaments.models import player_name

    return {seat: player_name(users[user_id]) for seat, user_id in table_seats(table).items()}


def _stored(table: Table, board: Board):
    rows = list(PlayAction.objects.filter(table=table, board=board).order_by("seq"))
    calls = [(r.call, r.alert or None) for r in rows if r.kind == "call"]
    cards = [r.card for r in rows if r.kind == "card"]
    claimed = any(r.kind == "claim" for r in rows) and rows[-1].kind == "accept"
    return calls, cards, claimed


def test_a_played_match_comes_back_from_its_lin_file_as_the_database_has_it(
    match, organiser, rf: RequestFactory
):
    text = lin.match_lin(match=match)
    read = vugraph.read_lin(text)
    assert read.title == "Vugraph, LIN / round trip"  # LIN cannot hold a |
    assert read.segment == "Round 1"
    assert read.teams == (match.home.name, match.away.name)
    assert (read.first_board, read.last_board) == (1, BOARDS)
    for room, table in ((vugraph.OPEN, match.open_table), (vugraph.CLOSED, match.closed_table)):
        names = _names(table)
        assert {seat: read.player(room, seat) for seat in SEATS} == names, room

    outcome = vugraph.replay_match(read, policy=vugraph.STRICT)
    boards = {b.number: b for b in Board.objects.filter(round=match.round)}
    alerts = claims = 0
    for board_outcome in outcome.boards:
        board = boards[board_outcome.number]
        scores = {}
        for room, table in ((vugraph.OPEN, match.open_table), (vugraph.CLOSED, match.closed_table)):
            lin_room = read.board(board.number).room(room)
            calls, cards, claimed = _stored(table, board)
            assert [(c.call, c.explanation) for c in lin_room.calls] == calls
            assert [c.alerted for c in lin_room.calls] == [alert is not None for _c, alert in calls]
            assert list(lin_room.cards) == cards
            assert (lin_room.claim is not None) == claimed
            alerts += sum(c.alerted for c in lin_room.calls)
            claims += claimed
            stored = BoardResult.objects.get(table=table, board=board)
            replayed = board_outcome.room(room)
            assert replayed.accepted and replayed.agrees is not False
            result = replayed.result
            assert result.ns_score == stored.ns_score
            if stored.state == "passed_out":
                assert result.contract is None
            else:
                assert (str(result.contract), result.declarer, result.tricks) == (
                    stored.contract,
                    stored.declarer,
                    stored.tricks,
                )
            scores[room] = stored.ns_score
        assert board_outcome.imps == board_imps(scores[vugraph.OPEN], scores[vugraph.CLOSED])
    assert alerts and claims, "the robots alerted and claimed somewhere"
    assert outcome.imps == (match.home_imps_won, match.away_imps_won)
    assert outcome.score == (Decimal(match.home_imps_won), Decimal(match.away_imps_won))

    # Imported through the service: the same, kept with the file.
    item = import_lin_file(by=organiser, data=text.encode("utf-8"), policy="strict")
    assert item.text == text and item.policy == "strict" and item.imported_by == organiser
    assert item.outcome["imps"] == [match.home_imps_won, match.away_imps_won]
    assert item.outcome["refused"] == 0
    assert (item.home_team, item.away_team) == (match.home.name, match.away.name)

    # And drawn by the broadcast page as a finished record.
    request = rf.get(f"/vugraph/{item.pk}/")
    request.user = organiser
    response = views.imported_match(request, item.pk)
    assert response.template_name == "broadcasts/broadcast.html"
    context = response.context_data
    assert context["socket_path"] is None and context["comment_url"] is None
    assert context["title"] == f"{item.title} · Round 1"
    shown = context["snapshot"]
    assert shown["comments"] == [] and shown["event_over"]
    assert [room["key"] for room in shown["rooms"]] == ["open", "closed"]
    assert shown["rooms"][0]["players"] == _names(match.open_table)
    assert shown["score"]["home"] == match.home_imps_won
    assert shown["score"]["away"] == match.away_imps_won
    assert shown["teams"]["home"] == match.home.name
    for line in shown["boards"]:
        board = boards[line["number"]]
        assert line["released"]
        for room, table in (("open", match.open_table), ("closed", match.closed_table)):
            view = line["rooms"][room]
            stored = BoardResult.objects.get(table=table, board=board)
            assert view["stored_result"]["ns_score"] == stored.ns_score
            assert view["over"] and view["result"]["ns_score"] == stored.ns_score
            assert sum(len(hand) for hand in view["hands"].values()) == 52
            calls, cards, _claimed = _stored(table, board)
            assert [(a["call"], a.get("alert")) for a in view["auction"]] == calls
            assert [p["card"] for p in view["play"]] == cards
            assert view["refused"] is None


def test_the_score_carries_the_carry_over_and_a_table_exports_alone(organiser, director):
    match = played_match(organiser, director, boards=2, carry_over=-7)
    read = vugraph.read_lin(lin.match_lin(match=match))
    assert read.carry_over == (Decimal(0), Decimal(7))
    outcome = vugraph.replay_match(read)
    assert outcome.score == (
        Decimal(match.home_imps_won),
        Decimal(7 + match.away_imps_won),
    )
    one = vugraph.read_lin(lin.table_lin(table=match.open_table))
    assert [b.closed for b in one.boards] == [None, None]
    assert [b.open.cards for b in one.boards] == [b.open.cards for b in read.boards]
    assert one.players == read.players[:4]


def test_nothing_is_exported_before_the_round_closes(organiser, director, db):
    from datetime import timedelta

    from django.utils import timezone

    from tests.support.team_events import add_team
    from tournaments.models import Match
    from tournaments.services import clock, setup

    now = timezone.now()
    event = setup.create_tournament(
        by=organiser, now=now - timedelta(days=1), name="Open round",
        registration_opens_at=now - timedelta(days=1), start_at=now - timedelta(seconds=1),
        rounds=1, boards_per_round=2, round_minutes=60, play="online", contestants="teams",
    )  # fmt: skip
    for number in (1, 2):
        add_team(event, number, at=now - timedelta(minutes=10))
    clock.advance(now=now)
    match = Match.objects.select_related("round__tournament", "home", "away").get(
        round__tournament=event
    )
    with pytest.raises(NothingToExport, match="round 1"):
        lin.match_lin(match=match)
    with pytest.raises(NothingToExport):
        lin.table_lin(table=match.open_table)
    assert ImportedMatch.objects.count() == 0


def test_the_downloads_pages_and_api(match, client):
    t = match.round.tournament_id
    page = client.get(f"/t/{t}/matches/{match.pk}/")
    assert f"/t/{t}/matches/{match.pk}.lin" in page.content.decode()
    got = client.get(f"/t/{t}/matches/{match.pk}.lin")
    assert got.status_code == 200 and got["Content-Type"].startswith("text/plain")
    assert got.content.decode() == lin.match_lin(match=match)
    got = client.get(f"/t/{t}/rounds/1/tables/{match.open_table.number}.lin")
    assert got.status_code == 200
    assert got.content.decode() == lin.table_lin(table=match.open_table)
    api = client.get(f"/api/v1/tournaments/{t}/matches/{match.pk}/export.lin")
    assert api.status_code == 200 and api["Content-Type"].startswith("text/plain")
    assert api.content.decode() == lin.match_lin(match=match)
    api = client.get(
        f"/api/v1/tournaments/{t}/rounds/1/tables/{match.closed_table.number}/export.lin"
    )
    assert api.status_code == 200
    assert client.get(f"/api/v1/tournaments/{t}/matches/999999/export.lin").status_code == 404
    assert client.get(f"/t/{t}/matches/999999.lin").status_code == 404
    assert imported_matches.imported_matches().count() == 0
