"""USEBIO 1.2 export: the results file national federations' masterpoint systems read.

Written the way a club scorer (Compscore3) writes a pairs event: EVENT_TYPE and
SCORING_METHOD name the scoring, PARTICIPANTS lists every registered pair (withdrawn
pairs and non-completers included, the latter without a PLACE) with the master points
awarded once the event is over, each closed board is a BOARD with one TRAVELLER_LINE
per table, and the HANDSET after the EVENT holds the deals.

A two-winner event (a Mitchell, RULES 10) is written as Compscore3 writes one:
WINNER_TYPE 2, each PAIR with its DIRECTION and its PLACE within that direction, and
the pairs numbered by their movement position as the tables know them ("3NS", "3EW"),
on the PARTICIPANTS and the traveller lines alike.

A Swiss event's rounds and tables have no element of their own: USEBIO pairs files
carry no per-round meeting (the samples have none, and the reconstructed DTD, which
knows only what they show, has none either). Who met whom is on the traveller lines,
and each round has its own board numbers, so the rounds can be read back from the
boards. See usebio_v1_2.dtd beside this file for where every spelling comes from.
"""

from __future__ import annotations

from pathlib import Path

from django.utils import timezone
from lxml import etree

import scoring
from scoring import RANKS, SEATS, SUITS

from ..deals import hands_of
from ..models import ScoringMethod
from ..services import formats
from ..validators import printable
from .data import (
    PROGRAM_NAME,
    PROGRAM_VERSION,
    ExportBoard,
    ExportData,
    ExportLine,
    pair_numbers,
)

DTD_PATH = Path(__file__).with_name("usebio_v1_2.dtd")
# The samples name the EBU's DTD by system URL alone, without a public identifier.
SYSTEM_URL = "http://www.ebu.co.uk/usebio/usebio_v1_2.dtd"

# Closest sample spelling for each of our methods. The samples' EVENT_TYPE names the
# scoring, not the movement (their Howell and Mitchell are both BUTLER_PAIRS), so a
# Swiss movement needs no type of its own:
#  - IMP (cross-IMPs, RULES 5.3) is what the samples call CROSS_IMP;
#  - XIMP (IMPs against a datum) is Butler scoring: the samples' BUTLER_PAIRS boards
#    carry the datum as BOARD_AVERAGE;
#  - MP has no sample; MP_PAIRS is the matchpoint pairs type USEBIO readers know.
EVENT_TYPE = {"MP": "MP_PAIRS", "IMP": "CROSS_IMP", "XIMP": "BUTLER_PAIRS"}
# The samples write IMPS for Butler and cross-IMPs alike; BOARD_SCORING_METHOD, which
# readers also look at, tells the two apart.
SCORING_METHOD = {"MP": "MATCH_POINTS", "IMP": "IMPS", "XIMP": "IMPS"}
BOARD_SCORING_METHOD = {"MP": "MATCH_POINTS", "IMP": "CROSS_IMPS", "XIMP": "BUTLER_IMPS"}
POINTS = {"MP": "MATCH_POINTS", "IMP": "CROSS_IMP_POINTS", "XIMP": "BUTLER_POINTS"}
# The code of an artificial score is the director's award (A6040: average plus to NS,
# average minus to EW) whatever the method; the points elements carry what it scored.
ARTIFICIAL_PERCENT = {"A+": 60, "A": 50, "A-": 40}
SEAT_NAMES = dict(zip(SEATS, ("North", "East", "South", "West"), strict=True))
SUIT_ELEMENTS = {"C": "CLUBS", "D": "DIAMONDS", "H": "HEARTS", "S": "SPADES"}


def _add(parent, name: str, value=None):
    element = etree.SubElement(parent, name)
    if value is not None:
        # Stored names may predate the name validator: a control character would make
        # lxml refuse the whole file, and XML 1.0 has no way to carry one.
        element.text = printable(value)
    return element


def _number(value: float) -> str:
    return f"{value:.2f}"


