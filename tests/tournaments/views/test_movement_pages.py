"""A movement's paper (issue 25, item 4): the movement page, the table guide cards and
the travel cards show every round's tables and pairs exactly as the movement says, and at
every table the round's boards (SPEC 2: every table of round r plays boards
(r − 1)·B + 1 … r·B from duplicated boards, online or entered; the movement's board sets
are not what the event plays); the players' names once the pairs hold their positions;
the phantom as a bye; the balance of the boards actually played; a bounded number of
queries whatever the field's size; a 404 for a Swiss event.

The movements are built here by the textbook rules (not by `movements`' generators), so
the pages are checked against a movement known independently of the code that makes
them, and stored as the format stores one at round 1 (`Tournament.movement`,
`Pair.position`)."""

from __future__ import annotations

import re
from dataclasses import replace

import lxml.html
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

import movements
from movements import Encounter, Movement
from tests.support.movements import event, howell4, mitchell
from tournaments.models import Pair
from tournaments.selectors import movements as selectors

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_pages")]


def mitchell_arrow_switched(tables: int, boards_per_round: int) -> Movement:
    """The one-winner Mitchell: `mitchell`'s, every table swapping NS and EW in the last
    round (the arrow-switch)."""
    m = mitchell(tables, boards_per_round)
    last = tuple(Encounter(e.table, e.ew, e.ns, e.boards) for e in m.rounds[-1])
    return replace(m, rounds=(*m.rounds[:-1], last), directions=None, arrow_switch_rounds=(tables,))


def test_the_hand_built_movements_pass_the_checks():
    """The movements these tests print are real ones (the core's rules: SPEC 10)."""
    movements.verify(mitchell(7, 2))
    movements.verify(mitchell_arrow_switched(7, 2))
    movements.verify(howell4(2, phantom=8), complete=True)


def round_boards(round_number: int, boards_per_round: int) -> tuple[int, ...]:
    """SPEC 2: round r plays boards (r − 1)·B + 1 … r·B, at every table."""
    first = (round_number - 1) * boards_per_round + 1
    return tuple(range(first, first + boards_per_round))


def as_played(movement: Movement) -> Movement:
    """`movement` with every table on its round's boards: what the event plays."""
    return replace(
        movement,
        rounds=tuple(
            tuple(replace(e, boards=round_boards(r, movement.boards_per_round)) for e in round)
            for r, round in enumerate(movement.rounds, start=1)
        ),
    )


def test_as_played_without_a_tournament_numbers_the_rounds_boards():
    """A movement no event holds yet: the boards are numbered from its boards per round,
    as `Tournament.board_numbers` numbers them; the seating is untouched."""
    movement = howell4(3, phantom=8)
    played = selectors.as_played(movement)
    assert played == as_played(movement)
    assert [{e.boards for e in round} for round in played.rounds] == [
        {round_boards(r, 3)} for r in range(1, 8)
    ]
    assert [[(e.table, e.ns, e.ew) for e in round] for round in played.rounds] == [
        [(e.table, e.ns, e.ew) for e in round] for round in movement.rounds
    ]


def page(client, name: str, *args) -> lxml.html.HtmlElement:
    response = client.get(reverse(name, args=args))
    assert response.status_code == 200, response.status_code
    return lxml.html.fromstring(response.content.decode())


def find(element, tag: str, cls: str | None = None, **attributes: str) -> list:
    """Descendants `tag` (with class `cls`, and `attributes` as `data_seat="NS"` for
    data-seat): lxml's XPath, since its CSS selectors need a package the project lacks."""
    tests = []
    if cls is not None:
        tests.append(f"contains(concat(' ', normalize-space(@class), ' '), ' {cls} ')")
    tests += [f"@{name.replace('_', '-')}='{value}'" for name, value in attributes.items()]
    return element.xpath(f".//{tag}" + "".join(f"[{t}]" for t in tests))


def text(element) -> str:
    return " ".join(element.text_content().split())


def names_of(pair: Pair) -> str:
    return f"{pair.player1.username} – {pair.player2.username}"


