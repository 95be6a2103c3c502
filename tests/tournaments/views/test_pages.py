"""The players' and public pages through Django's test client: who may read and write
what, result entry at a table, live updates, and the numbers on the results pages."""

from __future__ import annotations

import re
from datetime import timedelta
from types import SimpleNamespace

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from tests.support.pages import open_round_one, round_one_event
from tournaments import double_dummy
from tournaments.models import BoardResult, Pair, PairStatus, Round
from tournaments.services import analysis
from tournaments.services.clock import advance, rescore_round
from tournaments.services.registration import propose_pair
from tournaments.services.results import ContractEntry, submit_result

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_pages")]

HTMX = {"HTTP_HX_REQUEST": "true"}
MINUS = "\u2212"


def traveller_rows(html: str) -> list[list[str]]:
    """The cells of the board page's results table, as text."""
    body = html.split('class="data traveller"', 1)[1].split("<tbody>", 1)[1].split("</tbody>")[0]
    rows = []
    for row in re.findall(r"<tr data-table=.*?</tr>", body, re.S):
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
        rows.append([re.sub(r"<[^>]+>|\s+", " ", c).strip().replace(" ", "") for c in cells])
    return rows


@pytest.fixture
def event(make_tournament, register_pairs, t0, clock):
    """Round 1 of a 4-pair, 3-round IMP event is open: table 1 is pairs 1 v 2."""
    return round_one_event(
        make_tournament, register_pairs, t0, rounds=3, boards_per_round=2, scoring_method="IMP"
    )


def table_url(event, table=None):
    table = table or event.tables[0]
    return reverse("table", args=[event.t.id, table.round.number, table.number])


def entry(board: int, **fields) -> dict:
    data = {"board": str(board), "action": "submit"}
    data.update({f"b{board}-{k}": v for k, v in fields.items()})
    return data


FOUR_SPADES_PLUS_ONE = {"level": "4", "strain": "S", "declarer": "N", "result": "+1"}


def close_round(event):
    advance(now=event.round.ends_at)


# --- Who may read and write --------------------------------------------------------------


def test_anonymous_reads_every_public_page(client, event):
    submit_result(
        table=event.tables[0],
        board_number=1,
        entry=ContractEntry("4S", "N", 10),
        user=event.ns,
        now=event.round.starts_at + timedelta(minutes=1),
    )
    close_round(event)
    t = event.t
    for url in [
        reverse("home"),
        reverse("tournament", args=[t.id]),
        reverse("standings_fragment", args=[t.id]),
        reverse("results", args=[t.id]),
        reverse("board", args=[t.id, 1]),
        reverse("pair", args=[t.id, event.pairs[0].id]),
        reverse("profile", args=[event.ns.username]),
    ]:
        response = client.get(url)
        assert response.status_code == 200, url


def test_anonymous_cannot_write_anything(client, event):
    login = reverse("login")
    t = event.t
    pair = event.pairs[0]
    before = (BoardResult.objects.count(), Pair.objects.count())
    requests = [
        ("get", table_url(event), {}),
        ("post", table_url(event), entry(1, **FOUR_SPADES_PLUS_ONE)),
        ("get", reverse("table_updates", args=[t.id, event.tables[0].id]), {}),
        ("post", reverse("propose_pair", args=[t.id]), {"partner": event.other.username}),
        ("post", reverse("confirm_pair", args=[t.id, pair.id]), {}),
        ("post", reverse("cancel_pair", args=[t.id, pair.id]), {}),
        ("post", reverse("withdraw_pair", args=[t.id, pair.id]), {}),
    ]
    for method, url, data in requests:
        response = getattr(client, method)(url, data)
        assert response.status_code == 302, url
        assert response["Location"].startswith(login + "?next="), url
    assert (BoardResult.objects.count(), Pair.objects.count()) == before
    assert Pair.objects.get(pk=pair.pk).withdrawn_at is None


@pytest.mark.parametrize("headers", [{}, HTMX])
def test_player_not_at_the_table_gets_403_and_changes_nothing(client, event, headers):
    client.force_login(event.other)
    assert client.get(table_url(event), **headers).status_code == 403
    response = client.post(table_url(event), entry(1, **FOUR_SPADES_PLUS_ONE), **headers)
    assert response.status_code == 403
    updates = reverse("table_updates", args=[event.t.id, event.tables[0].id])
    assert client.get(updates, **headers).status_code == 403
    assert not BoardResult.objects.exists()
    # Their own table is theirs.
    assert client.get(table_url(event, event.tables[1])).status_code == 200


