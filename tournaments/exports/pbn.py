"""PBN 2.1 export (Portable Bridge Notation, export format).

One game per closed board: the mandatory tag set in its export order (Event, Site,
Date, Board, West, North, East, South, Dealer, Vulnerable, Deal, Scoring, Declarer,
Contract, Result), the board's round, and its traveller as a ScoreTable. The first
game also carries the ranking as a TotalScoreTable (final, or live after the last
closed round). Files are UTF-8: players' names are often Chinese.

A two-winner event (RULES 10) numbers its pairs as the USEBIO export does ("3NS", "3EW",
`data.pair_numbers`), on the travellers and the ranking alike, and its TotalScoreTable
holds the two rankings one after the other, the NS pairs then the EW pairs, each ranked
in its own direction and marked in a Direction column: an export-format game carries
each tag once (PBN 2.1), so two TotalScoreTables in one game would be read as one
(endplay keeps the last).

A board played at many tables has no single declarer, contract or result, so those
tags are "?" (unknown) and the table rows say what happened at each table. Table
cells follow PBN 5.2: "-" for an irrelevant value, "^" before an artificial
(adjusted) score, right/left alignment padded to the declared minimum width.
"""

from __future__ import annotations

from django.utils import timezone

from scoring import seat_offset

from ..models import Board, ScoringMethod
from ..selectors.records import opening_leader, records_of
from ..validators import printable
from .data import PROGRAM_NAME, ExportBoard, ExportData, ExportLine, pair_numbers

VULNERABLE = {"None": "None", "NS": "NS", "EW": "EW", "Both": "All"}
SCORING = {
    ScoringMethod.MP: "MatchPoints;MP1",
    ScoringMethod.IMP: "IMP;Cross",
    ScoringMethod.XIMP: "IMP;Butler",
}
# Export-format lines stay under PBN's 255-character limit with these caps.
MAX_TAG_VALUE = 200
MAX_NAMES = 80


def escape(value, limit: int) -> str:
    """A PBN string token's content, at most `limit` characters: backslash and quote
    escaped, one line, nothing a file cannot carry (`printable`).

    Cut while escaping, never after: a cut after escaping can fall between a backslash
    and the quote it escapes, and the token then swallows its closing quote.
    """
    text = printable(value)
    # A quote just before "]" ends the tag for readers that look for the first '"]'
    # (endplay does): there it is written as an apostrophe.
    text = text.replace('"]', "']")
    out: list[str] = []
    length = 0
    for char in text:
        piece = "\\" + char if char in '"\\' else char
        if length + len(piece) > limit:
            break
        out.append(piece)
        length += len(piece)
    return "".join(out)


def tag(name: str, value) -> str:
    return f'[{name} "{escape(value, MAX_TAG_VALUE)}"]'


def _column(name: str, width: int, align: str) -> tuple[str, int, str]:
    return (name, width, align)


def table(name: str, columns: list[tuple[str, int, str]], rows: list[list[str]]) -> list[str]:
    """A supplemental table section: its tag, then one line per row, padded per column."""
    header = ";".join(f"{col}\\{width}{align}" for col, width, align in columns)
    # Written as-is: PBN files give the width marker as one backslash ("Rank\2R"),
    # and readers expect exactly that, although a string would double a backslash.
    lines = [f'[{name} "{header}"]']
    for row in rows:
        cells = []
        for (_col, width, align), cell in zip(columns, row, strict=True):
            cells.append(cell.rjust(width) if align == "R" else cell.ljust(width))
        lines.append(" ".join(cells).rstrip())
    return lines


def _token(value: str) -> str:
    """A stored field as one table cell: a space inside would shift every later column."""
    return "".join(printable(value).split()) or "-"


def _points(value: float | None, artificial: bool) -> str:
    if value is None:
        return "-"
    return ("^" if artificial else "") + f"{value:.2f}"


def _contract(line: ExportLine) -> str:
    if line.passed_out:
        return "Pass"
    return _token(line.contract) if line.played else "-"