def _points(value: float) -> str:
    """Board points as the samples write them: '3', '-2.67', '0.33'."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def contract_text(contract: str) -> str:
    """'4SX', '3NT', '7NTXX'; 'PASS' for a pass-out."""
    try:
        parsed = scoring.parse_contract(contract)
    except scoring.ScoringError:
        return contract  # stored around the services: written as it is, made printable
    return "PASS" if parsed is None else str(parsed)


def lead_text(lead: str) -> str:
    """Our 'HT' (suit then rank) as USEBIO's 'TH' (rank then suit)."""
    if len(lead) == 2 and lead[0] in SUITS and lead[1] in RANKS:
        return lead[1] + lead[0]
    return lead  # stored around the services: written as it is, made printable


def _result_fields(el, line: ExportLine) -> bool:
    """A traveller line's contract, declarer, lead, tricks and score (or the adjusted
    score's code); False for a board cut off at the bell, which has none."""
    if line.played:
        _add(el, "CONTRACT", contract_text(line.contract))
        _add(el, "PLAYED_BY", line.declarer)
        if line.lead:
            _add(el, "LEAD", lead_text(line.lead))
        if line.tricks is not None:
            _add(el, "TRICKS", line.tricks)
        _add(el, "SCORE", line.ns_score)
    elif line.passed_out:
        _add(el, "CONTRACT", "PASS")
        _add(el, "SCORE", 0)
    elif line.adjusted:
        ns = ARTIFICIAL_PERCENT[line.ns_adjustment]
        ew = ARTIFICIAL_PERCENT[line.ew_adjustment]
        _add(el, "SCORE", f"A{ns:02d}{ew:02d}")
    else:
        return False
    return True


def _traveller_line(
    board_el, data: ExportData, line: ExportLine, top: int, numbers: dict[int, str]
) -> None:
    el = _add(board_el, "TRAVELLER_LINE")
    _add(el, "NS_PAIR_NUMBER", numbers.get(line.ns, line.ns))
    _add(el, "EW_PAIR_NUMBER", numbers.get(line.ew, line.ew))
    if not _result_fields(el, line):
        return  # cut off at the bell: the meeting is recorded, with no score
    if line.ns_points is None or line.ew_points is None:
        return
    ns_points, ew_points = line.ns_points, line.ew_points
    if data.method == ScoringMethod.MP:
        if not top:
            return  # a board with a single result has no matchpoints to give
        ns_points, ew_points = ns_points * top / 100, ew_points * top / 100
    _add(el, f"NS_{POINTS[data.method]}", _points(ns_points))
    _add(el, f"EW_{POINTS[data.method]}", _points(ew_points))


def _results(
    event,
    data: ExportData,
    board: ExportBoard,
    numbers: dict[int, str],
    expected: dict[int, int],
) -> None:
    board_el = _add(event, "BOARD")
    board_el.set("EVENT_TYPE", EVENT_TYPE[data.method])
    _add(board_el, "BOARD_NUMBER", board.number)
    if data.method == "XIMP" and board.datum is not None:
        _add(board_el, "BOARD_AVERAGE", board.datum)
    # Percentages back to matchpoints, on a top counting every scored line
    # (adjusted ones too): a played line's NS and EW matchpoints make the top. In a
    # movement scored with Neuberg the top is the one the board was factored to,
    # 2(E − 1), E the tables that play the board (RULES 10), as Compscore3 writes MP′.
    scored = sum(1 for line in board.lines if line.ns_points is not None)
    top = 2 * max(expected.get(board.number, scored) - 1, 0)
    for line in board.lines:
        _traveller_line(board_el, data, line, top, numbers)


def _deal(handset, board: ExportBoard) -> None:
    try:
        hands = hands_of(board.deal)
    except (ValueError, IndexError):
        hands = {}
    if not hands:
        return  # stored around the services: the results stand without the deal
    board_el = _add(handset, "BOARD")
    _add(board_el, "BOARD_NUMBER", board.number)
    for seat in SEATS:
        if seat not in hands:
            continue
        hand_el = _add(board_el, "HAND")
        _add(hand_el, "DIRECTION", SEAT_NAMES[seat])
        for suit in "CDHS":  # the samples' order
            _add(hand_el, SUIT_ELEMENTS[suit], hands[seat].get(suit, ""))