def test_an_organiser_not_seated_uses_admin_not_this_page(client, event, organiser):
    client.force_login(organiser)
    assert client.get(table_url(event)).status_code == 403
    response = client.post(table_url(event), entry(1, **FOUR_SPADES_PLUS_ONE))
    assert response.status_code == 403
    assert not BoardResult.objects.exists()


def test_a_table_of_another_tournament_is_not_found(client, event, make_tournament):
    other = make_tournament()
    client.force_login(event.ns)
    url = reverse("table", args=[other.id, event.tables[0].round.number, event.tables[0].number])
    assert client.get(url).status_code == 404


# --- Entering, confirming and disputing results -----------------------------------------


def test_seated_player_enters_a_result_and_sees_the_score_at_once(client, event):
    client.force_login(event.ns)
    page = client.get(table_url(event))
    assert page.status_code == 200
    assert b'id="board-row-1"' in page.content and b'id="board-row-2"' in page.content

    data = entry(1, **FOUR_SPADES_PLUS_ONE, lead_suit="H", lead_rank="K")
    response = client.post(table_url(event), data, **HTMX)
    assert response.status_code == 200
    html = response.content.decode()
    # The row alone comes back (htmx swaps it in): 4♠+1 not vulnerable = 450.
    assert html.lstrip().startswith('<article class="board-row saved"')
    assert 'data-ns-score="450"' in html
    assert "Waiting for the opponents to confirm" in html
    result = BoardResult.objects.get(table=event.tables[0], board__number=1)
    assert (result.contract, result.declarer, result.tricks, result.lead) == ("4S", "N", 11, "HK")
    assert result.ns_score == 450 and result.entered_by == event.ns


def test_east_west_may_enter_too_and_a_pass_out_scores_zero(client, event):
    client.force_login(event.ew)
    response = client.post(table_url(event), entry(2, level="P"), **HTMX)
    assert 'data-ns-score="0"' in response.content.decode()
    result = BoardResult.objects.get(table=event.tables[0], board__number=2)
    assert result.state == "passed_out" and result.ns_score == 0


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({}, "Choose the contract"),
        ({"level": "4", "declarer": "N", "result": "="}, "Choose the strain"),
        ({"level": "4", "strain": "S", "result": "="}, "Who was declarer"),
        ({"level": "4", "strain": "S", "declarer": "N"}, "Give the result"),
        ({"level": "7", "strain": "NT", "declarer": "S", "result": "+1"}, "impossible"),
        (
            {"level": "4", "strain": "S", "declarer": "N", "result": "+1", "tricks": "10"},
            "disagree",
        ),
        ({**FOUR_SPADES_PLUS_ONE, "lead_suit": "H"}, "suit and the card"),
    ],
)
def test_mistakes_are_explained_next_to_the_board(client, event, fields, message):
    client.force_login(event.ns)
    response = client.post(table_url(event), entry(2, **fields), **HTMX)
    html = response.content.decode()
    assert response.status_code == 200
    assert 'id="board-row-2"' in html and message in html
    assert "form-errors" in html
    assert not BoardResult.objects.exists()


def test_after_the_bell_the_entry_is_refused_with_the_clock_message(client, event, clock):
    client.force_login(event.ns)
    clock.move_to(event.round.ends_at + timedelta(seconds=1))
    response = client.post(table_url(event), entry(1, **FOUR_SPADES_PLUS_ONE), **HTMX)
    html = response.content.decode()
    assert "Round 1 closed at 14:20:00; results can no longer be entered." in html
    assert "refusal" in html
    assert not BoardResult.objects.exists()


def test_without_htmx_a_save_redirects_and_a_mistake_shows_the_page(client, event):
    client.force_login(event.ns)
    response = client.post(table_url(event), entry(1, **FOUR_SPADES_PLUS_ONE))
    assert response.status_code == 302
    assert response["Location"] == table_url(event) + "#board-1"
    response = client.post(table_url(event), entry(2, level="3"))
    assert response.status_code == 200
    assert "<html" in response.content.decode() and "Choose the strain" in response.content.decode()


