"""The exports of a team event (RULES 11): USEBIO's team event (TEAM participants, one
MATCH per match with both rooms' traveller lines, valid against the vendored DTD and
faithful to the stored matches) and PBN with each board once per room (read back by
endplay's PBN parser: both rooms' players, contract, declarer, result and score). Closed
rounds only; never a pairs event; the API and the commands serve them as for pairs."""

from __future__ import annotations

from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import call_command
from endplay.parsers import pbn as pbn_parser
from endplay.types import Deal

from tests.support.api import Api
from tests.support.exports import assert_valid, parse
from tests.support.team_events import MINUTE, ROUND, create_team_event, play_round
from tournaments.exports import NothingToExport, pbn_export, usebio_export
from tournaments.models import (
    BoardResult,
    Match,
    PairBoardScore,
    Table,
    Team,
    TournamentStatus,
)
from tournaments.services import results
from tournaments.services.clock import advance

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]


def text(element, path: str) -> str | None:
    found = element.find(path)
    return None if found is None else found.text


def build(organiser, t0, *, finish: bool = True, **settings):
    """Three teams (a bye each round), two rounds of two boards; in round 1 the open room
    of the match has a director's A+/A− on board 2 and its closed room a pass-out."""
    event = create_team_event(
        organiser=organiser, t0=t0, teams=3, rounds=2, boards_per_round=2, **settings
    )
    team = Team.objects.get(tournament=event, registration_no=1)
    team.name = 'Ann "Ace" & <Co> 王'
    team.save(update_fields=["name"])
    advance(now=t0)
    play_round(event, 1, now=t0 + MINUTE)
    match = Match.objects.get(round__tournament=event, round__number=1, away__isnull=False)
    results.director_set_result(
        table=match.open_table,
        board_number=2,
        by=organiser,
        ns_adjustment="A+",
        ew_adjustment="A-",
        reason="slow play",
    )
    closed = Table.objects.get(pk=match.closed_table_id)
    results.director_set_result(
        table=closed,
        board_number=1,
        by=organiser,
        ns_adjustment="A",
        ew_adjustment="A",
        reason="fouled board",
    )
    advance(now=t0 + ROUND)
    if finish:
        play_round(event, 2, now=t0 + ROUND + MINUTE)
        advance(now=t0 + 2 * ROUND)
    event.refresh_from_db()
    return event


@pytest.fixture
def finished(organiser, t0):
    event = build(organiser, t0)
    assert event.status == TournamentStatus.FINISHED
    return event