def score_table(data: ExportData, board: ExportBoard, numbers: dict[int, str]) -> list[str]:
    unit = (
        ("Percentage_NS", "Percentage_EW")
        if data.method == ScoringMethod.MP
        else ("IMP_NS", "IMP_EW")
    )
    columns = [
        _column("Table", 3, "R"),
        _column("PairId_NS", _id_width(data, numbers), "R"),
        _column("PairId_EW", _id_width(data, numbers), "R"),
        _column("Contract", 5, "L"),
        _column("Declarer", 1, "R"),
        _column("Result", 2, "R"),
        _column("Lead", 2, "L"),
        _column("Score_NS", 5, "R"),
        _column("Score_EW", 5, "R"),
        _column(unit[0], 7, "R"),
        _column(unit[1], 7, "R"),
    ]
    rows = []
    for line in board.lines:
        scored = line.played or line.passed_out
        rows.append(
            [
                str(line.table),
                numbers.get(line.ns, str(line.ns)),
                numbers.get(line.ew, str(line.ew)),
                _contract(line),
                _token(line.declarer) if line.played else "-",
                str(line.tricks) if line.played and line.tricks is not None else "-",
                _token(line.lead) if line.played and line.lead else "-",
                str(line.ns_score) if scored else "-",
                str(-line.ns_score) if scored else "-",
                _points(line.ns_points, line.adjusted),
                _points(line.ew_points, line.adjusted),
            ]
        )
    return table("ScoreTable", columns, rows)


def _id_width(data: ExportData, numbers: dict[int, str]) -> int:
    """A PairId column's width: 3; two winners, as wide as the longest number ("12EW")."""
    if data.tournament.winners != 2:
        return 3
    return max([3, *(len(number) for number in numbers.values())])


def total_score_table(data: ExportData, numbers: dict[int, str]) -> list[str]:
    """The ranking: one winner, every pair by its place; two winners, the NS pairs then
    the EW pairs (the standings' order), ranks and positions within the direction."""
    total = ("TotalPercentage", 7) if data.method == ScoringMethod.MP else ("TotalIMP", 8)
    two_winners = data.tournament.winners == 2
    columns = [
        _column("Rank", 4, "R"),
        _column("PairId", _id_width(data, numbers), "R"),
        # User-defined (PBN 5.2): the direction a two-winner ranking is within.
        *([_column("Direction", 2, "L")] if two_winners else []),
        _column(total[0], total[1], "R"),
        _column("NrBoards", 3, "R"),
        # User-defined columns (PBN 5.2 allows them): master points awarded, and
        # whether the pair reached the completion threshold.
        _column("MasterPoints", 5, "R"),
        _column("Completed", 3, "L"),
        # Last, so that readers that split rows on spaces still find every number.
        _column("Names", 30, "L"),
    ]
    rows = []
    for pair in data.pairs:
        rank = pair.rank if data.finished else pair.position
        rows.append(
            [
                str(rank) if rank else "-",
                numbers.get(pair.registration_no, str(pair.registration_no)),
                *([pair.field or "-"] if two_winners else []),
                f"{pair.total:.2f}",
                str(pair.boards_completed),
                f"{pair.master_points:g}" if data.finished else "-",
                "Yes" if pair.completed else "No",
                f'"{escape(pair.names, MAX_NAMES)}"',
            ]
        )
    return table("TotalScoreTable", columns, rows)


def game(
    data: ExportData, board: ExportBoard, *, first: bool, numbers: dict[int, str]
) -> list[str]:
    tournament = data.tournament
    date = timezone.localtime(tournament.start_at).strftime("%Y.%m.%d")
    lines = [
        tag("Event", tournament.name),
        tag("Site", "Online"),
        tag("Date", date),
        tag("Board", board.number),
        tag("West", ""),
        tag("North", ""),
        tag("East", ""),
        tag("South", ""),
        tag("Dealer", board.dealer),
        tag("Vulnerable", VULNERABLE[board.vulnerability]),
        tag("Deal", board.deal),
        tag("Scoring", SCORING[data.method]),
        tag("Declarer", "?"),
        tag("Contract", "?"),
        tag("Result", "?"),
        tag("Competition", "Pairs"),
        tag("EventDate", date),
        tag("Round", board.round),
    ]
    if first:
        lines.append(tag("Application", PROGRAM_NAME))
        lines += total_score_table(data, numbers)
    lines += score_table(data, board, numbers)
    return lines


