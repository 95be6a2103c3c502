"""Team events run by the clock (RULES 11): each round's matches seated in two rooms, every
board scored between the rooms in IMPs, every match in VPs, the standings, the bye, the
cut-off at the bell, a round robin's schedule. The IMP table and the VP scale here are
the test's own (SPEC 5.2; tests/teams/test_vp.py's exact oracle), not the product's."""

from __future__ import annotations

from collections import Counter
from decimal import Decimal
from itertools import combinations

import pytest
import time_machine
from django.db.models import Q

from tests.support.team_events import MINUTE, ROUND, create_team_event, opponents, play_round
from tests.teams.test_vp import oracle_table
from tournaments.errors import ClockError
from tournaments.models import (
    BoardResult,
    Match,
    PairBoardScore,
    Round,
    Table,
    Team,
    TeamStanding,
    TournamentStatus,
)
from tournaments.services import setup
from tournaments.services.clock import advance, advance_tournament

pytestmark = pytest.mark.django_db

# SPEC 5.2: the upper bound of each IMP band.
IMP_BANDS = [10, 40, 80, 120, 160, 210, 260, 310, 360, 420, 490, 590, 740, 890, 1090,
             1290, 1490, 1740, 1990, 2240, 2490, 2990, 3490, 3990]  # fmt: skip


def imps_of(difference: int) -> int:
    size = abs(difference)
    won = next((i for i, top in enumerate(IMP_BANDS) if size <= top), 24)
    return won if difference >= 0 else -won


def vp_of(margin: int, boards: int) -> tuple[Decimal, Decimal]:
    table = oracle_table(boards)
    winner = Decimal(table[min(abs(margin), len(table) - 1)]) / 100
    return (winner, 20 - winner) if margin >= 0 else (20 - winner, winner)


def expected_match(match: Match) -> tuple[int, int, Decimal, Decimal]:
    """The home team's IMPs won and lost and both VPs, from the two rooms' NS scores."""
    open_ns = dict(
        BoardResult.objects.filter(table=match.open_table).values_list("board__number", "ns_score")
    )
    closed_ns = dict(
        BoardResult.objects.filter(table=match.closed_table).values_list(
            "board__number", "ns_score"
        )
    )
    assert open_ns.keys() == closed_ns.keys()
    nets = [imps_of(open_ns[b] - closed_ns[b]) for b in open_ns]
    won, lost = sum(n for n in nets if n > 0), -sum(n for n in nets if n < 0)
    home_vp, away_vp = vp_of(won - lost, len(nets))
    return won, lost, home_vp, away_vp


def run(tournament, *, skip=None, check=None):
    now = tournament.start_at
    advance(now=now)
    for number in range(1, tournament.rounds + 1):
        play_round(tournament, number, now=now + MINUTE, skip=skip(number) if skip else ())
        now += ROUND
        advance(now=now)
        if check:
            check(number)
    tournament.refresh_from_db()


