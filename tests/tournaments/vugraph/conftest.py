"""A team match played online through the real play services and closed, for the LIN
tests (RULES 12): two teams, one round of BOARDS boards, every seat of both rooms played
by the tests' service robot (`tests.support.online.play_board`: legal calls, some of them
alerted with an explanation, legal cards, now and then a claim its opponents accept),
one pair of each room sitting swapped; the round closed by the director."""

from __future__ import annotations

import pytest

from tests.support.online import play_board, players_by_seat, service_player
from tests.support.team_events import two_team_event
from tournaments.models import Match, Round
from tournaments.services import clock, seats

BOARDS = 6


def played_match(organiser, director, *, boards: int = BOARDS, carry_over: int = 0) -> Match:
    event = two_team_event(
        organiser=organiser, name="Vugraph, LIN | round trip", boards=boards, open_now=True
    )
    match = Match.objects.select_related("open_table", "closed_table").get(round__tournament=event)
    # One pair of each room sits swapped: pn must name who sat where.
    seats.swap_seats(table=match.open_table, user=match.open_table.ew_pair.player1)
    seats.swap_seats(table=match.closed_table, user=match.closed_table.ns_pair.player1)
    for table in (match.open_table, match.closed_table):
        users = players_by_seat(table)
        for number in range(1, boards + 1):
            view_of, act = service_player(table, number)
            play_board(view_of, act, users, seed=100 * table.number + number, claim_rate=0.08)
    clock.close_round_now(tournament=event, by=director)
    assert Round.objects.get(tournament=event).status == "closed"
    if carry_over:  # as an earlier stanza would have left it (the scoring sets it)
        Match.objects.filter(pk=match.pk).update(carry_over=carry_over)
    return Match.objects.select_related(
        "round__tournament", "home", "away", "open_table", "closed_table"
    ).get(pk=match.pk)


@pytest.fixture
def match(organiser, director, db):
    return played_match(organiser, director)
