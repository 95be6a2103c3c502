"""PBN 2.1 export: syntax, and a round trip through endplay's PBN parser."""

from __future__ import annotations

import re
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from endplay.parsers import pbn as pbn_parser
from endplay.types import Deal, Vul

from tests.support.api import Api
from tournaments.exports import NothingToExport, pbn_export
from tournaments.models import Board, BoardResult, Pair

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]
MTS = [
    "Event",
    "Site",
    "Date",
    "Board",
    "West",
    "North",
    "East",
    "South",
    "Dealer",
    "Vulnerable",
    "Deal",
    "Scoring",
    "Declarer",
    "Contract",
    "Result",
]
TAG = re.compile(r'^\[(\w+) "((?:[^"\\]|\\.)*)"\]$')


def games(text: str) -> list[list[str]]:
    """The file's games: blocks of lines between empty lines, after the % header."""
    blocks = [block.splitlines() for block in text.strip("\n").split("\n\n")]
    header, *rest = blocks
    assert all(line.startswith("%") for line in header)
    return rest


def column_index(rows_table, name):
    return [h["name"] if isinstance(h, dict) else h for h in rows_table["headers"]].index(name)


def test_pbn_syntax(export_finished):
    tournament, _pairs = export_finished
    text = pbn_export(tournament=tournament)
    assert text.startswith("% PBN 2.1\n% EXPORT\n")
    assert "\r" not in text and "\t" not in text
    for line in text.splitlines():
        assert len(line) <= 255, line
    board_numbers = []
    for game in games(text):
        tags = [TAG.match(line) for line in game if line.startswith("[")]
        assert all(tags), [line for line in game if line.startswith("[") and not TAG.match(line)]
        names = [m.group(1) for m in tags]
        # Export format: the mandatory tag set first, in its order.
        assert names[: len(MTS)] == MTS
        values = {m.group(1): m.group(2) for m in tags}
        board_numbers.append(int(values["Board"]))
        assert re.fullmatch(r"\d{4}\.\d{2}\.\d{2}", values["Date"])
        assert values["Vulnerable"] in {"None", "NS", "EW", "All"}
        assert values["Dealer"] in {"N", "E", "S", "W"}
        assert values["Event"] == 'Spring \\"Swiss\\" <Open> 春季'
        header = values["ScoreTable"].split(";")
        assert all(re.fullmatch(r"\w+\\\d+[LR]", column) for column in header), header
        # Table rows: as many cells as columns, tokens without ; { }.
        rows = [line for line in game if not line.startswith("[")]
        assert rows
        for row in rows:
            assert not set(row) & set(";{}") or row.count('"') >= 2, row
    assert board_numbers == [1, 2, 3, 4]


