"""Reserving a seat for a program (`services.programs`): who may, what is refused (and
changes nothing), and the ticket binding a connection to its seat."""

from __future__ import annotations

import pytest

from tests.support.online_ws import open_online_round, seated_users
from tournaments.bluechip.gateway import Gateway, Options, claim_stands
from tournaments.models import ProgramSeat, TablePresence
from tournaments.services import programs
from tournaments.services.programs import ProgramRefused


@pytest.fixture
def table(make_tournament, register_pairs):
    _round, tables = open_online_round(make_tournament, register_pairs, boards=1, rounds=1)
    return tables[0]


def test_the_seat_s_player_or_a_director_reserves_and_no_one_else(table, director):
    users = seated_users(table)
    held, ticket = programs.reserve(table=table, seat="E", by=users["E"], program="BEN")
    assert ticket.startswith("tkt-") and held.ticket_digest != ticket
    programs.reserve(table=table, seat="W", by=director, think_seconds=30)
    for stranger, seat in ((users["N"], "E"), (users["S"], "W")):
        with pytest.raises(ProgramRefused):
            programs.reserve(table=table, seat=seat, by=stranger)
    with pytest.raises(ProgramRefused):
        programs.reserve(table=table, seat="X", by=director)
    with pytest.raises(ProgramRefused):
        programs.reserve(table=table, seat="N", by=director, think_seconds=1)
    assert sorted(ProgramSeat.objects.values_list("seat", flat=True)) == ["E", "W"]
    # A new ticket replaces the old one.
    _again, second = programs.reserve(table=table, seat="E", by=users["E"])
    with pytest.raises(ProgramRefused):
        programs.bind(ticket=ticket, seat=None, address="127.0.0.1", connection="a")
    binding = programs.bind(ticket=second.upper(), seat=None, address="127.0.0.1", connection="b")
    assert binding.seat == "E" and binding.user == users["E"]
    assert TablePresence.objects.filter(table=table, seat="E").exists()
    # One connection per seat; another seat's name refused.
    with pytest.raises(ProgramRefused):
        programs.bind(ticket=second, seat=None, address="127.0.0.1", connection="c")
    programs.dropped(binding=binding)
    assert not TablePresence.objects.filter(table=table).exists()
    with pytest.raises(ProgramRefused):
        programs.bind(ticket=second, seat="N", address="127.0.0.1", connection="d")


def test_programs_play_only_online(make_tournament, register_pairs, director):
    from tournaments.models import Table

    _round, tables = open_online_round(make_tournament, register_pairs, boards=1, rounds=1)
    tournament = tables[0].round.tournament
    tournament.play = "entered"
    tournament.save(update_fields=["play"])
    with pytest.raises(ProgramRefused):
        programs.reserve(table=Table.objects.get(pk=tables[0].pk), seat="N", by=director)


def test_the_address_allowlist_and_the_claim_rule():
    gateway = Gateway(Options(allow=("127.0.0.0/8", "::1/128", "10.1.0.0/16")))
    assert gateway.allows("127.0.0.1") and gateway.allows("::1") and gateway.allows("10.1.2.3")
    assert gateway.allows("::ffff:127.0.0.1")
    assert not gateway.allows("10.2.0.1") and not gateway.allows("192.168.1.1")
    assert not gateway.allows("not an address")
    # 5 tricks left, the claimer claims 4: the program's side may take at most 1.
    assert claim_stands(remaining=5, claimed=4, program_side_most=1)
    assert not claim_stands(remaining=5, claimed=4, program_side_most=2)