def test_swiss_teams_two_rooms_imps_vps_standings_and_no_rematch(organiser, t0):
    event = create_team_event(organiser=organiser, t0=t0, teams=6, rounds=3, boards_per_round=4)

    def check(number):
        rnd = Round.objects.get(tournament=event, number=number)
        matches = list(Match.objects.filter(round=rnd).select_related("open_table", "closed_table"))
        assert len(matches) == 3
        for match in matches:
            open_t, closed_t = match.open_table, match.closed_table
            # The open room: home NS, away EW; the closed room the other way round.
            assert open_t.ns_pair.team_id == match.home_id == closed_t.ew_pair.team_id
            assert open_t.ew_pair.team_id == match.away_id == closed_t.ns_pair.team_id
            assert open_t.ns_pair_id != closed_t.ew_pair_id
            won, lost, home_vp, away_vp = expected_match(match)
            assert (match.home_imps_won, match.home_imps_lost) == (won, lost)
            assert (match.away_imps_won, match.away_imps_lost) == (lost, won)
            assert (match.home_vp, match.away_vp) == (home_vp, away_vp)
            assert match.home_vp + match.away_vp == 20
            assert match.boards_scored == 4
        # Every pair's board score is its team's IMPs on the board.
        for score in PairBoardScore.objects.filter(board__round=rnd).select_related("pair"):
            match = next(m for m in matches if score.pair.team_id in (m.home_id, m.away_id))
            assert score.completed and score.points is not None
        totals = Counter()
        for m in Match.objects.filter(round__tournament=event, round__number__lte=number):
            totals[m.home_id] += m.home_vp
            totals[m.away_id] += m.away_vp
        standings = TeamStanding.objects.filter(round=rnd).order_by("position")
        assert [s.vp for s in standings] == sorted(totals.values(), reverse=True)
        assert {s.team_id: s.vp for s in standings} == dict(totals)

    run(event, check=check)
    assert event.status == TournamentStatus.FINISHED
    met = opponents(event)
    assert len(met) == len(set(met)) == 9  # no rematch
    ranks = sorted(Team.objects.filter(tournament=event).values_list("rank", flat=True))
    assert ranks == [1, 2, 3, 4, 5, 6]
    # The two rooms' NS scores differ, so the matches are not all drawn.
    assert Match.objects.filter(round__tournament=event).exclude(home_vp=10).exists()


def test_an_odd_field_gives_a_bye_worth_the_setting(organiser, t0):
    event = create_team_event(
        organiser=organiser, t0=t0, teams=5, rounds=3, boards_per_round=2, bye_vp="12.50"
    )
    run(event)
    byes = list(Match.objects.filter(round__tournament=event, away__isnull=True))
    assert len(byes) == 3
    assert len({m.home_id for m in byes}) == 3  # nobody sits out twice
    assert all(m.home_vp == Decimal("12.50") and m.open_table_id is None for m in byes)
    # Two tables per match, none for the bye.
    assert Table.objects.filter(round__tournament=event).count() == 3 * 2 * 2
    met = opponents(event)
    assert len(met) == len(set(met))


def test_a_round_robin_meets_every_team_once_home_and_away_balanced(organiser, t0):
    event = create_team_event(
        organiser=organiser, t0=t0, teams=4, rounds=3, boards_per_round=2, seating="round_robin"
    )
    run(event)
    met = opponents(event)
    ids = Team.objects.filter(tournament=event).values_list("id", flat=True)
    assert sorted(map(sorted, met)) == sorted(map(sorted, map(frozenset, combinations(ids, 2))))
    home = Counter(Match.objects.filter(round__tournament=event).values_list("home_id", flat=True))
    assert max(home.values()) - min(home.values()) <= 1


def test_a_round_robin_longer_than_its_schedule_is_refused_at_seating(organiser, t0):
    event = create_team_event(
        organiser=organiser, t0=t0, teams=4, rounds=4, boards_per_round=1, seating="round_robin"
    )
    now = event.start_at
    advance(now=now)
    for number in (1, 2, 3):
        play_round(event, number, now=now + MINUTE)
        now += ROUND
        advance(now=now)
    # Round 4 does not exist in a 4-team round robin: the clock says so and stays put.
    assert Round.objects.filter(tournament=event).count() == 3


