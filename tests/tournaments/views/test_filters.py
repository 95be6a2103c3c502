"""Bridge notation and number formats on the pages (template filters and tags)."""

from __future__ import annotations

from datetime import datetime, timedelta
from types import SimpleNamespace

import pytest
from django.utils import translation

from tournaments.templatetags import bridge, charts

MINUS = "\u2212"


@pytest.mark.parametrize(
    ("value", "method", "text"),
    [
        (54.1666, "MP", "54.17%"),
        (100.0, "MP", "100.00%"),
        (3.25, "IMP", "+3.25"),
        (-0.333333, "IMP", f"{MINUS}0.33"),
        (0.0, "IMP", "0.00"),
        (-0.001, "IMP", "0.00"),  # no "−0.00"
        (-7.0, "XIMP", f"{MINUS}7"),
        (3.0, "XIMP", "+3"),
        (0.0, "XIMP", "0"),
        (None, "MP", ""),
    ],
)
def test_board_points(value, method, text):
    assert bridge.points(value, method) == text


@pytest.mark.parametrize(
    ("value", "method", "text"),
    [
        (62.5, "MP", "62.50%"),
        (12.0, "IMP", "+12.00"),
        (12.0, "XIMP", "+12"),
        (-1.5, "XIMP", f"{MINUS}1.50"),
    ],
)
def test_totals(value, method, text):
    assert bridge.total(value, method) == text


def test_scores_cards_and_results():
    assert bridge.score(-50) == f"{MINUS}50" and bridge.score(420) == "+420"
    assert bridge.score(0) == "0"
    assert bridge.neg(420) == -420
    assert bridge.card("HT") == '<span class="suit red">♥</span>10'
    assert bridge.card("SA") == '<span class="suit">♠</span>A'
    assert bridge.relative("-2") == f"{MINUS}2"
    assert bridge.percent(0.8333) == "83.3%"
    assert bridge.suits("4♥X") == '4<span class="suit red">♥</span>X'
    assert bridge.suits("<b>") == "&lt;b&gt;"


def test_notation_follows_the_language():
    with translation.override("zh-hans"):
        assert str(bridge.seat("N")) == "北"
        assert str(bridge.vulnerability("Both")) == "双方有局"
        assert bridge.suits("3NT") == "3无将"
    with translation.override("en"):
        assert str(bridge.seat_name("W")) == "West"
        assert bridge.suits("3NT") == "3NT"


def test_the_clock_knows_its_phase():
    now = datetime(2026, 12, 1, 6, 5)
    tournament = SimpleNamespace(status="running", start_at=now - timedelta(minutes=5))
    round = SimpleNamespace(
        number=2,
        status="open",
        starts_at=now - timedelta(minutes=5),
        ends_at=now + timedelta(minutes=15, seconds=3),
    )
    clock = bridge.round_clock(tournament, round, now)
    assert (clock["phase"], clock["remaining"], clock["deadline"]) == (
        "ends",
        "15:03",
        round.ends_at,
    )
    round.ends_at = now - timedelta(seconds=1)
    assert bridge.round_clock(tournament, round, now)["phase"] == "bell"
    round.status = "scheduled"
    round.starts_at = now + timedelta(hours=1, minutes=2)
    assert bridge.round_clock(tournament, round, now)["remaining"] == "1:02:00"
    tournament.status = "paused"
    assert bridge.round_clock(tournament, round, now)["phase"] == "paused"


def test_line_chart_draws_points_gaps_and_escapes():
    svg = charts.line_chart(
        [3, 1, None, 2], ["R1", "R2", "R3", "<R4>"], invert=True, integer=True, title="a&b"
    )
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    assert svg.count("<circle") == 3 and svg.count("<polyline") == 2  # the gap splits the line
    assert "&lt;R4&gt;" in svg and "a&amp;b" in svg
    assert charts.line_chart([None, None], ["R1", "R2"]) == ""
    # Position 1 (the best) is drawn at the top.
    ys = [float(c.split('cy="')[1].split('"')[0]) for c in svg.split("<circle")[1:]]
    assert ys[1] < ys[2] < ys[0]
