"""USEBIO 1.2 export: valid against the vendored DTD, faithful to the stored results,
and spelled the way a real club scorer's files are (checked on those files when the
steering team has placed them in USEBIO_SAMPLES_DIR)."""

from __future__ import annotations

import re
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from lxml import etree

from tests.support.api import Api
from tests.support.exports import assert_valid, build_event, parse
from tests.support.samples import USEBIO_SAMPLES
from tournaments.deals import hands_of
from tournaments.exports import NothingToExport, usebio, usebio_export
from tournaments.models import Board, BoardResult, Pair, PairBoardScore, Table
from tournaments.services import results

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]
REPO = Path(__file__).resolve().parents[3]
FIXTURE = REPO / "tests" / "data" / "usebio" / "compscore_style.xml"
# Real files written by a club scorer (Compscore3): tests/support/samples.py says where.
SAMPLES_DIR = USEBIO_SAMPLES

EVENT_TYPE = {"MP": "MP_PAIRS", "IMP": "CROSS_IMP", "XIMP": "BUTLER_PAIRS"}
SCORING_METHOD = {"MP": "MATCH_POINTS", "IMP": "IMPS", "XIMP": "IMPS"}
BOARD_SCORING_METHOD = {"MP": "MATCH_POINTS", "IMP": "CROSS_IMPS", "XIMP": "BUTLER_IMPS"}
POINTS = {"MP": "MATCH_POINTS", "IMP": "CROSS_IMP_POINTS", "XIMP": "BUTLER_POINTS"}
ALL_POINTS = {f"{side}_{kind}" for side in ("NS", "EW") for kind in POINTS.values()}
CONTRACT = re.compile(r"PASS|[1-7](C|D|H|S|NT)X{0,2}")
LEAD = re.compile(r"[2-9TJQKA][CDHS]")


def text(element, path: str) -> str | None:
    found = element.find(path)
    return None if found is None else found.text


def event_types(dtd: etree.DTD) -> set[str]:
    event = next(e for e in dtd.iterelements() if e.name == "EVENT")
    return set(next(a for a in event.iterattributes() if a.name == "EVENT_TYPE").values())


def test_vendored_dtd_is_a_dtd():
    dtd = usebio.dtd()
    names = {element.name for element in dtd.iterelements()}
    assert {"USEBIO", "EVENT", "PARTICIPANTS", "MASTER_POINTS_AWARDED", "TRAVELLER_LINE"} <= names
    assert ALL_POINTS | {"HANDSET", "BOARD_AVERAGE", "SCORING_METHOD"} <= names
    # Guessed spellings no real file has shown are gone (MATCH is a team event's, from
    # the public team-event programs the DTD names: tests/tournaments/teams).
    assert not {"NS_IMPS", "EW_IMPS", "MASTER_POINTS"} & names
    assert {"TEAM", "MATCH", "OPPOSING_TEAM", "MATCH_SCORING_METHOD"} <= names
    assert event_types(dtd) >= set(EVENT_TYPE.values())