def test_the_other_side_confirms_or_disputes_but_not_the_side_that_entered(client, event):
    client.force_login(event.ns)
    client.post(table_url(event), entry(1, **FOUR_SPADES_PLUS_ONE), **HTMX)
    result = BoardResult.objects.get()

    # The partner of the player who entered it gets no confirm button, and is refused.
    client.force_login(event.ns_partner)
    assert b"Please check and confirm" not in client.get(table_url(event)).content
    response = client.post(table_url(event), {"board": "1", "action": "confirm"}, **HTMX)
    assert "The other side confirms a result; you entered this one." in response.content.decode()
    result.refresh_from_db()
    assert result.confirmed_by is None

    client.force_login(event.ew)
    assert b"Please check and confirm" in client.get(table_url(event)).content
    response = client.post(
        table_url(event), {"board": "1", "action": "dispute", "b1-note": "It went one off"}, **HTMX
    )
    assert "Disputed" in response.content.decode()
    result.refresh_from_db()
    assert result.disputed and result.dispute_note == "It went one off"
    assert result.disputed_at is not None  # the director sees when

    response = client.post(table_url(event), {"board": "1", "action": "confirm"}, **HTMX)
    assert "Confirmed by" in response.content.decode()
    result.refresh_from_db()
    assert result.confirmed_by == event.ew and not result.disputed
    assert result.disputed_at is None

    # A correction needs confirming again.
    client.force_login(event.ns)
    client.post(table_url(event), entry(1, **{**FOUR_SPADES_PLUS_ONE, "result": "="}), **HTMX)
    result.refresh_from_db()
    assert result.ns_score == 420 and result.confirmed_by is None


def test_table_updates_send_only_rows_that_changed(client, event):
    client.force_login(event.ew)
    page = client.get(table_url(event))
    rows = {r.board.number: r for r in page.context["rows"]}
    query = {f"rv_{n}": row.version for n, row in rows.items()}
    query["rs"] = page.context["round_state"]
    updates = reverse("table_updates", args=[event.t.id, event.tables[0].id])
    with CaptureQueriesContext(connection) as unchanged:
        assert client.get(updates, query).status_code == 204
    # Every open table page polls every 3 s: the session, then one statement.
    assert len(unchanged.captured_queries) == 2, [q["sql"] for q in unchanged.captured_queries]

    submit_result(
        table=event.tables[0],
        board_number=2,
        entry=ContractEntry("3NT", "S", 9),
        user=event.ns,
    )
    response = client.get(updates, query)
    html = response.content.decode()
    assert response.status_code == 200
    assert 'id="board-row-2" hx-swap-oob="true"' in html
    assert "board-row-1" not in html and "Please check and confirm" in html

    # The director extends the round: the clock is sent again, the rows are not.
    Round.objects.filter(pk=event.round.pk).update(
        ends_at=event.round.ends_at + timedelta(minutes=5)
    )
    query["rv_2"] = client.get(table_url(event)).context["rows"][1].version
    html = client.get(updates, query).content.decode()
    assert 'id="clock-box" hx-swap-oob="true"' in html and "board-row" not in html


def test_rows_are_read_only_once_the_round_closed(client, event):
    client.force_login(event.ns)
    client.post(table_url(event), entry(1, **FOUR_SPADES_PLUS_ONE), **HTMX)
    close_round(event)
    html = client.get(table_url(event)).content.decode()
    assert "result-form" not in html
    assert "Not played: cut off at the bell." in html  # board 2
    assert reverse("board", args=[event.t.id, 1]) in html


@pytest.mark.parametrize("action", ["confirm", "dispute"])
def test_after_the_close_confirm_and_dispute_are_gone_and_refused(client, event, action):
    client.force_login(event.ns)
    client.post(table_url(event), entry(1, **FOUR_SPADES_PLUS_ONE), **HTMX)
    close_round(event)
    before = list(BoardResult.objects.order_by("id").values())
    client.force_login(event.ew)
    html = client.get(table_url(event)).content.decode()
    assert "Please check and confirm" not in html and 'value="confirm"' not in html
    assert "Not confirmed before the close" in html
    # A page left open from before the close still sends the old form.
    data = {"board": "1", "action": action, "b1-note": "one off"}
    for headers in (HTMX, {}):
        response = client.post(table_url(event), data, **headers)
        assert response.status_code == 200
        html = response.content.decode()
        assert (
            "Round 1 closed at 14:20:00; its results can no longer be confirmed or disputed."
            in html
        )
        assert 'role="alert"' in html
    assert list(BoardResult.objects.order_by("id").values()) == before


