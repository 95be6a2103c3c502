"""Team matches (RULES 11): teams of four to six, each round a match of two rooms on the
round's boards (Swiss teams on VP totals or a round robin by Berger tables), each board
scored between the two rooms in IMPs, each match turned into victory points (WBF 2013) or
kept in IMPs, the teams ranked on VPs with the SPEC's tie-breaks (`teams/`).

A match is two ordinary tables: the open room (the home team's open pair NS, the away
team's open pair EW) and the closed room (the away team's closed pair NS, the home team's
closed pair EW). So the clock, the bell's cut-off, the play server, the result entry and
the history serve a match as they serve any table; this format only says which pairs sit
at which table (the captains' line-ups, `Team.open_pair` / `closed_pair`, as they stand
when the round is seated), pairs the two rooms into a `Match`, and scores it."""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime
from decimal import Decimal

from django.db.models import Q, QuerySet
from django.utils.translation import gettext as _

import pairing
import teams

from ...errors import ClockError
from ...models import (
    Adjustment,
    Board,
    BoardResult,
    Match,
    Pair,
    PairBoardScore,
    PairStatus,
    ResultState,
    Round,
    RoundStatus,
    Seating,
    Table,
    Team,
    TeamScoring,
    TeamStanding,
    Tournament,
)
from .round_boards import RoundBoards, duplicated


class LineUpMissing(ClockError):
    """A team the clock must seat has no line-up: the clock says so and waits."""


class TeamMatches:
    key = "team_matches"

    def contestants(self, tournament: Tournament) -> QuerySet[Team]:
        return Team.objects.filter(
            tournament=tournament, status=PairStatus.CONFIRMED, withdrawn_at__isnull=True
        )

    def seat(self, *, tournament: Tournament, round_number: int) -> pairing.Seating:
        if round_number == 1:
            # Teams still waiting for their members lapse when play starts, as a pair's
            # proposal does.
            Team.objects.filter(tournament=tournament, status=PairStatus.PENDING).delete()
        fixtures = self._fixtures(tournament, round_number)
        line_ups = _line_ups(tournament, {t for f in fixtures for t in (f.home, f.away)})
        tables: list[pairing.Table] = []
        for match, fixture in enumerate(fixtures):
            home, away = line_ups[fixture.home], line_ups[fixture.away]
            tables.append(pairing.Table(number=2 * match + 1, ns=home[0], ew=away[0]))
            tables.append(pairing.Table(number=2 * match + 2, ns=away[1], ew=home[1]))
        return pairing.Seating(tables=tuple(tables), bye=None, rematches=0, cost=0.0)

    def _fixtures(self, tournament: Tournament, round_number: int) -> list[teams.Fixture]:
        if tournament.seating == Seating.ROUND_ROBIN:
            field = _round_robin_field(tournament, round_number)
            schedule = teams.round_robin(field)
            if round_number > len(schedule):
                raise ClockError(
                    _("A round robin of %(teams)d teams has %(rounds)d rounds, not %(round)d.")
                    % {"teams": len(field), "rounds": len(schedule), "round": round_number}
                )
            playing = set(self.contestants(tournament).values_list("id", flat=True))
            # A withdrawn team's opponent has the round off (a bye), as the schedule had it.
            return [
                f
                for f in schedule[round_number - 1].fixtures
                if f.home in playing and f.away in playing
            ]
        states = team_states(tournament)
        if len(states) < 2:
            return []
        if round_number == 1:
            return list(teams.first_round(states).fixtures)
        return list(teams.swiss_round(states).fixtures)

    def boards(
        self, *, tournament: Tournament, round_number: int, seating: pairing.Seating
    ) -> RoundBoards:
        return duplicated(tournament.board_numbers(round_number))

    def seated(self, *, round: Round, now: datetime) -> None:
        """Pair the round's tables two by two into matches (open room, closed room), and
        give every team left over the round's bye."""
        tables = list(
            Table.objects.filter(round=round)
            .order_by("number")
            .values_list("id", "ns_pair__team_id", "ew_pair__team_id")
        )
        matches = [
            Match(
                round=round,
                number=k + 1,
                home_id=open_room[1],
                away_id=open_room[2],
                open_table_id=open_room[0],
                closed_table_id=closed_room[0],
            )
            for k, (open_room, closed_room) in enumerate(
                zip(tables[::2], tables[1::2], strict=True)
            )
        ]
        seated = {t for _, home, away in tables for t in (home, away)}
        for team_id in (
            self.contestants(round.tournament)
            .exclude(id__in=seated)
            .order_by("registration_no")
            .values_list("id", flat=True)
        ):
            matches.append(Match(round=round, number=len(matches) + 1, home_id=team_id))
        Match.objects.bulk_create(matches)

    def score(self, *, round: Round) -> None:
        score_matches(round=round)

    def expected_results(self, *, tournament: Tournament, rounds: list[Round]) -> dict[int, int]:
        return {}

    def late_entry_problem(self, tournament: Tournament) -> str | None:
        return _("A team event takes no late entries: its schedule is fixed at the start.")

    def admitted_late(self, *, tournament: Tournament, pair: Pair) -> None:
        """Never called: `late_entry_problem` refuses every late entry."""

    def rank(
        self,
        *,
        tournament: Tournament,
        from_round: Round,
        now: datetime,
        final: bool,
        at_the_bell: bool = False,
    ) -> None:
        rank_teams(tournament=tournament, final=final)


