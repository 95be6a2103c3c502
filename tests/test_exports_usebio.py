"""USEBIO 1.2 export: valid against the vendored DTD, and faithful to the stored results."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from lxml import etree
from test_api_support import Api

from tournaments.exports import NothingToExport, usebio, usebio_export
from tournaments.models import BoardResult, Pair, Table

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]
pytest_plugins = ["test_exports_support", "test_api_support"]


def parse(content: bytes) -> etree._ElementTree:
    # The DOCTYPE names the EBU's URL; nothing is fetched (no_network is lxml's default).
    return etree.ElementTree(etree.fromstring(content, etree.XMLParser(resolve_entities=False)))


def assert_valid(tree) -> None:
    dtd = usebio.dtd()
    assert dtd.validate(tree), dtd.error_log.filter_from_errors()


def text(element, path: str) -> str | None:
    found = element.find(path)
    return None if found is None else found.text


def test_vendored_dtd_is_a_dtd():
    dtd = usebio.dtd()
    names = {element.name for element in dtd.iterelements()}
    assert {"USEBIO", "EVENT", "PARTICIPANTS", "MASTER_POINTS_AWARDED", "TRAVELLER_LINE"} <= names


def test_usebio_is_valid_and_faithful(export_finished):
    tournament, pairs = export_finished
    content = usebio_export(tournament=tournament)
    assert content.startswith(b"<?xml version='1.0' encoding='UTF-8'?>")
    tree = parse(content)
    assert_valid(tree)
    assert tree.docinfo.public_id == "-//EBU//DTD USEBIO 1.2//EN"
    root = tree.getroot()
    assert root.tag == "USEBIO" and root.get("Version") == "1.2"
    event = root.find("EVENT")
    assert event.get("EVENT_TYPE") == "SWISS_PAIRS"
    method = {"MP": "MATCH_POINTS", "IMP": "CROSS_IMPS", "XIMP": "BUTLER_IMPS"}
    assert text(event, "BOARD_SCORING_METHOD") == method[tournament.scoring_method]
    assert text(event, "MATCH_SCORING_METHOD") == method[tournament.scoring_method]
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
        awarded = text(el, "MASTER_POINTS/MASTER_POINTS_AWARDED")
        assert (float(awarded) if awarded else 0.0) == float(pair.master_points)
        assert len(el.findall("PLAYER")) == 2
    names = [n.text for n in event.iterfind("PARTICIPANTS/PAIR/PLAYER/PLAYER_NAME")]
    assert "B&B <Bridge>" in names and "王力" in names

    # One MATCH per table per round.
    matches = [
        (text(m, "ROUND_NUMBER"), text(m, "NS_PAIR_NUMBER"), text(m, "EW_PAIR_NUMBER"))
        for m in event.iterfind("MATCH")
    ]
    numbers = {p.pk: p.registration_no for p in pairs}
    expected = {
        (str(t.round.number), str(numbers[t.ns_pair_id]), str(numbers[t.ew_pair_id]))
        for t in Table.objects.filter(round__tournament=tournament).select_related("round")
    }
    assert set(matches) == expected and len(matches) == len(expected)

    # Every board, one traveller line per table.
    boards = {int(text(b, "BOARD_NUMBER")): b for b in event.iterfind("BOARD")}
    assert sorted(boards) == [1, 2, 3, 4]
    for result in BoardResult.objects.filter(board__tournament=tournament).select_related(
        "table", "board"
    ):
        lines = [
            line
            for line in boards[result.board.number].iterfind("TRAVELLER_LINE")
            if text(line, "NS_PAIR_NUMBER") == str(numbers[result.table.ns_pair_id])
        ]
        assert len(lines) == 1
        line = lines[0]
        assert text(line, "EW_PAIR_NUMBER") == str(numbers[result.table.ew_pair_id])
        if result.state == "played":
            assert text(line, "SCORE") == str(result.ns_score)
            assert text(line, "PLAYED_BY") == result.declarer
            assert text(line, "CONTRACT") in {"4 S X", "3 NT"}
            assert text(line, "TRICKS") == result.result_relative
            assert text(line, "LEAD") == "HT"
        elif result.state == "passed_out":
            assert (text(line, "CONTRACT"), text(line, "SCORE")) == ("PASS", "0")
        elif result.state == "adjusted":
            assert text(line, "SCORE") == "A6040" and text(line, "CONTRACT") is None
        else:
            assert text(line, "SCORE") is None and text(line, "CONTRACT") is None
        if tournament.scoring_method == "MP" and result.state in ("played", "passed_out"):
            scored = [
                x
                for x in boards[result.board.number].iterfind("TRAVELLER_LINE")
                if text(x, "SCORE") is not None
            ]
            top = 2 * (len(scored) - 1)
            ns, ew = text(line, "NS_MATCH_POINTS"), text(line, "EW_MATCH_POINTS")
            if top:
                assert float(ns) + float(ew) == pytest.approx(top)
            else:  # the only result on the board: no matchpoints to give
                assert ns is None and ew is None
        elif tournament.scoring_method != "MP" and result.state != "not_played":
            assert text(line, "NS_IMPS") is not None and text(line, "EW_IMPS") is not None


def test_a_running_tournament_has_no_places_or_master_points(export_running):
    tournament, _pairs = export_running
    tree = parse(usebio_export(tournament=tournament))
    assert_valid(tree)
    event = tree.getroot().find("EVENT")
    assert text(event, "MPS_AWARDED_FLAG") == "N"
    assert event.find("PARTICIPANTS/PAIR/PLACE") is None
    assert event.find("PARTICIPANTS/PAIR/MASTER_POINTS") is None
    assert sorted(int(text(b, "BOARD_NUMBER")) for b in event.iterfind("BOARD")) == [1, 2]


def test_the_dtd_rejects_what_it_should(export_finished):
    tournament, _pairs = export_finished
    tree = parse(usebio_export(tournament=tournament))
    event = tree.getroot().find("EVENT")
    event.set("EVENT_TYPE", "SWISS_TEAM_OF_FIVE")
    assert not usebio.dtd().validate(tree)


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
