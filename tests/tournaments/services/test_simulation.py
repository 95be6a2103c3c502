"""Simulated tables (simulation) and events (tournaments.services.simulator) and the demo
(tournaments.demo) built on them.

The simulation must produce valid results only through the services, play an event to
the end with sensible scores, and the demo's players must enter results only while a
round is open, never after its bell. Double-dummy solving is slow, so each test plays
only a handful of boards.
"""

from __future__ import annotations

import random
from collections import defaultdict
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command

import scoring
import simulation
from tournaments import demo, double_dummy
from tournaments.deals import hands_of, high_card_points
from tournaments.demo.online import ensure_online_demo, online_usernames
from tournaments.models import (
    BoardResult,
    MasterPointAward,
    Pair,
    PairBoardScore,
    PairStatus,
    PlayMode,
    ResultState,
    Round,
    RoundStatus,
    ScoringMethod,
    Standing,
    Table,
    Tournament,
    TournamentStatus,
)
from tournaments.services import clock, results, simulator

pytestmark = pytest.mark.django_db

DEAL = "N:AK65.Q872.A2.K32 874.KJT653.T86.9 JT32.A.Q74.J8765 Q9.94.KJ953.AQT4"


@pytest.fixture
def counted_submissions(monkeypatch):
    """Counts the simulation's calls of the result service (and still makes them)."""
    calls = []
    real = simulator.submit_result

    def submit(**kwargs):
        calls.append(kwargs)
        return real(**kwargs)

    monkeypatch.setattr(simulator, "submit_result", submit)
    return calls


def test_plausible_entries_are_valid_and_close_to_double_dummy():
    tricks = double_dummy.tricks([DEAL])[0]
    assert tricks["N"]["S"] == 9 and tricks["E"]["H"] == 7  # checked by hand in DDS
    hands = hands_of(DEAL)
    rng = random.Random(1)
    off_by = defaultdict(int)
    contracts = set()
    for vulnerability in ("None", "NS", "EW", "Both"):
        facts = simulation.DealFacts(
            tricks=tricks,
            hands=hands,
            hcp={seat: high_card_points(hand) for seat, hand in hands.items()},
            vulnerability=vulnerability,
        )
        for _ in range(150):
            entry = simulator.plausible_entry(facts, rng)
            fields = results.score_entry(entry, vulnerability)  # raises if invalid
            contracts.add(fields["contract"])
            if fields["state"] == ResultState.PASSED_OUT:
                continue
            contract = scoring.parse_contract(fields["contract"])
            strain, declarer = contract.strain, fields["declarer"]
            off_by[abs(fields["tricks"] - tricks[declarer][strain])] += 1
            lead_hand = hands[scoring.seat_offset(declarer, 1)]
            assert fields["lead"][1] in lead_hand[fields["lead"][0]]
    played = sum(off_by.values())
    assert set(off_by) <= {0, 1, 2}
    assert off_by[0] / played > 0.6  # mostly exactly double dummy
    assert off_by[1] > 0  # but not always
    assert len(contracts) >= 3  # partscores, games, doubled sacrifices…


