"""Broadcasts (RULES 12, Vugraph): who may open one, what each room shows and when, the
match's score over the released boards only, commentary, and every refusal changing
nothing. The socket test watches each spectator's every message while the closed room is
behind: nothing of a board reaches anyone before every table has finished it."""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.layers import get_channel_layer
from django.utils import timezone

from teams.match import board_imps
from tests.support.online_ws import cards_in, connect, dealt_hands, seated_users, session_cookie
from tests.support.team_events import two_team_event
from tests.tournaments.test_who_sees_what import _play_to_the_end
from tournaments import visibility
from tournaments.errors import NotFound, PermissionRequired, ServiceError
from tournaments.models import BoardResult, Broadcast, BroadcastComment
from tournaments.selectors import broadcasts as reads
from tournaments.services import broadcasts, clock

BOARDS = 3


def _team_event(organiser, *, name="Broadcast", play="online"):
    return two_team_event(organiser=organiser, name=name, boards=BOARDS, play=play)


def _snapshot(item, now=None):
    fresh = reads.broadcast(item.pk)
    return reads.snapshot(item=fresh, now=now or timezone.now())


# --- the release rule -------------------------------------------------------------------


def test_a_board_is_released_once_every_table_has_finished_it_plus_the_delay():
    t = timezone.now()
    delay = timedelta(minutes=5)
    release = visibility.board_release_at
    assert release(round_status="open", tables=2, finished=1, last=t, delay=delay) is None
    assert release(round_status="open", tables=2, finished=0, last=None, delay=delay) is None
    assert release(round_status="open", tables=2, finished=2, last=t, delay=delay) == t + delay
    # The bell releases everything at once, finished or not.
    at_bell = release(round_status="closed", tables=2, finished=0, last=None, delay=delay)
    assert visibility.released(at_bell, t)
    assert not visibility.released(t + delay, t)
    assert visibility.released(t + delay, t + delay)
    assert not visibility.released(None, t)
    assert visibility.may_watch_broadcast(plays_in_event=False, event_over=False)
    assert not visibility.may_watch_broadcast(plays_in_event=True, event_over=False)
    assert visibility.may_watch_broadcast(plays_in_event=True, event_over=True)


# --- the snapshot -----------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_a_room_ahead_shows_nothing_of_its_board_until_the_other_room_has_finished_it(
    match, organiser
):
    item = broadcasts.start_broadcast(by=organiser, tournament=match.round.tournament, match=match)
    open_room, closed_room = match.open_table, match.closed_table
    _play_to_the_end(open_room, 1, "1H")
    hands = dealt_hands(open_room, 1)
    every_card = set().union(*hands.values())

    shown = _snapshot(item)
    board_1 = shown["boards"][0]
    assert not board_1["released"] and board_1["imps"] is None
    assert cards_in(shown) == set()  # not one card of any board, in any room
    assert board_1["rooms"]["open"]["progress"]["phase"] == "over"
    assert board_1["rooms"]["closed"]["progress"]["phase"] == "auction"
    assert shown["score"] == {"home": 0, "away": 0, "carry_over": 0}
    assert [room["key"] for room in shown["rooms"]] == ["open", "closed"]
    assert set(shown["rooms"][0]["players"]) == {"N", "E", "S", "W"}

    _play_to_the_end(closed_room, 1, "1S")
    shown = _snapshot(item)
    board_1 = shown["boards"][0]
    assert board_1["released"]
    for room in ("open", "closed"):
        view = board_1["rooms"][room]
        assert {card for hand in view["hands"].values() for card in hand} == every_card
        assert view["auction"] and len(view["play"]) == 52 and view["result"] is not None
    open_ns = BoardResult.objects.get(table=open_room, board__number=1).ns_score
    closed_ns = BoardResult.objects.get(table=closed_room, board__number=1).ns_score
    imps = board_imps(open_ns, closed_ns)
    assert board_1["imps"] == imps
    assert shown["score"] == {"home": max(imps, 0), "away": max(-imps, 0), "carry_over": 0}
    # Board 2 is in neither room yet: nothing of it.
    assert not shown["boards"][1]["released"]
    assert cards_in(shown["boards"][1]) == set()