def rounds_shown(doc) -> list[list[tuple[int, str, str, str]]]:
    """The movement page's rounds: (table, NS cell, EW cell, boards) of every table."""
    shown = []
    for section in find(doc, "section", "mv-round"):
        rows = []
        for tr in find(section, "tbody/tr"):
            rows.append(
                (
                    int(tr.get("data-table")),
                    text(find(tr, "td", data_seat="NS")[0]),
                    text(find(tr, "td", data_seat="EW")[0]),
                    find(tr, "td", "mv-boards")[0].get("data-boards"),
                )
            )
        shown.append(rows)
    return shown


def expected_rounds(movement: Movement, names: dict[int, str]) -> list[list[tuple]]:
    """What the page must show for `movement`: every table of every round, each side's
    label (and the pair's names when `names` has them), the phantom as a bye, and the
    round's boards at every table."""

    def cell(position: int, other: int) -> str:
        if position == movement.phantom and position not in names:
            return f"Bye {movement.label(other)} sits out"
        shown = movement.label(position)
        return f"{shown} {names[position]}" if position in names else shown

    return [
        [
            (
                e.table,
                cell(e.ns, e.ew),
                cell(e.ew, e.ns),
                ",".join(map(str, round_boards(r, movement.boards_per_round))),
            )
            for e in sorted(round, key=lambda e: e.table)
        ]
        for r, round in enumerate(movement.rounds, start=1)
    ]


# ---- A 7-table Mitchell, two winners ----


def test_mitchell_before_round_1_shows_every_table_by_number_only(
    client, make_tournament, register_pairs
):
    movement = mitchell(7, 2)
    tournament, pairs = event(
        make_tournament, register_pairs, movement=movement, pairs=14, held=False,
        seating="mitchell", winners=2,
    )  # fmt: skip
    doc = page(client, "movement", tournament.id)
    assert rounds_shown(doc) == expected_rounds(movement, {})
    assert "1NS" in text(doc) and "7EW" in text(doc)
    html = lxml.html.tostring(doc, encoding="unicode")
    assert not any(p.player1.username in html for p in pairs)  # no names before round 1
    assert "Before round 1" in text(doc)
    assert "Two winners" in text(doc)


def test_mitchell_after_round_1_shows_the_pairs_names(client, make_tournament, register_pairs):
    movement = mitchell(7, 2)
    tournament, pairs = event(
        make_tournament, register_pairs, movement=movement, pairs=14, held=True,
        seating="mitchell", winners=2,
    )  # fmt: skip
    names = {p.position: names_of(p) for p in Pair.objects.filter(tournament=tournament)}
    doc = page(client, "movement", tournament.id)
    shown = rounds_shown(doc)
    assert shown == expected_rounds(movement, names)
    assert len(shown) == 7 and all(len(r) == 7 for r in shown)
    # Round 3, table 5: NS 5NS stays, EW 3EW has moved up two tables; the round's boards
    # 5–6, as at every table of round 3 (the movement's set there, 13–14, is not played).
    assert shown[2][4] == (5, f"5NS {names[5]}", f"3EW {names[10]}", "5,6")
    assert {row[3] for row in shown[2]} == {"5,6"}
    assert "Before round 1" not in text(doc)
    (note,) = find(doc, "p", "mv-same-boards")
    assert "Every table plays the round's boards (duplicated boards)" in text(note)
    # The cards are linked from the movement page; the tab from every tournament page.
    links = {a.get("href") for a in find(doc, "a")}
    assert reverse("movement_tables", args=[tournament.id]) in links
    assert reverse("movement_travel", args=[tournament.id]) in links
    assert reverse("movement_table", args=[tournament.id, 4]) in links
    assert reverse("movement_pair", args=[tournament.id, 10]) in links
    overview = page(client, "tournament", tournament.id)
    assert reverse("movement", args=[tournament.id]) in {
        a.get("href") for a in find(overview, "nav[@class='tabs']//a")
    }


