"""The team ladder (SPEC 11, 梯级挑战赛): positions 1 … T, challenges up the ladder, and
the history of every change, as pure functions of a frozen state and the time.

**State.** A `Ladder` is the teams in position order (``teams[0]`` is position 1), the
open challenges, the past meetings that still matter for the rematch rule, and its
`LadderSettings`. Every operation takes the state and ``now`` and returns the new state
with the history entries to store, ``(ladder, entries)``; the state given is never changed,
and a refusal is a `TeamsError` (nothing changes). A service keeps the rows; this module
keeps the rules.

**The rules.**

- A new team enters at the bottom (`enter`). A team that leaves (`leave`, a withdrawal)
  closes the gap: every team below moves up one; its open challenge is void.
- A team may challenge (`challenge`) a team above it, at most ``range`` positions above,
  when neither is in an open challenge and the two did not meet (a match played or
  forfeited) less than ``rematch_days`` ago. The challenged team accepts (`accept`)
  before ``accept_days`` have passed, which sets the play deadline ``play_days`` later, or
  declines (`decline`, a forfeit). Either side may concede an open challenge (`forfeit`).
- The result (`result`) is the challenger's VPs, entered before the play deadline: above
  10 the challenger takes the challenged team's position and every team between moves
  down one; otherwise (10 – 10 included) nothing moves. A forfeit by the challenged team
  counts as a win of the challenger, a forfeit by the challenger as a loss.
- The clock (`deadlines`) closes what is due at ``now``, earliest deadline first: a
  challenge not accepted by its accept deadline is forfeited by the challenged team; an
  accepted one with no result by its play deadline is forfeited by the side that did not
  show, the caller saying who showed (``shown``). When neither side or both showed, the
  challenge *lapses*: nothing moves and it is no meeting for the rematch rule (the
  director enters a result before the deadline if a match was played). Running it again at
  the same time changes nothing. (The order only shapes the history: each winner ends
  just above the team it beat, so the final positions are the same in any order.)

A deadline has passed when ``now`` is at or after it: accepting and entering a result need
``now`` strictly before the deadline, and the clock closes the challenge from that instant.
Positions move only when a challenge is decided, so in every open challenge the challenged
team stays above the challenger (the distance may grow past ``range`` meanwhile; it is
checked when the challenge is made).

**History.** Each entry (`LadderEntry`) has its kind (`LADDER_KINDS`), the time, the team
it is about and its positions before and after; entries about a challenge name the
challenger as ``team`` and the challenged team as ``opponent``, with both teams'
positions. A decided challenge gives its entry (declined, forfeited, played) followed by
one ``moved`` entry for every team whose position changed, the challenger first.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from decimal import Decimal

from .errors import TeamsError, gettext_noop

KIND_ENTERED = "entered"
KIND_CHALLENGED = "challenged"
KIND_ACCEPTED = "accepted"
KIND_DECLINED = "declined"
KIND_FORFEITED = "forfeited"
KIND_PLAYED = "played"
#: neither side (or both) showed by the play deadline and no result came: nothing moves
KIND_LAPSED = "lapsed"
#: the challenge ended because one of its teams left the ladder
KIND_VOIDED = "voided"
KIND_MOVED = "moved"
KIND_LEFT = "left"
LADDER_KINDS = (
    KIND_ENTERED,
    KIND_CHALLENGED,
    KIND_ACCEPTED,
    KIND_DECLINED,
    KIND_FORFEITED,
    KIND_PLAYED,
    KIND_LAPSED,
    KIND_VOIDED,
    KIND_MOVED,
    KIND_LEFT,
)

MAX_DAYS = 365
_HALF = Decimal(10)
_FULL = Decimal(20)


def _setting(value: object, name: str, low: int, high: int | None) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TeamsError(
            gettext_noop("%(name)s must be a whole number, got %(value)s"),
            name=name,
            value=repr(value),
        )
    if value < low or (high is not None and value > high):
        if high is None:
            raise TeamsError(
                gettext_noop("%(name)s must be at least %(low)s, got %(value)s"),
                name=name,
                low=low,
                value=value,
            )
        raise TeamsError(
            gettext_noop("%(name)s must be from %(low)s to %(high)s, got %(value)s"),
            name=name,
            low=low,
            high=high,
            value=value,
        )


@dataclass(frozen=True)
class LadderSettings:
    """How far up a team may challenge (``range`` positions), and the days to accept, to
    play after accepting, and before the same two teams may meet again."""

    range: int = 3
    accept_days: int = 4
    play_days: int = 7
    rematch_days: int = 14

    def __post_init__(self) -> None:
        _setting(self.range, "the challenge range", 1, None)
        _setting(self.accept_days, "the days to accept a challenge", 1, MAX_DAYS)
        _setting(self.play_days, "the days to play a challenge", 1, MAX_DAYS)
        _setting(self.rematch_days, "the days before a rematch", 0, MAX_DAYS)


@dataclass(frozen=True)
class Challenge:
    """An open challenge: issued, and accepted once ``accepted_at`` is set (then
    ``play_by`` is the play deadline)."""

    challenger: int
    challenged: int
    issued_at: datetime
    accept_by: datetime
    accepted_at: datetime | None = None
    play_by: datetime | None = None

    @property
    def accepted(self) -> bool:
        return self.accepted_at is not None

    @property
    def deadline(self) -> datetime:
        """The deadline that runs now: the play deadline once accepted, else the accept
        deadline."""
        return self.play_by if self.play_by is not None else self.accept_by

    def involves(self, team: int) -> bool:
        return team in (self.challenger, self.challenged)


@dataclass(frozen=True)
class Meeting:
    """Two teams met (a challenge played or forfeited) at ``at``; the rematch rule counts
    from then, whichever side challenged."""

    challenger: int
    challenged: int
    at: datetime

    def between(self, a: int, b: int) -> bool:
        return {self.challenger, self.challenged} == {a, b}


@dataclass(frozen=True)
class LadderEntry:
    """One change, for the ladder's history. ``before``/``after`` are ``team``'s positions
    (None before entering, after leaving); for a challenge's entries ``team`` is the
    challenger and ``opponent`` the challenged team, with its positions. ``challenger_vp``
    is set on ``played``, ``forfeited_by`` on ``declined`` and ``forfeited``."""

    kind: str
    at: datetime
    team: int
    before: int | None = None
    after: int | None = None
    opponent: int | None = None
    opponent_before: int | None = None
    opponent_after: int | None = None
    challenger_vp: Decimal | None = None
    forfeited_by: int | None = None


Step = tuple["Ladder", tuple[LadderEntry, ...]]


@dataclass(frozen=True)
class Ladder:
    """The ladder's state: teams by position, open challenges, meetings (those older than
    ``rematch_days`` no longer matter and may be left out), and the settings."""

    teams: tuple[int, ...] = ()
    challenges: tuple[Challenge, ...] = ()
    meetings: tuple[Meeting, ...] = ()
    settings: LadderSettings = field(default_factory=LadderSettings)

    def __post_init__(self) -> None:
        object.__setattr__(self, "teams", tuple(self.teams))
        object.__setattr__(self, "challenges", tuple(self.challenges))
        object.__setattr__(self, "meetings", tuple(self.meetings))
        where = {team: i for i, team in enumerate(self.teams)}
        if len(where) != len(self.teams):
            raise TeamsError(gettext_noop("a team stands twice on the ladder"))
        busy: set[int] = set()
        for c in self.challenges:
            if c.challenger not in where or c.challenged not in where:
                raise TeamsError(gettext_noop("a challenge names a team that is not on the ladder"))
            if where[c.challenged] >= where[c.challenger]:
                raise TeamsError(gettext_noop("a challenged team must stand above its challenger"))
            if c.challenger in busy or c.challenged in busy:
                raise TeamsError(gettext_noop("a team is in more than one open challenge"))
            busy.update((c.challenger, c.challenged))

    def position(self, team: int) -> int:
        """``team``'s position, 1 at the top."""
        try:
            return self.teams.index(team) + 1
        except ValueError:
            raise TeamsError(gettext_noop("this team is not on the ladder")) from None

    def challenge_of(self, team: int) -> Challenge | None:
        return next((c for c in self.challenges if c.involves(team)), None)


