"""The USEBIO export of a two-winner event (RULES 10), written as Compscore3 writes its
two-winner Mitchell (../shared/usebio/butler_mitchell.xml): WINNER_TYPE 2, each PAIR with
its DIRECTION and its PLACE in that direction, pairs numbered "3NS" / "3EW" on the
PARTICIPANTS and the traveller lines; valid against the vendored DTD."""

from __future__ import annotations

import pytest

import movements
from tests.support.exports import assert_valid, parse
from tests.support.samples import USEBIO_SAMPLES
from tests.support.two_winners import build_mitchell
from tournaments.exports import usebio_export
from tournaments.models import Pair, Table, Tournament

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]
COMPSCORE_MITCHELL = USEBIO_SAMPLES / "butler_mitchell.xml"


def text(element, path: str) -> str | None:
    found = element.find(path)
    return None if found is None else found.text


def _export(tournament):
    tree = parse(usebio_export(tournament=tournament))
    assert_valid(tree)
    return tree.getroot().find("EVENT")


def _check(event, tournament, label) -> None:
    """The file says what the database holds, each pair under `label(pair)`."""
    assert text(event, "WINNER_TYPE") == "2"
    pairs = {label(p): p for p in Pair.objects.filter(tournament=tournament)}
    participants = event.findall("PARTICIPANTS/PAIR")
    assert [text(el, "PAIR_NUMBER") for el in participants] == sorted(
        pairs, key=lambda n: (int(n[:-2]), n[-2:] != "NS")
    )  # 1NS, 1EW, 2NS, 2EW … as Compscore3 lists them
    for el in participants:
        pair = pairs[text(el, "PAIR_NUMBER")]
        assert text(el, "DIRECTION") == pair.field
        assert text(el, "PLACE") == (str(pair.rank) if pair.rank else None)
        awarded = text(el, "MASTER_POINTS_AWARDED")
        assert (float(awarded) if awarded else 0.0) == float(pair.master_points)
    # A place per direction: each direction's places are 1…F.
    for direction in ("NS", "EW"):
        places = sorted(
            int(text(el, "PLACE"))
            for el in participants
            if text(el, "DIRECTION") == direction and text(el, "PLACE")
        )
        assert places == list(range(1, len(places) + 1)) and places
    # The traveller lines name the pairs the same way: NS pairs NS, EW pairs EW.
    meetings = {
        (text(x, "NS_PAIR_NUMBER"), text(x, "EW_PAIR_NUMBER"))
        for x in event.iterfind("BOARD/TRAVELLER_LINE")
    }
    played = {
        (label(t.ns_pair), label(t.ew_pair))
        for t in Table.objects.filter(round__tournament=tournament, results__isnull=False)
        .select_related("ns_pair", "ew_pair")
        .distinct()
    }
    assert meetings == played
    assert all(ns.endswith("NS") and ew.endswith("EW") for ns, ew in meetings)


@pytest.mark.skipif(
    not hasattr(movements, "from_json"), reason="the movements core's JSON form (issue 25)"
)
def test_two_winners_are_numbered_by_their_movement_position(make_tournament, register_pairs):
    event = build_mitchell(make_tournament, register_pairs, tables=5, rounds=3)
    tournament = event.tournament
    assert tournament.movement is not None
    root = _export(tournament)
    _check(root, tournament, lambda pair: event.movement.label(pair.position))
    numbers = [text(el, "PAIR_NUMBER") for el in root.findall("PARTICIPANTS/PAIR")]
    assert numbers[:4] == ["1NS", "1EW", "2NS", "2EW"] and "5EW" in numbers


def test_without_a_stored_movement_the_registration_number_takes_the_field(
    make_tournament, register_pairs
):
    event = build_mitchell(make_tournament, register_pairs, tables=5, rounds=3)
    Tournament.objects.filter(pk=event.tournament.pk).update(movement=None)
    tournament = Tournament.objects.get(pk=event.tournament.pk)
    root = _export(tournament)
    _check(root, tournament, lambda pair: f"{pair.registration_no}{pair.field}")
    assert "6EW" in {text(el, "PAIR_NUMBER") for el in root.findall("PARTICIPANTS/PAIR")}


def test_one_winner_is_written_as_before(export_running):
    tournament, pairs = export_running
    root = _export(tournament)
    assert text(root, "WINNER_TYPE") == "1"
    participants = root.findall("PARTICIPANTS/PAIR")
    assert [text(el, "PAIR_NUMBER") for el in participants] == [
        str(p.registration_no) for p in sorted(pairs, key=lambda p: p.registration_no)
    ]
    assert all(el.find("DIRECTION") is None for el in participants)


@pytest.mark.skipif(not COMPSCORE_MITCHELL.exists(), reason="Compscore3's files are not here")
def test_compscore3_writes_a_two_winner_mitchell_the_same_way():
    """The shape checked above is the real club scorer's: its two-winner file has
    WINNER_TYPE 2, a DIRECTION on every pair and places 1… in each direction."""
    root = parse(COMPSCORE_MITCHELL.read_bytes()).getroot()
    event = root.find("EVENT")
    assert text(event, "WINNER_TYPE") == "2"
    participants = event.findall("PARTICIPANTS/PAIR")
    for direction in ("NS", "EW"):
        mine = [el for el in participants if text(el, "DIRECTION") == direction]
        assert all(text(el, "PAIR_NUMBER").endswith(direction) for el in mine)
        assert sorted(int(text(el, "PLACE")) for el in mine) == list(range(1, len(mine) + 1))
    numbers = [text(el, "PAIR_NUMBER") for el in participants]
    assert numbers[:4] == ["1NS", "1EW", "2NS", "2EW"]
