"""Movement events run by the clock, for the service tests (RULES 10): one way to create
one, to enter a round's results at every table and to run it to the end."""

from __future__ import annotations

from datetime import timedelta

from tests.support.clock import submit
from tournaments.models import BoardResult, Round, Table, Tournament, TournamentStatus
from tournaments.selectors.boards import boards_at
from tournaments.services import setup
from tournaments.services.clock import advance

MINUTE = timedelta(minutes=1)
ROUND = 20 * MINUTE


def create_movement_event(
    *, organiser, t0, seating: str, rounds: int, boards_per_round: int = 2, **settings
) -> Tournament:
    """A tournament made by the setup service, starting at t0, 20-minute rounds, no gap,
    matchpoints unless `settings` say otherwise."""
    settings.setdefault("scoring", "MP")
    return setup.create_tournament(
        by=organiser,
        now=t0 - timedelta(days=1),
        name=f"{seating} {rounds}",
        start_at=t0,
        registration_opens_at=t0 - timedelta(days=2),
        rounds=rounds,
        boards_per_round=boards_per_round,
        round_minutes=20,
        seating=seating,
        **settings,
    )


def trick_count(table: int, round_number: int, board: int) -> int:
    """Tricks that differ by table, round and board, so the pairs' scores differ."""
    return 6 + (3 * table + 5 * round_number + board) % 7


def play_round(tournament: Tournament, number: int, *, now, skip=frozenset()) -> int:
    """A 3NT by North for every board each table of round `number` plays (the round's, or
    its own set when board sets travel) that has no result yet, entered by North through
    the real service; tables numbered in `skip` enter nothing."""
    rnd = Round.objects.get(tournament=tournament, number=number)
    done = set(BoardResult.objects.filter(table__round=rnd).values_list("table_id", "board_id"))
    entered = 0
    for table in Table.objects.filter(round=rnd).order_by("number"):
        if table.number in skip:
            continue
        for board in boards_at(table, tournament_id=tournament.pk).order_by("number"):
            if (table.pk, board.pk) in done:
                continue
            submit(
                table, board.number, "3NT", "N", trick_count(table.number, number, board.number),
                now=now,
            )  # fmt: skip
            entered += 1
    return entered


def run_to_the_end(tournament: Tournament, *, check=None, skip=None, after=None) -> None:
    """Start at t0, then each round: `check(number)` if given, results entered one minute
    in (but for the tables `skip(number)` names), the bell at its end, then
    `after(number)` if given."""
    now = tournament.start_at
    advance(now=now)
    for number in range(1, tournament.rounds + 1):
        if check is not None:
            check(number)
        play_round(tournament, number, now=now + MINUTE, skip=skip(number) if skip else ())
        now += ROUND
        advance(now=now)
        if after is not None:
            after(number)
    tournament.refresh_from_db()
    assert tournament.status == TournamentStatus.FINISHED
