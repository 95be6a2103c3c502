"""Who plays whom in a team event (SPEC 11): round robins by Berger tables, and Swiss teams
seated by the pairs events' Swiss engine on VP totals.

**Round robin** (`round_robin`). Every team meets every other once. Teams are numbered
1 … n in the order given (registration order); an odd field gets a bye in place of team
n + 1, so each round one team sits out. The rounds are Berger's tables, the circle method
with team n fixed and the others turning n/2 places a round: table 1 is the fixed team
against the first of the circle, which is at home in even rounds and away in odd ones; on
the other tables the first of each couple is home. Each team of the circle sees every place of it
once, so over the event it is home on half of the ordinary tables and away on the other
half, and on table 1 once: home and away differ by at most one for every team (by none in
an odd field, where table 1 is the bye).

**Swiss teams** (`swiss_round`). SPEC 11 asks for section 4's engine on VP totals: no
rematch while one can be avoided, the bye to the lowest team without one. That is
`pairing`'s engine, called with teams as its contestants: a `TeamState` becomes a
`pairing.PairState` (the team's id and registration, its VP total as the score, boards
played, the teams met, its byes, home rounds as North-South and away rounds as
East-West), and each table of the seating becomes a match, its North-South team at home.
The engine's direction rule (the team that has been away more plays at home) is what
balances home and away. Round 1 is registration order, 1 v 2, 3 v 4, … (`first_round`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal

from pairing import PairState, Seating, seat_first_round, seat_round

from .errors import TeamsError, gettext_noop


@dataclass(frozen=True)
class Fixture:
    """One match of a round: ``table`` 1-based, the home team and the away team."""

    table: int
    home: int
    away: int


@dataclass(frozen=True)
class Round:
    """One round's matches, by table, and the team with the bye (or None)."""

    fixtures: tuple[Fixture, ...]
    bye: int | None = None
    #: Swiss rounds only: how many tables are rematches (0 whenever avoidable)
    rematches: int = 0


def _distinct(team_ids: Sequence[int]) -> list[int]:
    ids = list(team_ids)
    if len(set(ids)) != len(ids):
        raise TeamsError(gettext_noop("a team appears twice in the field"))
    return ids


def round_robin(team_ids: Sequence[int]) -> list[Round]:
    """Every team meets every other once (Berger tables); n − 1 rounds for an even field
    of n, n rounds with one bye each for an odd field."""
    ids = _distinct(team_ids)
    if len(ids) < 2:
        raise TeamsError(gettext_noop("a round robin needs at least two teams"))
    seats: list[int | None] = [*ids, None] if len(ids) % 2 else list(ids)
    n = len(seats)
    fixed, circle = seats[-1], seats[:-1]
    step = n // 2  # coprime with n - 1, so every team visits every place of the circle
    rounds = []
    for r in range(n - 1):
        turn = (r * step) % (n - 1)
        order = circle[turn:] + circle[:turn]
        couples = [(order[0], fixed) if r % 2 == 0 else (fixed, order[0])]
        couples += [(order[i], order[n - 1 - i]) for i in range(1, n // 2)]
        fixtures: list[Fixture] = []
        bye: int | None = None
        for home, away in couples:
            if home is None or away is None:
                bye = away if home is None else home
                continue
            fixtures.append(Fixture(len(fixtures) + 1, home, away))
        rounds.append(Round(tuple(fixtures), bye))
    return rounds


@dataclass(frozen=True)
class TeamState:
    """What the Swiss seating needs to know about one team before a round: its VP total,
    boards played (the seating's first tie-break), the team_ids it has met (a bye is no
    opponent), byes had, rounds at home and away; a withdrawn team is not seated."""

    team_id: int
    registration_no: int
    vp: Decimal = Decimal(0)
    boards_played: int = 0
    opponents: frozenset[int] = field(default_factory=frozenset)
    byes: int = 0
    home: int = 0
    away: int = 0
    withdrawn: bool = False


def _contestants(teams: Sequence[TeamState]) -> list[PairState]:
    return [
        PairState(
            pair_id=t.team_id,
            registration_no=t.registration_no,
            # VP totals are whole hundredths: as floats they tie exactly when they tie
            score=float(t.vp),
            boards_completed=t.boards_played,
            opponents=frozenset(t.opponents),
            byes=t.byes,
            ns_count=t.home,
            ew_count=t.away,
            withdrawn=t.withdrawn,
        )
        for t in teams
    ]


def _round(seating: Seating) -> Round:
    return Round(
        tuple(Fixture(t.number, t.ns, t.ew) for t in seating.tables),
        seating.bye,
        seating.rematches,
    )


def first_round(teams: Sequence[TeamState]) -> Round:
    """Swiss round 1: registration order, 1 v 2 at table 1 with 1 at home, 3 v 4, …; in
    an odd field the last team has the bye."""
    return _round(seat_first_round(_contestants(teams)))


def swiss_round(teams: Sequence[TeamState]) -> Round:
    """A Swiss round after the first, seated on VP totals (see the module docstring)."""
    try:
        return _round(seat_round(_contestants(teams)))
    except ValueError as error:  # the engine's refusal of a team listed twice
        raise TeamsError(gettext_noop("a team appears twice in the field")) from error
