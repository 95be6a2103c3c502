"""Real club events re-run through the product (issue 25): Compscore3's USEBIO files in
../shared/usebio/ (a two-winner Butler Mitchell, a Butler Howell and a cross-IMP Howell
with a phantom, from abftech/cobalt's public test files).

The movement is read back from who played which board against whom
(`movements.from_travellers`), the event is created through the API with its board sets
travelling as they did at the club, every traveller line is entered through the API at
the table and in the round the movement puts it (an adjusted score as a director's
ruling), each round is closed, and the standings must give every pair Compscore3's total
(to 0.01) and place (in its direction when there are two winners)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from datetime import timedelta

import pytest
from django.utils import timezone

import movements
from tests.support.samples import USEBIO_SAMPLES
from tournaments.models import BoardResult

pytestmark = pytest.mark.django_db


@dataclass(frozen=True)
class Line:
    board: int
    ns: str
    ew: str
    contract: str
    declarer: str
    lead: str
    tricks: int | None
    score: str  # "-140", or Compscore3's adjusted "A5050"


def _read(name: str):
    path = USEBIO_SAMPLES / name
    if not path.exists():
        pytest.skip(f"{path} is not here (USEBIO_SAMPLES_DIR says where the real files are)")
    root = ET.parse(path).getroot()
    pairs = {
        p.findtext("PAIR_NUMBER"): (float(p.findtext("TOTAL_SCORE")), int(p.findtext("PLACE")))
        for p in root.iter("PAIR")
    }
    lines = [
        Line(
            board=int(board.findtext("BOARD_NUMBER")),
            ns=line.findtext("NS_PAIR_NUMBER"),
            ew=line.findtext("EW_PAIR_NUMBER"),
            contract=line.findtext("CONTRACT") or "",
            declarer=line.findtext("PLAYED_BY") or "",
            lead=line.findtext("LEAD") or "",
            tricks=int(line.findtext("TRICKS")) if line.findtext("TRICKS") else None,
            score=line.findtext("SCORE"),
        )
        for board in root.iter("BOARD")
        for line in board.iter("TRAVELLER_LINE")
    ]
    return pairs, lines


def _lead(usebio: str) -> str:
    # USEBIO writes rank then suit, "TD"; the API takes suit then rank, "D10".
    if not usebio:
        return ""
    rank, suit = usebio[:-1], usebio[-1]
    return suit + ("10" if rank == "T" else rank)


EVENTS = [
    # name, scoring, winners
    ("butler_mitchell.xml", "XIMP", 2),
    ("butler_howell.xml", "XIMP", 1),
    ("cross_imp_howell.xml", "IMP", 1),
]


@pytest.mark.parametrize(("name", "scoring", "winners"), EVENTS, ids=[e[0] for e in EVENTS])
def test_a_real_club_event_scores_as_compscore3_scored_it(
    name, scoring, winners, organiser_api, public_api
):
    expected, lines = _read(name)
    movement = movements.from_travellers([(str(x.board), x.ns, x.ew) for x in lines])
    made = organiser_api.post(
        "/tournaments",
        {
            "name": f"Compscore3 {name}",
            "start_at": (timezone.now() + timedelta(hours=1)).isoformat(),
            "rounds": movement.round_count,
            "boards_per_round": movement.boards_per_round,
            "round_minutes": 30,
            "scoring": scoring,
            "completion_threshold": 50,
            "play": "entered",
            "seating": "movement",
            "movement": movements.to_json(movement),
            "winners": winners,
            "boards_travel": True,
            # Compscore3 rounds a datum's exact half away from zero (RULES 5.3).
            "datum_rounding": "half_away",
        },
    )
    assert made.status_code == 201, made.content
    tid = made.json()["id"]
    assert made.json()["boards_travel"] is True

    # Registration order gives the positions in turn, the phantom's skipped (RULES 10).
    label_of = {}
    for position in range(1, movement.pairs + 1):
        if position == movement.phantom:
            continue
        names = [f"cs{position}n", f"cs{position}s"]
        for username in names:
            assert organiser_api.post("/players", {"username": username}).status_code == 201
        pair = organiser_api.post(f"/tournaments/{tid}/pairs", {"players": names})
        assert pair.status_code == 201, pair.content
        label_of[pair.json()["id"]] = movement.label(position)
    assert sorted(label_of.values()) == sorted(expected)
    assert organiser_api.post(f"/tournaments/{tid}/start").status_code == 200

    line_of = {(x.board, x.ns, x.ew): x for x in lines}
    entered = set()
    for number in range(1, movement.round_count + 1):
        seating = public_api.get(f"/tournaments/{tid}/rounds/{number}").json()
        for table in seating["tables"]:
            ns, ew = label_of[table["ns"]], label_of[table["ew"]]
            encounter = next(e for e in movement.round(number) if e.table == table["table"])
            # The table plays the set the movement gives it, as the club's boards went.
            assert table["boards"] == list(encounter.boards)
            for board in table["boards"]:
                line = line_of[(board, ns, ew)]
                path = f"/tournaments/{tid}/rounds/{number}/tables/{table['table']}/boards/{board}"
                if line.score.startswith("A"):
                    assert line.score == "A5050"  # average to both sides
                    stored = organiser_api.put(
                        f"{path}/adjustment", {"ns": "A", "ew": "A", "reason": "Fouled board"}
                    )
                    assert stored.status_code == 200, stored.content
                else:
                    stored = organiser_api.put(
                        path,
                        {
                            "contract": line.contract,
                            "declarer": line.declarer or None,
                            "tricks": line.tricks,
                            "lead": _lead(line.lead) or None,
                        },
                    )
                    assert stored.status_code == 200, (line, stored.content)
                    assert stored.json()["ns_score"] == int(line.score), line
                entered.add((board, ns, ew))
        closed = organiser_api.post(f"/tournaments/{tid}/rounds/{number}/close")
        assert closed.status_code == 200, closed.content
    assert entered == set(line_of)  # every traveller line, each once
    assert BoardResult.objects.filter(table__round__tournament_id=tid).count() == len(lines)

    assert public_api.get(f"/tournaments/{tid}").json()["status"] == "finished"
    standings = public_api.get(f"/tournaments/{tid}/standings").json()
    got = {label_of[row["pair"]]: (row["total"], row["rank"]) for row in standings}
    assert set(got) == set(expected)
    for label, (total, place) in expected.items():
        assert got[label][0] == pytest.approx(total, abs=0.005), label
        assert got[label][1] == place, label
    if winners == 2:
        assert {row["field"] for row in standings} == {"NS", "EW"}

    # The event's own USEBIO file gives back Compscore3's travellers: the same pairs, by
    # the same numbers, on the same boards, with the same scores.
    exported = public_api.get(f"/tournaments/{tid}/export.xml")
    assert exported.status_code == 200
    root = ET.fromstring(exported.content)
    ours = {
        (
            int(board.findtext("BOARD_NUMBER")),
            line.findtext("NS_PAIR_NUMBER"),
            line.findtext("EW_PAIR_NUMBER"),
            line.findtext("SCORE"),
        )
        for board in root.iter("BOARD")
        for line in board.iter("TRAVELLER_LINE")
    }
    theirs = {(x.board, x.ns, x.ew, x.score) for x in lines if not x.score.startswith("A")}
    assert theirs <= ours and len(ours) == len(lines)
    places = {p.findtext("PAIR_NUMBER"): int(p.findtext("PLACE")) for p in root.iter("PAIR")}
    assert places == {label: place for label, (_total, place) in expected.items()}