# --- The tournament page keeps itself up to date -----------------------------------------


def test_your_table_and_the_seating_are_on_the_tournament_page(client, event):
    client.force_login(event.ew)
    html = client.get(reverse("tournament", args=[event.t.id])).content.decode()
    assert "Your table" in html and table_url(event) in html
    assert event.pairs[0].names in html  # the opponents
    # The player's table is highlighted in the (shared, cached) seating.
    table_id = event.tables[0].id
    assert f'tr[data-table="{table_id}"]' in html and f'<tr data-table="{table_id}">' in html
    assert 'data-deadline="2026-12-01T14:20:00+08:00"' in html
    assert 'data-server-now="2026-12-01T14:05:00+08:00"' in html


def test_home_shows_a_player_where_they_sit_now(client, event, make_user):
    client.force_login(event.ew)
    html = client.get(reverse("home")).content.decode()
    assert "Your table" in html and table_url(event) in html
    assert event.pairs[0].names in html  # the opponents
    client.force_login(make_user())
    assert "Your table" not in client.get(reverse("home")).content.decode()


def test_the_live_fragment_is_empty_until_something_changes(organiser, client, event):
    url = reverse("standings_fragment", args=[event.t.id])
    first = client.get(url)
    version = first.context["live_version"]
    assert client.get(url, {"v": version}).status_code == 204

    close_round(event)
    response = client.get(url, {"v": version})
    html = response.content.decode()
    assert response.status_code == 200
    assert "Standings after round 1" in html and "Seating, round 2" in html
    new_version = response.context["live_version"]
    assert new_version != version
    assert client.get(url, {"v": new_version}).status_code == 204

    # A re-score rewrites the standings: the pages notice.
    rescore_round(by=organiser, round=event.round)
    assert client.get(url, {"v": new_version}).status_code == 200


# --- Results, board and pair pages ---------------------------------------------------------


@pytest.fixture
def mp_event(make_tournament, register_pairs, t0, clock):
    """A finished one-round MP event: 3 tables; table 3 never plays board 2."""
    tournament, pairs, round1, tables = open_round_one(
        make_tournament, register_pairs, t0, pairs=6, rounds=1, boards_per_round=2,
        scoring_method="MP",
    )  # fmt: skip
    plays = {  # NS scores, worked out by hand (board 1 none vul., board 2 NS vul.)
        (1, 1): (ContractEntry("4S", "N", 11), 450),
        (2, 1): (ContractEntry("4S", "N", 10), 420),
        (3, 1): (ContractEntry("4S", "N", 9), -50),
        (1, 2): (ContractEntry("3NT", "S", 9), 600),
        (2, 2): (ContractEntry("2H", "E", 8), -110),
    }
    for (table_no, board), (contract, _score) in plays.items():
        table = tables[table_no - 1]
        submit_result(
            table=table,
            board_number=board,
            entry=contract,
            user=table.ns_pair.player1,
            now=t0 + timedelta(minutes=1),
        )
    advance(now=round1.ends_at)
    return SimpleNamespace(t=tournament, pairs=pairs, tables=tables, plays=plays)


def test_results_page_lists_every_pair_with_ranks_and_board_percentages(client, mp_event):
    t = mp_event.t
    t.refresh_from_db()
    assert t.status == "finished"
    response = client.get(reverse("results", args=[t.id]))
    html = response.content.decode()
    rows = {r["line"].pair_id: r["line"] for r in response.context["rows"]}
    assert len(rows) == 6

    # MP by hand: board 1 NS 450 > 420 > −50 → 100, 50, 0 %; board 2 600 > −110 → 100, 0 %.
    ns1, ew1, ns2, ew2, ns3, ew3 = (p.id for p in mp_event.pairs)
    expected_totals = {
        ns1: (100 + 100) / 2,
        ew1: (0 + 0) / 2,
        ns2: (50 + 0) / 2,
        ew2: (50 + 100) / 2,
        ns3: 0.0,  # one board of two: 50 % completion, under the 70 % threshold
        ew3: 100.0,
    }
    for pair_id, total in expected_totals.items():
        assert rows[pair_id].total == pytest.approx(total)
    # Completers ranked by total; the two non-completers listed, without a rank.
    assert [rows[p].rank for p in (ns1, ew2, ns2, ew1)] == [1, 2, 3, 4]
    assert rows[ns3].rank is None and rows[ew3].rank is None
    assert html.count("did not complete") >= 2
    # Percentages with 2 decimals, each linking to its board page.
    cell = f'<a href="{reverse("board", args=[t.id, 1])}" title="NS">50.00%</a>'
    assert cell in html
    assert '<td class="num strong total">75.00%</td>' in html
    # Master points: F = 4 completers → only the top half: ranks 1, 2 get 3 and 2.
    assert rows[ns1].master_points == 3 and rows[ew2].master_points == 2
    assert rows[ns2].master_points == 0