def test_mitchell_table_guide_cards_one_per_table(client, make_tournament, register_pairs):
    movement = mitchell(7, 2)
    tournament, pairs = event(
        make_tournament, register_pairs, movement=movement, pairs=14, held=True,
        seating="mitchell", winners=2,
    )  # fmt: skip
    names = {p.position: names_of(p) for p in Pair.objects.filter(tournament=tournament)}
    doc = page(client, "movement_tables", tournament.id)
    cards = find(doc, "section", "mv-table-card")
    assert [int(c.get("data-table")) for c in cards] == list(range(1, 8))
    for card in cards:
        table = int(card.get("data-table"))
        rows = [
            (
                int(tr.get("data-round")),
                text(find(tr, "td", data_seat="NS")[0]),
                text(find(tr, "td", data_seat="EW")[0]),
                find(tr, "td", "mv-boards")[0].get("data-boards"),
            )
            for tr in find(card, "tbody/tr")
        ]
        expected = []
        for number, round in enumerate(movement.rounds, start=1):
            (e,) = [e for e in round if e.table == table]
            expected.append(
                (
                    number,
                    f"{movement.label(e.ns)} {names[e.ns]}",
                    f"{movement.label(e.ew)} {names[e.ew]}",
                    f"{2 * number - 1},{2 * number}",  # the round's boards, at every table
                )
            )
        assert rows == expected
        # No board goes on to another table: each plays its own copy of the round's.
        assert "→" not in text(card) and not find(card, "span", "mv-next")
    one = page(client, "movement_table", tournament.id, 3)
    assert [int(c.get("data-table")) for c in find(one, "section", "mv-table-card")] == [3]
    assert client.get(reverse("movement_table", args=[tournament.id, 8])).status_code == 404


def test_mitchell_travel_card_says_where_a_pair_goes(client, make_tournament, register_pairs):
    movement = mitchell(7, 2)
    tournament, pairs = event(
        make_tournament, register_pairs, movement=movement, pairs=14, held=True,
        seating="mitchell", winners=2,
    )  # fmt: skip
    names = {p.position: names_of(p) for p in Pair.objects.filter(tournament=tournament)}
    doc = page(client, "movement_pair", tournament.id, 9)  # 2EW
    (card,) = find(doc, "section", "mv-travel-card")
    assert "2EW" in text(find(card, "h2")[0]) and names[9] in text(find(card, "h2")[0])
    rows = [[text(td) for td in find(tr, "td")] for tr in find(card, "tbody/tr")]
    # 2EW moves up one table a round, always EW, against the table's NS pair.
    expected = []
    for r in range(7):
        table = (1 + r) % 7 + 1
        (e,) = [e for e in movement.rounds[r] if e.ew == 9]
        assert e.table == table
        expected.append(
            [str(r + 1), str(table), "EW", f"{table}NS {names[table]}", f"{2 * r + 1}–{2 * r + 2}"]
        )
    assert rows == expected
    every = page(client, "movement_travel", tournament.id)
    assert len(find(every, "section", "mv-travel-card")) == 14
    assert client.get(reverse("movement_pair", args=[tournament.id, 15])).status_code == 404


# ---- A 4-table Howell with a phantom (7 pairs) ----