def _line_ups(tournament: Tournament, team_ids: set[int]) -> dict[int, tuple[int, int]]:
    """{team id: (open pair id, closed pair id)} of the teams about to be seated."""
    line_ups: dict[int, tuple[int, int]] = {}
    missing: list[str] = []
    for tid, name, open_pair, closed_pair in Team.objects.filter(
        tournament=tournament, id__in=team_ids
    ).values_list("id", "name", "open_pair_id", "closed_pair_id"):
        if open_pair is None or closed_pair is None:
            missing.append(name)
        else:
            line_ups[tid] = (open_pair, closed_pair)
    if missing:
        raise LineUpMissing(
            _("These teams have no line-up and cannot be seated: %(teams)s.")
            % {"teams": ", ".join(sorted(missing))}
        )
    return line_ups


def _round_robin_field(tournament: Tournament, round_number: int) -> list[int]:
    """The teams of the round robin, in registration order: those seated at its start
    (a team that withdrew later keeps its place in the schedule), or at the start itself
    the teams registered."""
    if round_number == 1:
        query = TeamMatches().contestants(tournament)
    else:
        query = Team.objects.filter(
            Q(home_matches__round__tournament=tournament, home_matches__round__number=1)
            | Q(away_matches__round__tournament=tournament, away_matches__round__number=1)
        ).distinct()
    return list(query.order_by("registration_no").values_list("id", flat=True))


def team_states(tournament: Tournament) -> list[teams.TeamState]:
    """What the Swiss engine needs of every team still in the event: VPs, opponents,
    byes, home and away counts, from the stored matches."""
    field = list(TeamMatches().contestants(tournament).values_list("id", "registration_no", "vp"))
    opponents: dict[int, set[int]] = defaultdict(set)
    byes: dict[int, int] = defaultdict(int)
    home: dict[int, int] = defaultdict(int)
    away: dict[int, int] = defaultdict(int)
    boards: dict[int, int] = defaultdict(int)
    for home_id, away_id, scored in Match.objects.filter(round__tournament=tournament).values_list(
        "home_id", "away_id", "boards_scored"
    ):
        if away_id is None:
            byes[home_id] += 1
            continue
        opponents[home_id].add(away_id)
        opponents[away_id].add(home_id)
        home[home_id] += 1
        away[away_id] += 1
        boards[home_id] += scored
        boards[away_id] += scored
    return [
        teams.TeamState(
            team_id=tid,
            registration_no=reg or 0,
            vp=Decimal(vp),
            boards_played=boards[tid],
            opponents=frozenset(opponents[tid]),
            byes=byes[tid],
            home=home[tid],
            away=away[tid],
        )
        for tid, reg, vp in field
    ]


