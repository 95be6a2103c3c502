"""No stored text can break an export: names written before the name validator existed
(put in the database directly here) still give a PBN file endplay reads back, lines
under 255 characters, and a USEBIO file valid against its DTD."""

from __future__ import annotations

import re
import unicodedata

import pytest
from django.contrib.auth import get_user_model
from endplay.parsers import pbn as pbn_parser

from tests.support.exports import assert_valid, build_event, parse
from tournaments.exports import pbn, pbn_export, usebio_export
from tournaments.models import BoardResult, Pair, PlayerProfile, Tournament

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]
User = get_user_model()

TAG = re.compile(r'^\[(\w+) "((?:[^"\\]|\\.)*)"\]$')

# Display names of the ten players, as legacy rows could hold them (80 is the column).
DISPLAY_NAMES = [
    "\x1b[31mRed\x1b[0m",
    "Bell\x07\x7f\x0b\x0c\x1cend",
    "لاعب الجسر",
    "שחקן ברידג׳",
    "\u202eevil\u202c – fake \u2066iso\u2069",
    '"' * 80,
    "\\" * 80,
    'back\\slash"quote"]{;}% [x "y"]',
    "",  # shown by their usernames, set below
    "",
]
# Usernames at the column's 150 characters: the last pair's names are 303 characters.
USERNAMES = ["\u0645" * 150, "u\x07" + '"' * 146 + "\\" + "\u202e"]

EVENT_NAMES = {
    # A cut after escaping fell between the backslash and the quote here.
    "quote at the cut": ("x" * 199 + '"', "x" * 199),
    "backslashes": ("\\" * 200, "\\" * 100),
    "controls, reordering and a closing bracket": (
        'Spring\x07 "Cup"]{ \u202eنهائي\u202c\tשלב',
        "Spring\ufffd \"Cup']{ نهائي שלב",
    ),
}


def unescape(value: str) -> str:
    return re.sub(r'\\(["\\])', r"\1", value)


def hostile_event(make_tournament, register_pairs, organiser, event_name: str):
    tournament, _pairs = build_event(make_tournament, register_pairs, organiser, method="MP")
    Tournament.objects.filter(pk=tournament.pk).update(name=event_name)
    players = []
    for pair in Pair.objects.filter(tournament=tournament).order_by("registration_no"):
        players += [pair.player1_id, pair.player2_id]
    for user_id, name in zip(players, DISPLAY_NAMES, strict=True):
        PlayerProfile.objects.filter(user_id=user_id).update(display_name=name)
    for user_id, username in zip(players[-2:], USERNAMES, strict=True):
        User.objects.filter(pk=user_id).update(username=username)
    tournament.refresh_from_db()
    return tournament


def no_hostile_characters(text: str) -> bool:
    return not any((unicodedata.category(c) in ("Cc", "Cf") and c not in "\n\u200d") for c in text)


@pytest.mark.parametrize("case", EVENT_NAMES)
def test_pbn_reads_back_whatever_the_names(case, make_tournament, register_pairs, organiser):
    stored, shown = EVENT_NAMES[case]
    tournament = hostile_event(make_tournament, register_pairs, organiser, stored)
    text = pbn_export(tournament=tournament)
    text.encode("utf-8")
    assert no_hostile_characters(text)
    for line in text.splitlines():
        assert len(line) <= 255, line
        if line.startswith("["):
            assert TAG.match(line), line

    boards = pbn_parser.loads(text)
    assert [b.board_num for b in boards] == [1, 2, 3, 4]
    assert {unescape(b.info["Event"]) for b in boards} == {shown}
    ranking = boards[0].info["TotalScoreTable"]
    headers = [h["name"] for h in ranking["headers"]]
    pair_at = headers.index("PairId")
    numbers = set(
        Pair.objects.filter(tournament=tournament).values_list("registration_no", flat=True)
    )
    assert {int(row[pair_at]) for row in ranking["rows"]} == numbers

    # The names cell of each row: one string token of at most 80 characters.
    rows = [line for line in text.splitlines() if re.match(r"^\s*(\d+|-)\s+\d+\s", line)]
    names = [re.search(r'"((?:[^"\\]|\\.)*)"$', row) for row in rows if '"' in row]
    assert len(names) == 5 and all(names), rows
    for match in names:
        assert len(match.group(1)) <= pbn.MAX_NAMES
    assert any(unescape(m.group(1)).startswith("\ufffd[31mRed\ufffd[0m") for m in names)
    assert any(unescape(m.group(1)).startswith("evil – fake iso") for m in names)
    assert any(unescape(m.group(1)) == "لاعب الجسر – שחקן ברידג׳" for m in names)


@pytest.mark.parametrize("case", EVENT_NAMES)
def test_usebio_is_valid_whatever_the_names(case, make_tournament, register_pairs, organiser):
    stored, _shown = EVENT_NAMES[case]
    tournament = hostile_event(make_tournament, register_pairs, organiser, stored)
    tree = parse(usebio_export(tournament=tournament))
    assert_valid(tree)
    event = tree.getroot().find("EVENT")
    description = event.find("EVENT_DESCRIPTION").text
    assert no_hostile_characters(description)
    names = [n.text for n in event.iterfind("PARTICIPANTS/PAIR/PLAYER/PLAYER_NAME")]
    assert len(names) == 10
    assert "\ufffd[31mRed\ufffd[0m" in names
    assert "Bell\ufffd\ufffd end" in names
    assert "evil – fake iso" in names
    assert {"لاعب الجسر", "שחקן ברידג׳", '"' * 80, "\\" * 80, "\u0645" * 150} <= set(names)
    assert "u\ufffd" + '"' * 146 + "\\" in names


@pytest.mark.parametrize(
    "value",
    ['"' * 500, "\\" * 500, 'a"' * 250, '\\"' * 250, "ش" * 500],
    ids=["quotes", "backslashes", "letter-quote", "backslash-quote", "arabic"],
)
@pytest.mark.parametrize("limit", [pbn.MAX_NAMES, pbn.MAX_TAG_VALUE])
def test_a_500_character_value_is_cut_before_it_is_escaped(value, limit):
    escaped = pbn.escape(value, limit)
    assert limit - 1 <= len(escaped) <= limit
    assert re.fullmatch(r'(?:[^"\\]|\\.)*', escaped), escaped
    assert value.startswith(unescape(escaped))


@pytest.mark.parametrize(
    ("contract", "declarer", "lead"),
    [("4 S\x07", "\x1b", "H \u202e"), ("", "", ""), ("banana", "Q", '"]{')],
    ids=["spaces-and-controls", "empty", "nonsense"],
)
def test_result_fields_stored_around_the_services(
    contract, declarer, lead, make_tournament, register_pairs, organiser
):
    tournament, _pairs = build_event(make_tournament, register_pairs, organiser, method="IMP")
    played = BoardResult.objects.filter(board__tournament=tournament, state="played")
    row = played.order_by("board__number", "table__number").first()
    BoardResult.objects.filter(pk=row.pk).update(contract=contract, declarer=declarer, lead=lead)

    text = pbn_export(tournament=tournament)
    assert no_hostile_characters(text)
    boards = {b.board_num: b for b in pbn_parser.loads(text)}
    assert sorted(boards) == [1, 2, 3, 4]
    table = boards[row.board.number].info["ScoreTable"]
    # Every row still has one cell per column: nothing shifted the columns.
    assert all(len(cells) == len(table["headers"]) for cells in table["rows"])

    assert_valid(parse(usebio_export(tournament=tournament)))