def test_results_page_finds_a_pair_and_pages_a_big_field(client, mp_event):
    t = mp_event.t
    name = mp_event.pairs[3].player1.username
    response = client.get(reverse("results", args=[t.id]), {"q": name})
    assert [r["line"].pair_id for r in response.context["rows"]] == [mp_event.pairs[3].id]
    response = client.get(reverse("results", args=[t.id]), {"q": "3"})
    assert [r["line"].registration_no for r in response.context["rows"]] == [3]


def test_board_page_shows_the_deal_the_analysis_and_every_result(client, mp_event, monkeypatch):
    t = mp_event.t
    url = reverse("board", args=[t.id, 1])

    # A page never runs the solver (it is not thread-safe; the clock solves the boards).
    def no_solve(*args, **kwargs):
        raise AssertionError("a page ran the double-dummy solver")

    monkeypatch.setattr(double_dummy, "analyse", no_solve)
    monkeypatch.setattr(double_dummy, "tricks", no_solve)
    response = client.get(url)
    html = response.content.decode()
    assert response.status_code == 200
    # Until the clock has analysed the board: the deal and the results, analysis pending.
    assert "Analysis is being prepared" in html and "dd-table" not in html
    assert 'hx-trigger="every 5s"' in html  # the pending part asks again by itself
    for seat in "NESW":
        assert f'class="hand seat-{seat}"' in html
    assert '<span class="suit red">♥</span>' in html
    rows = traveller_rows(html)
    # Highest NS score first; each side's matchpoint percentage.
    assert [r[6:9] for r in rows] == [
        ["+450", "100.00%", "0.00%"],
        ["+420", "50.00%", "50.00%"],
        [f"{MINUS}50", "0.00%", "100.00%"],
    ]
    assert rows[0][1:4] == ["4♠", "N", ""] and rows[0][4:6] == ["+1", "11"]
    board = t.boards.get(number=1)
    assert board.double_dummy is None

    monkeypatch.undo()
    assert analysis.analyse_pending_boards(limit=None) == 2  # what the clock does
    board.refresh_from_db()
    assert board.double_dummy["v"] == analysis.FORMAT_VERSION

    monkeypatch.setattr(double_dummy, "analyse", no_solve)
    monkeypatch.setattr(double_dummy, "tricks", no_solve)
    html = client.get(url).content.decode()
    assert "Makeable contracts" in html and "dd-table" in html and "Par" in html
    assert "Analysis is being prepared" not in html and "hx-trigger" not in html
    assert traveller_rows(html) == rows


def test_double_dummy_analysis_matches_a_known_deal():
    # Each hand holds one suit: whoever holds a suit makes 7 of it, nothing else.
    deal = "N:AKQJT98765432... .AKQJT98765432.. ..AKQJT98765432. ...AKQJT98765432"
    [data] = analysis.solve(deals=[double_dummy.Deal(deal, "None", "N")])
    assert data["tricks"]["N"]["S"] == 13 and data["tricks"]["E"]["H"] == 13
    assert data["tricks"]["N"]["H"] == 0
    dd = analysis._from_data(data)
    assert dd.makeable("N", "S") == 7 and dd.makeable("N", "NT") is None
    assert dd.par_score == 1510  # 7♠ by NS, nobody vulnerable
    assert [(c.level, c.strain, c.declarers) for c in dd.par_contracts] == [(7, "S", "NS")]