def _room_result(result: BoardResult | None, *, closed_room: bool) -> object:
    """One room's result as the match core reads it: the NS score, an adjustment given
    as (home code, away code), or None for a board not played."""
    if result is None or result.state == ResultState.NOT_PLAYED:
        return None
    if result.state == ResultState.ADJUSTED:
        ns, ew = result.ns_adjustment or Adjustment.AVG, result.ew_adjustment or Adjustment.AVG
        # The home team sits NS in the open room and EW in the closed room.
        return (ew, ns) if closed_room else (ns, ew)
    return int(result.ns_score or 0)


def _board_result(open_result: object, closed_result: object) -> teams.BoardResult:
    for adjusted in (open_result, closed_result):
        if isinstance(adjusted, tuple):
            return teams.Adjusted(home=adjusted[0], away=adjusted[1])
    if open_result is None or closed_result is None:
        # Both teams have a pair at the table that did not finish.
        return teams.CutOff(unfinished=frozenset((teams.HOME, teams.AWAY)))
    assert isinstance(open_result, int) and isinstance(closed_result, int)
    return teams.Played(open_ns=open_result, closed_ns=closed_result)


def score_matches(*, round: Round) -> None:
    """Every match of the closed `round` scored from both rooms' stored results: the
    match's IMPs and VPs, and each of its pairs' board scores (the team's IMPs on the
    board, from the pair's side) for the pages every format shares."""
    tournament = round.tournament
    boards = list(Board.objects.filter(round=round).order_by("number").values_list("id", flat=True))
    matches = list(Match.objects.filter(round=round).select_related("open_table", "closed_table"))
    results: dict[tuple[int, int], BoardResult] = {
        (r.table_id, r.board_id): r for r in BoardResult.objects.filter(table__round=round)
    }
    PairBoardScore.objects.filter(board_id__in=boards).delete()
    scores: list[PairBoardScore] = []
    imp_only = tournament.team_scoring == TeamScoring.IMPS
    for match in matches:
        if match.is_bye:
            match.home_vp = None if imp_only else tournament.bye_vp
            match.away_vp = None
            match.home_imps_won = match.home_imps_lost = 0
            match.away_imps_won = match.away_imps_lost = match.boards_scored = 0
            continue
        open_table, closed_table = match.open_table, match.closed_table
        assert open_table is not None and closed_table is not None
        board_results = [
            _board_result(
                _room_result(results.get((open_table.id, b)), closed_room=False),
                _room_result(results.get((closed_table.id, b)), closed_room=True),
            )
            for b in boards
        ]
        scored = teams.score_match(
            [board_results],
            policy=tournament.unplayed_policy,
            carry_over=match.carry_over,
            imp_only=imp_only,
            boards=len(boards),
        )
        match.home_imps_won, match.home_imps_lost = scored.home.won, scored.home.lost
        match.away_imps_won, match.away_imps_lost = scored.away.won, scored.away.lost
        match.home_vp, match.away_vp = scored.home.vp, scored.away.vp
        match.boards_scored = sum(1 for b in scored.boards if b.scored)
        home_pairs = (open_table.ns_pair_id, closed_table.ew_pair_id)
        away_pairs = (open_table.ew_pair_id, closed_table.ns_pair_id)
        for board_id, board_score, open_r, closed_r in zip(
            boards,
            scored.boards,
            (results.get((open_table.id, b)) for b in boards),
            (results.get((closed_table.id, b)) for b in boards),
            strict=True,
        ):
            for pair_id, direction, points, result in (
                (home_pairs[0], "NS", board_score.home, open_r),
                (away_pairs[0], "EW", board_score.away, open_r),
                (away_pairs[1], "NS", board_score.away, closed_r),
                (home_pairs[1], "EW", board_score.home, closed_r),
            ):
                scores.append(
                    PairBoardScore(
                        pair_id=pair_id,
                        board_id=board_id,
                        result=result,
                        direction=direction,
                        points=float(points) if board_score.scored else None,
                        completed=board_score.scored,
                    )
                )
    Match.objects.bulk_update(
        matches,
        [
            "home_imps_won",
            "home_imps_lost",
            "away_imps_won",
            "away_imps_lost",
            "home_vp",
            "away_vp",
            "boards_scored",
        ],
    )
    PairBoardScore.objects.bulk_create(scores)


