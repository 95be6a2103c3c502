"""The club's format (RULES 13) behind the seam: a week's field of one system.

The club's tables are not seated by the clock: they form in the lobby
(`services.club`), each sitting a round of its own on the play server, and each result
is scored against its library deal's field the moment it is stored
(`services.club_scoring`), not at a bell. So the round-by-round questions the seam asks
are answered so: the contestants are the week's partnerships; the clock never seats,
deals or scores a club round (`clock.due_tournament_ids` leaves the club's events out,
and `club_week` closes a week); ranking is the week's standings, read from the scores
as they stand (`selectors.club`)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db.models import QuerySet
from django.utils.translation import gettext as _

import pairing

from ...errors import ClockError
from ...models import BoardResult, Contestants, FormatKey, Pair, Round, Table, Tournament
from .. import club_scoring
from .round_boards import RoundBoards


class ClubFormat:
    key = FormatKey.CLUB
    contestant = Contestants.PAIRS
    has_movement_page = False
    # Its boards are library deals still given to the next tables (RULES 13).
    library_deals = True

    def contestants(self, tournament: Tournament) -> QuerySet[Any]:
        return Pair.objects.filter(tournament=tournament, withdrawn_at__isnull=True)

    def _refuse(self) -> ClockError:
        return ClockError(
            _("The club's tables are formed in the lobby and play on: no round is seated.")
        )

    def seat(self, *, tournament: Tournament, round_number: int) -> pairing.Seating:
        raise self._refuse()

    def boards(
        self, *, tournament: Tournament, round_number: int, seating: pairing.Seating
    ) -> RoundBoards:
        raise self._refuse()

    def seated(self, *, round: Round, now: datetime) -> None:
        raise self._refuse()

    def score(self, *, round: Round) -> None:
        # Each result was scored against its deal's field as it arrived, and a week's
        # scores are final at its close: there is nothing to score at a sitting's end.
        return None

    def expected_results(self, *, tournament: Tournament, rounds: list[Round]) -> dict[int, int]:
        return {}

    def board_finished(self, *, result: BoardResult, play_table: Table, now: datetime) -> None:
        # Scored against the deal's field now, and the table's next deal given.
        club_scoring.board_finished(result=result, play_table=play_table, now=now)

    def late_entry_problem(self, tournament: Tournament) -> str | None:
        return _("The club takes no entries: players sit down in the lobby.")

    def admitted_late(self, *, tournament: Tournament, pair: Pair) -> None:
        raise self._refuse()

    def rank(
        self,
        *,
        tournament: Tournament,
        from_round: Round,
        now: datetime,
        final: bool,
        at_the_bell: bool = False,
    ) -> None:
        # The week's standings are the players' summed scores (`selectors.club`), not
        # pair totals: nothing is stored per pair.
        return None


CLUB = ClubFormat()
