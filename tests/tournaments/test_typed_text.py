"""Free text a person types and others read — an alert, a dispute note, a director's
reason — goes through one check (`validators.typed_text`) on every path: the socket and
the HTTP API share `services.table_play.act`, the pages and the API share `results`."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError

from tests.support.api import Api, result_path, token_for
from tests.support.clock import submit
from tests.support.online_ws import open_online_round, seated_users
from tournaments import validators
from tournaments.errors import PlayRefused, ResultRefused
from tournaments.models import BoardResult, PlayAction, Table
from tournaments.services import clock, results, table_play

MINUTE = timedelta(minutes=1)
HOSTILE = ["4♠ \u202enatural", "\u2066weak\u2069", "bell\x07", "nul\x00", "\u200fmark"]


@pytest.mark.parametrize("text", HOSTILE)
def test_a_control_or_reordering_character_is_refused_and_says_which(text):
    with pytest.raises(ValidationError) as refused:
        validators.typed_text(text, max_length=100)
    assert "U+" in refused.value.messages[0]


def test_plain_text_is_folded_to_one_line_and_cut_to_its_length():
    assert validators.typed_text("  weak\n two   \t", max_length=100) == "weak two"
    assert validators.typed_text("a line\n\nanother ", max_length=100, multiline=True) == (
        "a line\n\nanother"
    )
    assert validators.typed_text("x" * 30, max_length=10) == "x" * 10
    assert validators.typed_text("自然叫 1♣", max_length=100) == "自然叫 1♣"


@pytest.fixture
def table(make_tournament, register_pairs) -> Table:
    _first, tables = open_online_round(make_tournament, register_pairs, boards=1)
    return tables[0]


@pytest.mark.django_db
@pytest.mark.parametrize("text", HOSTILE[:3])
def test_an_alert_with_them_is_refused_over_http_and_the_socket_path_alike(table, text):
    dealer = table.round.boards.get(number=1).dealer
    user = seated_users(table)[dealer]
    tournament = table.round.tournament
    answer = Api(token_for(user)).post(
        result_path(tournament, 1, 1, 1) + "/actions",
        {"seq": 1, "type": "call", "call": "1C", "alert": text},
    )
    assert answer.status_code == 409, answer.content
    assert "U+" in answer.json()["error"]
    with pytest.raises(PlayRefused, match="U\\+"):
        table_play.act(
            table=table,
            board_number=1,
            user=user,
            action={"seq": 1, "type": "call", "call": "1C", "alert": text},
        )
    assert not PlayAction.objects.exists()


@pytest.mark.django_db
def test_a_dispute_note_or_a_directors_reason_with_them_is_refused_and_changes_nothing(
    make_tournament, register_pairs, director, t0
):
    tournament = make_tournament(rounds=2, boards_per_round=2)
    register_pairs(tournament, 4)
    clock.advance(now=t0)
    paper = Table.objects.select_related("ew_pair__player1").get(
        round__tournament=tournament, round__number=1, number=1
    )
    entered = submit(paper, 1, "4S", "N", 10, now=t0 + MINUTE)
    with pytest.raises(ResultRefused, match="U\\+202E"):
        results.dispute_result(
            result=entered, user=paper.ew_pair.player1, note="\u202edown", now=t0 + MINUTE
        )
    stored = BoardResult.objects.get(pk=entered.pk)
    assert not stored.disputed and stored.dispute_note == ""
    with pytest.raises(ResultRefused, match="U\\+0007"):
        results.director_set_result(
            table=paper,
            board_number=1,
            by=director,
            entry=results.ContractEntry(contract="4S", declarer="N", tricks=9),
            reason="ring\x07",
            now=t0 + MINUTE,
        )
    assert BoardResult.objects.get(pk=entered.pk).tricks == 10