def _standing_points(vp: Decimal | None, net: int) -> Decimal:
    """What a match adds to a team's standing: its VPs, or in IMPs only (a knock-out
    series ranked as a table) its IMP margin."""
    return vp if vp is not None else Decimal(net)


def _records(matches) -> list[teams.MatchRecord]:
    records = []
    for m in matches:
        if m.away_id is None:
            records.append(
                teams.MatchRecord(home=m.home_id, away=None, home_vp=m.home_vp or Decimal(0))
            )
            continue
        records.append(
            teams.MatchRecord(
                home=m.home_id,
                away=m.away_id,
                # IMPs only (a knock-out): the standings add the IMP margins instead.
                home_vp=_standing_points(m.home_vp, m.home_imps_won - m.home_imps_lost),
                away_vp=_standing_points(m.away_vp, m.away_imps_won - m.away_imps_lost),
                home_won=m.home_imps_won,
                home_lost=m.home_imps_lost,
                away_won=m.away_imps_won,
                away_lost=m.away_imps_lost,
            )
        )
    return records


def rank_teams(*, tournament: Tournament, final: bool) -> None:
    """The teams' totals and ranks from every closed round's matches, and the standings
    after each closed round (rewritten whole: a team event has at most a few hundred
    teams and a few dozen rounds)."""
    entries = [
        teams.TeamEntry(team_id=tid, registration_no=reg or 0)
        for tid, reg in Team.objects.filter(
            tournament=tournament, status=PairStatus.CONFIRMED
        ).values_list("id", "registration_no")
    ]
    closed = list(
        Round.objects.filter(tournament=tournament, status=RoundStatus.CLOSED).order_by("number")
    )
    by_round: dict[int, list[Match]] = defaultdict(list)
    for match in Match.objects.filter(round__in=closed):
        by_round[match.round_id].append(match)
    TeamStanding.objects.filter(round__tournament=tournament).delete()
    so_far: list[Match] = []
    standings: list[TeamStanding] = []
    table: list[teams.TeamStanding] = []
    for round in closed:
        round_vp: dict[int, Decimal] = {}
        for m in by_round[round.id]:
            so_far.append(m)
            round_vp[m.home_id] = m.home_vp if m.home_vp is not None else Decimal(0)
            if m.away_id is not None:
                round_vp[m.away_id] = m.away_vp if m.away_vp is not None else Decimal(0)
        table = teams.rank_teams(entries, _records(so_far))
        standings.extend(
            TeamStanding(
                team_id=line.team_id,
                round=round,
                round_vp=round_vp.get(line.team_id),
                vp=line.vp,
                position=line.rank,
            )
            for line in table
        )
    TeamStanding.objects.bulk_create(standings)
    lines = {line.team_id: line for line in table}
    updated = []
    for team in Team.objects.filter(tournament=tournament, status=PairStatus.CONFIRMED):
        line = lines.get(team.id)
        team.vp = line.vp if line else Decimal(0)
        team.imps_won = line.imps_won if line else 0
        team.imps_lost = line.imps_lost if line else 0
        team.rank = line.rank if (line and final) else None
        updated.append(team)
    Team.objects.bulk_update(updated, ["vp", "imps_won", "imps_lost", "rank"])


TEAM_MATCHES = TeamMatches()