def position_of(ladder: Ladder, team: int) -> int:
    """``team``'s position on the ladder, 1 at the top."""
    return ladder.position(team)


def open_challenge_of(ladder: Ladder, team: int) -> Challenge | None:
    """The open challenge ``team`` is in, as challenger or challenged, or None."""
    ladder.position(team)
    return ladder.challenge_of(team)


def enter(ladder: Ladder, team: int, now: datetime) -> Step:
    """A new team enters at the bottom."""
    if team in ladder.teams:
        raise TeamsError(gettext_noop("this team is already on the ladder"))
    after = replace(ladder, teams=(*ladder.teams, team))
    return after, (LadderEntry(KIND_ENTERED, now, team, after=len(after.teams)),)


def leave(ladder: Ladder, team: int, now: datetime) -> Step:
    """``team`` withdraws: its open challenge is void, every team below moves up one."""
    position = ladder.position(team)
    entries: list[LadderEntry] = []
    open_one = ladder.challenge_of(team)
    teams = tuple(t for t in ladder.teams if t != team)
    after = replace(
        ladder, teams=teams, challenges=tuple(c for c in ladder.challenges if c != open_one)
    )
    if open_one is not None:
        entries.append(_about(ladder, open_one, KIND_VOIDED, now, after))
    entries.append(LadderEntry(KIND_LEFT, now, team, before=position))
    entries += [
        LadderEntry(KIND_MOVED, now, t, before=i + 2, after=i + 1)
        for i, t in enumerate(teams)
        if i + 1 >= position
    ]
    return after, tuple(entries)