def build(data: ExportData) -> etree._ElementTree:
    tournament = data.tournament
    event_type = EVENT_TYPE[data.method]
    root = etree.Element("USEBIO", Version="1.2")
    event = etree.SubElement(root, "EVENT", EVENT_TYPE=event_type)
    _add(event, "EVENT_IDENTIFIER", tournament.pk)
    _add(event, "EVENT_DESCRIPTION", tournament.name)
    _add(event, "PROGRAM_NAME", PROGRAM_NAME)
    _add(event, "PROGRAM_VERSION", PROGRAM_VERSION)
    two_winners = tournament.winners == 2
    # A Swiss has one ranking, like a Howell; a Mitchell one in each direction.
    _add(event, "WINNER_TYPE", 2 if two_winners else 1)
    _add(event, "DATE", timezone.localtime(tournament.start_at).strftime("%d/%m/%Y"))
    awarded = data.finished and any(p.master_points > 0 for p in data.pairs)
    _add(event, "MPS_AWARDED_FLAG", "Y" if awarded else "N")
    _add(event, "SCORING_METHOD", SCORING_METHOD[data.method])
    _add(event, "BOARD_SCORING_METHOD", BOARD_SCORING_METHOD[data.method])

    participants = _add(event, "PARTICIPANTS")
    participants.set("EVENT_TYPE", event_type)
    numbers = pair_numbers(data)
    for pair in sorted(data.pairs, key=lambda p: _participant_order(p, numbers)):
        el = _add(participants, "PAIR")
        _add(el, "PAIR_NUMBER", numbers[pair.registration_no])
        if two_winners:
            _add(el, "DIRECTION", pair.field)
        _add(el, "BOARDS_PLAYED", pair.boards_completed)
        _add(el, "TOTAL_SCORE", _number(pair.total))
        if data.method == ScoringMethod.MP:
            _add(el, "PERCENTAGE", _number(pair.total))
        if data.finished and pair.rank:
            _add(el, "PLACE", pair.rank)  # two winners: the place in its direction
        if data.finished and pair.master_points > 0:
            _add(el, "MASTER_POINTS_AWARDED", f"{pair.master_points:g}")
        for player in pair.players:
            player_el = _add(el, "PLAYER")
            _add(player_el, "PLAYER_NAME", player.name)

    expected = formats.format_of(tournament).expected_results(
        tournament=tournament, rounds=data.closed_rounds
    )
    for board in data.boards:
        _results(event, data, board, numbers, expected)

    handset = _add(root, "HANDSET")
    for board in data.boards:
        _deal(handset, board)

    tree = etree.ElementTree(root)
    tree.docinfo.system_url = SYSTEM_URL
    return tree


def _participant_order(pair, numbers: dict[int, str]) -> tuple:
    """As Compscore3 lists a Mitchell's pairs (1NS, 1EW, 2NS, 2EW, …); one winner: by
    registration number."""
    number = numbers[pair.registration_no]
    digits = number.rstrip("NSEW")
    if digits != number and digits.isdigit():
        return (int(digits), number[len(digits) :] != "NS", pair.registration_no)
    return (pair.registration_no, False, pair.registration_no)


def render(data: ExportData) -> bytes:
    return etree.tostring(build(data), xml_declaration=True, encoding="UTF-8", pretty_print=True)


def dtd() -> etree.DTD:
    with DTD_PATH.open("rb") as handle:
        return etree.DTD(handle)


# --- team events (RULES 11) -------------------------------------------------------------
# Spelled as two public programs that write and read USEBIO 1.2 team events do (the
# DTD beside this file says which): EVENT_TYPE SWISS_TEAMS (a Swiss), TEAMS (a round
# robin) or KO (IMPs only: the knock-out scoring); MATCH_SCORING_METHOD VPS or IMPS; each
# TEAM a participant with TEAM_ID and TEAM_NAME as attributes; one MATCH per match of a
# closed round (its TEAM the home team, OPPOSING_TEAM the visitors, none for a bye), with
# per BOARD the home team's IMPS and both rooms' TRAVELLER_LINEs, each with the DIRECTION
# the home team sat in there (NS in the open room, EW in the closed room).


def team_event_type(data) -> str:
    if not data.in_vps:
        return "KO"
    return "SWISS_TEAMS" if data.swiss else "TEAMS"