def test_a_board_still_in_play_is_not_shown(client, event):
    board = event.t.boards.get(number=1)
    html = client.get(reverse("board", args=[event.t.id, 1])).content.decode()
    assert "shown after the round closes" in html
    assert 'class="hand' not in html and "Makeable contracts" not in html
    first_hand = board.deal[2:].split()[0]
    assert first_hand not in html
    assert board.deal not in html
    board.refresh_from_db()
    assert board.double_dummy is None


def test_ximp_board_page_shows_the_datum_and_whole_imps(
    client, make_tournament, register_pairs, t0, clock
):
    tournament, _pairs, round1, tables = open_round_one(
        make_tournament, register_pairs, t0, pairs=6, rounds=1, boards_per_round=1,
        scoring_method="XIMP",
    )  # fmt: skip
    for table, contract in zip(tables, [("4S", 10), ("4S", 11), ("2S", 8)], strict=True):
        submit_result(
            table=table,
            board_number=1,
            entry=ContractEntry(contract[0], "N", contract[1]),
            user=table.ns_pair.player1,
            now=t0 + timedelta(minutes=1),
        )
    advance(now=round1.ends_at)
    response = client.get(reverse("board", args=[tournament.id, 1]))
    html = response.content.decode()
    # NS 420, 450, 110; n = 3 → k = 1: drop 450 and 110, datum 420.
    assert "Datum" in html and '<strong class="num">+420</strong>' in html
    # 450 − 420 = 30 → 1 IMP; 110 − 420 = −310 → −7 IMPs; whole numbers.
    assert ">+1<" in html and f">{MINUS}7<" in html and ">+7<" in html


def test_pair_page_goes_round_by_round_with_a_chart(client, event):
    for table in event.tables:
        submit_result(
            table=table,
            board_number=1,
            entry=ContractEntry("3NT", "N", 9 if table.number == 1 else 8),
            user=table.ns_pair.player1,
        )
    close_round(event)
    response = client.get(reverse("pair", args=[event.t.id, event.pairs[0].id]))
    html = response.content.decode()
    history = response.context["history"]
    assert [h.round.number for h in history] == [1, 2]
    first = history[0]
    assert first.direction == "NS" and first.opponents == event.pairs[1]
    assert first.position == 1 and first.total == pytest.approx(10.0)  # 400 v −50: 10 IMPs
    assert '<svg class="chart positions"' in html and '<svg class="chart totals"' in html
    assert html.count("<polyline") == 2
    assert reverse("board", args=[event.t.id, 1]) in html


# --- Registration ----------------------------------------------------------------------------


@pytest.fixture
def open_event(make_tournament, t0, clock):
    return make_tournament(start_at=t0 + timedelta(hours=1))


def test_propose_confirm_and_see_the_registration_number(client, open_event, make_user):
    alice, bob = make_user("alice", name="Alice"), make_user("bob", name="Bob")
    url = reverse("tournament", args=[open_event.id])
    client.force_login(alice)
    response = client.post(
        reverse("propose_pair", args=[open_event.id]), {"partner": "bob"}, follow=True
    )
    assert "You invited Bob." in response.content.decode()  # the name pages show
    assert "The pair is registered once they confirm." in response.content.decode()

    client.force_login(bob)
    home = client.get(reverse("home")).content.decode()
    assert "invites you to play" in home and open_event.name in home
    assert "invites you to play this tournament" in client.get(url).content.decode()
    pair = Pair.objects.get(tournament=open_event)
    response = client.post(reverse("confirm_pair", args=[open_event.id, pair.id]), follow=True)
    html = response.content.decode()
    assert "You are registered with Alice as pair no. 1." in html
    assert "Registered as pair no. 1: Alice – Bob." in html

    client.force_login(alice)
    assert "Registered as pair no. 1" in client.get(url).content.decode()