def _refusal(ladder: Ladder, challenger: int, challenged: int, now: datetime) -> TeamsError | None:
    """Why ``challenger`` may not challenge ``challenged`` now, or None."""
    if challenger == challenged:
        return TeamsError(gettext_noop("a team cannot challenge itself"))
    low, high = ladder.position(challenger), ladder.position(challenged)
    if high >= low:
        return TeamsError(gettext_noop("a team can only challenge a team above it"))
    limit = ladder.settings.range
    if low - high > limit:
        return TeamsError(
            gettext_noop(
                "a team may challenge at most %(range)s positions above it; "
                "this team is %(distance)s above"
            ),
            range=limit,
            distance=low - high,
        )
    if ladder.challenge_of(challenger) is not None:
        return TeamsError(gettext_noop("the challenging team is already in an open challenge"))
    if ladder.challenge_of(challenged) is not None:
        return TeamsError(gettext_noop("the challenged team is already in an open challenge"))
    days = ladder.settings.rematch_days
    gap = timedelta(days=days)
    if any(m.between(challenger, challenged) and now - m.at < gap for m in ladder.meetings):
        return TeamsError(
            gettext_noop("these two teams met less than %(days)s days ago"), days=days
        )
    return None


def challenge(ladder: Ladder, challenger: int, challenged: int, now: datetime) -> Step:
    """``challenger`` challenges ``challenged``: an open challenge to accept by
    ``now + accept_days``."""
    refusal = _refusal(ladder, challenger, challenged, now)
    if refusal is not None:
        raise refusal
    made = Challenge(
        challenger,
        challenged,
        issued_at=now,
        accept_by=now + timedelta(days=ladder.settings.accept_days),
    )
    after = replace(ladder, challenges=(*ladder.challenges, made))
    return after, (_about(ladder, made, KIND_CHALLENGED, now, after),)


def challengeable(ladder: Ladder, team: int, now: datetime) -> tuple[int, ...]:
    """The teams ``team`` may challenge now, top first (none while it is in an open
    challenge)."""
    position = ladder.position(team)
    above = ladder.teams[max(0, position - 1 - ladder.settings.range) : position - 1]
    return tuple(t for t in above if _refusal(ladder, team, t, now) is None)


def _challenged_in(ladder: Ladder, team: int) -> Challenge:
    ladder.position(team)
    found = ladder.challenge_of(team)
    if found is None or found.challenged != team:
        raise TeamsError(gettext_noop("this team has no open challenge to answer"))
    return found


def accept(ladder: Ladder, team: int, now: datetime) -> Step:
    """The challenged ``team`` accepts, before the accept deadline; the match is to be
    played by ``now + play_days``."""
    found = _challenged_in(ladder, team)
    if found.accepted:
        raise TeamsError(gettext_noop("this challenge is already accepted"))
    if now >= found.accept_by:
        raise TeamsError(gettext_noop("the time to accept this challenge has passed"))
    accepted = replace(
        found, accepted_at=now, play_by=now + timedelta(days=ladder.settings.play_days)
    )
    after = replace(
        ladder, challenges=tuple(accepted if c == found else c for c in ladder.challenges)
    )
    return after, (_about(ladder, accepted, KIND_ACCEPTED, now, after),)


def decline(ladder: Ladder, team: int, now: datetime) -> Step:
    """The challenged ``team`` declines a challenge it has not accepted: a forfeit, so the
    challenger takes its position."""
    found = _challenged_in(ladder, team)
    if found.accepted:
        raise TeamsError(
            gettext_noop("this challenge is already accepted; it is played or forfeited")
        )
    return _decide(ladder, found, KIND_DECLINED, now, challenger_wins=True, forfeited_by=team)


def forfeit(ladder: Ladder, team: int, now: datetime) -> Step:
    """``team`` concedes its open challenge (either side, accepted or not)."""
    ladder.position(team)
    found = ladder.challenge_of(team)
    if found is None:
        raise TeamsError(gettext_noop("this team is in no open challenge"))
    return _decide(
        ladder,
        found,
        KIND_FORFEITED,
        now,
        challenger_wins=team == found.challenged,
        forfeited_by=team,
    )


