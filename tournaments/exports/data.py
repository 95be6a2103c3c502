"""Everything an export needs, read in a fixed number of queries whatever the field size.

Only boards of closed rounds are exported: their deals are public (RULES 2) and their
scores final until a director re-scores. Pairs are identified by registration number,
the pair number players see on the pages and that PBN and USEBIO call the pair id; in a
two-winner event the files number them by movement position instead ("3NS", "3EW":
`pair_numbers`), as Compscore3 does.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime

from django.utils import timezone
from django.utils.translation import gettext as _

import scoring

from .. import selectors
from ..errors import ServiceError
from ..models import (
    Board,
    BoardResult,
    Direction,
    Pair,
    PairBoardScore,
    ResultState,
    Round,
    RoundStatus,
    Tournament,
    TournamentStatus,
)
from ..selectors.pair_labels import pair_labels

PROGRAM_NAME = "Swiss pairs director"
PROGRAM_VERSION = "0.1.0"


class NothingToExport(ServiceError):
    status_code = 409


@dataclass
class ExportLine:
    round: int
    table: int
    ns: int
    ew: int
    state: str
    contract: str
    declarer: str
    lead: str
    tricks: int | None
    ns_score: int | None
    ns_adjustment: str
    ew_adjustment: str
    ns_points: float | None
    ew_points: float | None

    @property
    def passed_out(self) -> bool:
        return self.state == ResultState.PASSED_OUT

    @property
    def played(self) -> bool:
        return self.state == ResultState.PLAYED

    @property
    def adjusted(self) -> bool:
        return self.state == ResultState.ADJUSTED

    @property
    def relative(self) -> str:
        """'=', '+1', '-2' as a traveller shows the result."""
        if not self.played or self.tricks is None:
            return ""
        try:
            contract = scoring.parse_contract(self.contract)
        except scoring.ScoringError:
            contract = None  # a row stored around the services: the tricks still say it
        if contract is None:
            return ""
        diff = self.tricks - contract.tricks_needed
        return "=" if diff == 0 else f"{diff:+d}"


@dataclass
class ExportBoard:
    number: int
    round: int
    dealer: str
    vulnerability: str
    deal: str
    datum: int | None
    lines: list[ExportLine] = field(default_factory=list)


@dataclass
class ExportData:
    tournament: Tournament
    pairs: list[selectors.StandingRow]
    boards: list[ExportBoard]
    closed_rounds: list[Round]
    generated_at: datetime

    @property
    def finished(self) -> bool:
        return self.tournament.status == TournamentStatus.FINISHED

    @property
    def method(self) -> str:
        return self.tournament.scoring_method

    def pair_number(self, pair_id: int) -> int:
        return self._numbers[pair_id]

    def __post_init__(self):
        self._numbers = {p.pair_id: p.registration_no for p in self.pairs}


def collect(*, tournament: Tournament, now: datetime | None = None) -> ExportData:
    """The tournament's closed boards with their travellers, and the standings.

    Refuses (NothingToExport, 409) while no round has closed: an export then would
    have no boards, and PBN has no way to carry a ranking without a game.
    """
    now = now or timezone.now()
    closed_rounds = list(
        Round.objects.filter(tournament=tournament, status=RoundStatus.CLOSED).order_by("number")
    )
    if not closed_rounds:
        raise NothingToExport(
            _("Nothing to export yet: no round of %(t)s has closed.") % {"t": tournament.name}
        )
    pairs = selectors.standings(tournament=tournament)
    numbers = {p.pair_id: p.registration_no for p in pairs}
    round_numbers = {r.id: r.number for r in closed_rounds}
    boards = {
        b.id: ExportBoard(
            number=b.number,
            round=round_numbers[b.round_id],
            dealer=b.dealer,
            vulnerability=b.vulnerability,
            deal=b.deal,
            datum=b.datum,
        )
        for b in Board.objects.filter(round__in=closed_rounds).order_by("number")
    }
    points: dict[tuple[int, str], float | None] = {
        (result_id, direction): value
        for result_id, direction, value in PairBoardScore.objects.filter(
            board__round__in=closed_rounds, result__isnull=False
        ).values_list("result_id", "direction", "points")
    }
    lines: dict[int, list[ExportLine]] = defaultdict(list)
    for r in (
        BoardResult.objects.filter(board__round__in=closed_rounds)
        .select_related("table")
        .order_by("board__number", "table__round__number", "table__number")
    ):
        lines[r.board_id].append(
            ExportLine(
                # The round the table played it in: a travelling board's lines span rounds.
                round=round_numbers[r.table.round_id],
                table=r.table.number,
                ns=numbers[r.table.ns_pair_id],
                ew=numbers[r.table.ew_pair_id],
                state=r.state,
                contract=r.contract,
                declarer=r.declarer,
                lead=r.lead,
                tricks=r.tricks,
                ns_score=r.ns_score,
                ns_adjustment=r.ns_adjustment,
                ew_adjustment=r.ew_adjustment,
                ns_points=points.get((r.id, Direction.NS)),
                ew_points=points.get((r.id, Direction.EW)),
            )
        )
    for board_id, board in boards.items():
        # Highest NS score first, as a traveller is read; unscored lines last.
        board.lines = sorted(
            lines.get(board_id, []),
            key=lambda line: (line.ns_score is None, -(line.ns_score or 0), line.table),
        )
    return ExportData(
        tournament=tournament,
        pairs=pairs,
        boards=sorted(boards.values(), key=lambda b: b.number),
        closed_rounds=closed_rounds,
        generated_at=now,
    )


def pair_numbers(data: ExportData) -> dict[int, str]:
    """{registration no.: the pair number the files give it} (USEBIO's PAIR_NUMBER, PBN's
    PairId), as the pages print it (`selectors.pair_labels`): in an event seated by a
    movement the label of the position the pair holds ("3NS", "3EW" in a Mitchell, "3" in
    a Howell: `movements.Movement.label`); otherwise its registration number, with its
    field in a two-winner event ("7NS") so that the two lists' numbers stay apart.

    The movement is the one stored at round 1's start, the one the rounds were seated
    by: before it is stored nobody holds a position."""
    tournament = data.tournament
    labels = pair_labels(tournament)
    held = (
        dict(
            Pair.objects.filter(tournament=tournament, position__isnull=False).values_list(
                "id", "position"
            )
        )
        if labels.movement is not None
        else {}
    )
    numbers = {}
    for pair in data.pairs:
        position = held.get(pair.pair_id)
        label = labels.label(position=position, registration_no=None) if position else ""
        if label:
            numbers[pair.registration_no] = label
        elif tournament.winners == 2:
            numbers[pair.registration_no] = f"{pair.registration_no}{pair.field}"
        else:
            numbers[pair.registration_no] = str(pair.registration_no)
    return numbers