def test_refusals_are_shown_in_plain_words(client, open_event, make_user):
    alice, carol = make_user("alice"), make_user("carol")
    bob = make_user("bob")
    client.force_login(alice)
    propose = reverse("propose_pair", args=[open_event.id])
    html = client.post(propose, {"partner": "alice"}, follow=True).content.decode()
    assert "A pair is two different players." in html
    html = client.post(propose, {"partner": "nobody"}, follow=True).content.decode()
    assert "There is no player called “nobody”." in html
    client.post(propose, {"partner": "bob"})
    html = client.post(propose, {"partner": "bob"}, follow=True).content.decode()
    assert "A proposal between you and bob is already waiting for confirmation." in html
    # Only the invited partner confirms.
    client.force_login(carol)
    pair = Pair.objects.get()
    confirm = reverse("confirm_pair", args=[open_event.id, pair.id])
    html = client.post(confirm, follow=True).content.decode()
    assert "Only the invited partner can confirm this pair." in html
    assert Pair.objects.get().status == PairStatus.PENDING
    # Once bob has confirmed, he is taken.
    client.force_login(bob)
    client.post(confirm)
    client.force_login(carol)
    html = client.post(propose, {"partner": "bob"}, follow=True).content.decode()
    assert "bob is already in a pair in this tournament." in html


def test_either_player_cancels_a_pending_proposal(client, open_event, make_user):
    alice, bob = make_user("alice"), make_user("bob")
    pair = propose_pair(tournament=open_event, proposer=alice, partner_username="bob")
    client.force_login(bob)
    html = client.post(
        reverse("cancel_pair", args=[open_event.id, pair.id]), follow=True
    ).content.decode()
    assert "The proposal is cancelled." in html
    assert not Pair.objects.exists()


def test_a_player_sees_every_proposal_made_and_received_and_confirms_one(
    client, open_event, make_user
):
    alice, bob, carol, dave = (make_user(n) for n in ("alice", "bob", "carol", "dave"))
    to_bob, to_carol, _to_alice = (
        propose_pair(tournament=open_event, proposer=proposer, partner_username=partner)
        for proposer, partner in ((alice, "bob"), (alice, "carol"), (dave, "alice"))
    )
    url = reverse("tournament", args=[open_event.id])
    client.force_login(alice)
    html = client.get(url).content.decode()
    assert "You invited <strong>bob</strong>" in html
    assert "You invited <strong>carol</strong>" in html
    assert "<strong>dave</strong> invites you to play this tournament" in html
    assert 'name="partner"' in html  # and may still invite someone else
    assert html.count("Cancel the proposal") == 2 and "Confirm the pair" in html
    home = client.get(reverse("home")).content.decode()
    assert "Your invitations waiting for an answer" in home and "dave" in home

    client.force_login(bob)
    assert "alice" in client.get(reverse("home")).content.decode()
    html = client.post(reverse("confirm_pair", args=[open_event.id, to_bob.id]), follow=True)
    assert "You are registered with alice as pair no. 1." in html.content.decode()
    # Alice's other proposals are gone from everyone's pages.
    for player in (alice, carol, dave):
        client.force_login(player)
        html = client.get(url).content.decode() + client.get(reverse("home")).content.decode()
        assert "invites you" not in html and "You invited" not in html
    client.force_login(carol)
    stale = reverse("confirm_pair", args=[open_event.id, to_carol.id])
    response = client.post(stale, follow=True)
    assert response.status_code == 200
    assert "This proposal is no longer open" in response.content.decode()
    assert list(Pair.objects.values_list("status", flat=True)) == ["confirmed"]


def test_a_proposal_is_confirmed_only_under_its_own_tournament(
    client, open_event, make_tournament, make_user, t0
):
    alice, bob = make_user("alice"), make_user("bob")
    pair = propose_pair(tournament=open_event, proposer=alice, partner_username="bob")
    elsewhere = make_tournament(start_at=t0 + timedelta(hours=2))
    client.force_login(bob)
    for view in ("confirm_pair", "cancel_pair"):
        response = client.post(reverse(view, args=[elsewhere.id, pair.id]), follow=True)
        assert "This proposal is no longer open" in response.content.decode()
    assert Pair.objects.get().status == PairStatus.PENDING


def test_withdrawing_asks_first(client, event):
    pair = event.pairs[0]
    url = reverse("withdraw_pair", args=[event.t.id, pair.id])
    client.force_login(event.other)
    assert client.get(url).status_code == 403
    client.force_login(event.ns)
    page = client.get(url)
    assert page.status_code == 200 and "Withdraw your pair?" in page.content.decode()
    pair.refresh_from_db()
    assert pair.withdrawn_at is None
    html = client.post(url, follow=True).content.decode()
    assert "has withdrawn" in html
    pair.refresh_from_db()
    assert pair.withdrawn_at is not None


