"""Team standings (SPEC 11): by VPs, then head-to-head VPs, then the IMP quotient (IMPs won
/ IMPs lost), then registration order; and who among a team's players earns its master
points.

*Head-to-head* is taken among the teams tied on VPs: each one's VPs from its matches
against the others of that tie (a mini-league; when the tied teams never met each other,
as is common in a Swiss, it is 0 for all and decides nothing). It is computed once per tie,
not again inside what remains tied. *IMP quotient*: IMPs won / IMPs lost over all the
team's matches (byes have none). A team that lost no IMPs is ahead of every finite quotient
when it won some; one with neither won nor lost counts as 1 (even). Everything is exact:
VPs in hundredths (`Decimal`), the quotient a `Fraction`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from itertools import groupby

from scoring import master_points

from .errors import TeamsError, gettext_noop

TIE_HEAD_TO_HEAD = "head_to_head"
TIE_QUOTIENT = "quotient"
TIE_REGISTRATION = "registration"


@dataclass(frozen=True)
class TeamEntry:
    team_id: int
    registration_no: int


@dataclass(frozen=True)
class MatchRecord:
    """A match as the standings see it: each side's VPs and IMPs won / lost
    (`teams.match.Side`). A bye is a record with ``away=None`` and the bye's VPs at home."""

    home: int
    away: int | None
    home_vp: Decimal
    away_vp: Decimal = Decimal(0)
    home_won: int = 0
    home_lost: int = 0
    away_won: int = 0
    away_lost: int = 0


@dataclass(frozen=True)
class TeamStanding:
    """One line of the standings. ``tie_break`` says what put the team below the one
    above it when their VPs were equal (None: the VPs differed, or it is first)."""

    team_id: int
    rank: int
    vp: Decimal
    imps_won: int
    imps_lost: int
    quotient: Fraction | None  # None: lost no IMPs but won some (infinite)
    head_to_head_vp: Decimal
    tie_break: str | None
    master_points: int


def imp_quotient(won: int, lost: int) -> Fraction | None:
    """IMPs won / IMPs lost; None for won > 0 and lost == 0 (infinite); 1 for 0 / 0."""
    if won < 0 or lost < 0:
        raise TeamsError(gettext_noop("IMPs won and lost cannot be negative"))
    if lost == 0:
        return None if won else Fraction(1)
    return Fraction(won, lost)


def _quotient_key(q: Fraction | None) -> tuple[int, Fraction]:
    return (0, Fraction(0)) if q is None else (1, -q)


def rank_teams(teams: Sequence[TeamEntry], matches: Iterable[MatchRecord]) -> list[TeamStanding]:
    """The standings of every team, 1 … T, with master points for ranks 1 … T (SPEC 7)."""
    entries = list(teams)
    by_id = {t.team_id: t for t in entries}
    if len(by_id) != len(entries):
        raise TeamsError(gettext_noop("a team appears twice in the standings"))
    vp = {t: Decimal(0) for t in by_id}
    won = dict.fromkeys(by_id, 0)
    lost = dict.fromkeys(by_id, 0)
    against: dict[tuple[int, int], Decimal] = {}
    for m in matches:
        sides = [(m.home, m.away, m.home_vp, m.home_won, m.home_lost)]
        if m.away is not None:
            sides.append((m.away, m.home, m.away_vp, m.away_won, m.away_lost))
        for team, opponent, points, w, lo in sides:
            if team not in by_id or (opponent is not None and opponent not in by_id):
                raise TeamsError(gettext_noop("a match names a team that is not in the event"))
            vp[team] += points
            won[team] += w
            lost[team] += lo
            if opponent is not None:
                key = (team, opponent)
                against[key] = against.get(key, Decimal(0)) + points
    quotient = {t: imp_quotient(won[t], lost[t]) for t in by_id}

    order: list[tuple[int, Decimal]] = []
    for _, tied_iter in groupby(sorted(by_id, key=lambda t: -vp[t]), key=lambda t: vp[t]):
        tied = list(tied_iter)
        h2h = {
            t: sum((against.get((t, o), Decimal(0)) for o in tied if o != t), Decimal(0))
            for t in tied
        }
        tied.sort(key=lambda t: (-h2h[t], _quotient_key(quotient[t]), by_id[t].registration_no, t))
        order.extend((t, h2h[t]) for t in tied)

    awards = master_points(len(order)) if order else []
    standings: list[TeamStanding] = []
    for rank, (team, h2h_vp) in enumerate(order, start=1):
        tie = None
        if standings and standings[-1].vp == vp[team]:
            above = standings[-1]
            if above.head_to_head_vp != h2h_vp:
                tie = TIE_HEAD_TO_HEAD
            elif above.quotient != quotient[team]:
                tie = TIE_QUOTIENT
            else:
                tie = TIE_REGISTRATION
        standings.append(
            TeamStanding(
                team,
                rank,
                vp[team],
                won[team],
                lost[team],
                quotient[team],
                h2h_vp,
                tie,
                awards[rank - 1],
            )
        )
    return standings


def earns_master_points(boards_played: int, total_boards: int) -> bool:
    """A player shares the team's master points if they played at least a third of the
    event's boards (SPEC 11)."""
    if total_boards < 1 or not 0 <= boards_played <= total_boards:
        raise TeamsError(
            gettext_noop("boards played must be from 0 to %(total)s"), total=total_boards
        )
    return 3 * boards_played >= total_boards


def players_with_master_points(boards_played: Mapping[int, int], total_boards: int) -> set[int]:
    """The players (id -> boards they played) who earn their team's master points."""
    return {p for p, n in boards_played.items() if earns_master_points(n, total_boards)}