@pytest.mark.parametrize(
    ("policy", "open_room", "closed_room", "scored"),
    [("avg_minus", -3, -3, 1), ("avg", 0, 0, 1), ("not_played", 0, 0, 0)],
)
def test_a_board_cut_off_in_one_room_scores_by_the_policy(
    organiser, t0, policy, open_room, closed_room, scored
):
    event = create_team_event(
        organiser=organiser, t0=t0, teams=2, rounds=1, boards_per_round=1, unplayed_policy=policy
    )
    advance(now=event.start_at)
    play_round(event, 1, now=event.start_at + MINUTE, skip={2})  # the closed room is late
    advance(now=event.start_at + ROUND)
    match = Match.objects.get(round__tournament=event)
    assert match.boards_scored == scored
    assert (match.home_imps_won, match.away_imps_won) == (0, 0)
    assert (match.home_imps_lost, match.away_imps_lost) == (-open_room, -closed_room)
    home_vp, _ = vp_of(0, 1)
    if policy == "avg_minus":
        # Both teams sat at the table that did not finish: −3 each, each side scored on its
        # own total (Law 86A), so the VPs need not sum to 20.
        assert match.home_vp == match.away_vp == Decimal(oracle_table(1)[3]) / 100 * -1 + 20
    else:
        assert match.home_vp == match.away_vp == home_vp == 10
    points = set(
        PairBoardScore.objects.filter(board__tournament=event).values_list("points", flat=True)
    )
    assert points == ({None} if scored == 0 else {float(open_room)})
    assert closed_room == open_room


def test_a_team_without_a_line_up_stops_the_clock_with_a_message(organiser, t0):
    event = create_team_event(organiser=organiser, t0=t0, teams=2, rounds=1, boards_per_round=1)
    Team.objects.filter(tournament=event, registration_no=2).update(closed_pair=None)
    with (
        time_machine.travel(event.start_at, tick=False),
        pytest.raises(ClockError, match="Team 2"),
    ):
        advance_tournament(tournament_id=event.pk, now=event.start_at)
    event.refresh_from_db()
    assert event.status == TournamentStatus.SCHEDULED
    assert not Round.objects.filter(tournament=event).exists()


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"contestants": "trios"}, "pairs or teams"),
        ({"team_scoring": "points"}, "victory points"),
        ({"bye_vp": "21"}, "0 to 20"),
        ({"bye_vp": "12.345"}, "two decimals"),
        ({"seating": "mitchell"}, "Swiss or as a round robin"),
        ({"boards_travel": True}, "no travelling"),
        ({"contestants": "pairs", "seating": "round_robin"}, "for teams"),
        ({"stanzas": 2}, "whole number of 2-stanza"),
        ({"stanzas": 0}, "1 to 8 stanzas"),
        ({"stanzas": True}, "1 to 8 stanzas"),
        ({"contestants": "pairs", "stanzas": 3}, "pairs event has none"),
    ],
)
def test_team_settings_refused_change_nothing(organiser, t0, settings, message):
    fields = {
        "name": "Refused",
        "start_at": t0,
        "rounds": 3,
        "boards_per_round": 8,
        "round_minutes": 60,
        "contestants": "teams",
        **settings,
    }
    with pytest.raises(setup.SetupError, match=message):
        setup.create_tournament(by=organiser, now=t0, **fields)
    assert not Team.objects.exists()


def test_a_ruling_after_the_close_rescores_the_match_and_the_standings(organiser, director, t0):
    """Law 86A in team IMPs: the director gives the closed room A+ to NS (the away team)
    and A− to EW (the home team) on board 1 after round 1 closed; the match is re-scored,
    the later round's standings follow, the earlier seating stays."""
    from tournaments.services import results

    event = create_team_event(organiser=organiser, t0=t0, teams=2, rounds=2, boards_per_round=2)
    advance(now=t0)
    play_round(event, 1, now=t0 + MINUTE)
    advance(now=t0 + ROUND)
    play_round(event, 2, now=t0 + ROUND + MINUTE)
    advance(now=t0 + 2 * ROUND)
    match = Match.objects.select_related("closed_table", "open_table").get(round__number=1)
    results.director_set_result(
        table=match.closed_table,
        board_number=1,
        by=director,
        ns_adjustment="A+",
        ew_adjustment="A-",
        reason="Misinformation",
        now=t0 + 3 * ROUND,
    )
    match.refresh_from_db()
    second = BoardResult.objects.get(table=match.open_table, board__number=2).ns_score
    closed_second = BoardResult.objects.get(table=match.closed_table, board__number=2).ns_score
    net = imps_of(second - closed_second) - 3  # board 1: home −3, away +3
    won, lost = max(imps_of(second - closed_second), 0), max(-imps_of(second - closed_second), 0)
    assert (match.home_imps_won, match.home_imps_lost) == (won, lost + 3)
    assert (match.away_imps_won, match.away_imps_lost) == (lost + 3, won)
    assert (match.home_vp, match.away_vp) == vp_of(net, 2)
    later = Match.objects.get(round__number=2)
    final = {s.team_id: s.vp for s in TeamStanding.objects.filter(round__number=2)}
    assert final[match.home_id] == match.home_vp + (
        later.home_vp if later.home_id == match.home_id else later.away_vp
    )


