"""Who sees which hand and which result, and when (`tournaments.visibility`, docs/SECURITY.md).

Every renderer that can carry a hand or a result — the public board page, the console's
result page and dispute queue, the table page in the browser, the HTTP board view, the
API's board, the exports, admin and the socket's snapshot — is asked by every role
(anonymous, another table's player, a player of the table before and after the board is
over there, a staff account without permissions, a director) while the round runs and
after it closes. The expected sight is written here from the Laws' practice, not read
from the code: before the close only the table's players (their own hand, dummy after the
lead, all four once the board is over at their table, their own result) and a director
see anything of a board.
"""

from __future__ import annotations

import json
import re
from datetime import timedelta

import pytest
from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator
from django.test import Client

from tests.support.api import Api, result_path, token_for
from tests.support.clock import submit
from tests.support.online_ws import (
    allowed_cards,
    board_path,
    cards_in,
    dealt_hands,
    open_online_round,
    robot_action,
    seated_users,
    session_cookie,
)
from tournaments.models import BoardResult, PairSeats, Round, Table
from tournaments.selectors import table_seats
from tournaments.services import clock, results, table_play
from tournaments.templatetags.bridge import contract

ROLES = ("anonymous", "other_table", "seated", "staff", "director")
HAND_DIAGRAM = re.compile(r'class="hand seat-([NESW])"')
CARD_TOKEN = re.compile(r'"([SHDC][AKQJT98765432])"')


def _play_to_the_end(table: Table, board_number: int, opening: str = "1C") -> None:
    """The dealer opens `opening`, everyone passes, then each plays its first legal card."""
    users = seated_users(table)
    for _ in range(80):
        view = table_play.board_view(table=table, board_number=board_number, user=users["N"])
        if view["over"]:
            return
        for seat, user in users.items():
            mine = (
                view
                if seat == "N"
                else table_play.board_view(table=table, board_number=board_number, user=user)
            )
            action = robot_action(mine)
            if action is not None and action.get("call") == "1C":
                action["call"] = opening
            if action is not None:
                table_play.act(table=table, board_number=board_number, user=user, action=action)
                break
    raise AssertionError("the board did not end")


@pytest.fixture
def field(make_tournament, register_pairs, director, django_user_model):
    """Round 1 open: board 1 over at table 1 (1♣ by the dealer, 52 cards), board 2 not
    started there; nothing played at table 2."""
    first, tables = open_online_round(make_tournament, register_pairs, boards=2, rounds=2)
    one, two = tables
    _play_to_the_end(one, 1)
    staff = django_user_model.objects.create_user("staff-only", password="pw", is_staff=True)
    people = {
        "anonymous": None,
        "other_table": seated_users(two)["N"],
        "seated": seated_users(one)["N"],
        "staff": staff,
        "director": director,
    }
    return first, one, two, people


def _client(user) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def _api(user) -> Api:
    return Api(token_for(user) if user is not None else None)


def _html_sight(response, result_mark: str) -> tuple[set[str], bool]:
    """(the seats whose hand diagram a page draws, whether it shows the result drawn as
    `result_mark`: the table's contract as the pages draw it)."""
    if response.status_code != 200:
        return set(), False
    html = response.content.decode()
    return set(HAND_DIAGRAM.findall(html)), result_mark in html


def _expected(role: str, *, public: bool) -> bool:
    """Whether `role` may see every hand and every result of a board on a page drawn for
    everyone or for an organiser. A seated player's partial sight is the live view's,
    checked apart."""
    return public or role == "director"


def _round_state_pages(tournament, one: Table, board_number: int) -> dict[str, str]:
    return {
        "board page": f"/t/{tournament.pk}/boards/{board_number}/",
        "console result": f"/console/{tournament.pk}/tables/{one.pk}/boards/{board_number}/",
        "console": f"/console/{tournament.pk}/",
        "tournament page": f"/t/{tournament.pk}/",
        "results page": f"/t/{tournament.pk}/results/",
        "pair page": f"/t/{tournament.pk}/pairs/{one.ns_pair_id}/",
        "score card": f"/t/{tournament.pk}/pairs/{one.ns_pair_id}/card/",
        "admin boards": "/admin/tournaments/board/",
        "admin results": "/admin/tournaments/boardresult/",
    }


