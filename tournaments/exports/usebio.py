"""USEBIO 1.2 export: the results file national federations' masterpoint systems read.

EVENT_TYPE is SWISS_PAIRS. PARTICIPANTS lists every registered pair (withdrawn pairs
and non-completers included, the latter without a PLACE), with the master points
awarded once the event is over. Each round's table meetings are MATCH elements with
the round score of both sides; each closed board is a BOARD with one TRAVELLER_LINE
per table. See usebio_v1_2.dtd beside this file for what is certain and what is not.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from django.utils import timezone
from lxml import etree

import scoring

from ..models import Adjustment, Direction, ScoringMethod
from ..validators import printable
from .data import PROGRAM_NAME, PROGRAM_VERSION, ExportData, ExportLine

DTD_PATH = Path(__file__).with_name("usebio_v1_2.dtd")
PUBLIC_ID = "-//EBU//DTD USEBIO 1.2//EN"
SYSTEM_URL = "http://www.usebio.org/files/usebio_v1_2.dtd"

SCORING_METHOD = {
    ScoringMethod.MP: "MATCH_POINTS",
    ScoringMethod.IMP: "CROSS_IMPS",
    ScoringMethod.XIMP: "BUTLER_IMPS",
}
ARTIFICIAL_PERCENT = {Adjustment.AVG_PLUS: 60, Adjustment.AVG: 50, Adjustment.AVG_MINUS: 40}


def _add(parent, name: str, value=None):
    element = etree.SubElement(parent, name)
    if value is not None:
        # Stored names may predate the name validator: a control character would make
        # lxml refuse the whole file, and XML 1.0 has no way to carry one.
        element.text = printable(value)
    return element


def _number(value: float) -> str:
    return f"{value:.2f}"


def contract_text(contract: str) -> str:
    """'4SX' → '4 S X', '3NT' → '3 NT' (level, strain and doubling as separate words)."""
    try:
        parsed = scoring.parse_contract(contract)
    except scoring.ScoringError:
        return contract  # stored around the services: written as it is, made printable
    if parsed is None:
        return "PASS"
    return " ".join(filter(None, [str(parsed.level), parsed.strain, "X" * parsed.doubling]))


def _traveller_line(board_el, data: ExportData, line: ExportLine, top: int) -> None:
    el = _add(board_el, "TRAVELLER_LINE")
    _add(el, "NS_PAIR_NUMBER", line.ns)
    _add(el, "EW_PAIR_NUMBER", line.ew)
    if line.played:
        _add(el, "CONTRACT", contract_text(line.contract))
        _add(el, "PLAYED_BY", line.declarer)
        if line.lead:
            _add(el, "LEAD", line.lead)
        _add(el, "TRICKS", line.relative)
        _add(el, "SCORE", line.ns_score)
    elif line.passed_out:
        _add(el, "CONTRACT", "PASS")
        _add(el, "SCORE", 0)
    elif line.adjusted:
        ns = ARTIFICIAL_PERCENT[line.ns_adjustment]
        ew = ARTIFICIAL_PERCENT[line.ew_adjustment]
        _add(el, "SCORE", f"A{ns:02d}{ew:02d}")
    else:
        return  # cut off at the bell: the meeting is recorded, with no score
    if line.ns_points is None or line.ew_points is None:
        return
    if data.method == ScoringMethod.MP:
        if not top:
            return  # a board with a single result has no matchpoints to give
        _add(el, "NS_MATCH_POINTS", _number(line.ns_points * top / 100))
        _add(el, "EW_MATCH_POINTS", _number(line.ew_points * top / 100))
    else:
        _add(el, "NS_IMPS", _number(line.ns_points))
        _add(el, "EW_IMPS", _number(line.ew_points))


def build(data: ExportData) -> etree._ElementTree:
    tournament = data.tournament
    root = etree.Element("USEBIO", Version="1.2")
    event = etree.SubElement(root, "EVENT", EVENT_TYPE="SWISS_PAIRS")
    _add(event, "PROGRAM_NAME", PROGRAM_NAME)
    _add(event, "PROGRAM_VERSION", PROGRAM_VERSION)
    _add(event, "EVENT_IDENTIFIER", tournament.pk)
    _add(event, "EVENT_DESCRIPTION", tournament.name)
    _add(event, "DATE", timezone.localtime(tournament.start_at).strftime("%d/%m/%Y"))
    _add(event, "BOARD_SCORING_METHOD", SCORING_METHOD[data.method])
    # Round results are the sum (IMPs) or mean (%) of board scores, not converted to VPs.
    _add(event, "MATCH_SCORING_METHOD", SCORING_METHOD[data.method])
    _add(event, "WINNER_TYPE", 1)
    _add(event, "BOARDS_PER_ROUND", tournament.boards_per_round)
    _add(event, "BOARDS_PLAYED", len(data.boards))
    awarded = data.finished and any(p.master_points > 0 for p in data.pairs)
    _add(event, "MPS_AWARDED_FLAG", "Y" if awarded else "N")

    participants = _add(event, "PARTICIPANTS")
    for pair in sorted(data.pairs, key=lambda p: p.registration_no):
        el = _add(participants, "PAIR")
        _add(el, "PAIR_NUMBER", pair.registration_no)
        _add(el, "BOARDS_PLAYED", pair.boards_completed)
        for player in pair.players:
            player_el = _add(el, "PLAYER")
            _add(player_el, "PLAYER_NAME", player.name)
        if data.finished and pair.rank:
            _add(el, "PLACE", pair.rank)
        _add(el, "TOTAL_SCORE", _number(pair.total))
        if data.method == ScoringMethod.MP:
            _add(el, "PERCENTAGE", _number(pair.total))
        if data.finished and pair.master_points > 0:
            mp_el = _add(el, "MASTER_POINTS")
            _add(mp_el, "MASTER_POINTS_AWARDED", f"{pair.master_points:g}")

    meetings: dict[tuple[int, int], dict] = {}
    points: dict[tuple[int, int], dict[str, list[float]]] = defaultdict(
        lambda: {Direction.NS: [], Direction.EW: []}
    )
    for board in data.boards:
        for line in board.lines:
            key = (line.round, line.table)
            meetings[key] = {"ns": line.ns, "ew": line.ew}
            if line.ns_points is not None and line.ew_points is not None:
                points[key][Direction.NS].append(line.ns_points)
                points[key][Direction.EW].append(line.ew_points)
    for (round_number, table_number), meeting in sorted(meetings.items()):
        el = _add(event, "MATCH")
        _add(el, "ROUND_NUMBER", round_number)
        _add(el, "TABLE_NUMBER", table_number)
        _add(el, "NS_PAIR_NUMBER", meeting["ns"])
        _add(el, "EW_PAIR_NUMBER", meeting["ew"])
        scored = points.get((round_number, table_number))
        if scored and scored[Direction.NS]:
            ns, ew = scored[Direction.NS], scored[Direction.EW]
            _add(el, "NS_SCORE", _number(scoring.running_total(data.method, ns)))
            _add(el, "EW_SCORE", _number(scoring.running_total(data.method, ew)))

    for board in data.boards:
        board_el = _add(event, "BOARD")
        _add(board_el, "BOARD_NUMBER", board.number)
        # Percentages back to matchpoints, on a top counting every scored line
        # (adjusted ones too): a played line's NS and EW matchpoints make the top.
        scored = sum(1 for line in board.lines if line.ns_points is not None)
        top = 2 * max(scored - 1, 0)
        for line in board.lines:
            _traveller_line(board_el, data, line, top)

    tree = etree.ElementTree(root)
    tree.docinfo.public_id = PUBLIC_ID
    tree.docinfo.system_url = SYSTEM_URL
    return tree


def render(data: ExportData) -> bytes:
    return etree.tostring(build(data), xml_declaration=True, encoding="UTF-8", pretty_print=True)


def dtd() -> etree.DTD:
    with DTD_PATH.open("rb") as handle:
        return etree.DTD(handle)