def test_a_match_of_two_stanzas_carries_its_imps_and_converts_once(organiser, t0):
    """Two stanzas per match (RULES 11): the same opponents twice running, the line-up
    set again before the second stanza, the IMPs carried over, the VPs from the whole
    match on the scale for all its boards, at its last bell only."""
    event = create_team_event(
        organiser=organiser, t0=t0, teams=4, rounds=4, boards_per_round=2, stanzas=2
    )
    advance(now=t0)
    first = Team.objects.get(tournament=event, registration_no=1)
    # Before the first stanza's bell the captain swaps the rooms for the second.
    Team.objects.filter(pk=first.pk).update(
        open_pair=first.closed_pair_id, closed_pair=first.open_pair_id
    )
    now = t0
    for number in range(1, 5):
        play_round(event, number, now=now + MINUTE)
        now += ROUND
        advance(now=now)
        rows = list(
            Match.objects.filter(round__tournament=event, round__number=number).select_related(
                "open_table", "closed_table"
            )
        )
        assert {m.stanza for m in rows} == {2 - number % 2}
        if number % 2:
            # A first stanza: IMPs, no VPs yet; the standings stay as the last whole match
            # left them.
            assert all(m.home_vp is None and m.carry_over == 0 for m in rows)
            after = dict(
                TeamStanding.objects.filter(
                    round__tournament=event, round__number=number
                ).values_list("team_id", "vp")
            )
            before = dict(
                TeamStanding.objects.filter(
                    round__tournament=event, round__number=number - 1
                ).values_list("team_id", "vp")
            )
            assert after == (before or dict.fromkeys(after, 0))
            continue
        earlier = {
            (m.home_id, m.away_id): m
            for m in Match.objects.filter(round__tournament=event, round__number=number - 1)
        }
        assert set(earlier) == {(m.home_id, m.away_id) for m in rows}  # same opponents
        for match in rows:
            one = earlier[match.home_id, match.away_id]
            won, lost, _h, _a = expected_match(one)
            won2, lost2, _h2, _a2 = expected_match(match)
            assert match.carry_over == won - lost
            assert (match.home_imps_won, match.home_imps_lost) == (won2, lost2)
            assert (match.home_vp, match.away_vp) == vp_of(won - lost + won2 - lost2, 4)
    # The swap took effect at the second stanza: team 1's closed pair sat in the open room.
    second = Match.objects.get(
        Q(home=first) | Q(away=first), round__tournament=event, round__number=2
    )
    open_pairs = {second.open_table.ns_pair_id, second.open_table.ew_pair_id}
    assert first.closed_pair_id in open_pairs and first.open_pair_id not in open_pairs
    met = {frozenset((m.home_id, m.away_id)) for m in Match.objects.filter(round__tournament=event)}
    assert len(met) == 4  # two matches per team, no rematch between them
    totals = Counter()
    for m in Match.objects.filter(round__tournament=event, stanza=2):
        totals[m.home_id] += m.home_vp
        totals[m.away_id] += m.away_vp
    assert {t.pk: t.vp for t in Team.objects.filter(tournament=event)} == dict(totals)