def test_usebio_is_valid_and_faithful(export_finished):
    tournament, pairs = export_finished
    method = tournament.scoring_method
    content = usebio_export(tournament=tournament)
    assert content.startswith(b"<?xml version='1.0' encoding='UTF-8'?>")
    assert b'<!DOCTYPE USEBIO SYSTEM "http://www.ebu.co.uk/usebio/usebio_v1_2.dtd">' in content
    tree = parse(content)
    assert_valid(tree)
    root = tree.getroot()
    assert root.tag == "USEBIO" and root.get("Version") == "1.2"
    event = root.find("EVENT")
    assert event.get("EVENT_TYPE") == EVENT_TYPE[method]
    assert event.find("PARTICIPANTS").get("EVENT_TYPE") == EVENT_TYPE[method]
    assert {b.get("EVENT_TYPE") for b in event.iterfind("BOARD")} == {EVENT_TYPE[method]}
    assert text(event, "SCORING_METHOD") == SCORING_METHOD[method]
    assert text(event, "BOARD_SCORING_METHOD") == BOARD_SCORING_METHOD[method]
    assert text(event, "EVENT_DESCRIPTION") == tournament.name
    assert text(event, "MPS_AWARDED_FLAG") == "Y"

    # Participants: every registered pair, places for the ranked, master points awarded.
    by_number = {text(p, "PAIR_NUMBER"): p for p in event.iterfind("PARTICIPANTS/PAIR")}
    assert set(by_number) == {str(p.registration_no) for p in pairs}
    for pair in Pair.objects.filter(tournament=tournament):
        el = by_number[str(pair.registration_no)]
        assert text(el, "PLACE") == (str(pair.rank) if pair.rank else None)
        assert float(text(el, "TOTAL_SCORE")) == pytest.approx(pair.total, abs=0.005)
        assert int(text(el, "BOARDS_PLAYED")) == pair.boards_completed
        awarded = text(el, "MASTER_POINTS_AWARDED")
        assert (float(awarded) if awarded else 0.0) == float(pair.master_points)
        assert len(el.findall("PLAYER")) == 2
    names = [n.text for n in event.iterfind("PARTICIPANTS/PAIR/PLAYER/PLAYER_NAME")]
    assert "B&B <Bridge>" in names and "王力" in names

    # No per-round element: each table's meeting is on the lines of its round's boards.
    numbers = {p.pk: p.registration_no for p in pairs}
    round_of = dict(
        Board.objects.filter(tournament=tournament).values_list("number", "round__number")
    )
    meetings = {
        (round_of[int(text(b, "BOARD_NUMBER"))], int(text(x, "NS_PAIR_NUMBER")))
        + (int(text(x, "EW_PAIR_NUMBER")),)
        for b in event.iterfind("BOARD")
        for x in b.iterfind("TRAVELLER_LINE")
    }
    tables = {
        (t.round.number, numbers[t.ns_pair_id], numbers[t.ew_pair_id])
        for t in Table.objects.filter(round__tournament=tournament).select_related("round")
    }
    assert meetings == tables

    # Every board, one traveller line per table, spelled as a club scorer spells it.
    boards = {int(text(b, "BOARD_NUMBER")): b for b in event.iterfind("BOARD")}
    assert sorted(boards) == [1, 2, 3, 4]
    points = {
        (s.result_id, s.direction): s.points
        for s in PairBoardScore.objects.filter(board__tournament=tournament)
    }
    for result in BoardResult.objects.filter(board__tournament=tournament).select_related(
        "table", "board"
    ):
        board_el = boards[result.board.number]
        lines = [
            line
            for line in board_el.iterfind("TRAVELLER_LINE")
            if text(line, "NS_PAIR_NUMBER") == str(numbers[result.table.ns_pair_id])
        ]
        assert len(lines) == 1
        line = lines[0]
        assert text(line, "EW_PAIR_NUMBER") == str(numbers[result.table.ew_pair_id])
        if result.state == "played":
            assert text(line, "SCORE") == str(result.ns_score)
            assert text(line, "PLAYED_BY") == result.declarer
            assert text(line, "CONTRACT") == ("4SX" if result.contract == "4SX" else "3NT")
            assert text(line, "TRICKS") == str(result.tricks)  # taken, not "+1" / "-2"
            assert text(line, "LEAD") == "TH"  # entered as H10: rank then suit
        elif result.state == "passed_out":
            assert (text(line, "CONTRACT"), text(line, "SCORE")) == ("PASS", "0")
            assert line.find("TRICKS") is None and line.find("PLAYED_BY") is None
        elif result.state == "adjusted":
            assert text(line, "SCORE") == "A6040" and text(line, "CONTRACT") is None
        else:
            assert text(line, "SCORE") is None and text(line, "CONTRACT") is None
        written = {child.tag for child in line} & ALL_POINTS
        if result.state == "not_played":
            assert not written
            continue
        if method == "MP":
            scored = [x for x in board_el.iterfind("TRAVELLER_LINE") if text(x, "SCORE")]
            top = 2 * (len(scored) - 1)
            ns, ew = text(line, "NS_MATCH_POINTS"), text(line, "EW_MATCH_POINTS")
            if top:
                if result.state != "adjusted":  # an adjustment's percentages need not add up
                    assert float(ns) + float(ew) == pytest.approx(top)
                assert float(ns) == pytest.approx(points[(result.pk, "NS")] * top / 100, abs=0.005)
            else:  # the only result on the board: no matchpoints to give
                assert ns is None and ew is None
                continue
        else:
            for side in ("NS", "EW"):
                value = float(text(line, f"{side}_{POINTS[method]}"))
                assert value == pytest.approx(points[(result.pk, side)], abs=0.005)
        assert written == {f"NS_{POINTS[method]}", f"EW_{POINTS[method]}"}

    # A Butler board's datum is its BOARD_AVERAGE; other methods have none.
    for board in Board.objects.filter(tournament=tournament):
        average = text(boards[board.number], "BOARD_AVERAGE")
        expected = board.datum if method == "XIMP" and board.datum is not None else None
        assert average == (None if expected is None else str(expected))
    if method == "XIMP":
        assert any(b.find("BOARD_AVERAGE") is not None for b in boards.values())

    # The deals, after the event.
    handset = {int(text(b, "BOARD_NUMBER")): b for b in root.iterfind("HANDSET/BOARD")}
    assert sorted(handset) == [1, 2, 3, 4]
    seats = {"North": "N", "East": "E", "South": "S", "West": "W"}
    suits = {"SPADES": "S", "HEARTS": "H", "DIAMONDS": "D", "CLUBS": "C"}
    for board in Board.objects.filter(tournament=tournament):
        hands = {
            seats[text(hand, "DIRECTION")]: {
                suits[el.tag]: el.text or "" for el in hand if el.tag in suits
            }
            for hand in handset[board.number].iterfind("HAND")
        }
        assert hands == hands_of(board.deal)