def _check_every_renderer(field, *, round_number: int, public: bool) -> list[str]:
    """Ask every renderer as every role; the list of what was seen before its time."""
    first, one, two, people = field
    tournament = first.tournament
    # One login and one API key per role for the whole check: a login is a few writes
    # (session, last login, the lockout's reset), which were a quarter of the check.
    clients = {role: _client(people[role]) for role in ROLES}
    apis = {role: _api(people[role]) for role in ROLES}
    table = Table.objects.select_related("ns_pair", "ew_pair").get(
        round__tournament=tournament, round__number=round_number, number=1
    )
    leaks = []
    for board_number in (1, 2):
        board_number += (round_number - 1) * 2
        result = BoardResult.objects.filter(table=table, board__number=board_number).first()
        result_mark = str(contract(result)) if result is not None else "\x00never"
        hands = dealt_hands(table, board_number)
        for role in ROLES:
            user = people[role]
            # Whoever of them sits at this table this round has a seat's sight.
            viewer = table_seats.seat_of(table, user) if user is not None else None
            every_hand = its_result = _expected(role, public=public)
            # Pages drawn for everyone or for an organiser.
            for name, path in _round_state_pages(tournament, table, board_number).items():
                seen_hands, seen_result = _html_sight(clients[role].get(path), result_mark)
                if seen_hands and not every_hand:
                    leaks.append(f"{name} b{board_number} {role}: hands {sorted(seen_hands)}")
                if seen_result and not its_result:
                    leaks.append(f"{name} b{board_number} {role}: the result")
            # The API's board: deal and traveller.
            answer = apis[role].get(f"/tournaments/{tournament.pk}/boards/{board_number}")
            body = answer.json()
            if body.get("deal") and not every_hand:
                leaks.append(f"api board b{board_number} {role}: the deal")
            if body.get("results") and not its_result:
                leaks.append(f"api board b{board_number} {role}: the results")
            # The live view over HTTP and the table page: a seat's own sight at most.
            path = result_path(tournament, round_number, 1, board_number) + "/view"
            answer = apis[role].get(path)
            view = answer.json() if answer.status_code == 200 else None
            # No seat and no director: nothing at all, not even the cards played.
            if every_hand:
                allowed = set().union(*hands.values())
            elif viewer is None:
                allowed = set()
            else:
                allowed = allowed_cards(viewer, view, hands)
            seen = cards_in(view) if view is not None else set()
            if answer.status_code != 200:
                seen = set(CARD_TOKEN.findall(answer.content.decode()))
            if not seen <= allowed:
                leaks.append(f"http view b{board_number} {role}: {sorted(seen - allowed)}")
            page = clients[role].get(
                f"/t/{tournament.pk}/rounds/{table.round.number}/tables/{table.number}/play/"
            )
            on_page = set(CARD_TOKEN.findall(page.content.decode()))
            if on_page:
                leaks.append(f"table page {role}: cards {sorted(on_page)}")
        # The exports carry closed rounds only (and refuse while none has closed).
        pbn = Api().get(f"/tournaments/{tournament.pk}/export.pbn").content.decode()
        usebio = Api().get(f"/tournaments/{tournament.pk}/export.xml").content.decode()
        deal = table.round.boards.get(number=board_number).deal
        if not public and deal.split(":", 1)[1] in pbn:
            leaks.append(f"pbn b{board_number}: the deal")
        if not public and f"<BOARD_NUMBER>{board_number}</BOARD_NUMBER>" in usebio:
            leaks.append(f"usebio b{board_number}: the board")
    return leaks


@pytest.mark.django_db
def test_nobody_sees_a_hand_or_a_result_before_its_time(field, organiser):
    first, one, _two, people = field
    assert BoardResult.objects.filter(table=one, board__number=1).exists()
    assert _check_every_renderer(field, round_number=1, public=False) == []
    clock.close_round_now(tournament=first.tournament, by=organiser, round_number=1)
    # Round 1 is everyone's now; round 2 has just opened.
    assert _check_every_renderer(field, round_number=1, public=True) == []
    second = Round.objects.get(tournament=first.tournament, number=2)
    _play_to_the_end(Table.objects.get(round=second, number=1), 3, opening="2D")
    assert _check_every_renderer(field, round_number=2, public=False) == []


