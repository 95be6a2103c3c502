"""One table's result on a club deal, and the checks every club scoring system shares.

Free play (SPEC 13) scores a deal against everyone who has played it, so a result carries
its four players as well as its NS score: the systems answer in points per player, which
the database layer adds to each player's week in one transaction. A player is whatever
hashable key the caller uses (a user id; a robot seat needs a key of its own, see
`check_results`).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from numbers import Integral
from types import MappingProxyType
from typing import Generic, TypeVar

from .errors import ClubError, gettext_noop

P = TypeVar("P", bound=Hashable)

#: SPEC 13: a deal is retired at 40 results, so no system ever scores more than 40.
RETIRED_AT = 40
#: Law 77's largest score in size: 13 down, redoubled, vulnerable.
MAX_SCORE = 7600


def validate_ns_score(score: object) -> int:
    """A bridge NS score: a whole multiple of 10 no larger than 7,600 in size."""
    if isinstance(score, bool) or not isinstance(score, Integral):
        raise ClubError(
            gettext_noop("an NS score must be a whole number, got %(score)s"), score=repr(score)
        )
    value = int(score)
    if value % 10 or abs(value) > MAX_SCORE:
        raise ClubError(
            gettext_noop("%(score)s is not a bridge score (a multiple of 10 up to ±7600)"),
            score=value,
        )
    return value


@dataclass(frozen=True)
class TableResult(Generic[P]):
    """One table's result on a deal: the NS score (Law 77, NS's view) and who sat where."""

    ns_score: int
    north: P
    east: P
    south: P
    west: P

    def __post_init__(self) -> None:
        validate_ns_score(self.ns_score)
        seated = self.players
        if len(set(seated)) != 4:
            raise ClubError(
                gettext_noop("a table needs four different players, got %(players)s"),
                players=", ".join(map(str, seated)),
            )

    @property
    def players(self) -> tuple[P, P, P, P]:
        """The four players in the order N, E, S, W."""
        return (self.north, self.east, self.south, self.west)

    @property
    def ns_players(self) -> tuple[P, P]:
        return (self.north, self.south)

    @property
    def ew_players(self) -> tuple[P, P]:
        return (self.east, self.west)


def check_results(results: Sequence[TableResult[P]]) -> list[TableResult[P]]:
    """A deal's results, checked: at most `RETIRED_AT`, and no player in two of them.

    SPEC 13: a player never sees a deal twice, so a player key in two results is a caller's
    mistake that would add two scores into one player's week. A robot that fills seats at
    many tables therefore needs a key per seat it fills (the database layer's choice, e.g.
    ``("robot", result_id, seat)``); its results still count for the datum like anyone's.
    """
    checked = list(results)
    for result in checked:
        if not isinstance(result, TableResult):
            raise ClubError(
                gettext_noop("a deal's result must be a TableResult, got %(result)s"),
                result=repr(result),
            )
    if len(checked) > RETIRED_AT:
        raise ClubError(
            gettext_noop("a deal takes at most %(most)s results, got %(count)s"),
            most=RETIRED_AT,
            count=len(checked),
        )
    seen: set[Hashable] = set()
    for result in checked:
        for player in result.players:
            if player in seen:
                raise ClubError(
                    gettext_noop(
                        "%(player)s has two results on this deal: a player never plays a deal twice"
                    ),
                    player=str(player),
                )
            seen.add(player)
    return checked


def check_arrival(stored: Sequence[TableResult[P]], new: TableResult[P]) -> list[TableResult[P]]:
    """The deal's results with the new one last; a deal already at 40 is refused."""
    if len(stored) >= RETIRED_AT:
        raise ClubError(
            gettext_noop("this deal is retired: it has %(count)s results and takes no more"),
            count=len(stored),
        )
    return check_results([*stored, new])


def side_points(result: TableResult[P], ns_points: int) -> dict[P, int]:
    """``ns_points`` to both NS players and its negative to both EW players, N E S W.

    ``0 - x`` rather than ``-x`` keeps one spelling of zero, as `scoring` does.
    """
    ew_points = 0 - ns_points
    return {
        result.north: ns_points,
        result.east: ew_points,
        result.south: ns_points,
        result.west: ew_points,
    }


def frozen(mapping: dict[P, int]) -> Mapping[P, int]:
    """A read-only view, so a frozen answer cannot be changed after the fact."""
    return MappingProxyType(mapping)