def test_a_running_tournament_has_no_places_or_master_points(export_running):
    tournament, _pairs = export_running
    tree = parse(usebio_export(tournament=tournament))
    assert_valid(tree)
    event = tree.getroot().find("EVENT")
    assert text(event, "MPS_AWARDED_FLAG") == "N"
    assert event.find("PARTICIPANTS/PAIR/PLACE") is None
    assert event.find("PARTICIPANTS/PAIR/MASTER_POINTS_AWARDED") is None
    assert sorted(int(text(b, "BOARD_NUMBER")) for b in event.iterfind("BOARD")) == [1, 2]
    assert len(tree.getroot().findall("HANDSET/BOARD")) == 2


def test_the_dtd_rejects_what_it_should(export_finished):
    tournament, _pairs = export_finished
    content = usebio_export(tournament=tournament)
    assert usebio.dtd().validate(parse(content))

    tree = parse(content)
    tree.getroot().find("EVENT").set("EVENT_TYPE", "SWISS_TEAM_OF_FIVE")
    assert not usebio.dtd().validate(tree)

    # An element the DTD does not know, such as the old guesses, fails validation.
    tree = parse(content)
    event = tree.getroot().find("EVENT")
    event.find("PARTICIPANTS").addnext(etree.Element("MATCH"))
    assert not usebio.dtd().validate(tree)

    tree = parse(content)
    line = tree.getroot().find("EVENT/BOARD/TRAVELLER_LINE")
    etree.SubElement(line, "NS_IMPS").text = "3"
    assert not usebio.dtd().validate(tree)

    # Two kinds of points on one line is no scoring method.
    tree = parse(content)
    line = next(x for x in tree.getroot().iterfind("EVENT/BOARD/TRAVELLER_LINE") if len(x) > 4)
    kinds = [kind for kind in POINTS.values() if kind != POINTS[tournament.scoring_method]]
    for kind in kinds[:1]:
        etree.SubElement(line, f"NS_{kind}").text = "0"
        etree.SubElement(line, f"EW_{kind}").text = "0"
    assert not usebio.dtd().validate(tree)