def _match_score(data, vp, imps: int) -> str:
    if data.in_vps:
        return _number(float(vp)) if vp is not None else ""
    return str(imps)


def _room_line(board_el, room, line: ExportLine | None, *, home_direction: str) -> None:
    el = _add(board_el, "TRAVELLER_LINE")
    _add(el, "DIRECTION", home_direction)
    _add(el, "NS_PAIR_NUMBER", room.ns_pair)
    _add(el, "EW_PAIR_NUMBER", room.ew_pair)
    if line is None:
        return  # no result at this table: the room is recorded, with no score
    _result_fields(el, line)


def _team_match(event, data, match, event_type: str) -> None:
    el = _add(event, "MATCH")
    _add(el, "ROUND_NUMBER", match.round)
    _add(el, "TEAM", match.home.number)
    if match.away is None:
        _add(el, "TEAM_SCORE", _match_score(data, match.home_vp, 0))
        return
    _add(el, "OPPOSING_TEAM", match.away.number)
    if match.boards:
        _add(el, "START_BOARD_NUMBER", match.boards[0].number)
        _add(el, "END_BOARD_NUMBER", match.boards[-1].number)
    _add(el, "TEAM_SCORE", _match_score(data, match.home_vp, match.home_imps))
    _add(el, "OPPOSING_TEAM_SCORE", _match_score(data, match.away_vp, match.away_imps))
    for board in match.boards:
        board_el = _add(el, "BOARD")
        board_el.set("EVENT_TYPE", event_type)
        _add(board_el, "BOARD_NUMBER", board.number)
        if board.home_imps is not None:
            _add(board_el, "IMPS", board.home_imps)
        for room in match.rooms:
            direction = "NS" if room.name == "Open" else "EW"
            _room_line(board_el, room, room.results.get(board.number), home_direction=direction)


def build_teams(data) -> etree._ElementTree:
    tournament = data.tournament
    event_type = team_event_type(data)
    root = etree.Element("USEBIO", Version="1.2")
    event = etree.SubElement(root, "EVENT", EVENT_TYPE=event_type)
    _add(event, "EVENT_IDENTIFIER", tournament.pk)
    _add(event, "EVENT_DESCRIPTION", tournament.name)
    _add(event, "PROGRAM_NAME", PROGRAM_NAME)
    _add(event, "PROGRAM_VERSION", PROGRAM_VERSION)
    _add(event, "WINNER_TYPE", 1)
    _add(event, "DATE", timezone.localtime(tournament.start_at).strftime("%d/%m/%Y"))
    awarded = data.finished and any(p.master_points > 0 for t in data.teams for p in t.players)
    _add(event, "MPS_AWARDED_FLAG", "Y" if awarded else "N")
    _add(event, "BOARD_SCORING_METHOD", "IMPS")
    _add(event, "MATCH_SCORING_METHOD", "VPS" if data.in_vps else "IMPS")

    participants = _add(event, "PARTICIPANTS")
    participants.set("EVENT_TYPE", event_type)
    for team in sorted(data.teams, key=lambda t: t.number):
        el = _add(participants, "TEAM")
        el.set("TEAM_ID", str(team.number))
        el.set("TEAM_NAME", printable(team.name))
        _add(el, "TOTAL_SCORE", _number(float(team.vp)) if data.in_vps else f"{team.vp:.0f}")
        if data.finished and team.rank:
            _add(el, "PLACE", team.rank)
        for player in team.players:
            player_el = _add(el, "PLAYER")
            _add(player_el, "PLAYER_NAME", player.name)
            _add(player_el, "BOARDS_PLAYED", player.boards_played)
            if data.finished and player.master_points > 0:
                _add(player_el, "MASTER_POINTS_AWARDED", f"{player.master_points:g}")

    for match in data.matches:
        _team_match(event, data, match, event_type)

    handset = _add(root, "HANDSET")
    for board in data.boards:
        _deal(handset, board)

    tree = etree.ElementTree(root)
    tree.docinfo.system_url = SYSTEM_URL
    return tree


def render_teams(data) -> bytes:
    return etree.tostring(
        build_teams(data), xml_declaration=True, encoding="UTF-8", pretty_print=True
    )
