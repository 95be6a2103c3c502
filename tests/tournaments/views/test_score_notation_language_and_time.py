"""What bridge players read on the pages, through Django's test client: score notation
and its key, adjusted scores explained, Chinese terms and full-width punctuation, names
never in italics, the organiser's description, times with their time zone, and live
table rows through a pause."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path
from types import SimpleNamespace

import pytest
import time_machine
from django.contrib.staticfiles import finders
from django.urls import reverse

from tests.support.pages import open_round_one, round_one_event
from tournaments.models import Pair, Tournament
from tournaments.services import clock as clock_service
from tournaments.services import results
from tournaments.services.clock import advance
from tournaments.services.results import ContractEntry, submit_result

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_pages")]

MINUS = "\u2212"
PO = Path(__file__).resolve().parents[3] / "locale" / "zh_Hans" / "LC_MESSAGES" / "django.po"
ZH = {"HTTP_ACCEPT_LANGUAGE": "zh-hans"}


@pytest.fixture
def event(make_tournament, register_pairs, t0, clock):
    """Round 1 of a 4-pair IMP event is open; table 1 is pairs 1 v 2."""
    return round_one_event(
        make_tournament, register_pairs, t0, rounds=2, boards_per_round=2, scoring_method="IMP"
    )


@pytest.fixture
def mp_with_bye_and_adjustment(make_tournament, register_pairs, organiser, t0):
    """A closed MP round of 5 pairs (one sits out) where the director adjusted board 2
    of table 2."""
    tournament, _pairs, round1, tables = open_round_one(
        make_tournament, register_pairs, t0, pairs=5, rounds=2, boards_per_round=2,
        scoring_method="MP",
    )  # fmt: skip
    for table, (contract, tricks) in zip(tables, [("4S", 11), ("4S", 10)], strict=True):
        submit_result(
            table=table, board_number=1, entry=ContractEntry(contract, "N", tricks),
            user=table.ns_pair.player1, now=t0 + timedelta(minutes=1),
        )  # fmt: skip
    submit_result(
        table=tables[0], board_number=2, entry=ContractEntry("3NT", "S", 9),
        user=tables[0].ns_pair.player1, now=t0 + timedelta(minutes=1),
    )  # fmt: skip
    advance(now=round1.ends_at)
    results.director_set_result(
        table=tables[1], board_number=2, by=organiser, ns_adjustment="A+",
        ew_adjustment="A-", reason="slow play", now=round1.ends_at + timedelta(minutes=1),
    )  # fmt: skip
    return SimpleNamespace(t=tournament, tables=tables)


# --- Scores: "+", "%", and a key --------------------------------------------------------


def test_positive_scores_carry_a_plus_and_mp_figures_a_percent_sign(
    client, mp_with_bye_and_adjustment
):
    t = mp_with_bye_and_adjustment.t
    board = client.get(reverse("board", args=[t.id, 1])).content.decode()
    # 4♠+1 non-vulnerable is NS +450; the top on two tables is 100 % against 0 %.
    assert '<td class="num strong">+450</td>' in board
    assert '<td class="num">100.00%</td>' in board and '<td class="num">0.00%</td>' in board
    grid = client.get(reverse("results", args=[t.id])).content.decode()
    assert re.search(r'title="NS">100\.00%</a>', grid)
    assert 'class="score-legend"' in grid and "a bye" in grid and "not played" in grid
    assert re.search(r'<td class="num cell BYE"', grid), "the pair that sat out has bye cells"


def test_an_adjusted_score_is_marked_and_explained_on_the_traveller(
    client, mp_with_bye_and_adjustment
):
    t = mp_with_bye_and_adjustment.t
    html = client.get(reverse("board", args=[t.id, 2])).content.decode()
    adjusted = re.search(r'<tr data-table="\d+" class="adjusted">.*?</tr>', html, re.S)
    assert adjusted is not None
    assert adjusted.group(0).count('<sup class="adj">A</sup>') == 2
    assert "an adjusted score, awarded by the director" in html
    # The played board next to it carries no mark.
    played = re.search(r'<tr data-table="\d+">.*?</tr>', html, re.S)
    assert played is not None and "adj" not in played.group(0)
    zh = client.get(reverse("board", args=[t.id, 2]), **ZH).content.decode()
    assert "裁判判定的调整分" in zh and "说明：" in zh


# --- Chinese terms, punctuation, names ------------------------------------------------------


def test_chinese_terms_boards_played_and_withdraw(client, event):
    submit_result(
        table=event.tables[0], board_number=1, entry=ContractEntry("4S", "N", 10), user=event.ns,
        now=event.round.starts_at + timedelta(minutes=1),
    )  # fmt: skip
    advance(now=event.round.ends_at)
    url = reverse("tournament", args=[event.t.id])
    html = client.get(url, **ZH).content.decode()
    standings = html.split('class="data standings"', 1)[1]
    assert '<th class="num">副数</th>' in standings and "牌号" not in standings
    client.force_login(event.ns)
    page = client.get(reverse("withdraw_pair", args=[event.t.id, event.pairs[0].id]), **ZH)
    text = page.content.decode()
    assert "确定退赛吗？" in text and "确定退赛" in text and "弃权" not in text


def _msgstrs(text: str) -> list[str]:
    """Every msgstr of the catalogue, continuation lines joined."""
    out = []
    for block in re.findall(r'^msgstr(?:\[\d\])? ((?:".*"\n?)+)', text, re.M):
        out.append("".join(re.findall(r'"(.*)"', block)))
    return out


def test_chinese_text_uses_full_width_punctuation():
    cjk = r"[\u4e00-\u9fff]"
    problems = []
    for msg in _msgstrs(PO.read_text(encoding="utf-8")):
        # Placeholders, markup and code samples may keep their ASCII.
        bare = re.sub(
            r"%\(\w+\)[sdr]|<[^>]*>|\{[^}]*\}|[A-Za-z0-9][A-Za-z0-9_.@+\-=/\\\":]*", " ", msg
        )
        if re.search(cjk + r"\s*[,;:!?()]|[,;:!?()]\s*" + cjk, bare):
            problems.append(msg)
    assert problems == []
    assert "弃权" not in PO.read_text(encoding="utf-8")


def test_names_are_never_set_in_italics(client, make_tournament, make_user, t0):
    css = Path(finders.find("css/site.css")).read_text(encoding="utf-8")
    assert "font-style: italic" not in css
    tournament = make_tournament(name="春季瑞士移位赛", start_at=t0 + timedelta(days=1))
    alice, bob = make_user("alice", name="王芳"), make_user("bob", name="李伟")
    with time_machine.travel(t0 - timedelta(hours=1), tick=False):
        client.force_login(bob)
        client.post(reverse("propose_pair", args=[tournament.id]), {"partner": "alice"})
        client.force_login(alice)
        html = client.get(reverse("home"), **ZH).content.decode()
    assert "<em>" not in html
    assert '<span class="t-name">春季瑞士移位赛</span>' in html and "李伟" in html


def test_messages_name_the_partner_by_display_name(client, make_tournament, make_user, t0):
    tournament = make_tournament(start_at=t0 + timedelta(days=1))
    alice, bob = make_user("ux_al", name="Alice Wang"), make_user("ux_bo", name="Bob Li")
    with time_machine.travel(t0 - timedelta(hours=1), tick=False):
        client.force_login(alice)
        html = client.post(
            reverse("propose_pair", args=[tournament.id]), {"partner": "ux_bo"}, follow=True
        ).content.decode()
        messages = html.split('class="messages"', 1)[1].split("</ul>", 1)[0]
        assert "You invited Bob Li." in messages and "ux_bo" not in messages
        pair = Pair.objects.get(tournament=tournament)
        client.force_login(bob)
        html = client.post(
            reverse("confirm_pair", args=[tournament.id, pair.id]), follow=True
        ).content.decode()
        assert "You are registered with Alice Wang as pair no. 1." in html


# --- The tournament page: description, time zone ---------------------------------------------


def test_the_organisers_description_is_on_the_tournament_page(client, make_tournament, t0):
    tournament = make_tournament(
        start_at=t0 + timedelta(days=1),
        description="Club night, 7 rounds.\nBring your system card <b>please</b>.",
    )
    html = client.get(reverse("tournament", args=[tournament.id])).content.decode()
    section = html.split('class="panel t-description"', 1)[1].split("</section>", 1)[0]
    assert "Club night, 7 rounds.<br>Bring your system card &lt;b&gt;please&lt;/b&gt;." in section
    bare = make_tournament(start_at=t0 + timedelta(days=1))
    assert "t-description" not in client.get(reverse("tournament", args=[bare.id])).content.decode()


def test_times_say_their_time_zone(client, make_tournament, event, t0):
    head = client.get(reverse("tournament", args=[event.t.id])).content.decode()
    # T0 is 06:00 UTC: 14:00 in Shanghai, the site's zone.
    assert "2026-12-01 14:00 UTC+8</time>" in head
    assert re.search(r"at \d\d:\d\d UTC\+8", head), "the clock's end time has its zone"
    later = make_tournament(
        start_at=t0 + timedelta(days=3), registration_opens_at=t0 + timedelta(days=1)
    )
    home = client.get(reverse("home")).content.decode()
    assert f"{(t0 + timedelta(days=3)).strftime('%Y-%m-%d')} 14:00 UTC+8" in home
    assert "Registration opens 2026-12-02 14:00 UTC+8" in home
    assert later.name in home


def test_a_registration_refusal_says_its_time_zone(client, make_tournament, make_user, t0):
    tournament = make_tournament(
        start_at=t0 + timedelta(days=3), registration_opens_at=t0 + timedelta(days=1)
    )
    make_user("partner")
    client.force_login(make_user("early"))
    with time_machine.travel(t0, tick=False):
        html = client.post(
            reverse("propose_pair", args=[tournament.id]), {"partner": "partner"}, follow=True
        ).content.decode()
    assert f"Registration for {tournament.name} opens at 2026-12-02 14:00 UTC+8." in html


# --- The table page after a pause ------------------------------------------------------------


def test_a_pause_sends_every_row_with_the_notice_and_a_resume_takes_it_away(
    client, event, organiser
):
    client.force_login(event.ew)
    table_url = reverse(
        "table", args=[event.t.id, event.tables[0].round.number, event.tables[0].number]
    )
    page = client.get(table_url)
    query = {f"rv_{r.board.number}": r.version for r in page.context["rows"]}
    query["rs"] = page.context["round_state"]
    updates = reverse("table_updates", args=[event.t.id, event.tables[0].id])
    assert client.get(updates, query).status_code == 204

    clock_service.pause(tournament=event.t, by=organiser)
    html = client.get(updates, query).content.decode()
    assert 'id="clock-box" hx-swap-oob="true"' in html and "Paused by the director" in html
    for n in (1, 2):
        row = html.split(f'id="board-row-{n}" hx-swap-oob="true"', 1)[1].split("</article>")[0]
        assert "Paused by the director: results can be entered again when play resumes." in row
        assert "result-form" not in row  # nothing can be entered while paused
    paused_state = client.get(table_url).context["round_state"]
    assert client.get(updates, {**query, "rs": paused_state}).status_code == 204

    Tournament.objects.filter(pk=event.t.pk).update(status="running")  # as resume leaves it
    html = client.get(updates, {**query, "rs": paused_state}).content.decode()
    assert html.count("hx-swap-oob") >= 3 and "Paused by the director:" not in html
    assert "result-form" in html
