"""The table's page for a kibitzer (issue 24, item 9; RULES 2), the bell's sentence after a
reload (item 6), and a table's own bell (extra time) on the page and the socket.

The page of a running round opens for anyone: who is neither seated there nor a director
gets the kibitzer's socket and no card in the HTML. After the bell the page says what the
bell made of the board, in the bell message's own words. A table given extra time shows
its own bell from the first drawing, in the snapshot and in every `round` message."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from django.utils import timezone, translation

from tests.support.online_ws import (
    board_path,
    cards_in,
    connect,
    open_online_round,
    seated_users,
    token_of,
)
from tournaments.models import Round, Table, Tournament
from tournaments.selectors import table_server
from tournaments.services import clock, settings_change, table_director, table_play
from tournaments.templatetags.players import player_name

pytestmark = pytest.mark.django_db(transaction=True)
TIMEOUT = 10
# A card as a page could carry it: in a JSON string, or a data attribute.
CARD = re.compile(r'"([SHDC][AKQJT98765432])"')


def page_url(table: Table) -> str:
    return f"/t/{table.round.tournament_id}/rounds/{table.round.number}/tables/{table.number}/play/"


def bid(table: Table, *calls: str) -> None:
    users = seated_users(table)
    for call in calls:
        views = {
            s: table_play.board_view(table=table, board_number=1, user=u) for s, u in users.items()
        }
        seat = next(s for s, v in views.items() if v["legal"])
        table_play.act(
            table=table,
            board_number=1,
            user=users[seat],
            action={"seq": views[seat]["next_seq"], "type": "call", "call": call},
        )


@pytest.fixture
def room(make_tournament, register_pairs):
    first_round, tables = open_online_round(make_tournament, register_pairs, boards=2)
    return first_round, tables


def test_anyone_not_seated_opens_the_page_as_a_kibitzer_and_it_carries_no_card(
    room, client, director, organiser
):
    first_round, (table, other) = room
    bid(table, "1C", "P")
    url = page_url(table)
    names = {seat: player_name(user) for seat, user in seated_users(table).items()}
    for live in (False, True):
        settings_change.set_kibitz_live(
            tournament=Tournament.objects.get(pk=first_round.tournament_id),
            by=organiser,
            kibitz_live=live,
        )
        client.logout()
        # Anonymous, a player of another table, and (signed in) a player of neither.
        for visitor in (None, seated_users(other)["S"]):
            if visitor is not None:
                client.force_login(visitor)
            page = client.get(url)
            assert page.status_code == 200, visitor
            config = page.context["config"]
            assert config["kibitz"] is True and config["seat"] is None
            assert config["wsPath"] == f"/ws/tables/{table.pk}/boards/"
            assert config["names"] == names and config["current"] == 1
            assert config["cutOff"] is None
            html = page.content.decode()
            assert not CARD.findall(html) and not cards_in(config), (visitor, live)
            # What the page says of the watching matches what the socket will send.
            note = config["strings"]["watching_note"]
            sees_live = live and visitor is None
            assert ("live" in note) is sees_live, (visitor, live, note)
    # Seated players and a director are not kibitzers.
    for user in (seated_users(table)["N"], director):
        client.force_login(user)
        assert client.get(url).context["config"]["kibitz"] is False


def test_the_public_pages_watch_links_open_a_kibitzers_page(room, client, make_user):
    first_round, (table, _other) = room
    tournament_id = first_round.tournament_id
    for visitor in (None, make_user("passer-by")):
        if visitor is not None:
            client.force_login(visitor)
        # The tournament's page and the round's seating sheet.
        for sheet in (f"/t/{tournament_id}/", f"/t/{tournament_id}/rounds/1/seating/"):
            answer = client.get(sheet)
            assert answer.status_code == 200, sheet
            links = re.findall(r'class="watch-link" href="([^"]+)"', answer.content.decode())
            assert page_url(table) in links, (sheet, links)
        page = client.get(page_url(table))
        assert page.status_code == 200 and page.context["config"]["kibitz"] is True


def test_after_a_reload_the_page_says_what_the_bell_made_of_the_board(
    make_tournament, register_pairs, client
):
    first_round, (table, _other) = open_online_round(
        make_tournament, register_pairs, boards=2, rounds=1
    )
    Tournament.objects.filter(pk=first_round.tournament_id).update(unplayed_policy="avg")
    bid(table, "1C", "P")  # board 1 in the middle of its auction at the bell
    clock.advance(now=first_round.ends_at + timedelta(seconds=1))
    assert Round.objects.get(pk=first_round.pk).status == "closed"
    client.force_login(seated_users(table)["E"])
    for lang in ("en", "zh-hans"):
        client.cookies["django_language"] = lang
        config = client.get(page_url(table)).context["config"]
        # The board the bell found in play is the one shown, with the bell's own sentence.
        assert config["current"] == 1 and config["closed"] is True
        with translation.override(lang):
            expected = table_server.cut_off_text(1, {"state": "adjusted", "ns": "A", "ew": "A"})
        assert config["cutOff"]["text"] == expected
        assert config["cutOff"]["board"] == 1 and config["cutOff"]["policy"] == "avg"
        assert config["cutOff"]["result"] == {"state": "adjusted", "ns": "A", "ew": "A"}
        assert config["tournamentOver"] is True
    assert "A=" in expected and "第 1 副" in expected  # zh-hans, and not the English
    # A socket opened after the bell (it missed `round_closed`): its snapshot says it too,
    # and of a board played out, nothing.
    token = token_of(seated_users(table)["E"])

    async def snapshots():
        heard = []
        for board in (1, 2):
            ws, _ = await connect(board_path(table, board), token=token)
            heard.append(await ws.receive_json_from(timeout=TIMEOUT))
            await ws.disconnect()
        return heard

    first, second = async_to_sync(snapshots)()
    assert first["type"] == "snapshot" and first["clock"]["status"] == "closed"
    with translation.override("en"):  # the socket's language: no cookie, no Accept-Language
        assert first["cut_off"]["text"] == table_server.cut_off_text(1, {"ns": "A", "ew": "A"})
    assert first["cut_off"]["board"] == 1 and first["cut_off"]["result"]["ns"] == "A"
    assert second["cut_off"]["board"] == 2  # never started: cut off too


def test_a_table_with_extra_time_shows_its_own_bell_on_the_page_and_the_socket(
    room, client, director
):
    first_round, (table, other) = room
    given = table_director.give_extra_time(table=table, minutes=7, by=director)
    own = given.ends_at
    assert own == first_round.ends_at + timedelta(minutes=7)
    # The page's first drawing: its own bell; the table beside it keeps the round's.
    client.force_login(seated_users(table)["N"])
    assert client.get(page_url(table)).context["config"]["clock"]["ends_at"] == own.isoformat()
    client.force_login(seated_users(other)["N"])
    assert (
        client.get(page_url(other)).context["config"]["clock"]["ends_at"]
        == first_round.ends_at.isoformat()
    )

    tokens = {at.pk: token_of(seated_users(at)["N"]) for at in (table, other)}
    tournament = Tournament.objects.get(pk=first_round.tournament_id)

    async def scenario():
        heard = {}
        sockets = {}
        for name, at in (("extended", table), ("other", other)):
            sockets[name], _ = await connect(board_path(at, 1), token=tokens[at.pk])
            heard[name] = [await sockets[name].receive_json_from(timeout=TIMEOUT)]
        # The director extends the whole round by 5 minutes (less than the table's 7).
        await database_sync_to_async(clock.extend_round)(
            tournament=tournament, by=director, minutes=5
        )
        for name, ws in sockets.items():
            heard[name].append(await ws.receive_json_from(timeout=TIMEOUT))
            await ws.disconnect()
        return heard

    heard = async_to_sync(scenario)()
    snapshot, changed = heard["extended"]
    assert snapshot["type"] == "snapshot" and snapshot["clock"]["ends_at"] == own.isoformat()
    assert changed["type"] == "round" and changed["ends_at"] == own.isoformat()
    snapshot, changed = heard["other"]
    assert snapshot["clock"]["ends_at"] == first_round.ends_at.isoformat()
    extended = Round.objects.get(pk=first_round.pk).ends_at
    assert extended == first_round.ends_at + timedelta(minutes=5)
    assert changed["type"] == "round" and changed["ends_at"] == extended.isoformat()
    assert timezone.now() < own
