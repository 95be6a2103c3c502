"""The personal score card, ties made visible, no ranks before a round has closed, and
the printable seating list and results grid (issue 15, points 2, 3 and 5), through
Django's test client on real PostgreSQL. Expected figures are worked out here from the
Laws and the WBF IMP table, not read back from the application."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import translation

import scoring
from tests.support.pages import open_round_one, without_tokens
from tournaments.models import Round, Table
from tournaments.services.clock import advance
from tournaments.services.results import ContractEntry, submit_result
from tournaments.views import paper

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_pages")]
MINUS = "\u2212"


def enter(table, board: int, entry: ContractEntry, round: Round) -> None:
    submit_result(
        table=table,
        board_number=board,
        entry=entry,
        user=table.ns_pair.player1,
        now=round.starts_at + timedelta(minutes=2),
    )


def card_rows(html: str) -> dict[int, list[str]]:
    """{board: [cell text, …]} of a score card."""
    rows = {}
    for number, row in re.findall(r'<tr data-board="(\d+)">(.*?)</tr>', html, re.S):
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
        rows[int(number)] = [re.sub(r"<[^>]+>|\s+", "", c) for c in cells]
    return rows


def rank_cells(html: str) -> dict[int, str]:
    """{pair_id: the rank cell's text} of the results grid."""
    found = re.findall(
        r'<tr data-pair="(\d+)"[^>]*>\s*<td class="num sticky c1 rank">(.*?)</td>', html, re.S
    )
    return {int(p): re.sub(r"<[^>]+>|\s+", "", cell) for p, cell in found}


@pytest.fixture
def imp_event(make_tournament, register_pairs, t0, clock):
    """A 4-pair cross-IMP event, round 1 played and closed. Board 1 nobody vulnerable,
    board 2 NS vulnerable (RULES 2)."""
    t, pairs, round1, tables = open_round_one(
        make_tournament, register_pairs, t0, pairs=4, rounds=3, boards_per_round=2
    )
    # Table 1: pairs 1 (NS) v 2 (EW); table 2: pairs 3 v 4 (RULES 4, round 1).
    enter(tables[0], 1, ContractEntry("4S", "N", 11, lead="HK"), round1)  # NS +450
    enter(tables[0], 2, ContractEntry("4H", "E", 9, lead="SA"), round1)  # EW −1: NS +50
    enter(tables[1], 1, ContractEntry("4S", "N", 10), round1)  # NS +420
    enter(tables[1], 2, ContractEntry("4H", "E", 10), round1)  # EW makes: NS −420
    advance(now=round1.ends_at)
    return t, pairs, round1, tables


def test_score_card_shows_every_board_from_the_pairs_side(client, imp_event):
    t, pairs, round1, tables = imp_event
    url = reverse("score_card", args=[t.id, pairs[1].id])  # pair 2: EW at table 1
    response = client.get(url)
    assert response.status_code == 200
    html = response.content.decode()
    # Round 1's head: table, direction, the opponents.
    head = re.search(r'data-round="1">\s*<tr class="round-head">(.*?)</tr>', html, re.S)[1]
    assert "Table 1" in head and ">EW<" in head and pairs[0].names.split(" – ")[0] in head
    assert reverse("score_card", args=[t.id, pairs[0].id]) in head
    rows = card_rows(html)
    # Board 1: 4♠ by N +1 after the ♥K lead, NS +450: EW's score −450; 1 table more
    # (+450 v +420, 30 → 1 IMP for NS): EW −1.00.
    assert rows[1] == ["1", "4♠", "N", "♥K", "11+1", f"{MINUS}450", f"{MINUS}1.00"]
    # Board 2: 4♥ by E −1 (EW not vulnerable): NS +50, so EW −50; against NS −420 at
    # the other table, 470 → 10 IMPs for NS: EW −10.00.
    assert rows[2] == ["2", "4♥", "E", "♠A", f"9{MINUS}1", f"{MINUS}50", f"{MINUS}10.00"]
    assert re.search(r"Round 1 score.*?" + f"{MINUS}11.00", html, re.S)
    assert f">{MINUS}11.00</td>" in html.split("<tfoot>")[1]  # the card's total

    # The other side of the same boards.
    rows = card_rows(client.get(reverse("score_card", args=[t.id, pairs[0].id])).content.decode())
    assert rows[1][-2:] == ["+450", "+1.00"] and rows[2][-2:] == ["+50", "+10.00"]


def test_score_card_hides_the_open_round_and_costs_a_fixed_number_of_queries(
    client, imp_event, clock
):
    t, pairs, round1, tables = imp_event
    url = reverse("score_card", args=[t.id, pairs[1].id])
    with CaptureQueriesContext(connection) as one_round:
        client.get(url)
    round2 = Round.objects.get(tournament=t, number=2)
    clock.move_to(round2.starts_at + timedelta(minutes=1))
    advance(now=round2.starts_at)
    table = Table.objects.filter(round=round2).order_by("number").first()
    enter(table, 3, ContractEntry("7NT", "S", 13), round2)
    for pair_id in (table.ns_pair_id, table.ew_pair_id):
        html = client.get(reverse("score_card", args=[t.id, pair_id])).content.decode()
        # Round 2 is open: its table is shown, its results are not (others still play it).
        assert "In play: the results are shown when the round closes." in html
        assert "7NT" not in without_tokens(html) and 'data-board="3"' not in html
    fill_and_close(round2)
    with CaptureQueriesContext(connection) as two_rounds:
        html = client.get(url).content.decode()
    assert 'data-board="3"' in html and 'data-board="4"' in html
    assert len(two_rounds) == len(one_round)


def fill_and_close(round: Round) -> None:
    for table in Table.objects.filter(round=round):
        for board in round.tournament.board_numbers(round.number):
            if not table.results.filter(board__number=board).exists():
                enter(table, board, ContractEntry("3NT", "S", 9), round)
    advance(now=round.ends_at)


def test_score_card_of_a_bye_and_an_unknown_pair(
    client, make_tournament, register_pairs, t0, clock
):
    t, pairs, round1, tables = open_round_one(
        make_tournament, register_pairs, t0, pairs=3, rounds=2, boards_per_round=2
    )
    enter(tables[0], 1, ContractEntry("3NT", "S", 9), round1)
    advance(now=round1.ends_at)
    html = client.get(reverse("score_card", args=[t.id, pairs[2].id])).content.decode()
    rows = card_rows(html)  # pair 3 sat out round 1: average, 0 IMPs
    assert rows[1] == ["1", "Bye:average", "", "0.00"] and rows[2][1] == "Bye:average"
    # Board 2 was not played at table 1: no score for either pair.
    rows = card_rows(client.get(reverse("score_card", args=[t.id, pairs[0].id])).content.decode())
    assert rows[2] == ["2", "Notplayed(cutoffatthebell)", "", ""]
    assert client.get(reverse("score_card", args=[t.id, 9999])).status_code == 404
    other = make_tournament()
    assert client.get(reverse("score_card", args=[other.id, pairs[0].id])).status_code == 404


def test_score_card_in_chinese_and_linked_from_results_pair_and_home(client, imp_event):
    t, pairs, round1, tables = imp_event
    card = reverse("score_card", args=[t.id, pairs[0].id])
    html = client.get(card, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "计分卡" in html and "定约" in html and "第 1 轮" in html
    translation.deactivate()
    assert card in client.get(reverse("results", args=[t.id])).content.decode()
    assert card in client.get(reverse("pair", args=[t.id, pairs[0].id])).content.decode()
    client.force_login(pairs[0].player2)
    # Round 2 is open and pair 1 is seated: "your table" on the home page links the card.
    assert card in client.get(reverse("home")).content.decode()
    profile = reverse("profile", args=[pairs[0].player2.username])
    assert card in client.get(profile).content.decode()


def test_ties_show_equals_and_the_tie_break(client, make_tournament, register_pairs, t0, clock):
    """MP, three tables. Board 1: the same 420 everywhere; board 2: the same 620 at
    tables 1 and 2, not played at table 3. Every pair stands at 50 %: pairs 1–4 with two
    boards ahead of pairs 5–6 with one (boards completed), each group in registration
    order (RULES 6)."""
    t, pairs, round1, tables = open_round_one(
        make_tournament, register_pairs, t0, pairs=6, boards_per_round=2, scoring_method="MP"
    )
    for table in tables:
        enter(table, 1, ContractEntry("4S", "N", 10), round1)  # 420 (not vulnerable)
    for table in tables[:2]:
        enter(table, 2, ContractEntry("4S", "N", 10), round1)  # 620 (NS vulnerable)
    advance(now=round1.ends_at)
    response = client.get(reverse("results", args=[t.id]))
    rows = {r["line"].pair_id: r["line"] for r in response.context["rows"]}
    ids = [p.id for p in pairs]
    assert [r["line"].pair_id for r in response.context["rows"]] == ids
    assert all(rows[p].total == 50.0 for p in ids)
    assert [rows[p].tie_break for p in ids] == [
        scoring.TIE_REGISTRATION,  # pair 1: ahead of pair 2 by registration
        scoring.TIE_REGISTRATION,
        scoring.TIE_REGISTRATION,
        scoring.TIE_REGISTRATION,
        scoring.TIE_BOARDS,  # pair 5: behind pair 4 on boards completed (1 v 2)
        scoring.TIE_REGISTRATION,
    ]
    html = response.content.decode()
    assert rank_cells(html) == {p: f"{n}=" for n, p in enumerate(ids, start=1)}
    assert html.count("equal total: placed by boards completed") == 1
    assert html.count("equal total: placed by registration order") == 5
    # The live standings on the tournament page say the same.
    live = client.get(reverse("tournament", args=[t.id])).content.decode()
    assert live.count('class="tie"') == 6


def test_no_tie_marks_where_totals_differ(client, imp_event):
    t, pairs, round1, tables = imp_event
    # Pair 1 (NS, table 1) +11 and pair 4 (EW, table 2) +11: tied, by registration;
    # pairs 2 and 3 at −11 likewise. Every pair is tied with exactly one other.
    response = client.get(reverse("results", args=[t.id]))
    order = [r["line"].pair_id for r in response.context["rows"]]
    assert order == [pairs[0].id, pairs[3].id, pairs[1].id, pairs[2].id]
    assert rank_cells(response.content.decode()) == {
        pairs[0].id: "1=",
        pairs[3].id: "2=",
        pairs[1].id: "3=",
        pairs[2].id: "4=",
    }
    above, below = scoring.standing_key(11, 2, 1), scoring.standing_key(-11, 2, 2)
    assert scoring.tie_break(above, below) is None


def test_before_any_round_closes_the_results_show_no_ranks(
    client, make_tournament, register_pairs, t0, clock
):
    t, pairs, round1, tables = open_round_one(make_tournament, register_pairs, t0, pairs=4)
    html = client.get(reverse("results", args=[t.id])).content.decode()
    assert "No round has closed yet." in html
    assert rank_cells(html) == {p.id: "" for p in pairs}
    assert re.findall(r'<td class="num strong total">(.*?)</td>', html) == [""] * 4
    assert 'class="tie"' not in html and "0.00" not in html


def test_seating_sheet_lists_every_table_of_a_round(
    client, make_tournament, register_pairs, t0, clock
):
    t, pairs, round1, tables = open_round_one(make_tournament, register_pairs, t0, pairs=5)
    html = client.get(reverse("seating_sheet", args=[t.id, 1])).content.decode()
    for table in tables:
        row = re.search(rf'<tr data-table="{table.id}">(.*?)</tr>', html, re.S)[1]
        assert f">{table.number}</td>" in row
        for pair in (table.ns_pair, table.ew_pair):
            assert pair.player1.username in row and pair.player2.username in row
    assert "Bye this round:" in html and round1.bye_pair.names in html
    assert "data-print" in html
    assert client.get(reverse("seating_sheet", args=[t.id, 7])).status_code == 404
    html = client.get(
        reverse("seating_sheet", args=[t.id, 1]), HTTP_ACCEPT_LANGUAGE="zh-hans"
    ).content.decode()
    assert "南北" in html and "东西" in html


def test_print_grid_splits_the_boards_into_page_wide_groups():
    boards = list(range(1, 41))
    rows = [{"line": n, "cell_list": [f"<td>{n}.{b}</td>" for b in boards]} for n in (1, 2)]
    grids = paper.print_grids(boards, rows)
    assert [g["boards"] for g in grids] == [boards[0:16], boards[16:32], boards[32:40]]
    for g in grids:  # every group repeats every row
        assert [r["line"] for r, _cells in g["rows"]] == [1, 2]
    assert str(grids[2]["rows"][1][1]) == "".join(f"<td>2.{b}</td>" for b in boards[32:])
    assert paper.print_grids(boards[:16], rows) == []  # one page wide: the grid as it is