def test_a_simulated_event_is_played_to_the_end_through_the_services(
    counted_submissions, make_tournament, register_pairs, t0
):
    # A tournament already due at the simulated times must not be touched by them.
    bystander = make_tournament(start_at=t0 - timedelta(days=400))
    register_pairs(bystander, 2, now=t0 - timedelta(days=401))

    report = simulator.simulate_tournament(
        pairs=6,
        rounds=3,
        boards_per_round=2,
        scoring_method="IMP",
        unfinished=0.1,
        seed=3,
        start_at=t0 - timedelta(days=2),
    )
    tournament = report.tournament
    tournament.refresh_from_db()
    bystander.refresh_from_db()
    assert tournament.status == TournamentStatus.FINISHED
    assert bystander.status == TournamentStatus.SCHEDULED
    assert not Round.objects.filter(tournament=bystander).exists()
    assert report.rounds_played == 3

    rounds = list(Round.objects.filter(tournament=tournament).order_by("number"))
    assert [r.status for r in rounds] == [RoundStatus.CLOSED] * 3
    # Every table has a result (entered, or cut off at the bell) for every board.
    for r in rounds:
        tables = Table.objects.filter(round=r).count()
        assert tables == 3
        assert BoardResult.objects.filter(table__round=r).count() == tables * 2
    entered = BoardResult.objects.filter(table__round__tournament=tournament).exclude(
        state=ResultState.NOT_PLAYED
    )
    assert entered.count() == report.results_entered == len(counted_submissions)
    for result in entered.select_related(
        "board", "table__round", "table__ns_pair", "table__ew_pair"
    ):
        table = result.table
        seated = {
            table.ns_pair.player1_id,
            table.ns_pair.player2_id,
            table.ew_pair.player1_id,
            table.ew_pair.player2_id,
        }
        assert result.entered_by_id in seated
        assert table.round.starts_at <= result.entered_at < table.round.ends_at
        if result.state == ResultState.PLAYED:
            assert result.ns_score == scoring.contract_score(
                result.contract, result.declarer, result.tricks, result.board.vulnerability
            )

    # Cross-IMPs: each board's NS scores sum to zero, and EW is the negative of NS.
    per_board = defaultdict(list)
    for score in PairBoardScore.objects.filter(
        board__tournament=tournament, completed=True
    ).select_related("result"):
        per_board[score.board_id].append(score)
    assert len(per_board) == 6
    for scores in per_board.values():
        assert abs(sum(s.points for s in scores if s.direction == "NS")) < 1e-6
        assert abs(sum(s.points for s in scores)) < 1e-6

    pairs = list(Pair.objects.filter(tournament=tournament))
    assert Standing.objects.filter(round__tournament=tournament).count() == 6 * 3
    for pair in pairs:
        assert pair.total == pytest.approx(
            sum(s.points for s in pair.board_scores.filter(completed=True))
        )
    ranked = sorted((p for p in pairs if p.rank), key=lambda p: p.rank)
    assert ranked and ranked[0].rank == 1 and ranked[0].master_points == 3
    winners = MasterPointAward.objects.filter(tournament=tournament, rank=1)
    assert {a.user_id for a in winners} == {ranked[0].player1_id, ranked[0].player2_id}


@pytest.mark.parametrize("method", ["MP", "XIMP"])
def test_simulated_events_score_by_every_method(method, t0):
    report = simulator.simulate_tournament(
        pairs=4,
        rounds=2,
        boards_per_round=1,
        scoring_method=method,
        unfinished=0.0,
        seed=5,
        start_at=t0,
    )
    tournament = report.tournament
    tournament.refresh_from_db()
    assert tournament.status == TournamentStatus.FINISHED
    scores = PairBoardScore.objects.filter(board__tournament=tournament, completed=True)
    by_result = defaultdict(dict)
    for s in scores:
        by_result[s.result_id][s.direction] = s.points
    assert len(by_result) == 4  # 2 tables × 1 board × 2 rounds, nothing left unfinished
    for sides in by_result.values():
        if method == "MP":
            assert sides["NS"] + sides["EW"] == pytest.approx(100.0)
        else:
            assert sides["NS"] == -sides["EW"]
    assert Pair.objects.filter(tournament=tournament, rank=1).count() == 1


def test_the_demo_players_enter_results_only_while_the_round_is_open(
    make_tournament, register_pairs, t0
):
    tournament = make_tournament(
        name=demo.DEMO_NAME, rounds=2, boards_per_round=2, round_length=timedelta(minutes=10)
    )
    register_pairs(tournament, 4)
    other = make_tournament(name="Not the demo", round_length=timedelta(minutes=10))
    register_pairs(other, 2)
    clock.advance(now=t0)
    first = Round.objects.get(tournament=tournament, number=1)
    length = first.ends_at - first.starts_at

    def stored() -> int:
        return BoardResult.objects.filter(table__round__tournament=tournament).count()

    assert demo.play_tick(now=t0 - timedelta(seconds=1), unfinished=0) == 0
    assert demo.play_tick(now=t0 + length * 0.1, unfinished=0) == 0  # nobody's done yet
    # The bell has rung but the clock has not ticked yet: the round is still "open".
    assert demo.play_tick(now=first.ends_at, unfinished=0) == 0
    assert demo.play_tick(now=first.ends_at + timedelta(minutes=3), unfinished=0) == 0
    assert stored() == 0

    near_the_end = t0 + length * 0.95
    assert demo.play_tick(now=near_the_end, unfinished=0) == 4  # 2 tables × 2 boards
    assert demo.play_tick(now=near_the_end, unfinished=0) == 0  # each entered once
    assert not BoardResult.objects.filter(table__round__tournament=other).exists()
    for result in BoardResult.objects.filter(table__round=first):
        assert result.entered_at == near_the_end
        assert result.state in (ResultState.PLAYED, ResultState.PASSED_OUT)

    clock.advance(now=first.ends_at)
    first.refresh_from_db()
    assert first.status == RoundStatus.CLOSED
    assert demo.play_tick(now=first.ends_at + timedelta(seconds=1), unfinished=0) == 0
    assert stored() == 4