def result(ladder: Ladder, challenger: int, challenger_vp: Decimal, now: datetime) -> Step:
    """The match of ``challenger``'s accepted challenge is played: ``challenger_vp`` (0 –
    20) are its VPs; above 10 it takes the challenged team's position."""
    ladder.position(challenger)
    found = ladder.challenge_of(challenger)
    if found is None or found.challenger != challenger:
        raise TeamsError(gettext_noop("this team has not challenged anyone"))
    if not found.accepted or found.play_by is None:
        raise TeamsError(gettext_noop("this challenge is not accepted yet"))
    if now >= found.play_by:
        raise TeamsError(gettext_noop("the time to play this challenge has passed"))
    if (
        isinstance(challenger_vp, bool)
        or not isinstance(challenger_vp, Decimal | int)
        or not Decimal(challenger_vp).is_finite()
        or not 0 <= challenger_vp <= _FULL
    ):
        raise TeamsError(
            gettext_noop("a match's VPs are from 0 to 20, got %(vp)s"), vp=repr(challenger_vp)
        )
    vp = Decimal(challenger_vp)
    return _decide(ladder, found, KIND_PLAYED, now, challenger_wins=vp > _HALF, vp=vp)


def deadlines(ladder: Ladder, now: datetime, shown: Collection[int] = frozenset()) -> Step:
    """Close every challenge whose deadline is at or before ``now``, earliest first (then
    top first): unaccepted ones are forfeited by the challenged team; accepted ones by
    the side that did not show (``shown``: the teams that showed), or lapse when neither
    or both showed. Idempotent: nothing is due any more once it has run."""
    due = sorted(
        (c for c in ladder.challenges if c.deadline <= now),
        key=lambda c: (c.deadline, ladder.position(c.challenged)),
    )
    entries: list[LadderEntry] = []
    for c in due:
        if not c.accepted:
            step = _decide(
                ladder, c, KIND_FORFEITED, now, challenger_wins=True, forfeited_by=c.challenged
            )
        elif (c.challenger in shown) != (c.challenged in shown):
            loser = c.challenged if c.challenger in shown else c.challenger
            step = _decide(
                ladder,
                c,
                KIND_FORFEITED,
                now,
                challenger_wins=loser == c.challenged,
                forfeited_by=loser,
            )
        else:
            step = _decide(ladder, c, KIND_LAPSED, now, challenger_wins=False, meeting=False)
        ladder = step[0]
        entries += step[1]
    return ladder, tuple(entries)


def _about(
    before: Ladder,
    c: Challenge,
    kind: str,
    now: datetime,
    after: Ladder,
    *,
    challenger_vp: Decimal | None = None,
    forfeited_by: int | None = None,
) -> LadderEntry:
    """A challenge's entry: the challenger as ``team``, the challenged as ``opponent``."""

    def where(ladder: Ladder, team: int) -> int | None:
        return ladder.position(team) if team in ladder.teams else None

    return LadderEntry(
        kind,
        now,
        c.challenger,
        before=where(before, c.challenger),
        after=where(after, c.challenger),
        opponent=c.challenged,
        opponent_before=where(before, c.challenged),
        opponent_after=where(after, c.challenged),
        challenger_vp=challenger_vp,
        forfeited_by=forfeited_by,
    )


def _decide(
    ladder: Ladder,
    c: Challenge,
    kind: str,
    now: datetime,
    *,
    challenger_wins: bool,
    forfeited_by: int | None = None,
    vp: Decimal | None = None,
    meeting: bool = True,
) -> Step:
    """Close ``c``: move the teams if the challenger won, record the meeting."""
    teams = list(ladder.teams)
    moved: list[tuple[int, int, int]] = []
    if challenger_wins:
        low, high = teams.index(c.challenger), teams.index(c.challenged)
        between = teams[high:low]
        teams[high : low + 1] = [c.challenger, *between]
        moved = [(c.challenger, low + 1, high + 1)]
        moved += [(t, high + 1 + i, high + 2 + i) for i, t in enumerate(between)]
    after = replace(
        ladder,
        teams=tuple(teams),
        challenges=tuple(x for x in ladder.challenges if x != c),
        meetings=(*ladder.meetings, Meeting(c.challenger, c.challenged, now))
        if meeting
        else ladder.meetings,
    )
    entries = [_about(ladder, c, kind, now, after, challenger_vp=vp, forfeited_by=forfeited_by)]
    entries += [LadderEntry(KIND_MOVED, now, t, before=b, after=a) for t, b, a in moved]
    return after, tuple(entries)