@pytest.mark.django_db(transaction=True)
def test_the_delay_holds_a_finished_board_back_and_the_bell_releases_everything(match, organiser):
    item = broadcasts.start_broadcast(
        by=organiser, tournament=match.round.tournament, match=match, delay_minutes=10
    )
    _play_to_the_end(match.open_table, 1)
    _play_to_the_end(match.closed_table, 1)
    finished = BoardResult.objects.filter(board__number=1).order_by("-entered_at")[0].entered_at
    assert not _snapshot(item)["boards"][0]["released"]
    assert _snapshot(item)["next_release_at"] == (finished + timedelta(minutes=10)).isoformat()
    assert not _snapshot(item, finished + timedelta(minutes=9, seconds=59))["boards"][0]["released"]
    assert _snapshot(item, finished + timedelta(minutes=10))["boards"][0]["released"]

    # At the bell every board is everyone's: released at once, played or not.
    round = match.round
    clock.advance(now=round.ends_at + timedelta(seconds=1))
    shown = _snapshot(item)
    assert shown["round_status"] == "closed"
    assert all(line["released"] for line in shown["boards"])


# --- the services: powers and refusals ------------------------------------------------


@pytest.mark.django_db
def test_only_an_organiser_broadcasts_and_a_refusal_changes_nothing(
    match, organiser, make_user, organiser_factory=None
):
    event = match.round.tournament
    staff = make_user("staff-only", staff=False)
    staff.is_staff = True
    staff.save()
    with pytest.raises(PermissionRequired):
        broadcasts.start_broadcast(by=staff, tournament=event, match=match)
    with pytest.raises(PermissionRequired):
        broadcasts.start_broadcast(by=None, tournament=event, match=match)
    for delay in (-1, 241, "5", 2.5, True):
        with pytest.raises(ServiceError, match="delay"):
            broadcasts.start_broadcast(
                by=organiser, tournament=event, match=match, delay_minutes=delay
            )
    with pytest.raises(ServiceError, match="one match or one table"):
        broadcasts.start_broadcast(by=organiser, tournament=event)
    with pytest.raises(ServiceError, match="one match or one table"):
        broadcasts.start_broadcast(
            by=organiser, tournament=event, match=match, table=match.open_table
        )
    other = _team_event(organiser, name="Another event")
    with pytest.raises(NotFound):
        broadcasts.start_broadcast(by=organiser, tournament=other, match=match)
    elsewhere = _team_event(organiser, name="Played elsewhere", play="entered")
    with pytest.raises(ServiceError, match="system's tables"):
        broadcasts.start_broadcast(by=organiser, tournament=elsewhere, match=match)
    assert not Broadcast.objects.exists()

    item = broadcasts.start_broadcast(by=organiser, tournament=event, match=match)
    with pytest.raises(ServiceError, match="already"):
        broadcasts.start_broadcast(by=organiser, tournament=event, match=match)
    table = broadcasts.start_broadcast(by=organiser, tournament=event, table=match.closed_table)
    assert Broadcast.objects.count() == 2
    broadcasts.change_delay(by=organiser, broadcast=item, delay_minutes=3)
    assert Broadcast.objects.get(pk=item.pk).delay_minutes == 3
    with pytest.raises(PermissionRequired):
        broadcasts.end_broadcast(by=staff, broadcast=table)
    broadcasts.end_broadcast(by=organiser, broadcast=table)
    assert list(Broadcast.objects.values_list("pk", flat=True)) == [item.pk]
    # An ended broadcast is refused, not silently "changed".
    with pytest.raises(NotFound):
        broadcasts.change_delay(by=organiser, broadcast=table, delay_minutes=1)
    with pytest.raises(NotFound):
        broadcasts.end_broadcast(by=organiser, broadcast=table)


@pytest.mark.django_db
def test_commentary_needs_its_own_permission_and_clean_text(
    match, organiser, commentator, make_user
):
    item = broadcasts.start_broadcast(by=organiser, tournament=match.round.tournament, match=match)
    with pytest.raises(PermissionRequired):
        broadcasts.add_comment(by=make_user("nobody"), broadcast=item, text="Hello")
    for bad, reason in (
        ("", "Write"),
        ("   ", "Write"),
        ("x" * 501, "at most 500"),
        ("4\u202e♠ natural", "direction"),
        ("ring\x07", "control"),
    ):
        with pytest.raises(ServiceError, match=reason):
            broadcasts.add_comment(by=commentator, broadcast=item, text=bad)
    assert not BroadcastComment.objects.exists()
    comment = broadcasts.add_comment(by=commentator, broadcast=item, text="  A fine  lead ")
    assert comment.text == "A fine lead"
    said = _snapshot(item)["comments"]
    assert [(line["text"], line["by"]) for line in said] == [("A fine lead", "commentator")]