@pytest.mark.parametrize("method", ["IMP", "XIMP"])
def test_doubled_and_redoubled_contracts(method, make_tournament, register_pairs, organiser):
    tournament, pairs = build_event(make_tournament, register_pairs, organiser, method=method)
    played = list(
        BoardResult.objects.filter(board__tournament=tournament, state="played")
        .select_related("table", "board")
        .order_by("board__number", "table__number")
    )
    entries = [
        results.ContractEntry(contract="4HXX", declarer="N", tricks=10, lead="SA"),
        results.ContractEntry(contract="3NTX", declarer="E", tricks=7, lead="D2"),
    ]
    played = played[:2]
    assert len(played) == 2
    for row, entry in zip(played, entries, strict=True):
        results.director_set_result(
            table=row.table, board_number=row.board.number, by=organiser, entry=entry,
            reason="recorded from the table's scoresheet",  # a closed round needs a reason
        )  # fmt: skip
    tree = parse(usebio_export(tournament=tournament))
    assert_valid(tree)
    numbers = {p.pk: p.registration_no for p in pairs}
    expected_lines = [("4HXX", "N", "AS", "10"), ("3NTX", "E", "2D", "7")]
    for row, expected in zip(played, expected_lines, strict=True):
        row.refresh_from_db()
        (line,) = [
            x
            for x in tree.getroot().iterfind("EVENT/BOARD/TRAVELLER_LINE")
            if x.getparent().findtext("BOARD_NUMBER") == str(row.board.number)
            and text(x, "NS_PAIR_NUMBER") == str(numbers[row.table.ns_pair_id])
        ]
        tags = ("CONTRACT", "PLAYED_BY", "LEAD", "TRICKS")
        assert tuple(text(line, tag) for tag in tags) == expected
        assert text(line, "SCORE") == str(row.ns_score)
        assert line.find(f"NS_{POINTS[method]}") is not None


@pytest.mark.parametrize(
    ("stored", "written"),
    [("4SX", "4SX"), ("4 s x", "4SX"), ("7ntxx", "7NTXX"), ("3N", "3NT"), ("PASS", "PASS")],
)
def test_contracts_are_written_as_scorers_write_them(stored, written):
    assert usebio.contract_text(stored) == written


@pytest.mark.parametrize(
    ("stored", "written"), [("HT", "TH"), ("SA", "AS"), ("C2", "2C"), ("", ""), ('"]{', '"]{')]
)
def test_leads_are_rank_then_suit(stored, written):
    assert usebio.lead_text(stored) == written


@pytest.mark.parametrize(
    ("value", "written"), [(3.0, "3"), (-2.6666, "-2.67"), (0.333, "0.33"), (-0.001, "0")]
)
def test_board_points_are_written_as_scorers_write_them(value, written):
    assert usebio._points(value) == written


def test_a_file_in_the_club_scorers_structure_is_read_and_validated():
    # Our own file in the structure of Compscore3's: what the export test's reader and
    # DTD accept from a real scorer, without committing anyone else's file.
    tree = parse(FIXTURE.read_bytes())
    assert_valid(tree)
    root = tree.getroot()
    assert text(root, "CLUB/CLUB_NAME") == "Harbour Lights Bridge Club"
    event = root.find("EVENT")
    assert event.get("EVENT_TYPE") == "BUTLER_PAIRS"
    assert text(event, "SCORING_METHOD") == "IMPS"
    assert text(event, "CONTACT/EMAIL") == "scorer@example.org"

    pairs = {text(p, "PAIR_NUMBER"): p for p in event.iterfind("PARTICIPANTS/PAIR")}
    assert text(pairs["1"], "PLAYER/PLAYER_NAME") == "ALMA QUILL"
    assert text(pairs["4"], "MASTER_POINTS_AWARDED") == "4"
    # Each pair's total is the sum of its Butler points, read back from the travellers.
    totals = dict.fromkeys(pairs, 0.0)
    for line in event.iterfind("BOARD/TRAVELLER_LINE"):
        totals[text(line, "NS_PAIR_NUMBER")] += float(text(line, "NS_BUTLER_POINTS"))
        totals[text(line, "EW_PAIR_NUMBER")] += float(text(line, "EW_BUTLER_POINTS"))
    assert totals == {n: float(text(p, "TOTAL_SCORE")) for n, p in pairs.items()}

    board1, board2 = event.findall("BOARD")
    assert text(board1, "BOARD_AVERAGE") == "260"
    doubled = board1.findall("TRAVELLER_LINE")[1]
    assert [text(doubled, tag) for tag in ("CONTRACT", "PLAYED_BY", "LEAD", "TRICKS")] == [
        "3CX",
        "E",
        "5D",
        "8",
    ]
    assert text(doubled, "SCORE") == "100"
    passed, adjusted = board2.findall("TRAVELLER_LINE")
    assert (text(passed, "CONTRACT"), text(passed, "TRICKS")) == ("PASS", None)
    assert text(adjusted, "SCORE") == "A6040" and adjusted.find("CONTRACT") is None

    for board in root.iterfind("HANDSET/BOARD"):
        cards = "".join(el.text or "" for el in board.iterfind("HAND/*") if el.tag != "DIRECTION")
        assert len(cards) == 52


