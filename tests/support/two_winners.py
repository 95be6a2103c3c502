"""A two-winner Mitchell (RULES 10) with its results, for the ranking, page, API and export
tests of two winners.

The rounds are seated by hand as a Mitchell seats them (NS pair k stays at table k, the EW
pairs move up one table a round) and closed the way the clock closes a round: the round
scored (`board_scoring.score_round`) and ranked at the bell by the pairs' format's ranking
(`SWISS_PAIRS.rank`, which a movement's format shares). Positions and fields are stored on
the pairs as round 1's seating stores them: registration order, 1…T NS, T+1…2T EW.
"""

from __future__ import annotations

from dataclasses import dataclass

import movements
import scoring
from movements import Encounter, Movement
from tournaments.deals import generate_deal
from tournaments.models import (
    Board,
    BoardResult,
    Pair,
    ResultState,
    Round,
    RoundStatus,
    Table,
    Tournament,
    TournamentStatus,
)
from tournaments.services import board_scoring
from tournaments.services.formats.swiss_pairs import SWISS_PAIRS

# What NS's table k bids and makes on every board (k = 1…5, then again): tables 1 and 2
# always score the same, so NS pairs 1 and 2 tie on total and registration decides.
CONTRACTS = [("4S", "N", 10), ("4S", "N", 10), ("2S", "N", 8), ("3NT", "N", 8), ("4H", "E", 10)]


@dataclass
class Event:
    tournament: Tournament
    pairs: list[Pair]  # registration order: positions 1…2T
    movement: Movement

    def field_of(self, pair: Pair) -> str:
        return "NS" if pair.position <= self.movement.tables else "EW"


def mitchell(tables: int, rounds: int, boards_per_round: int) -> Movement:
    """A T-table Mitchell's first `rounds` rounds, every table playing the round's boards
    (as played online)."""
    seatings = []
    for r in range(1, rounds + 1):
        boards = tuple(range((r - 1) * boards_per_round + 1, r * boards_per_round + 1))
        seatings.append(
            tuple(
                Encounter(table=k, ns=k, ew=tables + (k - r) % tables + 1, boards=boards)
                for k in range(1, tables + 1)
            )
        )
    return Movement(
        kind="mitchell",
        name=f"Mitchell {tables} tables",
        tables=tables,
        pairs=2 * tables,
        boards_per_round=boards_per_round,
        rounds=tuple(seatings),
        directions=("NS",) * tables + ("EW",) * tables,
    )


def build_mitchell(
    make_tournament,
    register_pairs,
    *,
    tables: int = 5,
    rounds: int = 3,
    boards_per_round: int = 2,
    method: str = "MP",
    threshold: int = 70,
    missing: frozenset[tuple[int, int]] = frozenset({(1, 4), (2, 4)}),
    finish: bool = True,
    name: str = "Mitchell 双冠军",
) -> Event:
    """A `tables`-table two-winner Mitchell of `rounds` rounds, closed round after round
    (all of them when `finish`, else all but the last, which stays open). `missing`:
    the (round, table)s whose boards were never played (cut off at the bell)."""
    tournament = make_tournament(
        name=name,
        seating="mitchell",
        winners=2,
        rounds=rounds,
        boards_per_round=boards_per_round,
        scoring_method=method,
        completion_threshold=threshold,
    )
    pairs = register_pairs(tournament, 2 * tables)
    movement = mitchell(tables, rounds, boards_per_round)
    if hasattr(movements, "to_json"):  # the movements core's JSON form (issue 25)
        tournament.movement = movements.to_json(movement)
        tournament.save(update_fields=["movement"])
    for position, pair in enumerate(pairs, start=1):
        pair.position = position
        pair.field = "NS" if position <= tables else "EW"
        pair.save(update_fields=["position", "field"])
    by_position = {p.position: p for p in pairs}
    tournament.status = TournamentStatus.RUNNING
    tournament.save(update_fields=["status"])
    for number in range(1, rounds + 1):
        starts = tournament.start_at + (number - 1) * tournament.round_length
        round = Round.objects.create(
            tournament=tournament,
            number=number,
            status=RoundStatus.OPEN,
            starts_at=starts,
            ends_at=starts + tournament.round_length,
        )
        boards = [
            Board.objects.create(
                tournament=tournament,
                round=round,
                number=n,
                dealer=scoring.board_dealer(n),
                vulnerability=scoring.board_vulnerability(n),
                deal=generate_deal(),
            )
            for n in tournament.board_numbers(number)
        ]
        for encounter in movement.round(number):
            table = Table.objects.create(
                round=round,
                number=encounter.table,
                ns_pair=by_position[encounter.ns],
                ew_pair=by_position[encounter.ew],
            )
            if (number, encounter.table) in missing:
                continue
            contract, declarer, tricks = CONTRACTS[(encounter.table - 1) % len(CONTRACTS)]
            for board in boards:
                BoardResult.objects.create(
                    table=table,
                    board=board,
                    state=ResultState.PLAYED,
                    contract=contract,
                    declarer=declarer,
                    tricks=tricks,
                    lead="HA",
                    ns_score=scoring.contract_score(
                        contract, declarer, tricks, board.vulnerability
                    ),
                    entered_at=starts,
                )
        if number == rounds and not finish:
            break
        close(tournament, round, final=number == rounds)
    tournament.refresh_from_db()
    for pair in pairs:
        pair.refresh_from_db()
    return Event(tournament=tournament, pairs=pairs, movement=movement)


def close(tournament: Tournament, round: Round, *, final: bool) -> None:
    """The bell, as the clock rings it: closed, scored, ranked (and finished)."""
    round.status = RoundStatus.CLOSED
    round.closed_at = round.ends_at
    round.save(update_fields=["status", "closed_at"])
    board_scoring.score_round(round=round)
    SWISS_PAIRS.rank(
        tournament=tournament, from_round=round, now=round.ends_at, final=final, at_the_bell=True
    )
    if final:
        tournament.status = TournamentStatus.FINISHED
        tournament.finished_at = round.ends_at
        tournament.save(update_fields=["status", "finished_at"])
