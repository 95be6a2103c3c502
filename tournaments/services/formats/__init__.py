"""The format seam (docs/ARCHITECTURE.md, "The format seam").

A format answers four questions — who the contestants are, how a round is seated (its
tables and its boards), how a board is scored, how the contestants are ranked — and
nothing else. The clock (open, the bell, close, seat the next round), the re-score path,
the play server, the history, the round rules, who sees what, the console and the pages
call a format through these four methods and never ask which format it is.

Beside the four questions a format answers, as plain data, what the pages say of it:
`contestant` (pairs or teams), `has_movement_page` and `library_deals` (its boards are
still given to other tables: hidden from directors, never broadcast). The reads, the
pages and the exports choose their per-format parts from registries keyed by `key`
(`FormatKey`, which `Tournament.format_key` gives): `selectors.seating.SEAT_READERS`,
`views.format_pages.PAGES`, `exports.EXPORTS`.

A format's methods are thin: each calls a pure core (`pairing/`, `scoring/`, and the
movements, match and rating cores as they come) and the services that store its rows in
the shapes every page reads (`Table`, `PairBoardScore`, `Standing`). They run inside the
caller's transaction, under the tournament's lock the caller holds.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Protocol

from django.db.models import QuerySet

import pairing

from ...models import BoardResult, Contestants, FormatKey, Pair, Round, Table, Tournament
from .club import CLUB
from .movement_pairs import MOVEMENT_PAIRS
from .round_boards import RoundBoards
from .swiss_pairs import SWISS_PAIRS
from .team_matches import TEAM_MATCHES


class Format(Protocol):
    """What the clock, the re-score path and the pages ask of a tournament's format."""

    key: FormatKey
    # Who the contestants are, as the pages name them: pairs, or teams.
    contestant: Contestants
    # Whether the event is seated by a movement with its own page (RULES 10).
    has_movement_page: bool
    # Whether its boards are deals of a library still given to other tables while one
    # plays them (the club, RULES 13): then no director sees them live and no table of
    # it is broadcast (`visibility.directs`).
    library_deals: bool

    def contestants(self, tournament: Tournament) -> QuerySet[Any]:
        """Who plays on: the contestants still in the event (not withdrawn): pairs, or
        teams."""
        ...

    def seat(self, *, tournament: Tournament, round_number: int) -> pairing.Seating:
        """The tables of round `round_number` (who sits NS and EW at each, and a bye), from
        what the earlier rounds stored. Called once per round, at the start for round 1
        and at the previous round's bell for the others."""
        ...

    def boards(
        self, *, tournament: Tournament, round_number: int, seating: pairing.Seating
    ) -> RoundBoards:
        """The boards of round `round_number`, seated as `seating`: which the clock deals
        now, which its bell completes, and each table's board set when sets travel."""
        ...

    def seated(self, *, round: Round, now: datetime) -> None:
        """After the clock stored `round`'s tables and boards (in the same transaction):
        whatever the format does to a round it has just seated. A movement forfeits the
        boards of a withdrawn pair it still seats (RULES 10); Swiss pairs does nothing."""
        ...

    def score(self, *, round: Round) -> None:
        """Every board of the closed `round` scored from its stored results: its
        `PairBoardScore` rows rewritten (and whatever the format adds beside them)."""
        ...

    def expected_results(self, *, tournament: Tournament, rounds: list[Round]) -> dict[int, int]:
        """{board number: Neuberg's E} of the boards of `rounds` where the format fixes it
        (a movement: the tables that play the board), empty where E is each board's
        entries: what the exports need to turn a percentage back into matchpoints."""
        ...

    def board_finished(self, *, result: BoardResult, play_table: Table, now: datetime) -> None:
        """A board's result just stored by play at one of the system's tables, in the play
        transaction (`table_play.act`): whatever the format does with a result at once.
        The club scores it against its deal's field and deals the table's next board;
        the events score at the bell and do nothing here."""
        ...

    def late_entry_problem(self, tournament: Tournament) -> str | None:
        """Why the format cannot take one more pair into the running `tournament` (a
        movement with no free position), or None."""
        ...

    def admitted_late(self, *, tournament: Tournament, pair: Pair) -> None:
        """A late pair just registered (in the caller's transaction): whatever the format
        gives it (a movement: the free position and its field)."""
        ...

    def rank(
        self,
        *,
        tournament: Tournament,
        from_round: Round,
        now: datetime,
        final: bool,
        at_the_bell: bool = False,
    ) -> None:
        """The running totals from every scored board, the standings after each closed
        round from `from_round` (closed) on, and, when `final`, the final ranking and what it
        earns. `at_the_bell`: `from_round` has just closed and no later round is scored."""
        ...


# The formats by key. A pairs tournament is Swiss pairs, or seated by a movement
# (`Tournament.seating`, RULES 10); a team tournament plays matches (RULES 11).
FORMATS: dict[str, Format] = {
    SWISS_PAIRS.key: SWISS_PAIRS,
    MOVEMENT_PAIRS.key: MOVEMENT_PAIRS,
    TEAM_MATCHES.key: TEAM_MATCHES,
    CLUB.key: CLUB,
}


def format_of(tournament: Tournament) -> Format:
    """The format `tournament` is played in (`Tournament.format_key`)."""
    return FORMATS[tournament.format_key]