def test_pbn_round_trip_through_endplay(export_finished):
    tournament, pairs = export_finished
    text = pbn_export(tournament=tournament)
    boards = pbn_parser.loads(text)
    assert [b.board_num for b in boards] == [1, 2, 3, 4]
    numbers = {p.pk: p.registration_no for p in Pair.objects.filter(tournament=tournament)}
    method = tournament.scoring_method
    for parsed in boards:
        stored = Board.objects.get(tournament=tournament, number=parsed.board_num)
        assert parsed.deal.to_pbn() == Deal(stored.deal).to_pbn()
        assert parsed.dealer.abbr == stored.dealer
        expected_vul = {"None": Vul.none, "NS": Vul.ns, "EW": Vul.ew, "Both": Vul.both}
        assert parsed.vul == expected_vul[stored.vulnerability]
        assert parsed.info["Round"] == str(stored.round.number)

        table = parsed.info["ScoreTable"]
        rows = {int(row[column_index(table, "Table")]): row for row in table["rows"]}
        results = BoardResult.objects.filter(board=stored).select_related("table")
        assert set(rows) == {r.table.number for r in results}
        for result in results:
            row = rows[result.table.number]
            cell = dict(zip([h["name"] for h in table["headers"]], row, strict=True))
            assert int(cell["PairId_NS"]) == numbers[result.table.ns_pair_id]
            assert int(cell["PairId_EW"]) == numbers[result.table.ew_pair_id]
            points_ns = cell["Percentage_NS" if method == "MP" else "IMP_NS"]
            if result.state == "played":
                assert cell["Contract"] == result.contract
                assert cell["Declarer"] == result.declarer
                assert int(cell["Result"]) == result.tricks
                assert int(cell["Score_NS"]) == result.ns_score
                assert int(cell["Score_EW"]) == -result.ns_score
                assert cell["Lead"] == "HT"
                assert not points_ns.startswith("^")
            elif result.state == "passed_out":
                assert (cell["Contract"], cell["Declarer"], cell["Result"]) == ("Pass", "-", "-")
                assert cell["Score_NS"] == "0"
            elif result.state == "adjusted":
                assert cell["Contract"] == "-" and cell["Score_NS"] == "-"
                assert points_ns.startswith("^")  # artificial score (PBN 5.2)
            else:  # cut off at the bell, not played
                assert cell["Contract"] == "-" and points_ns == "-"

    ranking = boards[0].info["TotalScoreTable"]
    headers = [h["name"] for h in ranking["headers"]]
    assert headers[-1] == "Names"
    rank_at, pair_at = headers.index("Rank"), headers.index("PairId")
    mp_at = headers.index("MasterPoints")
    by_number = {int(row[pair_at]): row for row in ranking["rows"]}
    assert set(by_number) == {p.registration_no for p in pairs}
    for pair in Pair.objects.filter(tournament=tournament):
        row = by_number[pair.registration_no]
        assert row[rank_at] == (str(pair.rank) if pair.rank else "-")
        assert float(row[mp_at]) == float(pair.master_points)
    assert "TotalScoreTable" not in boards[1].info


def test_names_are_escaped_in_string_tokens(export_finished):
    tournament, _pairs = export_finished
    text = pbn_export(tournament=tournament)
    assert '"王力 – Ann \\"Ace\\" O\'Neil"' in text


def test_a_running_tournament_exports_its_closed_rounds(export_running):
    tournament, _pairs = export_running
    boards = pbn_parser.loads(pbn_export(tournament=tournament))
    assert [b.board_num for b in boards] == [1, 2]  # round 2 is still in play
    ranking = boards[0].info["TotalScoreTable"]
    headers = [h["name"] for h in ranking["headers"]]
    assert {row[headers.index("MasterPoints")] for row in ranking["rows"]} == {"-"}


def test_nothing_to_export_before_a_round_closed(make_tournament):
    tournament = make_tournament()
    with pytest.raises(NothingToExport, match="no round"):
        pbn_export(tournament=tournament)
    response = Api().get(f"/tournaments/{tournament.pk}/export.pbn")
    assert response.status_code == 409 and "no round" in response.json()["error"]
    with pytest.raises(CommandError, match="no round"):
        call_command("export_pbn", str(tournament.pk), stdout=StringIO())


def test_download_and_command(export_finished, tmp_path):
    tournament, _pairs = export_finished
    response = Api().get(f"/tournaments/{tournament.pk}/export.pbn")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    assert f'filename="tournament-{tournament.pk}.pbn"' in response["Content-Disposition"]
    body = response.content.decode("utf-8")
    assert [b.board_num for b in pbn_parser.loads(body)] == [1, 2, 3, 4]

    target = tmp_path / "out.pbn"
    call_command("export_pbn", str(tournament.pk), "-o", str(target), stderr=StringIO())
    from_file = target.read_text(encoding="utf-8")
    out = StringIO()
    call_command("export_pbn", str(tournament.pk), stdout=out)
    # Only the % Created line may differ between two exports.
    strip = lambda text: [x for x in text.splitlines() if not x.startswith("% Created")]  # noqa: E731
    assert strip(from_file) == strip(out.getvalue()) == strip(body)
    with pytest.raises(CommandError, match="no tournament"):
        call_command("export_pbn", "999999", stdout=StringIO())
