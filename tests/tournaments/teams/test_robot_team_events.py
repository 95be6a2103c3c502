"""Robots play team events through the real server (RULES 11): a Swiss-teams event and a
round robin, every seat of both rooms of every match a `play_robots` robot on a
WebSocket to a uvicorn subprocess. The matches and the standings the system keeps equal a
recomputation from the stored actions alone: each table's actions replayed by
`play.BoardState.replay`, each board IMPed between the two rooms with the SPEC's table,
each match turned into VPs by the test's own oracle, each team's VPs summed again."""

from __future__ import annotations

import os
from collections import Counter
from datetime import timedelta
from itertools import combinations

import pytest
from django.utils import timezone

from tests.support.robots import play_to_the_end, replay_every_board
from tests.support.team_events import add_team
from tests.tournaments.teams.test_team_matches import imps_of, vp_of
from tournaments.models import Board, Match, Round, Team, TeamStanding
from tournaments.services import clock, setup

# The suite's size; `make bench` runs the full size (TEAM_ROBOTS_FULL=1): Swiss
# teams of 12 teams × 5 rounds × 8 boards (480 boards played at 12 tables).
FULL = os.environ.get("TEAM_ROBOTS_FULL") == "1"
SWISS = (12, 5, 8) if FULL else (6, 3, 2)
ROUND_ROBIN = (6, 8) if FULL else (6, 1)


def _open_team_event(organiser, *, teams: int, rounds: int, boards: int, seating: str):
    now = timezone.now()
    event = setup.create_tournament(
        by=organiser,
        now=now - timedelta(days=1),
        name=f"Robot teams {seating}",
        registration_opens_at=now - timedelta(days=1),
        start_at=now - timedelta(seconds=1),
        rounds=rounds,
        boards_per_round=boards,
        round_minutes=60,
        play="online",
        contestants="teams",
        seating=seating,
    )
    for number in range(1, teams + 1):
        add_team(event, number, at=now - timedelta(minutes=10))
    clock.advance(now=now)
    assert Round.objects.get(tournament=event, number=1).status == "open"
    return event


def _check_against_the_actions(event, *, rounds: int, boards: int) -> None:
    played = list(Round.objects.filter(tournament=event).order_by("number"))
    assert len(played) == rounds
    replayed = replay_every_board(played, boards_per_round=boards)
    totals: Counter = Counter()
    for rnd in played:
        numbers = list(Board.objects.filter(round=rnd).order_by("number"))
        for match in Match.objects.filter(round=rnd, away__isnull=False):
            nets = [
                imps_of(replayed[match.open_table_id, b.pk] - replayed[match.closed_table_id, b.pk])
                for b in numbers
            ]
            won, lost = sum(n for n in nets if n > 0), -sum(n for n in nets if n < 0)
            home_vp, away_vp = vp_of(won - lost, boards)
            assert (match.home_imps_won, match.home_imps_lost) == (won, lost)
            assert (match.home_vp, match.away_vp) == (home_vp, away_vp)
            totals[match.home_id] += home_vp
            totals[match.away_id] += away_vp
        for bye in Match.objects.filter(round=rnd, away__isnull=True):
            totals[bye.home_id] += event.bye_vp
    for team in Team.objects.filter(tournament=event):
        assert team.vp == totals[team.id], team
    last = TeamStanding.objects.filter(round=played[-1]).order_by("position")
    assert [s.vp for s in last] == sorted(totals.values(), reverse=True)


@pytest.mark.django_db(transaction=True)
def test_robots_play_swiss_teams_whose_vps_match_the_stored_actions(organiser, director, tmp_path):
    teams, rounds, boards = SWISS
    event = _open_team_event(organiser, teams=teams, rounds=rounds, boards=boards, seating="swiss")
    play_to_the_end(event, director=director, tmp_path=tmp_path, timeout=3600 if FULL else 1200)
    _check_against_the_actions(event, rounds=rounds, boards=boards)
    met = [
        frozenset(m)
        for m in Match.objects.filter(round__tournament=event, away__isnull=False).values_list(
            "home_id", "away_id"
        )
    ]
    assert len(met) == len(set(met)) == rounds * teams // 2  # no rematch


@pytest.mark.django_db(transaction=True)
def test_robots_play_a_round_robin_whose_vps_match_the_stored_actions(
    organiser, director, tmp_path
):
    teams, boards = ROUND_ROBIN
    event = _open_team_event(
        organiser, teams=teams, rounds=teams - 1, boards=boards, seating="round_robin"
    )
    play_to_the_end(event, director=director, tmp_path=tmp_path, timeout=3600 if FULL else 1200)
    _check_against_the_actions(event, rounds=teams - 1, boards=boards)
    met = sorted(
        tuple(sorted(m))
        for m in Match.objects.filter(round__tournament=event).values_list("home_id", "away_id")
    )
    ids = sorted(Team.objects.filter(tournament=event).values_list("id", flat=True))
    assert met == sorted(combinations(ids, 2))