# --- the spectators' sockets, message by message ---------------------------------------


async def _drain(socket, into: list) -> None:
    while not await socket.receive_nothing(timeout=0.3):
        output = await socket.receive_output(timeout=5)
        if output["type"] == "websocket.send":
            into.append(json.loads(output["text"]))


@pytest.mark.django_db(transaction=True)
def test_spectators_see_a_board_only_once_both_rooms_finished_it_and_players_see_nothing(
    match, organiser, commentator
):
    event = match.round.tournament
    item = broadcasts.start_broadcast(by=organiser, tournament=event, match=match)
    open_room, closed_room = match.open_table, match.closed_table
    closed_player = seated_users(closed_room)["N"]
    other_event = _team_event(organiser, name="Another event")
    outsider = other_event.teams.first().members.first().user
    path = f"/ws/broadcasts/{item.pk}/"
    player_cookie, outsider_cookie = session_cookie(closed_player), session_cookie(outsider)
    board_2_cards = set().union(*dealt_hands(open_room, 2).values())  # all 52

    async def scenario():
        # A player of the event is refused, in words, with 4403.
        player, accepted = await connect(path, cookie=player_cookie, origin="http://testserver")
        assert accepted
        error = await player.receive_json_from(timeout=10)
        closed = await player.receive_output(timeout=10)
        assert error["type"] == "error" and "play in this event" in error["error"]
        assert closed["code"] == 4403

        spectators = {}
        seen: dict[str, list] = {}
        anonymous, ok = await connect(path)
        assert ok
        spectators["anonymous"] = anonymous
        other, ok = await connect(path, cookie=outsider_cookie, origin="http://testserver")
        assert ok
        spectators["other event's player"] = other
        for key, socket in spectators.items():
            seen[key] = []
            await _drain(socket, seen[key])
            assert seen[key][0]["type"] == "snapshot"
        # The process's spectators share one member of the broadcast's group (the hub):
        # a group message is received once per process, not once per spectator.
        assert len(get_channel_layer().groups.get(f"broadcast-{item.pk}", {})) == 1
        # The open room plays board 1 and 2, the closed room only board 1.
        await sync_to_async(_play_to_the_end)(open_room, 1, "1H")
        await sync_to_async(_play_to_the_end)(closed_room, 1, "1S")
        await sync_to_async(_play_to_the_end)(open_room, 2, "1D")
        await asyncio.sleep(0.5)
        for key, socket in spectators.items():
            await _drain(socket, seen[key])
        behind = {key: len(messages) for key, messages in seen.items()}
        await sync_to_async(broadcasts.add_comment)(
            by=commentator, broadcast=item, text="Closed room on board 2"
        )
        await sync_to_async(_play_to_the_end)(closed_room, 2, "1C")
        await asyncio.sleep(0.5)
        for key, socket in spectators.items():
            await _drain(socket, seen[key])
            await socket.disconnect()
        assert not get_channel_layer().groups.get(f"broadcast-{item.pk}")  # the last one left
        return seen, behind

    seen, behind = async_to_sync(scenario)()
    for key, messages in seen.items():
        kinds = [message["type"] for message in messages]
        # Board 1 released once both rooms finished it, board 2 once the closed room
        # finished it too: never before.
        released = [m["board"]["number"] for m in messages if m["type"] == "released"]
        assert released == [1, 2], (key, kinds)
        for message in messages[: behind[key]]:
            assert _shows_only_board_1(message), (key, message)
        assert "progress" in kinds
        assert any(
            m["type"] == "comment" and m["comment"]["text"] == "Closed room on board 2"
            for m in messages
        )
        last = [m for m in messages if m["type"] == "released"][-1]
        assert set().union(*last["board"]["rooms"]["closed"]["hands"].values()) == board_2_cards


def _shows_only_board_1(message: dict) -> bool:
    """Whether a message shows no card, call or result of any board but board 1."""
    kind = message["type"]
    if kind == "released":
        return message["board"]["number"] == 1
    if kind == "snapshot":
        return all(
            line["number"] == 1
            or (
                cards_in(line) == set()
                and all(not room["auction"] for room in line["rooms"].values())
                and line["imps"] is None
            )
            for line in message["broadcast"]["boards"]
        )
    return kind in ("progress", "comment", "spectators") and cards_in(message) == set()