def test_the_demo_plan_spreads_entries_and_leaves_some_unfinished(
    make_tournament, register_pairs, t0
):
    tournament = make_tournament(boards_per_round=3, round_length=timedelta(minutes=10))
    register_pairs(tournament, 40)
    clock.advance(now=t0)
    first = Round.objects.get(tournament=tournament, number=1)
    tables = simulator.round_tables(first)
    plan = demo.plan_round(first, tables, [1, 2, 3], unfinished=0.1)
    assert plan == demo.plan_round(first, tables, [1, 2, 3], unfinished=0.1)
    assert 40 < len(plan) < 60  # 20 tables × 3 boards, about a tenth left out
    for planned in plan:
        share = (planned.at - first.starts_at) / (first.ends_at - first.starts_at)
        assert 0.2 <= share <= 0.9
    by_table = defaultdict(list)
    for planned in plan:
        by_table[planned.table_id].append(planned)
    for entries in by_table.values():  # a table plays its boards in order
        assert [p.at for p in entries] == sorted(p.at for p in entries)


def test_seed_demo_is_idempotent_and_replaces_a_stale_demo(t0):
    first = demo.ensure_demo(finished=False, now=t0)
    assert first.live_created and first.live.name == demo.DEMO_NAME
    assert first.live.start_at - t0 <= timedelta(minutes=1)
    assert first.live.pairs.count() == 14
    again = demo.ensure_demo(finished=False, now=t0 + timedelta(seconds=10))
    assert not again.live_created and again.live.pk == first.live.pk
    assert Tournament.objects.filter(name=demo.DEMO_NAME).count() == 1

    # The server ran a while: the demo started and played a round …
    clock.advance(now=first.live.start_at)
    assert not demo.is_stale(Tournament.objects.get(pk=first.live.pk), first.live.start_at)
    # … then stopped; hours later `make run` again replaces it with a fresh one.
    later = t0 + timedelta(hours=3)
    fresh = demo.ensure_demo(finished=False, now=later)
    assert fresh.live_created and fresh.live.pk != first.live.pk
    assert len(fresh.replaced) == 1
    assert list(Tournament.objects.filter(name=demo.DEMO_NAME)) == [fresh.live]
    assert fresh.live.start_at > later


def test_both_live_demos_are_set_up_alike(t0):
    """The demo played elsewhere and the one the robots play online are made by one
    function: same scoring, timetable and registration; only name, text, play and
    players differ."""
    now = t0 + timedelta(microseconds=400_000)
    settings = dict(
        pairs=3, rounds=2, boards_per_round=2, round_minutes=3, starts_in_seconds=30, gap_seconds=15
    )
    entered = demo.ensure_demo(finished=False, now=now, **settings).live
    online = ensure_online_demo(now=now, **settings).tournament
    for tournament, play, usernames in (
        (entered, PlayMode.ENTERED, demo.player_usernames(6)),
        (online, PlayMode.ONLINE, online_usernames(6)),
    ):
        tournament.refresh_from_db()
        assert tournament.play == play
        assert tournament.scoring_method == ScoringMethod.IMP
        assert tournament.created_by.username == demo.DEMO_ORGANISER
        assert tournament.registration_opens_at == now - timedelta(minutes=5)
        assert tournament.start_at == t0 + timedelta(seconds=30)  # on a whole second
        assert (tournament.rounds, tournament.boards_per_round) == (2, 2)
        assert tournament.round_length == timedelta(minutes=3)
        assert tournament.gap_length == timedelta(seconds=15)
        pairs = Pair.objects.filter(tournament=tournament).order_by("id")
        assert [p.status for p in pairs] == [PairStatus.CONFIRMED] * 3
        assert [(p.player1.username, p.player2.username) for p in pairs] == [
            tuple(usernames[i : i + 2]) for i in range(0, 6, 2)
        ]


def test_simulate_and_play_demo_commands(t0):
    out = StringIO()
    call_command(
        "simulate",
        pairs=4,
        rounds=1,
        boards=1,
        seed=2,
        scoring="IMP",
        start=t0.isoformat(),
        stdout=out,
    )
    text = out.getvalue()
    assert "results published" in text and "rank" in text
    assert Tournament.objects.get().status == TournamentStatus.FINISHED
    # The hand record's analysis is there at once, whether a round clock runs or not.
    assert "hand records analysed: 1" in text
    assert Tournament.objects.get().boards.get().double_dummy["par"]

    out = StringIO()
    call_command("play_demo", once=True, quiet=True, stdout=out)
    assert "stopped" in out.getvalue()
