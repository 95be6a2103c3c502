"""What a team event's pages read (RULES 11): the standings, each round's matches and a
match's score card. Every result shown asks the one visibility rule
(`visibility.results_public`): a match's boards, both rooms' results and its IMPs are
shown once its round has closed, never while either room may still be playing them."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from django.db.models import Prefetch, Q

import teams

from ..models import (
    Board,
    BoardResult,
    Match,
    PairBoardScore,
    PairStatus,
    Round,
    RoundStatus,
    Team,
    Tournament,
)
from ..visibility import results_public


@dataclass(frozen=True)
class TeamLine:
    team_id: int
    name: str
    registration_no: int
    position: int | None
    vp: Decimal
    imps_won: int
    imps_lost: int
    quotient: float | None
    matches: int
    withdrawn: bool


def team_standings(*, tournament: Tournament) -> list[TeamLine]:
    """The teams in standing order after the last closed round (registration order before
    the first), with their VPs, IMPs won and lost, IMP quotient and matches played."""
    last = (
        Round.objects.filter(tournament=tournament, status=RoundStatus.CLOSED)
        .order_by("-number")
        .first()
    )
    positions: dict[int, int] = {}
    if last is not None:
        positions = dict(last.team_standings.values_list("team_id", "position"))
    played: dict[int, int] = {}
    for home, away in Match.objects.filter(
        round__tournament=tournament, round__status=RoundStatus.CLOSED
    ).values_list("home_id", "away_id"):
        played[home] = played.get(home, 0) + 1
        if away is not None:
            played[away] = played.get(away, 0) + 1
    lines = [
        TeamLine(
            team_id=t.id,
            name=t.name,
            registration_no=t.registration_no or 0,
            position=positions.get(t.id),
            vp=t.vp,
            imps_won=t.imps_won,
            imps_lost=t.imps_lost,
            quotient=_quotient(t.imps_won, t.imps_lost),
            matches=played.get(t.id, 0),
            withdrawn=t.withdrawn_at is not None,
        )
        for t in Team.objects.filter(tournament=tournament, status=PairStatus.CONFIRMED)
    ]
    unplaced = len(lines) + 1
    return sorted(lines, key=lambda line: (line.position or unplaced, line.registration_no))


def _quotient(won: int, lost: int) -> float | None:
    if won == 0 and lost == 0:
        return None
    return teams.imp_quotient(won, lost) if lost else float("inf")


@dataclass(frozen=True)
class CardLine:
    board: int
    open_room: BoardResult | None
    closed_room: BoardResult | None
    home_imps: int | None
    away_imps: int | None
    running: int


@dataclass(frozen=True)
class MatchCard:
    match: Match
    public: bool
    lines: list[CardLine]
    home_imps: int
    away_imps: int


def round_matches(*, round: Round) -> list[Match]:
    """The matches of `round` with both teams and both rooms' tables and pairs."""
    return list(
        Match.objects.filter(round=round)
        .select_related(
            "home",
            "away",
            "open_table__ns_pair__player1__profile",
            "open_table__ns_pair__player2__profile",
            "open_table__ew_pair__player1__profile",
            "open_table__ew_pair__player2__profile",
            "closed_table__ns_pair__player1__profile",
            "closed_table__ns_pair__player2__profile",
            "closed_table__ew_pair__player1__profile",
            "closed_table__ew_pair__player2__profile",
        )
        .order_by("number")
    )


def match_card(*, match: Match) -> MatchCard:
    """A match's score card: per board both rooms' contract and NS score, each team's
    net IMPs (a played board: one side's gain is the other's loss; an adjusted one need
    not be) and the home team's running score (carry-over included), once the round has
    closed; before, the card has no line (nobody may see a room's result of a board
    the other room may still be playing)."""
    round = match.round
    public = results_public(round)
    if match.is_bye or not public:
        return MatchCard(match=match, public=public, lines=[], home_imps=0, away_imps=0)
    assert match.open_table_id is not None and match.closed_table_id is not None
    boards = list(
        Board.objects.filter(round=round)
        .order_by("number")
        .prefetch_related(
            Prefetch(
                "results",
                queryset=BoardResult.objects.filter(
                    table_id__in=(match.open_table_id, match.closed_table_id)
                ),
                to_attr="rooms",
            )
        )
    )
    # Each team's IMPs on a board as the scoring stored them (adjustments and cut-offs
    # included): the board score of its pair in the open room.
    assert match.open_table is not None
    home_pair, away_pair = match.open_table.ns_pair_id, match.open_table.ew_pair_id
    imps: dict[tuple[int, int], float | None] = {
        (pair, board): points
        for pair, board, points in PairBoardScore.objects.filter(
            pair_id__in=(home_pair, away_pair), board__round=round
        ).values_list("pair_id", "board_id", "points")
    }
    lines: list[CardLine] = []
    running = match.carry_over
    for board in boards:
        rooms = {r.table_id: r for r in board.rooms}  # type: ignore[attr-defined]
        home_net, away_net = imps.get((home_pair, board.id)), imps.get((away_pair, board.id))
        if home_net is not None:
            running += int(home_net)
        lines.append(
            CardLine(
                board=board.number,
                open_room=rooms.get(match.open_table_id),
                closed_room=rooms.get(match.closed_table_id),
                home_imps=None if home_net is None else int(home_net),
                away_imps=None if away_net is None else int(away_net),
                running=running,
            )
        )
    return MatchCard(
        match=match,
        public=True,
        lines=lines,
        home_imps=match.home_imps_won,
        away_imps=match.away_imps_won,
    )


@dataclass(frozen=True)
class Room:
    """Which room of which match a table is (the table page's heading)."""

    closed: bool
    match_number: int
    home: str
    away: str


def room_of(*, table) -> Room | None:
    """The room `table` is of a team match, or None (a pairs event's table). One query."""
    found = (
        Match.objects.filter(Q(open_table=table) | Q(closed_table=table))
        .values_list("number", "home__name", "away__name", "closed_table_id")
        .first()
    )
    if found is None:
        return None
    number, home, away, closed_table_id = found
    return Room(closed=closed_table_id == table.pk, match_number=number, home=home, away=away or "")
