"""A team match's score (SPEC 11): board IMPs from the two rooms, the unplayed-board policy
in team IMPs, the director's adjusted scores, carry-over, the total over every stanza and
its VPs (or IMPs only, for a knock-out).

The home team sits North-South in the open room and East-West in the closed room, so on a
played board its score is the open room's NS score minus the closed room's NS score, and
that difference is IMPed (`scoring.imps`) for the team ahead.

Each board gives each team a signed *net* in IMPs. A played board is zero-sum (home +i,
away −i). An adjusted board is not always: the director gives each team A+ (+3), A (0) or
A− (−3) (Law 86A), and both teams may be at fault (−3 each). A board cut off at the bell in
one room scores by the event's unplayed-board policy: ``not_played`` (no score for either,
and the board is not scored), ``avg_minus`` (−3 to each team whose table did not finish, 0
to the other), ``avg`` (0 to both). The caller names the team(s) whose table did not
finish (both teams have a pair at every table, so who that is is the director's call).

The match total is each team's nets summed, plus the carry-over (IMPs the home team brings
from an earlier stanza or match; the away team gets its negative), over every stanza: a
multi-stanza match is converted once, on its whole total, on the scale for all its boards.
Each team's VPs are the scale's value for its own total (`teams.vp.vp_hundredths`): when the
board nets are zero-sum that is VP and 20 − VP; when an adjustment is not (both teams A−)
each side is scored on its own total, as Law 86A has it, and the two need not sum to 20.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from itertools import accumulate

from scoring import imps
from scoring.field import ARTIFICIAL_IMPS

from .errors import TeamsError, gettext_noop
from .vp import _whole, hundredths_to_vp, validate_boards, vp_hundredths

HOME = "home"
AWAY = "away"
SIDES = (HOME, AWAY)
#: the unplayed-board policies, named as the pairs events name them (SPEC 5.4)
NOT_PLAYED = "not_played"
AVG_MINUS = "avg_minus"
AVG = "avg"
POLICIES = (NOT_PLAYED, AVG_MINUS, AVG)
#: team IMPs of the director's adjusted scores (Law 86A)
ADJUSTED_IMPS = {code: int(value) for code, value in ARTIFICIAL_IMPS.items()}


@dataclass(frozen=True)
class Played:
    """A board played in both rooms: each room's NS score."""

    open_ns: int
    closed_ns: int


@dataclass(frozen=True)
class Adjusted:
    """A board the director scored artificially: each team's code, "A+", "A" or "A-"."""

    home: str
    away: str


@dataclass(frozen=True)
class CutOff:
    """A board one room did not finish at the bell; ``unfinished`` names the team(s)
    (``"home"``, ``"away"``) whose table did not finish."""

    unfinished: frozenset[str]


BoardResult = Played | Adjusted | CutOff


@dataclass(frozen=True)
class BoardScore:
    """One board in team IMPs: each team's signed net, and whether it was scored at all
    (a board ``not_played`` by the policy scores nothing)."""

    home: int
    away: int
    scored: bool = True


@dataclass(frozen=True)
class Side:
    """One team's side of a match. ``net`` is its total including the carry-over;
    ``won`` / ``lost`` sum its boards' positive and negative nets (the IMP quotient's
    parts; the carry-over is not in them, it was won or lost at other tables)."""

    net: int
    won: int
    lost: int
    vp: Decimal | None


@dataclass(frozen=True)
class MatchScore:
    """A match scored. ``boards`` in play order over every stanza; ``running`` the home
    team's running total after each board (carry-over included); ``stanza_margins`` the
    home team's total of each stanza alone; ``scale_boards`` the boards the VP scale was for
    (None for IMPs only)."""

    boards: tuple[BoardScore, ...]
    running: tuple[int, ...]
    stanza_margins: tuple[int, ...]
    carry_over: int
    scale_boards: int | None
    home: Side
    away: Side

    @property
    def margin(self) -> int:
        """The home team's total in IMPs (carry-over included): its margin when the
        boards are zero-sum."""
        return self.home.net


