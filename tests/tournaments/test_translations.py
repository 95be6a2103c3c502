"""The scoring engine's refusals reach Chinese-speaking players in Chinese.

The engine stays free of Django: it keeps each message's English template and values
apart, and the application translates the template before filling it in.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from django.test import Client
from django.utils import translation

import play
import scoring
from tests.support.api import result_path, table_of, token_for
from tournaments.errors import scoring_message

CONTRACT_SOURCE = Path(scoring.__file__).with_name("contract.py")


def marked_templates() -> list[str]:
    """Every message the contract parser marks for translation, read from its source."""
    source = CONTRACT_SOURCE.read_text(encoding="utf-8")
    found = re.findall(r'_\(\s*"((?:[^"\\]|\\.)*)"\s*\)', source)
    assert len(found) >= 15, found
    return found


@pytest.mark.parametrize("template", marked_templates())
def test_every_player_facing_refusal_has_a_chinese_translation(template):
    with translation.override("zh-hans"):
        translated = translation.gettext(template)
    assert translated != template, f"no zh-hans translation for {template!r}"
    # The translation must use the same placeholders, or filling it in would fail.
    placeholders = sorted(re.findall(r"%\(\w+\)[rs]", template))
    assert sorted(re.findall(r"%\(\w+\)[rs]", translated)) == placeholders


@pytest.mark.parametrize(
    ("call", "english", "chinese"),
    [
        (lambda: scoring.parse_contract("8S"), "level must be 1–7, got 8 in '8S'", "阶数必须是"),
        (lambda: scoring.parse_contract("4Q"), "unknown strain 'Q' in '4Q'", "无法识别"),
        (lambda: scoring.validate_declarer("X"), "declarer must be N, E, S or W", "庄家必须是"),
        (lambda: scoring.validate_tricks(14), "tricks must be from 0 to 13, got 14", "墩数"),
        (lambda: scoring.tricks_from_result("7NT", "+1"), "7NT+1 would be 14 tricks", "14 墩"),
    ],
)
def test_a_refusal_reads_in_the_players_language(call, english, chinese):
    with pytest.raises(scoring.ScoringError) as caught:
        call()
    error = caught.value
    assert english in str(error)  # the engine alone speaks English
    with translation.override("en"):
        assert english in scoring_message(error)
    with translation.override("zh-hans"):
        assert chinese in scoring_message(error)


def test_an_error_without_a_template_is_shown_as_it_is():
    assert scoring_message(ValueError("plain words")) == "plain words"
    assert scoring_message(scoring.ScoringError("100% plain")) == "100% plain"


@pytest.mark.django_db
def test_the_api_refuses_a_bad_contract_in_the_callers_language(api_running):
    tournament, _pairs = api_running
    table = table_of(tournament, 1, 1)
    headers = {
        "HTTP_AUTHORIZATION": f"Bearer {token_for(table.ns_pair.player1)}",
        "HTTP_ACCEPT_LANGUAGE": "zh-hans",
    }
    response = Client().put(
        "/api/v1" + result_path(tournament, 1, 1, 1),
        data=json.dumps({"contract": "9NT", "declarer": "N", "tricks": 9}),
        content_type="application/json",
        **headers,
    )
    assert response.status_code == 400, response.content
    assert "阶数必须是 1–7" in response.json()["error"]
    translation.deactivate()


PLAY_DEAL = "N:A8.AK4.T86.JT953 KQ54.QT7.KQ3.KQ4 T76.J85.AJ972.76 J932.9632.54.A82"


# --- The rules of play's refusals (play/) ------------------------------------------


def play_templates() -> list[str]:
    """Every message the package marks for translation, read from its source."""
    found = []
    for source in sorted(Path(play.__file__).parent.glob("*.py")):
        text = source.read_text(encoding="utf-8")
        found += re.findall(r'_\(\s*"((?:[^"\\]|\\.)*)"', text)
    assert len(found) >= 30, found
    return sorted(set(found))


@pytest.mark.parametrize("template", play_templates())
def test_every_refusal_of_play_has_a_chinese_translation(template):
    with translation.override("zh-hans"):
        translated = translation.gettext(template)
    assert translated != template, f"no zh-hans translation for {template!r}"
    placeholders = sorted(re.findall(r"%\(\w+\)[rs]", template))
    assert sorted(re.findall(r"%\(\w+\)[rs]", translated)) == placeholders


def test_a_refusal_of_play_reads_in_the_players_language():
    with pytest.raises(play.IllegalAction) as caught:
        play.BoardState.start(PLAY_DEAL, "N", "None").apply(play.Call("N", "1NT")).apply(
            play.Call("E", "1S")
        )
    assert str(caught.value) == "insufficient bid: 1S is not higher than 1NT"
    with translation.override("zh-hans"):
        assert scoring_message(caught.value) == "叫品不足：1S 不高于 1NT"