def test_usebio_team_event_is_valid_and_faithful(finished):
    content = usebio_export(tournament=finished)
    tree = parse(content)
    assert_valid(tree)
    event = tree.getroot().find("EVENT")
    assert event.get("EVENT_TYPE") == "SWISS_TEAMS"
    assert event.find("PARTICIPANTS").get("EVENT_TYPE") == "SWISS_TEAMS"
    assert text(event, "MATCH_SCORING_METHOD") == "VPS"
    assert text(event, "BOARD_SCORING_METHOD") == "IMPS"
    # A team event, not a pairs event: no pair participant, no board outside a match.
    assert event.find("PARTICIPANTS/PAIR") is None and event.find("BOARD") is None

    teams = {t.registration_no: t for t in Team.objects.filter(tournament=finished)}
    listed = {int(el.get("TEAM_ID")): el for el in event.iterfind("PARTICIPANTS/TEAM")}
    assert set(listed) == set(teams)
    for number, el in listed.items():
        team = teams[number]
        assert el.get("TEAM_NAME") == team.name
        assert Decimal(text(el, "TOTAL_SCORE")) == team.vp
        assert int(text(el, "PLACE")) == team.rank
        names = [text(p, "PLAYER_NAME") for p in el.iterfind("PLAYER")]
        assert len(names) == 4
        assert all(int(text(p, "BOARDS_PLAYED")) >= 0 for p in el.iterfind("PLAYER"))
    assert listed[1].get("TEAM_NAME") == 'Ann "Ace" & <Co> 王'

    stored = list(
        Match.objects.filter(round__tournament=finished)
        .select_related("round", "home", "away", "open_table__ns_pair", "open_table__ew_pair")
        .select_related("closed_table__ns_pair", "closed_table__ew_pair")
        .order_by("round__number", "number")
    )
    written = list(event.iterfind("MATCH"))
    assert len(written) == len(stored) == 4  # two rounds, a match and a bye each
    for el, match in zip(written, stored, strict=True):
        assert int(text(el, "ROUND_NUMBER")) == match.round.number
        assert int(text(el, "TEAM")) == match.home.registration_no
        if match.away is None:
            assert el.find("OPPOSING_TEAM") is None and el.find("BOARD") is None
            assert Decimal(text(el, "TEAM_SCORE")) == finished.bye_vp == match.home_vp
            continue
        assert int(text(el, "OPPOSING_TEAM")) == match.away.registration_no
        assert Decimal(text(el, "TEAM_SCORE")) == match.home_vp
        assert Decimal(text(el, "OPPOSING_TEAM_SCORE")) == match.away_vp
        boards = list(el.iterfind("BOARD"))
        assert [int(text(b, "BOARD_NUMBER")) for b in boards] == list(
            finished.board_numbers(match.round.number)
        )
        for board_el in boards:
            number = int(text(board_el, "BOARD_NUMBER"))
            home = PairBoardScore.objects.get(
                pair=match.open_table.ns_pair, board__number=number, board__tournament=finished
            )
            assert int(text(board_el, "IMPS")) == int(home.points)
            lines = list(board_el.iterfind("TRAVELLER_LINE"))
            assert [text(line, "DIRECTION") for line in lines] == ["NS", "EW"]
            for line, table in zip(lines, (match.open_table, match.closed_table), strict=True):
                assert int(text(line, "NS_PAIR_NUMBER")) == table.ns_pair.registration_no
                assert int(text(line, "EW_PAIR_NUMBER")) == table.ew_pair.registration_no
                result = BoardResult.objects.get(table=table, board__number=number)
                if result.state == "played":
                    assert text(line, "CONTRACT") == result.contract
                    assert int(text(line, "TRICKS")) == result.tricks
                    assert int(text(line, "SCORE")) == result.ns_score
                elif result.state == "adjusted":
                    code = {"A+": 60, "A": 50, "A-": 40}
                    ns, ew = code[result.ns_adjustment], code[result.ew_adjustment]
                    assert text(line, "SCORE") == f"A{ns:02d}{ew:02d}"
                    assert line.find("CONTRACT") is None
    # The deals of every exported board.
    assert len(tree.getroot().findall("HANDSET/BOARD")) == 4


def test_an_imps_only_round_robin_is_a_ko_event_in_imps(organiser, t0):
    event = build(organiser, t0, seating="round_robin", team_scoring="imps")
    tree = parse(usebio_export(tournament=event))
    assert_valid(tree)
    event_el = tree.getroot().find("EVENT")
    assert event_el.get("EVENT_TYPE") == "KO"
    assert text(event_el, "MATCH_SCORING_METHOD") == "IMPS"
    for el in event_el.iterfind("MATCH"):
        if el.find("OPPOSING_TEAM") is None:
            continue
        match = Match.objects.get(
            round__tournament=event,
            round__number=int(text(el, "ROUND_NUMBER")),
            home__registration_no=int(text(el, "TEAM")),
        )
        assert int(text(el, "TEAM_SCORE")) == match.home_imps_won
        assert int(text(el, "OPPOSING_TEAM_SCORE")) == match.away_imps_won
    # With VPs, a round robin is TEAMS.
    other = build(organiser, t0, seating="round_robin")
    assert parse(usebio_export(tournament=other)).getroot().find("EVENT").get("EVENT_TYPE") == (
        "TEAMS"
    )