def test_howell_with_a_phantom_shows_the_bye(client, make_tournament, register_pairs):
    movement = howell4(2, phantom=8)
    for held in (False, True):
        tournament, pairs = event(
            make_tournament, register_pairs, movement=movement, pairs=7, held=held,
            seating="howell",
        )  # fmt: skip
        names = (
            {p.position: names_of(p) for p in Pair.objects.filter(tournament=tournament)}
            if held
            else {}
        )
        doc = page(client, "movement", tournament.id)
        shown = rounds_shown(doc)
        assert shown == expected_rounds(movement, names)
        # Round k: pair k meets the phantom at table 1 and sits out.
        for k, round in enumerate(shown, start=1):
            label = f"{k} {names[k]}" if held else str(k)
            assert round[0] == (1, f"Bye {k} sits out", label, f"{2 * k - 1},{2 * k}")
            section = find(doc, "section", "mv-round")[k - 1]
            assert "mv-bye-row" in find(section, "tbody/tr")[0].get("class")
        assert "One winner" in text(doc)

    # The travel card of pair 3: its bye in round 3; the phantom has no card.
    doc = page(client, "movement_pair", tournament.id, 3)
    rows = [[text(td) for td in find(tr, "td")] for tr in find(doc, "tbody/tr")]
    assert rows[2] == ["3", "1", "Bye sits out this round"]
    for r, row in enumerate(rows, start=1):
        if r == 3:
            continue
        (e,) = [e for e in movement.rounds[r - 1] if 3 in (e.ns, e.ew)]
        other = e.ew if e.ns == 3 else e.ns
        first, last = 2 * r - 1, 2 * r  # the round's boards, not the movement's set
        assert row == [
            str(r), str(e.table), "NS" if e.ns == 3 else "EW",
            f"{other} {names[other]}", f"{first}–{last}",
        ]  # fmt: skip
    assert client.get(reverse("movement_pair", args=[tournament.id, 8])).status_code == 404
    travel = page(client, "movement_travel", tournament.id)
    assert len(find(travel, "section", "mv-travel-card")) == 7
    # Table 1's guide card: the phantom's table, a bye every round.
    card = page(client, "movement_table", tournament.id, 1)
    cells = [text(td) for td in find(card, "tbody//td", data_seat="NS")]
    assert cells == [f"Bye {k} sits out" for k in range(1, 8)]


def compared(movement: Movement, p: int, q: int) -> int:
    """Boards p and q both played in the same direction (at tables the phantom is not at),
    counted the long way: pass the movement as played (`as_played`)."""
    sides: dict[tuple[int, str], set[int]] = {}
    for round in movement.rounds:
        for e in round:
            if movement.phantom in (e.ns, e.ew):
                continue
            for board in e.boards:
                sides.setdefault((board, "NS"), set()).add(e.ns)
                sides.setdefault((board, "EW"), set()).add(e.ew)
    return sum(1 for seated in sides.values() if p in seated and q in seated)


def grids_shown(doc) -> dict[str, dict[tuple[str, str], str]]:
    grids = {}
    for table in find(doc, "table", "mv-balance-grid"):
        labels = [text(th) for th in find(table, "thead//th")][1:]
        cells = {}
        for tr in find(table, "tbody/tr"):
            row = text(find(tr, "th")[0])
            for label, td in zip(labels, find(tr, "td"), strict=True):
                cells[row, label] = text(td)
        grids[table.get("data-field")] = cells
    return grids


def test_the_balance_of_a_two_winner_mitchell_is_one_grid_a_field(
    client, make_tournament, register_pairs
):
    movement = mitchell(7, 2)
    tournament, _ = event(
        make_tournament, register_pairs, movement=movement, pairs=14, held=True,
        seating="mitchell", winners=2,
    )  # fmt: skip
    doc = page(client, "movement", tournament.id)
    (section,) = find(doc, "section", "mv-balance")
    # Every table plays the round's 2 boards: each two NS pairs are compared on both
    # boards of each of the 7 rounds (14), each two EW pairs too, never across the
    # fields. Perfectly balanced.
    grids = grids_shown(section)
    assert set(grids) == {"NS", "EW"}
    for direction, offset in (("NS", 0), ("EW", 7)):
        labels = [movement.label(p + offset) for p in range(1, 8)]
        assert grids[direction] == {
            (a, b): ("" if a == b else "14") for a in labels for b in labels
        }
    assert text(find(section, "*", "mv-figure")[0]) == "100.0"
    assert "compared on 14 to 14 boards" in text(section)