def board_imps(open_ns: int, closed_ns: int) -> int:
    """The home team's IMPs on a board played in both rooms (negative: the away team's)."""
    open_score = _whole(open_ns, "the open room's NS score")
    closed_score = _whole(closed_ns, "the closed room's NS score")
    if open_score % 10 or closed_score % 10:
        raise TeamsError(
            gettext_noop("a bridge score is a multiple of 10, got %(open)s and %(closed)s"),
            open=open_score,
            closed=closed_score,
        )
    return imps(open_score - closed_score)


def validate_policy(policy: str) -> str:
    if policy not in POLICIES:
        raise TeamsError(
            gettext_noop(
                "the unplayed-board policy is not_played, avg_minus or avg; got %(policy)s"
            ),
            policy=repr(policy),
        )
    return policy


def _code(code: object) -> str:
    canonical = code.strip().upper().replace("−", "-") if isinstance(code, str) else None
    if canonical not in ADJUSTED_IMPS:
        raise TeamsError(
            gettext_noop("an adjusted score must be A+, A or A-; got %(code)s"), code=repr(code)
        )
    return canonical


def score_board(result: BoardResult, *, policy: str = NOT_PLAYED) -> BoardScore:
    """One board's team IMPs (see the module docstring)."""
    policy = validate_policy(policy)
    if isinstance(result, Played):
        won = board_imps(result.open_ns, result.closed_ns)
        return BoardScore(won, -won)
    if isinstance(result, Adjusted):
        return BoardScore(ADJUSTED_IMPS[_code(result.home)], ADJUSTED_IMPS[_code(result.away)])
    if isinstance(result, CutOff):
        late = frozenset(result.unfinished)
        if not late or not late <= set(SIDES):
            raise TeamsError(
                gettext_noop(
                    "a cut-off board names the team(s) whose table did not finish: "
                    "home, away or both; got %(teams)s"
                ),
                teams=repr(sorted(late)),
            )
        if policy == NOT_PLAYED:
            return BoardScore(0, 0, scored=False)
        if policy == AVG:
            return BoardScore(0, 0)
        return BoardScore(-3 if HOME in late else 0, -3 if AWAY in late else 0)
    raise TeamsError(gettext_noop("not a board result: %(result)s"), result=repr(result))


def score_match(
    stanzas: Sequence[Sequence[BoardResult]],
    *,
    policy: str = NOT_PLAYED,
    carry_over: int = 0,
    imp_only: bool = False,
    boards: int | None = None,
) -> MatchScore:
    """A whole match from its stanzas' board results (each stanza in play order).

    ``boards`` is the number of boards the VP scale is for, by default every board of
    every stanza (boards not played still belong to the match); ``imp_only`` scores a
    knock-out match in IMPs alone (no VPs)."""
    carry = _whole(carry_over, "the carry-over")
    if isinstance(stanzas, (str, bytes)) or not stanzas:
        raise TeamsError(gettext_noop("a match has at least one stanza of boards"))
    scored: list[BoardScore] = []
    stanza_margins: list[int] = []
    for stanza in stanzas:
        if not stanza:
            raise TeamsError(gettext_noop("a stanza has at least one board"))
        these = [score_board(result, policy=policy) for result in stanza]
        stanza_margins.append(sum(b.home for b in these))
        scored.extend(these)
    scale = None if imp_only else validate_boards(len(scored) if boards is None else boards)
    home_net = carry + sum(b.home for b in scored)
    away_net = -carry + sum(b.away for b in scored)

    def side(net: int, nets: list[int]) -> Side:
        vp = None if scale is None else hundredths_to_vp(vp_hundredths(net, scale))
        return Side(net, sum(n for n in nets if n > 0), -sum(n for n in nets if n < 0), vp)

    return MatchScore(
        boards=tuple(scored),
        running=tuple(accumulate((b.home for b in scored), initial=carry))[1:],
        stanza_margins=tuple(stanza_margins),
        carry_over=carry,
        scale_boards=scale,
        home=side(home_net, [b.home for b in scored]),
        away=side(away_net, [b.away for b in scored]),
    )