def test_pbn_has_each_board_once_per_room_and_reads_back(finished):
    content = pbn_export(tournament=finished)
    assert content.startswith("% PBN 2.1\n% EXPORT\n")
    assert all(len(line) <= 255 for line in content.splitlines())
    boards = pbn_parser.loads(content)
    matches = list(
        Match.objects.filter(round__tournament=finished, away__isnull=False)
        .select_related("round", "home", "away")
        .select_related("open_table__ns_pair__player1", "open_table__ns_pair__player2")
        .select_related("open_table__ew_pair__player1", "open_table__ew_pair__player2")
        .select_related("closed_table__ns_pair__player1", "closed_table__ns_pair__player2")
        .select_related("closed_table__ew_pair__player1", "closed_table__ew_pair__player2")
        .order_by("round__number", "number")
    )
    expected = [
        (match, number, room, table)
        for match in matches
        for number in finished.board_numbers(match.round.number)
        for room, table in (("Open", match.open_table), ("Closed", match.closed_table))
    ]
    assert len(boards) == len(expected) == 8
    for parsed, (match, number, room, table) in zip(boards, expected, strict=True):
        info = parsed.info
        assert parsed.board_num == number
        assert (info["Room"], info["Round"]) == (room, str(match.round.number))
        # A PBN string escapes its quotes (endplay leaves them escaped).
        names = tuple(info[tag].replace('\\"', '"') for tag in ("HomeTeam", "VisitTeam"))
        assert names == (match.home.name, match.away.name)
        assert info["Table"] == str(table.number)
        seats = {
            "North": table.ns_pair.player1,
            "South": table.ns_pair.player2,
            "East": table.ew_pair.player1,
            "West": table.ew_pair.player2,
        }
        for seat, user in seats.items():
            assert info[seat] == user.username
        stored = BoardResult.objects.select_related("board").get(table=table, board__number=number)
        assert parsed.deal.to_pbn() == Deal(stored.board.deal).to_pbn()
        home = PairBoardScore.objects.get(pair=match.open_table.ns_pair, board=stored.board)
        side = "NS" if room == "Open" else "EW"
        assert info["ScoreIMP"] == f"{side} {int(home.points)}"
        if stored.state == "played":
            assert str(parsed.contract).startswith(stored.contract[:2])
            assert parsed.contract.declarer.abbr == stored.declarer
            assert parsed.contract.result == stored.tricks - (int(stored.contract[0]) + 6)
            assert info["Score"] == f"NS {stored.ns_score}"
        else:
            assert stored.state == "adjusted" and parsed.contract is None
            assert info["Score"].startswith("NS ^")
    ranking = boards[0].info["TotalScoreTable"]
    headers = [h["name"] if isinstance(h, dict) else h for h in ranking["headers"]]
    assert headers[:3] == ["Rank", "TeamId", "TotalVP"]
    by_team = {int(row[1]): row for row in ranking["rows"]}
    for team in Team.objects.filter(tournament=finished):
        assert int(by_team[team.registration_no][0]) == team.rank
        assert Decimal(by_team[team.registration_no][2]) == team.vp


def test_only_closed_rounds_and_nothing_before_the_first_close(organiser, t0):
    running = build(organiser, t0, finish=False)
    assert running.round_set.get(number=2).status == "open"
    play_round(running, 2, now=t0 + ROUND + MINUTE)
    assert BoardResult.objects.filter(table__round__number=2, table__round__tournament=running)
    tree = parse(usebio_export(tournament=running))
    assert_valid(tree)
    assert {text(m, "ROUND_NUMBER") for m in tree.getroot().iterfind("EVENT/MATCH")} == {"1"}
    assert {b.board_num for b in pbn_parser.loads(pbn_export(tournament=running))} == {1, 2}
    # Not finished: no place and no master points yet.
    assert tree.getroot().find("EVENT/PARTICIPANTS/TEAM/PLACE") is None
    fresh = create_team_event(organiser=organiser, t0=t0, teams=2, rounds=1)
    with pytest.raises(NothingToExport):
        usebio_export(tournament=fresh)
    with pytest.raises(NothingToExport):
        pbn_export(tournament=fresh)


def test_the_api_and_the_commands_serve_a_team_events_files(finished):
    api = Api()
    xml = api.get(f"/tournaments/{finished.pk}/export.xml")
    assert xml.status_code == 200 and xml["Content-Type"].startswith("application/xml")
    assert_valid(parse(xml.content))
    assert b'EVENT_TYPE="SWISS_TEAMS"' in xml.content
    pbn = api.get(f"/tournaments/{finished.pk}/export.pbn")
    assert pbn.status_code == 200
    assert '[Room "Closed"]' in pbn.content.decode()
    out = StringIO()
    call_command("export_usebio", finished.pk, stdout=out)
    assert "<TEAM TEAM_ID=" in out.getvalue()
    out = StringIO()
    call_command("export_pbn", finished.pk, stdout=out)
    assert '[HomeTeam "' in out.getvalue()