def test_the_balance_of_a_howell_with_a_phantom(client, make_tournament, register_pairs):
    movement = howell4(2, phantom=8)
    tournament, _ = event(
        make_tournament, register_pairs, movement=movement, pairs=7, held=True,
        seating="howell",
    )  # fmt: skip
    doc = page(client, "movement", tournament.id)
    (section,) = find(doc, "section", "mv-balance")
    grids = grids_shown(section)
    assert list(grids) == [""]  # one field; the phantom is in no row
    # Counted on the boards played: every table on the round's boards, so two pairs
    # are compared in a round when they sit the same way at different tables.
    played = as_played(movement)
    labels = [str(p) for p in range(1, 8)]
    assert grids[""] == {
        (a, b): ("" if a == b else str(compared(played, int(a), int(b))))
        for a in labels
        for b in labels
    }
    counts = [compared(played, p, q) for p in range(1, 8) for q in range(p + 1, 8)]
    assert min(counts) == 0  # some two pairs never sit the same way in any round
    assert f"compared on {min(counts)} to {max(counts)} boards" in text(section)
    assert find(section, "td", "none")  # the pairs never compared are marked
    figure = float(text(find(section, "*", "mv-figure")[0]))
    assert figure == round(movements.balance(played).figure, 1)
    # Not the figure of the movement's board sets (60.0), which the event never plays.
    assert figure != round(movements.balance(movement).figure, 1)


def test_the_balance_of_a_two_winner_mitchell_with_a_phantom(
    client, make_tournament, register_pairs
):
    """7 tables, 13 pairs (7EW the phantom), 2 boards a round, every table on the
    round's boards. Each NS pair sits out once (against the phantom, in a different
    round from every other NS pair): two NS pairs both play 7 − 2 = 5 rounds, compared
    on 10 boards; the six EW pairs play every round, 14 boards. Qf (two fields: the
    weight of two pairs is the rounds compared, since a round is one set played at
    every table) over 21 NS weights of 5 and 15 EW weights of 7: total 210 over 36,
    at best 30 of 6 and 6 of 5, 30·36 + 6·25 = 1230; actual 21·25 + 15·49 = 1260;
    100 · 1230 / 1260 = 97.6."""
    movement = mitchell(7, 2, phantom=14)
    tournament, _ = event(
        make_tournament, register_pairs, movement=movement, pairs=13, held=True,
        seating="mitchell", winners=2,
    )  # fmt: skip
    doc = page(client, "movement", tournament.id)
    (section,) = find(doc, "section", "mv-balance")
    grids = grids_shown(section)
    ns = [f"{t}NS" for t in range(1, 8)]
    ew = [f"{t}EW" for t in range(1, 7)]  # 7EW is the phantom: no row
    assert grids["NS"] == {(a, b): ("" if a == b else "10") for a in ns for b in ns}
    assert grids["EW"] == {(a, b): ("" if a == b else "14") for a in ew for b in ew}
    assert text(find(section, "*", "mv-figure")[0]) == "97.6"
    assert "compared on 10 to 14 boards" in text(section)


def test_the_balance_of_an_arrow_switched_mitchell_is_of_the_boards_played(
    client, make_tournament, register_pairs
):
    """One winner, 7 tables, 14 pairs, 2 boards a round, every table swapping in round 7.
    With every table on the round's boards the switch moves every table at once, so an
    NS-home pair (1 … 7) and an EW-home pair (8 … 14) never sit the same way on a board:
    compared on 0 boards; two pairs of one home direction on all 14. Qf (one field: the
    weight of two pairs is, over the rounds, 6 for a meeting (half a top of 7 tables),
    +1 the same way at two tables, −1 the opposite way): 42 same-home weights of 7, and
    the 49 NS-home–EW-home ones meet once and sit apart 6 times, 6 − 6 = 0. Total 294 over
    91, at best 21 of 4 and 70 of 3, 21·16 + 70·9 = 966; actual 42·49 = 2058;
    100 · 966 / 2058 = 46.9. The movement's board sets (the switch meant for boards that
    travel) would give 92.0: the page shows what the event plays."""
    movement = mitchell_arrow_switched(7, 2)
    tournament, _ = event(
        make_tournament, register_pairs, movement=movement, pairs=14, held=True,
        seating="mitchell", arrow_switch=True,
    )  # fmt: skip
    doc = page(client, "movement", tournament.id)
    (section,) = find(doc, "section", "mv-balance")
    (grid,) = grids_shown(section).values()
    labels = [str(p) for p in range(1, 15)]  # one winner: the positions' numbers

    def expected(a: str, b: str) -> str:
        if a == b:
            return ""
        return "14" if (int(a) <= 7) == (int(b) <= 7) else "0"

    assert grid == {(a, b): expected(a, b) for a in labels for b in labels}
    assert text(find(section, "*", "mv-figure")[0]) == "46.9"
    assert "compared on 0 to 14 boards" in text(section)
    assert round(movements.balance(movement).figure, 1) == 92.0  # the sets': not shown
    # The switched round is marked, and its tables show the swapped pairs.
    (last,) = [r for r in find(doc, "section", "mv-round") if r.get("data-round") == "7"]
    assert "arrow-switch" in text(find(last, "h3")[0])
    assert text(find(last, "td", data_seat="NS")[0]).split()[0] == "9"  # EW-home pair 9 sits NS