# --- Accounts, profile and languages ------------------------------------------------------


def test_sign_up_log_out_by_post_and_log_in(client):
    response = client.post(
        reverse("signup"),
        {
            "username": "wei",
            "display_name": "Wang Wei",
            "password1": "a-Long-pass-4321",
            "password2": "a-Long-pass-4321",
        },
    )
    assert response.status_code == 302
    html = client.get(reverse("home")).content.decode()
    assert "Wang Wei" in html and "Log out" in html
    assert client.get(reverse("logout")).status_code == 405  # logging out is a POST
    client.post(reverse("logout"))
    assert "Log in" in client.get(reverse("home")).content.decode()
    response = client.post(reverse("login"), {"username": "wei", "password": "a-Long-pass-4321"})
    assert response.status_code == 302


def test_profile_shows_master_points_title_and_history(client, mp_event):
    winner = mp_event.pairs[0].player1
    html = client.get(reverse("profile", args=[winner.username])).content.decode()
    assert "Master points" in html and ">3<" in html
    assert "Ranked player" in html  # 3 master points: the second title (from 1)
    assert mp_event.t.name in html and reverse("pair", args=[mp_event.t.id, mp_event.pairs[0].id])
    html = client.get(
        reverse("profile", args=[winner.username]), HTTP_ACCEPT_LANGUAGE="zh-hans"
    ).content.decode()
    assert "有级牌手" in html and "大师分" in html


def test_pages_follow_the_browser_language_and_the_switcher(client, event):
    url = reverse("tournament", args=[event.t.id])
    assert "Round 1 ends in" in client.get(url).content.decode()
    html = client.get(url, HTTP_ACCEPT_LANGUAGE="zh-CN,zh;q=0.9").content.decode()
    assert '<html lang="zh-hans">' in html and "第 1 轮剩余" in html
    client.post(reverse("set_language"), {"language": "zh-hans", "next": url})
    html = client.get(url).content.decode()
    assert "座位表" in html and "南北" in html
    client.post(reverse("set_language"), {"language": "en", "next": url})
    assert "Seating, round 1" in client.get(url).content.decode()


def test_service_messages_are_translated(client, event, clock):
    client.force_login(event.ns)
    clock.move_to(event.round.ends_at + timedelta(seconds=1))
    response = client.post(
        table_url(event), entry(1, **FOUR_SPADES_PLUS_ONE), HTTP_ACCEPT_LANGUAGE="zh-hans", **HTMX
    )
    assert "第 1 轮已于 14:20:00 结束，不能再录入成绩。" in response.content.decode()


def test_a_saved_row_already_shows_what_the_next_poll_would_send(client, event):
    """The answer to a save is built from the result as stored, without reading it
    back; its version must be the one the poll computes from the database."""
    client.force_login(event.ns)
    page = client.get(table_url(event))
    query = {f"rv_{r.board.number}": r.version for r in page.context["rows"]}
    query["rs"] = page.context["round_state"]
    saved = client.post(table_url(event), entry(1, **FOUR_SPADES_PLUS_ONE), **HTMX)
    assert "Saved" in saved.content.decode()
    query["rv_1"] = re.search(r'name="rv_1" value="([^"]+)"', saved.content.decode()).group(1)
    updates = reverse("table_updates", args=[event.t.id, event.tables[0].id])
    assert client.get(updates, query).status_code == 204

    # A player of another table polls this one: refused, fast path or not.
    client.force_login(event.tables[1].ns_pair.player1)
    assert client.get(updates, query).status_code == 403


def test_a_session_that_can_no_longer_log_in_gets_nothing_but_unchanged(client, event):
    """The unchanged poll reads only the session; whatever it would send goes through
    the full login check."""
    client.force_login(event.ns)
    page = client.get(table_url(event))
    query = {f"rv_{r.board.number}": r.version for r in page.context["rows"]}
    query["rs"] = page.context["round_state"]
    updates = reverse("table_updates", args=[event.t.id, event.tables[0].id])
    type(event.ns).objects.filter(pk=event.ns.pk).update(is_active=False)
    assert client.get(updates, query).status_code == 204
    assert client.get(updates, query).content == b""
    submit_result(
        table=event.tables[0], board_number=2, entry=ContractEntry("3NT", "S", 9), user=event.ew
    )
    response = client.get(updates, query)
    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))