@pytest.mark.django_db
def test_the_renderer_check_finds_a_leak_when_there_is_one(field, monkeypatch):
    """The check itself can fail: with the rule opened to everyone, it reports leaks."""
    from tournaments import visibility

    monkeypatch.setattr(visibility, "deal_public", lambda round: True)
    monkeypatch.setattr(visibility, "watches_live", lambda user: True)
    leaks = _check_every_renderer(field, round_number=1, public=False)
    assert any(leak.startswith("board page") for leak in leaks), leaks
    assert any(leak.startswith("console result b1 staff") for leak in leaks), leaks
    assert any(leak.startswith("api board") for leak in leaks), leaks
    assert any(leak.startswith("http view b1 anonymous") for leak in leaks), leaks


# --- the console's dispute queue ------------------------------------------------------


@pytest.mark.django_db
def test_the_dispute_queue_shows_hands_and_results_to_directors_only(
    make_tournament, register_pairs, director, django_user_model, t0
):
    tournament = make_tournament(rounds=2, boards_per_round=2)
    register_pairs(tournament, 4)
    clock.advance(now=t0)
    table = Table.objects.select_related("ew_pair__player1").get(
        round__tournament=tournament, round__number=1, number=1
    )
    entered = submit(table, 1, "4S", "N", 10, now=t0 + timedelta(minutes=1))
    results.dispute_result(
        result=entered, user=table.ew_pair.player1, note="one down", now=t0 + timedelta(minutes=2)
    )
    staff = django_user_model.objects.create_user("staff-only", password="pw", is_staff=True)
    mark = str(contract(entered))
    for user, sees in ((staff, False), (director, True)):
        html = _client(user).get(f"/console/{tournament.pk}/").content.decode()
        assert bool(HAND_DIAGRAM.findall(html)) is sees, user
        assert (mark in html) is sees, user
        assert ("one down" in html) is sees, user
        # Whose ruling it waits for: the director's, told to a staff account who can't.
        assert ("waits for your ruling" in html) is sees, user
        assert ("waits for a director's ruling" in html) is not sees, user


# --- the seat swap --------------------------------------------------------------------


@pytest.mark.django_db
def test_a_player_who_has_seen_a_hand_cannot_swap_to_see_the_partners(field):
    """Read every board of the round, swap, read again, swap back: refused at the swap,
    and every answer holds North's own cards only."""
    first, _one, two, people = field
    tournament = first.tournament
    north = people["other_table"]  # North at table 2, where nothing has been played
    api = _api(north)
    swap = f"/tournaments/{tournament.pk}/rounds/1/tables/2/swap"
    for board in (1, 2):
        view = api.get(result_path(tournament, 1, 2, board) + "/view").json()
        assert (
            set(view["hands"]) == {"N"} and set(view["hands"]["N"]) == dealt_hands(two, board)["N"]
        )
    refused = api.post(swap, {})
    assert refused.status_code == 409, refused.content
    assert "fixed" in refused.json()["error"]
    for board in (1, 2):
        again = api.get(result_path(tournament, 1, 2, board) + "/view").json()
        assert cards_in(again) == dealt_hands(two, board)["N"]


@pytest.mark.django_db
def test_a_pair_may_swap_before_either_is_sent_a_hand_and_then_its_seats_are_fixed(
    make_tournament, register_pairs
):
    _first, tables = open_online_round(make_tournament, register_pairs, boards=2)
    table = tables[0]
    tournament = table.round.tournament
    before = seated_users(table)
    north, south = before["N"], before["S"]
    hands = dealt_hands(table, 1)
    swap = f"/tournaments/{tournament.pk}/rounds/1/tables/1/swap"
    assert _api(north).post(swap, {}).status_code == 200
    # Now South: the first hand the pair is sent is South's, and the seats are fixed.
    view = _api(north).get(result_path(tournament, 1, 1, 1) + "/view").json()
    assert view["seat"] == "S" and set(view["hands"]) == {"S"}
    assert set(view["hands"]["S"]) == hands["S"]
    assert PairSeats.objects.filter(
        table=table, pair=table.ns_pair, fixed_at__isnull=False
    ).exists()
    # Swapping back would show North's hand to the player who has seen South's.
    for who in (north, south):
        assert _api(who).post(swap, {}).status_code == 409
    assert _api(south).get(result_path(tournament, 1, 1, 1) + "/view").json()["seat"] == "N"
    # The other pair's seats are not fixed by it.
    assert not PairSeats.objects.filter(
        table=table, pair=table.ew_pair, fixed_at__isnull=False
    ).exists()
    assert _api(before["E"]).post(swap, {}).status_code == 200