@pytest.mark.parametrize("play", ["online", "entered"])
def test_every_table_plays_the_rounds_boards_online_and_entered(
    client, make_tournament, register_pairs, play
):
    """Online or played elsewhere with the results entered, the event plays round r's
    boards at every table: the page, the guide cards and the travel cards say so, and
    nothing says the boards go anywhere."""
    movement = mitchell(7, 3)
    tournament, _ = event(
        make_tournament, register_pairs, movement=movement, pairs=14, held=True,
        seating="mitchell", winners=2, play=play,
    )  # fmt: skip
    doc = page(client, "movement", tournament.id)
    for r, rows in enumerate(rounds_shown(doc), start=1):
        assert {boards for *_, boards in rows} == {",".join(map(str, round_boards(r, 3)))}
    assert len(find(doc, "p", "mv-same-boards")) == 1
    assert "online" not in text(find(doc, "section", "mv-sheet")[0]).lower()
    cards = page(client, "movement_tables", tournament.id)
    for card in find(cards, "section", "mv-table-card"):
        boards = [td.get("data-boards") for td in find(card, "td", "mv-boards")]
        assert boards == [",".join(map(str, round_boards(r, 3))) for r in range(1, 8)]
        assert "→" not in text(card)
    travel = page(client, "movement_pair", tournament.id, 12)  # 5EW
    shown = [text(td) for td in find(travel, "td", "mv-boards")]
    assert shown == [f"{3 * r - 2}–{3 * r}" for r in range(1, 8)]


def test_before_round_1_the_movement_follows_the_entries(client, make_tournament, register_pairs):
    """No movement stored yet: the page shows the one the settings give for the pairs
    registered so far (the core's generator), by number only; no round exists yet, and
    the boards are still each round's (`expected_rounds`), never the movement's sets."""
    tournament = make_tournament(seating="howell", rounds=7, boards_per_round=2)
    register_pairs(tournament, 7)
    doc = page(client, "movement", tournament.id)
    generated = movements.for_pairs(7, kind="howell", boards_per_round=2, rounds=7)
    assert generated.phantom is not None
    assert rounds_shown(doc) == expected_rounds(generated, {})
    register_pairs(tournament, 1)  # an eighth pair: no phantom any more
    doc = page(client, "movement", tournament.id)
    generated = movements.for_pairs(8, kind="howell", boards_per_round=2, rounds=7)
    assert rounds_shown(doc) == expected_rounds(generated, {})
    assert not find(doc, "tr", "mv-bye-row")
    # Too few pairs for any movement: the page says so.
    empty = make_tournament(seating="mitchell", winners=2, rounds=3)
    doc = page(client, "movement", empty.id)
    assert "once enough pairs have registered" in text(doc)
    assert not find(doc, "section", "mv-round")