def _samples():
    if not SAMPLES_DIR.is_dir():
        reason = (
            f"no real USEBIO files: {SAMPLES_DIR} is absent (the steering team places "
            "Compscore3's files there; set USEBIO_SAMPLES_DIR to read them elsewhere)"
        )
        return [pytest.param(None, marks=pytest.mark.skip(reason=reason), id="no-samples")]
    return [pytest.param(p, id=p.name) for p in sorted(SAMPLES_DIR.glob("*.xml"))] or [
        pytest.param(None, id="empty")
    ]


@pytest.mark.parametrize("sample", _samples())
def test_real_scorer_files_are_read_and_validated(sample):
    assert sample is not None, f"{SAMPLES_DIR} holds no .xml file"
    tree = parse(sample.read_bytes())
    root = tree.getroot()
    assert root.tag == "USEBIO" and root.get("Version") == "1.2"
    event = root.find("EVENT")
    dtd = usebio.dtd()
    declared = event.get("EVENT_TYPE")
    if declared in event_types(dtd):
        assert_valid(tree)
    else:
        # notsupported.xml declares "NOTSUP", which is no USEBIO event type: the DTD
        # refuses it, and for that alone (the rest of the file is a Butler event).
        assert not dtd.validate(tree)
        errors = dtd.error_log.filter_from_errors()
        assert errors and all("EVENT_TYPE" in e.message for e in errors), errors
        event.set("EVENT_TYPE", event.find("PARTICIPANTS").get("EVENT_TYPE") or "PAIRS")
        assert_valid(tree)

    # The spellings the export follows, as this file has them.
    pairs = {text(p, "PAIR_NUMBER") for p in event.iterfind("PARTICIPANTS/PAIR")}
    lines = list(event.iterfind("BOARD/TRAVELLER_LINE"))
    assert pairs and lines
    kinds = set()
    for line in lines:
        assert {text(line, "NS_PAIR_NUMBER"), text(line, "EW_PAIR_NUMBER")} <= pairs
        score = text(line, "SCORE")
        contract = text(line, "CONTRACT")
        if contract is None:
            assert re.fullmatch(r"A\d{4}", score), score  # an artificial score
        else:
            assert CONTRACT.fullmatch(contract), contract
            assert re.fullmatch(r"-?\d+", score), score
        if contract not in (None, "PASS"):
            assert 0 <= int(text(line, "TRICKS")) <= 13
            assert text(line, "PLAYED_BY") in {"N", "E", "S", "W"}
        if line.find("LEAD") is not None:
            assert LEAD.fullmatch(text(line, "LEAD")), text(line, "LEAD")
        kinds |= {child.tag[3:] for child in line if child.tag in ALL_POINTS}
    assert len(kinds) == 1 and kinds <= set(POINTS.values())  # one scoring method


def test_download_and_command(export_finished, tmp_path):
    tournament, _pairs = export_finished
    response = Api().get(f"/tournaments/{tournament.pk}/export.xml")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/xml; charset=utf-8"
    assert "attachment" in response["Content-Disposition"]
    assert_valid(parse(response.content))

    target = tmp_path / "usebio.xml"
    call_command("export_usebio", str(tournament.pk), "-o", str(target), stderr=StringIO())
    assert target.read_bytes() == response.content
    out = StringIO()
    call_command("export_usebio", str(tournament.pk), stdout=out)
    assert out.getvalue().encode("utf-8") == response.content


def test_nothing_to_export_yet(make_tournament):
    tournament = make_tournament()
    with pytest.raises(NothingToExport):
        usebio_export(tournament=tournament)
    response = Api().get(f"/tournaments/{tournament.pk}/export.xml")
    assert response.status_code == 409
    with pytest.raises(CommandError, match="no round"):
        call_command("export_usebio", str(tournament.pk), stdout=StringIO())