# --- the socket's snapshot ------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_the_socket_sends_each_role_no_more_than_its_sight(
    make_tournament, register_pairs, director, django_user_model
):
    _first, tables = open_online_round(make_tournament, register_pairs, boards=2)
    one, two = tables
    staff = django_user_model.objects.create_user("staff-only", password="pw", is_staff=True)
    hands = dealt_hands(one, 1)
    cookies = {
        "other_table": session_cookie(seated_users(two)["N"]),
        "seated": session_cookie(seated_users(one)["N"]),
        "staff": session_cookie(staff),
        "director": session_cookie(director),
    }

    from config.asgi import application

    async def snapshot(cookie: str | None) -> list:
        """What the socket sends on opening: a snapshot, or a refusal and its close."""
        headers = [(b"origin", b"http://testserver")]
        if cookie:
            headers.append((b"cookie", cookie.encode()))
        socket = WebsocketCommunicator(application, board_path(one, 1), headers=headers)
        await socket.connect(timeout=10)
        messages = []
        for _ in range(2):
            output = await socket.receive_output(timeout=10)
            if output["type"] != "websocket.send":
                break
            messages.append(json.loads(output["text"]))
            if messages[-1].get("type") == "snapshot":
                break
        await socket.disconnect()
        return messages

    async def scenario():
        return {
            role: await snapshot(cookie) for role, cookie in (("anonymous", None), *cookies.items())
        }

    seen = async_to_sync(scenario)()
    everything = set().union(*hands.values())
    for role, messages in seen.items():
        cards = cards_in(messages)
        if role == "seated":
            assert cards == hands["N"], role
        elif role == "director":
            assert cards == everything, role
        else:
            assert cards == set(), (role, json.dumps(messages)[:300])
    # Opening the socket fixed the seated pair's seats; nobody else's.
    fixed = list(PairSeats.objects.filter(fixed_at__isnull=False).values_list("pair_id", flat=True))
    assert fixed == [one.ns_pair_id]


# --- admin -----------------------------------------------------------------------------


@pytest.mark.django_db
def test_admin_lists_a_running_rounds_boards_and_results_to_directors_only(field, organiser):
    """A staff account allowed to view boards and results, but not to set results, sees
    only closed rounds' in admin; a director sees them all."""
    from django.contrib.auth.models import Permission

    first, one, _two, people = field
    viewer = people["staff"]
    viewer.user_permissions.add(
        *Permission.objects.filter(codename__in=["view_board", "view_boardresult"])
    )
    board = first.boards.get(number=1)
    result = BoardResult.objects.get(table=one, board=board)
    pages = {
        "boards": ("/admin/tournaments/board/", f"/admin/tournaments/board/{board.pk}/change/"),
        "results": (
            "/admin/tournaments/boardresult/",
            f"/admin/tournaments/boardresult/{result.pk}/change/",
        ),
    }

    def sight(user) -> dict[str, tuple[bool, int]]:
        client = _client(user)
        seen = {}
        for name, (listing, change) in pages.items():
            page = client.get(listing)
            assert page.status_code == 200, (name, page.status_code)
            shown = "/change/" in page.content.decode() and (
                f"/{board.pk}/change/" in page.content.decode()
                or f"/{result.pk}/change/" in page.content.decode()
            )
            seen[name] = (shown, client.get(change).status_code)
        return seen

    hidden = sight(viewer)
    assert all(not shown and status != 200 for shown, status in hidden.values()), hidden
    assert all(shown and status == 200 for shown, status in sight(people["director"]).values())
    clock.close_round_now(tournament=first.tournament, by=organiser, round_number=1)
    assert all(shown and status == 200 for shown, status in sight(viewer).values())