def test_page_queries_do_not_grow_with_the_field(client, make_tournament, register_pairs):
    counts = []
    for tables in (3, 7):
        movement = mitchell(tables, 2)
        tournament, _ = event(
            make_tournament, register_pairs, movement=movement, pairs=2 * tables, held=True,
            seating="mitchell", winners=2,
        )  # fmt: skip
        for name, args in (
            ("movement", []),
            ("movement_tables", []),
            ("movement_travel", []),
            ("movement_pair", [2]),
        ):
            with CaptureQueriesContext(connection) as queries:
                assert client.get(reverse(name, args=[tournament.id, *args])).status_code == 200
            counts.append((tables, name, len(queries)))
    small = [(name, n) for tables, name, n in counts if tables == 3]
    large = [(name, n) for tables, name, n in counts if tables == 7]
    assert small == large, counts
    assert max(n for _, _, n in counts) <= 4, counts


def test_a_swiss_tournament_has_no_movement_pages(client, make_tournament, register_pairs):
    tournament = make_tournament()
    register_pairs(tournament, 4)
    for name, args in (
        ("movement", []),
        ("movement_tables", []),
        ("movement_table", [1]),
        ("movement_travel", []),
        ("movement_pair", [1]),
    ):
        assert client.get(reverse(name, args=[tournament.id, *args])).status_code == 404
    overview = page(client, "tournament", tournament.id)
    assert reverse("movement", args=[tournament.id]) not in {
        a.get("href") for a in find(overview, "a")
    }


def test_the_paper_speaks_chinese(client, make_tournament, register_pairs):
    """Every word the three pages print is translated: what is left in Latin letters is
    the pairs' numbers ("3NS"), the players' names (user names here) and "Qf"."""
    movement = mitchell(7, 2, phantom=14)
    tournament, _ = event(
        make_tournament, register_pairs, movement=movement, pairs=13, held=True,
        seating="mitchell", winners=2, name="秋季",
    )  # fmt: skip
    client.cookies["django_language"] = "zh-hans"
    for name, args in (
        ("movement", []),
        ("movement_tables", []),
        ("movement_travel", []),
    ):
        doc = page(client, name, tournament.id, *args)
        (main,) = doc.xpath("//main")
        words = set(re.findall(r"[A-Za-z]+", text(main)))
        words -= {"NS", "EW", "Qf", "player", "MP", "UTC"}  # "UTC+8", "比赛分（MP）"
        assert words == set(), (name, words)
    assert "第 1 轮" in text(page(client, "movement", tournament.id))
    assert "休息" in text(page(client, "movement", tournament.id))
    assert "各桌的牌号一栏相同" in text(page(client, "movement", tournament.id))


def test_a_late_entry_in_the_phantoms_place_and_a_withdrawal(
    client, make_tournament, register_pairs, t0
):
    """A late pair takes the phantom's position: its table plays, no bye any more. A
    withdrawn pair keeps its position and is marked so (RULES 10)."""
    movement = howell4(2, phantom=8)
    tournament, pairs = event(
        make_tournament, register_pairs, movement=movement, pairs=7, held=True,
        seating="howell",
    )  # fmt: skip
    (late,) = register_pairs(tournament, 1)
    late.position = 8
    late.save(update_fields=["position"])
    gone = pairs[2]  # position 3
    gone.withdrawn_at = t0
    gone.save(update_fields=["withdrawn_at"])
    names = {p.position: names_of(p) for p in Pair.objects.filter(tournament=tournament)}
    names[3] += " withdrawn"
    doc = page(client, "movement", tournament.id)
    assert rounds_shown(doc) == expected_rounds(howell4(2), names)
    assert not find(doc, "tr", "mv-bye-row")
    travel = page(client, "movement_travel", tournament.id)
    assert len(find(travel, "section", "mv-travel-card")) == 8


def test_the_console_links_the_movement_page(client, make_tournament, register_pairs, director):
    movement = mitchell(7, 2)
    tournament, _ = event(
        make_tournament, register_pairs, movement=movement, pairs=14, held=True,
        seating="mitchell", winners=2,
    )  # fmt: skip
    client.force_login(director)
    doc = page(client, "console", tournament.id)
    crumbs = find(doc, "nav", "console-crumbs")[0]
    assert reverse("movement", args=[tournament.id]) in {a.get("href") for a in find(crumbs, "a")}