def render(data: ExportData) -> str:
    out = [
        "% PBN 2.1",
        "% EXPORT",
        "% Content-type: text/x-pbn; charset=UTF-8",
        f"% Creator: {PROGRAM_NAME}",
        f"% Created: {timezone.localtime(data.generated_at):%Y-%m-%d %H:%M:%S %z}",
    ]
    played = online_games(data)
    numbers = pair_numbers(data)
    for index, board in enumerate(data.boards):
        out.append("")
        out += game(data, board, first=index == 0, numbers=numbers)
        for extra in played.get(board.number, ()):
            out += ["", *extra]
    return "\n".join(out) + "\n"


# --- boards played at the system's tables (RULES 9) ------------------------------------

PBN_CALLS = {"P": "Pass", "X": "X", "XX": "XX"}


def online_games(data: ExportData) -> dict[int, list[list[str]]]:
    """board number -> one game per table where it was played online to its end: the
    table's own Declarer, Contract and Result, its [Auction] (alerts as notes) and its
    [Play] (one line per trick, the columns from the opening leader on; "*" after a
    claim)."""
    if data.tournament.play != "online":
        return {}

    boards = list(Board.objects.filter(round__in=data.closed_rounds))
    by_id = {b.pk: b for b in boards}
    exported = {b.number: b for b in data.boards}
    games: dict[int, list[list[str]]] = {}
    for board_id, records in records_of(boards=boards).items():
        board = exported.get(by_id[board_id].number)
        if board is None:
            continue
        for record in records:
            if record.played_online:
                games.setdefault(board.number, []).append(_online_game(data, board, record))
    return games


def _online_game(data: ExportData, board: ExportBoard, record) -> list[str]:
    state = record.state
    date = timezone.localtime(data.tournament.start_at).strftime("%Y.%m.%d")
    result = state.result()
    lines = [
        tag("Event", data.tournament.name),
        tag("Site", "Online"),
        tag("Date", date),
        tag("Board", board.number),
        tag("West", ""),
        tag("North", ""),
        tag("East", ""),
        tag("South", ""),
        tag("Dealer", board.dealer),
        tag("Vulnerable", VULNERABLE[board.vulnerability]),
        tag("Deal", board.deal),
        tag("Scoring", SCORING[data.method]),
        tag("Declarer", result.declarer or ""),
        tag("Contract", str(result.contract) if result.contract else "Pass"),
        tag("Result", "" if result.contract is None else result.tricks),
        tag("Round", board.round),
        tag("Table", record.table_number),
    ]
    lines += _auction_and_play(record)
    return lines


def _rows(tokens: list[str]) -> list[str]:
    """Auction tokens four calls to a line (a note stays on its call's line)."""
    rows, row, calls = [], [], 0
    for token in tokens:
        is_note = token.startswith("=")
        if not is_note and calls == 4:
            rows.append(" ".join(row))
            row, calls = [], 0
        row.append(token)
        calls += 0 if is_note else 1
    if row:
        rows.append(" ".join(row))
    return rows


# --- team events (RULES 11) -------------------------------------------------------------
# Each board of each match once per room (PBN 2.1's Room tag, "Open" / "Closed"), with
# the match's HomeTeam and VisitTeam, the four players of that room, the room's Contract,
# Declarer and Result, its NS Score and the home team's IMPs on the board (ScoreIMP,
# "NS 5" when the home team sits NS there, "EW 5" when it sits EW), and, for a room
# played at the system's tables, its Auction and Play. The first game carries the
# teams' ranking as a TotalScoreTable.


def team_total_score_table(data) -> list[str]:
    total = ("TotalVP", 7) if data.in_vps else ("TotalIMP", 8)
    columns = [
        _column("Rank", 4, "R"),
        _column("TeamId", 3, "R"),
        _column(total[0], total[1], "R"),
        _column("IMPsWon", 5, "R"),
        _column("IMPsLost", 5, "R"),
        _column("TeamName", 30, "L"),
    ]
    rows = []
    for team in data.teams:
        rank = team.rank if data.finished else team.position
        rows.append(
            [
                str(rank) if rank else "-",
                str(team.number),
                f"{team.vp:.2f}",
                str(team.imps_won),
                str(team.imps_lost),
                f'"{escape(team.name, MAX_NAMES)}"',
            ]
        )
    return table("TotalScoreTable", columns, rows)


