"""What the exports of a team event need (RULES 11), read in a fixed number of queries.

Only closed rounds, as for pairs (`data.collect`): their deals are public and their
matches scored. A team is numbered by its registration number, a pair (on the traveller
lines) by its own; each match gives both rooms' result of each of its boards with the
players who sat there, and each team's IMPs on the board as the scoring stored them.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal

from django.db.models import Prefetch
from django.utils import timezone
from django.utils.translation import gettext as _

from ..models import (
    Board,
    BoardResult,
    MasterPointAward,
    Match,
    PairBoardScore,
    PairSeats,
    PairStatus,
    Round,
    RoundStatus,
    Seating,
    Team,
    TeamMember,
    TeamScoring,
    Tournament,
    TournamentStatus,
    player_name,
)
from ..selectors.team_results import team_standings
from ..services.formats.team_matches import boards_played
from .data import ExportBoard, ExportLine, NothingToExport

_PAIR_PLAYERS = ("player1__profile", "player2__profile")
_ROOM = [f"{room}__{side}_pair__{p}" for room in ("open_table", "closed_table")
         for side in ("ns", "ew") for p in _PAIR_PLAYERS]  # fmt: skip


@dataclass
class TeamPlayer:
    name: str
    boards_played: int
    master_points: Decimal


@dataclass
class ExportTeam:
    team_id: int
    number: int
    name: str
    position: int | None
    rank: int | None
    vp: Decimal
    imps_won: int
    imps_lost: int
    withdrawn: bool
    players: list[TeamPlayer] = field(default_factory=list)


@dataclass
class Room:
    """One room of a match: its table, the seats' names (N, E, S, W) and each board's
    result there (None: no result at that table)."""

    name: str  # "Open" or "Closed"
    table: int
    ns_pair: int
    ew_pair: int
    seats: dict[str, str]
    results: dict[int, ExportLine | None]


@dataclass
class MatchBoard:
    number: int
    home_imps: int | None
    away_imps: int | None


@dataclass
class ExportMatch:
    round: int
    number: int
    home: ExportTeam
    away: ExportTeam | None  # None: the home team's bye
    home_imps: int
    away_imps: int
    home_vp: Decimal | None
    away_vp: Decimal | None
    carry_over: int
    rooms: list[Room] = field(default_factory=list)
    boards: list[MatchBoard] = field(default_factory=list)


@dataclass
class TeamExportData:
    tournament: Tournament
    teams: list[ExportTeam]
    matches: list[ExportMatch]
    boards: list[ExportBoard]
    closed_rounds: list[Round]
    generated_at: datetime

    @property
    def finished(self) -> bool:
        return self.tournament.status == TournamentStatus.FINISHED

    @property
    def in_vps(self) -> bool:
        return self.tournament.team_scoring == TeamScoring.VP

    @property
    def swiss(self) -> bool:
        return self.tournament.seating == Seating.SWISS

    @property
    def boards_by_number(self) -> dict[int, ExportBoard]:
        return {b.number: b for b in self.boards}


def _line(result: BoardResult, *, round: int, table, ns: int, ew: int) -> ExportLine:
    return ExportLine(
        round=round,
        table=table.number,
        ns=ns,
        ew=ew,
        state=result.state,
        contract=result.contract,
        declarer=result.declarer,
        lead=result.lead,
        tricks=result.tricks,
        ns_score=result.ns_score,
        ns_adjustment=result.ns_adjustment,
        ew_adjustment=result.ew_adjustment,
        ns_points=None,
        ew_points=None,
    )


def _seats(table, swapped: set[tuple[int, int]]) -> dict[str, str]:
    """Seat -> name: a pair's player 1 North (East), player 2 South (West), unless the
    pair swapped at that table (`selectors.table_seats`)."""
    seats = {}
    for (first, second), pair in ((("N", "S"), table.ns_pair), (("E", "W"), table.ew_pair)):
        one, two = player_name(pair.player1), player_name(pair.player2)
        if (table.id, pair.id) in swapped:
            one, two = two, one
        seats[first], seats[second] = one, two
    return seats


def collect_teams(*, tournament: Tournament, now: datetime | None = None) -> TeamExportData:
    """The closed rounds' matches of a team event with both rooms' results, the teams
    in standing order with their players, and the deals. Refuses (NothingToExport, 409)
    while no round has closed."""
    now = now or timezone.now()
    closed = list(
        Round.objects.filter(tournament=tournament, status=RoundStatus.CLOSED).order_by("number")
    )
    if not closed:
        raise NothingToExport(
            _("Nothing to export yet: no round of %(t)s has closed.") % {"t": tournament.name}
        )
    round_numbers = {r.id: r.number for r in closed}
    played = boards_played(tournament)
    awarded: dict[int, Decimal] = dict(
        MasterPointAward.objects.filter(tournament=tournament, team__isnull=False).values_list(
            "user_id", "points"
        )
    )
    found = {
        t.id: t
        for t in Team.objects.filter(
            tournament=tournament, status=PairStatus.CONFIRMED
        ).prefetch_related(
            Prefetch(
                "members",
                queryset=TeamMember.objects.filter(confirmed_at__isnull=False)
                .select_related("user__profile")
                .order_by("invited_at", "id"),
            )
        )
    }
    teams: dict[int, ExportTeam] = {}
    for line in team_standings(tournament=tournament):
        team = found[line.team_id]
        teams[line.team_id] = ExportTeam(
            team_id=team.id,
            number=line.registration_no,
            name=team.name,
            position=line.position,
            rank=team.rank,
            vp=line.vp,
            imps_won=line.imps_won,
            imps_lost=line.imps_lost,
            withdrawn=line.withdrawn,
            players=[
                TeamPlayer(
                    name=player_name(m.user),
                    boards_played=played.get(team.id, {}).get(m.user_id, 0),
                    master_points=awarded.get(m.user_id, Decimal(0)),
                )
                for m in team.members.all()
            ],
        )

    boards = {
        b.id: ExportBoard(
            number=b.number,
            round=round_numbers[b.round_id],
            dealer=b.dealer,
            vulnerability=b.vulnerability,
            deal=b.deal,
            datum=b.datum,
        )
        for b in Board.objects.filter(round__in=closed).order_by("number")
    }
    numbers_of_round: dict[int, list[int]] = defaultdict(list)
    for board in boards.values():
        numbers_of_round[board.round].append(board.number)
    results: dict[tuple[int, int], BoardResult] = {
        (r.table_id, r.board.number): r
        for r in BoardResult.objects.filter(board__round__in=closed).select_related("board")
    }
    points: dict[tuple[int, int], float | None] = {
        (pair, boards[board].number): value
        for pair, board, value in PairBoardScore.objects.filter(
            board__round__in=closed
        ).values_list("pair_id", "board_id", "points")
        if board in boards
    }
    swapped = set(
        PairSeats.objects.filter(table__round__in=closed, swapped=True).values_list(
            "table_id", "pair_id"
        )
    )
    pair_numbers: dict[int, int] = {}
    matches: list[ExportMatch] = []
    for m in (
        Match.objects.filter(round__in=closed)
        .select_related("round", *_ROOM)
        .order_by("round__number", "number")
    ):
        number = m.round.number
        match = ExportMatch(
            round=number,
            number=m.number,
            home=teams[m.home_id],
            away=teams.get(m.away_id) if m.away_id is not None else None,
            home_imps=m.home_imps_won,
            away_imps=m.away_imps_won,
            home_vp=m.home_vp,
            away_vp=m.away_vp,
            carry_over=m.carry_over,
        )
        matches.append(match)
        if m.open_table is None or m.closed_table is None:
            continue
        for name, table in (("Open", m.open_table), ("Closed", m.closed_table)):
            for pair in (table.ns_pair, table.ew_pair):
                pair_numbers[pair.id] = pair.registration_no or 0
            ns, ew = pair_numbers[table.ns_pair_id], pair_numbers[table.ew_pair_id]
            match.rooms.append(
                Room(
                    name=name,
                    table=table.number,
                    ns_pair=ns,
                    ew_pair=ew,
                    seats=_seats(table, swapped),
                    results={
                        board: (
                            _line(
                                results[(table.id, board)], round=number, table=table, ns=ns, ew=ew
                            )
                            if (table.id, board) in results
                            else None
                        )
                        for board in sorted(numbers_of_round[number])
                    },
                )
            )
        home_pair, away_pair = m.open_table.ns_pair_id, m.open_table.ew_pair_id
        for board in sorted(numbers_of_round[number]):
            home, away = points.get((home_pair, board)), points.get((away_pair, board))
            match.boards.append(
                MatchBoard(
                    number=board,
                    home_imps=None if home is None else int(home),
                    away_imps=None if away is None else int(away),
                )
            )
    return TeamExportData(
        tournament=tournament,
        teams=list(teams.values()),
        matches=matches,
        boards=sorted(boards.values(), key=lambda b: b.number),
        closed_rounds=closed,
        generated_at=now,
    )
