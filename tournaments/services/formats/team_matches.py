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

from ... import sql
from ...errors import ClockError
from ...models import (
    Adjustment,
    Board,
    BoardResult,
    Contestants,
    FormatKey,
    MasterPointAward,
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
from ..board_scoring import refresh_master_point_totals
from ..bulk import update_columns
from .round_boards import RoundBoards, duplicated


class LineUpMissing(ClockError):
    """A team the clock must seat has no line-up: the clock says so and waits."""


class TeamMatches:
    key = FormatKey.TEAM_MATCHES
    contestant = Contestants.TEAMS
    has_movement_page = False
    library_deals = False

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
        playing = set(self.contestants(tournament).values_list("id", flat=True))
        if stanza_of(tournament, round_number) > 1:
            # The match goes on against the same team; a team that withdrew meanwhile
            # leaves its opponent the rest of the match off (a bye).
            return [
                teams.Fixture(table=number, home=home, away=away)
                for number, home, away in Match.objects.filter(
                    round__tournament=tournament,
                    round__number=round_number - 1,
                    away__isnull=False,
                )
                .order_by("number")
                .values_list("number", "home_id", "away_id")
                if home in playing and away in playing
            ]
        match_number = match_of(tournament, round_number)
        if tournament.seating == Seating.ROUND_ROBIN:
            field = _round_robin_field(tournament, round_number)
            schedule = teams.round_robin(field)
            if match_number > len(schedule):
                raise ClockError(
                    _("A round robin of %(teams)d teams has %(rounds)d rounds, not %(round)d.")
                    % {"teams": len(field), "rounds": len(schedule), "round": match_number}
                )
            # A withdrawn team's opponent has the round off (a bye), as the schedule had it.
            return [
                f
                for f in schedule[match_number - 1].fixtures
                if f.home in playing and f.away in playing
            ]
        states = team_states(tournament)
        if len(states) < 2:
            return []
        if match_number == 1:
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
        stanza = stanza_of(round.tournament, round.number)
        matches = [
            Match(
                round=round,
                number=k + 1,
                stanza=stanza,
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
            matches.append(
                Match(round=round, number=len(matches) + 1, stanza=stanza, home_id=team_id)
            )
        Match.objects.bulk_create(matches)

    def score(self, *, round: Round) -> None:
        """The matches of `round`, and, when its match has later stanzas already closed (a
        ruling on an earlier stanza), those too: their carry-over and the match's VPs
        follow."""
        tournament = round.tournament
        last = round.number - stanza_of(tournament, round.number) + tournament.stanzas
        for later in (
            Round.objects.filter(
                tournament=tournament,
                number__gte=round.number,
                number__lte=last,
                status=RoundStatus.CLOSED,
            )
            .select_related("tournament")
            .order_by("number")
        ):
            score_matches(round=later)

    def expected_results(self, *, tournament: Tournament, rounds: list[Round]) -> dict[int, int]:
        return {}

    def board_finished(self, *, result: BoardResult, play_table: Table, now: datetime) -> None:
        return None  # scored with the round's other results at its bell

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
        rank_teams(tournament=tournament, from_round=from_round.number, final=final, now=now)


def stanza_of(tournament: Tournament, round_number: int) -> int:
    """Which stanza of its match round `round_number` is (1 … `Tournament.stanzas`)."""
    return (round_number - 1) % tournament.stanzas + 1


def match_of(tournament: Tournament, round_number: int) -> int:
    """Which match of the event round `round_number` belongs to (1, 2, …)."""
    return (round_number - 1) // tournament.stanzas + 1


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
        query = TEAM_MATCHES.contestants(tournament)
    else:
        query = Team.objects.filter(
            Q(home_matches__round__tournament=tournament, home_matches__round__number=1)
            | Q(away_matches__round__tournament=tournament, away_matches__round__number=1)
        ).distinct()
    return list(query.order_by("registration_no").values_list("id", flat=True))


def team_states(tournament: Tournament) -> list[teams.TeamState]:
    """What the Swiss engine needs of every team still in the event: VPs, opponents,
    byes, home and away counts, from the stored matches."""
    field = list(TEAM_MATCHES.contestants(tournament).values_list("id", "registration_no", "vp"))
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


# A room's result as the scoring reads it: (id, state, NS score, NS code, EW code).
RoomRow = tuple[int, str, int | None, str, str]


def _room_rows(results: QuerySet[BoardResult]) -> dict[tuple[int, int], RoomRow]:
    """{(table id, board id): the result as the scoring reads it}, one query, no models."""
    return {
        (table, board): (rid, state, ns, ns_adj, ew_adj)
        for rid, table, board, state, ns, ns_adj, ew_adj in results.values_list(
            "id", "table_id", "board_id", "state", "ns_score", "ns_adjustment", "ew_adjustment"
        )
    }


def _room_result(result: RoomRow | None, *, closed_room: bool) -> object:
    """One room's result as the match core reads it: the NS score, an adjustment given
    as (home code, away code), or None for a board not played."""
    if result is None or result[1] == ResultState.NOT_PLAYED:
        return None
    if result[1] == ResultState.ADJUSTED:
        ns, ew = result[3] or Adjustment.AVG, result[4] or Adjustment.AVG
        # The home team sits NS in the open room and EW in the closed room.
        return (ew, ns) if closed_room else (ns, ew)
    return int(result[2] or 0)


def _board_result(open_result: object, closed_result: object) -> teams.BoardResult:
    for adjusted in (open_result, closed_result):
        if isinstance(adjusted, tuple):
            return teams.Adjusted(home=adjusted[0], away=adjusted[1])
    if open_result is None or closed_result is None:
        # Both teams have a pair at the table that did not finish.
        return teams.CutOff(unfinished=frozenset((teams.HOME, teams.AWAY)))
    assert isinstance(open_result, int) and isinstance(closed_result, int)
    return teams.Played(open_ns=open_result, closed_ns=closed_result)


PAIR_SCORE_FIELDS = ("pair", "board", "result", "direction", "points", "completed", "artificial")


def score_matches(*, round: Round) -> None:
    """Every match of the closed `round` scored from both rooms' stored results: the
    match's IMPs and VPs, and each of its pairs' board scores (the team's IMPs on the
    board, from the pair's side) for the pages every format shares. Rows are read as
    tuples and the board scores written in one statement (`sql.copy_rows`), as the
    pairs' scoring does: a 1,000-team round is 8,000 results and 16,000 scores."""
    tournament = round.tournament
    boards = list(Board.objects.filter(round=round).order_by("number").values_list("id", flat=True))
    matches = list(Match.objects.filter(round=round).select_related("open_table", "closed_table"))
    results = _room_rows(BoardResult.objects.filter(table__round=round))
    PairBoardScore.objects.filter(board_id__in=boards).delete()
    scores: list[tuple] = []
    imp_only = tournament.team_scoring == TeamScoring.IMPS
    stanza = stanza_of(tournament, round.number)
    # VPs once, on the whole match, at its last stanza's bell (and never in IMPs only).
    converts = not imp_only and stanza == tournament.stanzas
    earlier = _earlier_stanzas(round, stanza) if stanza > 1 else {}
    policy = tournament.unplayed_policy
    for match in matches:
        if match.is_bye:
            match.home_vp = tournament.bye_vp if converts else None
            match.away_vp = None
            match.home_imps_won = match.home_imps_lost = match.carry_over = 0
            match.away_imps_won = match.away_imps_lost = match.boards_scored = 0
            continue
        open_table, closed_table = match.open_table, match.closed_table
        assert open_table is not None and closed_table is not None
        rooms = [
            (results.get((open_table.id, b)), results.get((closed_table.id, b))) for b in boards
        ]
        before = earlier.get((match.home_id, match.away_id or 0), [])
        scored = teams.score_match(
            [
                *before,
                [
                    _board_result(
                        _room_result(open_r, closed_room=False),
                        _room_result(closed_r, closed_room=True),
                    )
                    for open_r, closed_r in rooms
                ],
            ],
            policy=policy,
            imp_only=not converts,
        )
        this = scored.boards[-len(boards) :] if boards else ()
        # The home team's running score brought from the match's earlier stanzas.
        match.carry_over = scored.running[-len(this) - 1] if before and this else 0
        match.home_imps_won = sum(b.home for b in this if b.home > 0)
        match.home_imps_lost = -sum(b.home for b in this if b.home < 0)
        match.away_imps_won = sum(b.away for b in this if b.away > 0)
        match.away_imps_lost = -sum(b.away for b in this if b.away < 0)
        match.home_vp, match.away_vp = scored.home.vp, scored.away.vp
        match.boards_scored = sum(1 for b in this if b.scored)
        for board_id, board_score, (open_r, closed_r) in zip(boards, this, rooms, strict=True):
            done = board_score.scored
            home = float(board_score.home) if done else None
            away = float(board_score.away) if done else None
            open_id = open_r[0] if open_r else None
            closed_id = closed_r[0] if closed_r else None
            scores += [
                (open_table.ns_pair_id, board_id, open_id, "NS", home, done, ""),
                (open_table.ew_pair_id, board_id, open_id, "EW", away, done, ""),
                (closed_table.ns_pair_id, board_id, closed_id, "NS", away, done, ""),
                (closed_table.ew_pair_id, board_id, closed_id, "EW", home, done, ""),
            ]
    columns = (
        "home_imps_won",
        "home_imps_lost",
        "away_imps_won",
        "away_imps_lost",
        "home_vp",
        "away_vp",
        "boards_scored",
        "carry_over",
    )
    update_columns(
        Match,
        "id",
        columns,
        [[m.id for m in matches], *([getattr(m, c) for m in matches] for c in columns)],
    )
    scores.sort(key=lambda row: (row[0], row[1]))  # the unique (pair, board) index's order
    sql.copy_rows(PairBoardScore, PAIR_SCORE_FIELDS, scores)


def _earlier_stanzas(
    round: Round, stanza: int
) -> dict[tuple[int, int], list[list[teams.BoardResult]]]:
    """{(home, away): the board results of each earlier stanza of their match}, for the
    matches of `round`, its stanza `stanza` of the match (> 1)."""
    tournament = round.tournament
    numbers = range(round.number - stanza + 1, round.number)
    rooms = list(
        Match.objects.filter(
            round__tournament=tournament, round__number__in=numbers, away__isnull=False
        )
        .order_by("round__number")
        .values_list("round_id", "home_id", "away_id", "open_table_id", "closed_table_id")
    )
    boards: dict[int, list[int]] = defaultdict(list)
    for round_id, board_id in (
        Board.objects.filter(round__tournament=tournament, round__number__in=numbers)
        .order_by("number")
        .values_list("round_id", "id")
    ):
        boards[round_id].append(board_id)
    results = _room_rows(
        BoardResult.objects.filter(table_id__in=[t for row in rooms for t in row[3:]])
    )
    stanzas: dict[tuple[int, int], list[list[teams.BoardResult]]] = defaultdict(list)
    for round_id, home, away, open_table, closed_table in rooms:
        stanzas[home, away].append(
            [
                _board_result(
                    _room_result(results.get((open_table, b)), closed_room=False),
                    _room_result(results.get((closed_table, b)), closed_room=True),
                )
                for b in boards[round_id]
            ]
        )
    return stanzas


def _standing_points(vp: Decimal | None, net: int) -> Decimal:
    """What a match adds to a team's standing: its VPs, or in IMPs only (a knock-out
    series ranked as a table) its IMP margin."""
    return vp if vp is not None else Decimal(net)


def _record(home, away, home_vp, away_vp, hw, hl, aw, al) -> teams.MatchRecord:
    if away is None:
        return teams.MatchRecord(home=home, away=None, home_vp=home_vp or Decimal(0))
    return teams.MatchRecord(
        home=home,
        away=away,
        home_vp=_standing_points(home_vp, hw - hl),
        away_vp=_standing_points(away_vp, aw - al),
        home_won=hw,
        home_lost=hl,
        away_won=aw,
        away_lost=al,
    )


def rank_teams(*, tournament: Tournament, from_round: int, final: bool, now: datetime) -> None:
    """The teams' totals and ranks from every closed round's matches, and the standings
    after each closed round from `from_round` on (the earlier ones are unchanged: at the
    bell only the round just closed, after a re-score the rounds from the one changed)."""
    entries = [
        teams.TeamEntry(team_id=tid, registration_no=reg or 0)
        for tid, reg in Team.objects.filter(
            tournament=tournament, status=PairStatus.CONFIRMED
        ).values_list("id", "registration_no")
    ]
    closed = list(
        Round.objects.filter(tournament=tournament, status=RoundStatus.CLOSED).order_by("number")
    )
    # A match counts once it is complete (its last stanza closed): its VPs, and the IMPs
    # won and lost over all its stanzas.
    by_round: dict[int, list[teams.MatchRecord]] = defaultdict(list)
    round_vp: dict[int, dict[int, Decimal]] = defaultdict(dict)
    number_of = {r.id: r.number for r in closed}
    imps: dict[tuple[int, int, int | None], list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for round_id, stanza, home, away, home_vp, away_vp, hw, hl, aw, al in (
        Match.objects.filter(round__in=closed)
        .order_by("round__number")
        .values_list(
            "round_id",
            "stanza",
            "home_id",
            "away_id",
            "home_vp",
            "away_vp",
            "home_imps_won",
            "home_imps_lost",
            "away_imps_won",
            "away_imps_lost",
        )
    ):
        key = (match_of(tournament, number_of[round_id]), home, away)
        total = imps[key]
        total[0] += hw
        total[1] += hl
        total[2] += aw
        total[3] += al
        if stanza < tournament.stanzas:
            continue
        by_round[round_id].append(_record(home, away, home_vp, away_vp, *total))
        round_vp[round_id][home] = home_vp if home_vp is not None else Decimal(0)
        if away is not None:
            round_vp[round_id][away] = away_vp if away_vp is not None else Decimal(0)
    rewritten = [r for r in closed if r.number >= from_round]
    TeamStanding.objects.filter(round__in=rewritten).delete()
    so_far: list[teams.MatchRecord] = []
    standings: list[tuple] = []
    table: list[teams.TeamStanding] = []
    for round in closed:
        so_far += by_round[round.id]
        if round.number < from_round and round is not closed[-1]:
            continue  # its standings are stored and unchanged
        table = teams.rank_teams(entries, so_far)
        if round.number >= from_round:
            vps = round_vp[round.id]
            standings += [
                (line.team_id, round.id, vps.get(line.team_id), line.vp, line.rank)
                for line in table
            ]
    sql.copy_rows(TeamStanding, ("team", "round", "round_vp", "vp", "position"), standings)
    lines = {line.team_id: line for line in table}
    ids = [
        t
        for t, _reg in Team.objects.filter(
            tournament=tournament, status=PairStatus.CONFIRMED
        ).values_list("id", "registration_no")
    ]
    found = [lines.get(t) for t in ids]
    update_columns(
        Team,
        "id",
        ("vp", "imps_won", "imps_lost", "rank"),
        [
            ids,
            [line.vp if line else Decimal(0) for line in found],
            [line.imps_won if line else 0 for line in found],
            [line.imps_lost if line else 0 for line in found],
            [line.rank if (line and final) else None for line in found],
        ],
    )
    if final:
        award_master_points(tournament=tournament, table=table, now=now)


def boards_played(tournament: Tournament) -> dict[int, dict[int, int]]:
    """{team id: {player id: boards they played}}: every board with a result (not one
    cut off unplayed) at a table of the event where the player sat for the team."""
    played: dict[int, dict[int, int]] = defaultdict(lambda: defaultdict(int))
    rows = (
        BoardResult.objects.filter(table__round__tournament=tournament)
        .exclude(state=ResultState.NOT_PLAYED)
        .values_list(
            "table__ns_pair__team_id",
            "table__ns_pair__player1_id",
            "table__ns_pair__player2_id",
            "table__ew_pair__team_id",
            "table__ew_pair__player1_id",
            "table__ew_pair__player2_id",
        )
    )
    for ns_team, n, s, ew_team, e, w in rows:
        for team, player in ((ns_team, n), (ns_team, s), (ew_team, e), (ew_team, w)):
            played[team][player] += 1
    return played


def award_master_points(
    *, tournament: Tournament, table: list[teams.TeamStanding], now: datetime
) -> None:
    """The final ranking's master points (SPEC 7, teams in place of pairs), to every player
    of the team who played at least a third of the event's boards (SPEC 11); rewritten
    whole, so a re-score after the end awards again."""
    previous = set(
        MasterPointAward.objects.filter(tournament=tournament).values_list("user_id", flat=True)
    )
    MasterPointAward.objects.filter(tournament=tournament).delete()
    played = boards_played(tournament)
    awards = [
        MasterPointAward(
            tournament=tournament,
            team_id=line.team_id,
            user_id=player,
            rank=line.rank,
            points=Decimal(line.master_points),
            awarded_at=now,
        )
        for line in table
        if line.master_points > 0
        for player in sorted(
            teams.players_with_master_points(played[line.team_id], tournament.total_boards)
        )
    ]
    MasterPointAward.objects.bulk_create(awards)
    refresh_master_point_totals(user_ids=previous | {a.user_id for a in awards})


TEAM_MATCHES = TeamMatches()
