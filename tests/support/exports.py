"""An event with every kind of traveller line, for the export tests.

Five pairs (a bye each round), two rounds of two boards: played results, a passed-out
board, a director's adjusted score, a board cut off at the bell, a withdrawal, and
players whose names need escaping (quotes, XML specials, Chinese).
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from lxml import etree

from tournaments.exports import usebio
from tournaments.models import Table
from tournaments.services import clock, registration, results

NAMES = ["王力", 'Ann "Ace" O\'Neil', "B&B <Bridge>", "Chen", "Dora", "Eve", "Fay", "Gus"]


def _enter_round(tournament, number: int, organiser) -> None:
    tables = list(
        Table.objects.filter(round__tournament=tournament, round__number=number).order_by("number")
    )
    boards = list(tournament.board_numbers(number))
    for index, table in enumerate(tables):
        for board in boards:
            if index == 0 and board == boards[0]:
                results.director_set_result(
                    table=table,
                    board_number=board,
                    by=organiser,
                    ns_adjustment="A+",
                    ew_adjustment="A-",
                    reason="slow play by EW",
                )
            elif index == 1 and board == boards[-1] and number == 1:
                continue  # cut off at the bell
            elif index == 1 and board == boards[0]:
                entry = results.ContractEntry(contract="PASS")
                results.submit_result(table=table, board_number=board, entry=entry, user=organiser)
            else:
                tricks = 8 + (table.number + board) % 4
                entry = results.ContractEntry(
                    contract="4SX" if board % 2 else "3NT",
                    declarer="S" if board % 2 else "W",
                    tricks=tricks,
                    lead="H10",
                )
                results.submit_result(table=table, board_number=board, entry=entry, user=organiser)


def build_event(make_tournament, register_pairs, organiser, *, method: str, finish: bool = True):
    tournament = make_tournament(
        name='Spring "Swiss" <Open> 春季',
        start_at=timezone.now() + timedelta(hours=1),
        registration_opens_at=timezone.now() - timedelta(days=1),
        rounds=2,
        boards_per_round=2,
        scoring_method=method,
        round_length=timedelta(minutes=30),
        completion_threshold=50,
    )
    pairs = register_pairs(tournament, 5, now=timezone.now())
    names = zip(NAMES[::2], NAMES[1::2], strict=True)
    for pair, (first, second) in zip(pairs, names, strict=False):
        for user, name in ((pair.player1, first), (pair.player2, second)):
            user.profile.display_name = name
            user.profile.save()
    clock.start_now(by=organiser, tournament=tournament)
    _enter_round(tournament, 1, organiser)
    # Pair 5 (the bye of round 1) withdraws: it is not seated in round 2.
    registration.withdraw_pair(pair=pairs[4], by=organiser)
    clock.close_round_now(by=organiser, tournament=tournament)
    if finish:
        _enter_round(tournament, 2, organiser)
        clock.close_round_now(by=organiser, tournament=tournament)
    tournament.refresh_from_db()
    return tournament, pairs


@pytest.fixture(params=["MP", "IMP", "XIMP"])
def export_finished(request, make_tournament, register_pairs, organiser):
    return build_event(make_tournament, register_pairs, organiser, method=request.param)


@pytest.fixture
def export_running(make_tournament, register_pairs, organiser):
    return build_event(make_tournament, register_pairs, organiser, method="IMP", finish=False)


def parse(content: bytes) -> etree._ElementTree:
    # The DOCTYPE names the EBU's URL; nothing is fetched (no_network is lxml's default).
    return etree.ElementTree(etree.fromstring(content, etree.XMLParser(resolve_entities=False)))


def assert_valid(tree) -> None:
    dtd = usebio.dtd()
    assert dtd.validate(tree), dtd.error_log.filter_from_errors()