def _room_game(data, match, room, board: ExportBoard, line: ExportLine | None, imps, record):
    date = timezone.localtime(data.tournament.start_at).strftime("%Y.%m.%d")
    if line is not None and line.passed_out:
        declarer, contract, result = "", "Pass", ""
    elif line is not None and line.played:
        declarer, contract = line.declarer, line.contract
        result = "" if line.tricks is None else str(line.tricks)
    else:  # no result there, or a director's adjusted score: no contract to give
        declarer = contract = result = "?"
    lines = [
        tag("Event", data.tournament.name),
        tag("Site", "Online"),
        tag("Date", date),
        tag("Board", board.number),
        tag("West", room.seats["W"]),
        tag("North", room.seats["N"]),
        tag("East", room.seats["E"]),
        tag("South", room.seats["S"]),
        tag("Dealer", board.dealer),
        tag("Vulnerable", VULNERABLE[board.vulnerability]),
        tag("Deal", board.deal),
        tag("Scoring", "IMP"),
        tag("Declarer", declarer),
        tag("Contract", contract),
        tag("Result", result),
        tag("Competition", "Teams"),
        tag("EventDate", date),
        tag("Round", match.round),
        tag("Match", match.number),
        tag("Room", room.name),
        tag("Table", room.table),
        tag("HomeTeam", match.home.name),
        tag("VisitTeam", match.away.name),
    ]
    if line is not None and (line.played or line.passed_out) and line.ns_score is not None:
        lines.append(tag("Score", f"NS {line.ns_score}"))
    elif line is not None and line.adjusted:
        lines.append(tag("Score", f"NS ^{line.ns_adjustment} EW ^{line.ew_adjustment}"))
    if imps is not None:
        side = "NS" if room.name == "Open" else "EW"
        lines.append(tag("ScoreIMP", f"{side} {imps}"))
    if record is not None and record.played_online:
        lines += _auction_and_play(record)
    return lines


def _auction_and_play(record) -> list[str]:
    """A board played online: its Auction (alerts as Notes) and Play sections, as PBN 2.1
    writes them; both the pairs' and the rooms' games carry them."""
    state = record.state
    calls, notes = [], []
    for call in state.calls:
        calls.append(PBN_CALLS.get(call.call, call.call))
        if call.alert:
            notes.append(call.alert)
            calls.append(f"={len(notes)}=")
    lines = [tag("Auction", state.dealer), *_rows(calls)]
    lines += [tag("Note", f"{i}:{text}") for i, text in enumerate(notes, start=1)]
    leader = opening_leader(state)
    if leader is not None and state.result().contract is not None:
        lines.append(tag("Play", leader))
        order = [seat_offset(leader, i) for i in range(4)]
        tricks = (*state.tricks, *((state.current_trick,) if state.current_trick else ()))
        for trick in tricks:
            if not trick.cards:
                continue
            cards = dict(trick.plays)
            lines.append(" ".join(cards.get(seat, "-") for seat in order))
        if state.accepted_claim is not None:
            lines.append("*")
    return lines


def _team_records(data) -> dict[tuple[int, int, int], object]:
    """(round, table, board number) -> the record of a board played online there."""
    if data.tournament.play != "online":
        return {}
    boards = list(Board.objects.filter(round__in=data.closed_rounds).select_related("round"))
    by_id = {b.pk: b for b in boards}
    found = {}
    for board_id, records in records_of(boards=boards).items():
        board = by_id[board_id]
        for record in records:
            found[(board.round.number, record.table_number, board.number)] = record
    return found


def render_teams(data) -> str:
    out = [
        "% PBN 2.1",
        "% EXPORT",
        "% Content-type: text/x-pbn; charset=UTF-8",
        f"% Creator: {PROGRAM_NAME}",
        f"% Created: {timezone.localtime(data.generated_at):%Y-%m-%d %H:%M:%S %z}",
    ]
    boards = data.boards_by_number
    records = _team_records(data)
    first = True
    for match in data.matches:
        if match.away is None:
            continue  # a bye: no board played
        for board in match.boards:
            deal = boards.get(board.number)
            if deal is None:
                continue
            for room in match.rooms:
                game = _room_game(
                    data,
                    match,
                    room,
                    deal,
                    room.results.get(board.number),
                    board.home_imps,
                    records.get((match.round, room.table, board.number)),
                )
                if first:
                    game += [tag("Application", PROGRAM_NAME), *team_total_score_table(data)]
                    first = False
                out += ["", *game]
    return "\n".join(out) + "\n"
