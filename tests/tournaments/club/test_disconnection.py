"""A club player's lost connection (RULES 13, 断线扣分) through a real server: the player in
S drops their socket mid-board, the clock (run by the test, with a grace period of one
second) counts the outage once and a robot takes the seat and finishes the board for
the other three (the club's robots in N, E, W, all played by `play_robots`' runner over
WebSockets to a uvicorn subprocess); when the player connects again the robot gives the
seat back, and the player plays on from S."""

from __future__ import annotations

import json
import random
import time

import pytest
from django.test import override_settings
from django.utils import timezone
from websockets.sync.client import connect

from tests.support.online import actor_of, choose
from tests.support.robots import Robots
from tests.support.uvicorn import free_port, start_server, stop, wait_until_listening
from tournaments.models import (
    BoardResult,
    ClubPenalty,
    ClubScore,
    ClubSeat,
    ClubSystem,
    PlayAction,
    Table,
)
from tournaments.robots.client import Pace
from tournaments.robots.runner import Options
from tournaments.services import clock, club
from tournaments.services.tokens import issue_token

GRACE = 1.0


def wait_for(condition, *, seconds: float, log_path, robots, what: str):
    deadline = time.monotonic() + seconds
    while True:
        found = condition()
        if found:
            return found
        assert time.monotonic() < deadline, f"{what}\n" + log_path.read_text()[-3000:]
        assert robots.thread.is_alive(), robots.error
        time.sleep(0.1)


def tick() -> list[str]:
    return clock.advance(now=timezone.now()).events


def latest_view(ws, view: dict | None, *, seconds: float) -> dict | None:
    """Read the socket for `seconds`; the view with the highest seq heard (or `view`)."""
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        try:
            message = json.loads(ws.recv(timeout=left))
        except TimeoutError:
            break
        if message.get("type") in ("snapshot", "view") and (
            view is None or message["view"]["next_seq"] > view["next_seq"]
        ):
            view = message["view"]
    return view


@pytest.mark.django_db(transaction=True)
@override_settings(CLUB_DISCONNECT_GRACE_SECONDS=GRACE)
def test_a_robot_finishes_the_board_of_a_lost_player_who_comes_back_to_the_same_seat(
    make_member, tmp_path
):
    player = make_member()
    now = timezone.now()
    table = club.open_table(user=player, system=ClubSystem.DUPLICATE, seat="S", now=now)
    club.add_robots(user=player, club_table_id=table.pk, now=now)
    table.refresh_from_db()
    play_table = Table.objects.get(pk=table.table_id)
    first = club.unfinished_board(play_table)
    assert first is not None and first.dealer == "N"  # a robot starts the board
    _token, key = issue_token(user=player)
    headers = {"Authorization": f"Bearer {key}"}
    url = "ws://127.0.0.1:{port}/ws/tables/{table}/boards/{board}/"

    port, log_path = free_port(), tmp_path / "server.log"
    server = start_server(port=port, log=log_path.open("w"))
    robots = Robots(None, port)
    robots.options = Options(
        base=f"ws://127.0.0.1:{port}", pace=Pace(), claim_after=1, heuristic=True, poll=0.3
    )
    try:
        wait_until_listening(port, server, log_path)
        socket = connect(url.format(port=port, table=play_table.pk, board=first.number),
                         additional_headers=headers, compression=None, legacy=True)  # fmt: skip
        assert json.loads(socket.recv(timeout=30))["view"]["seat"] == "S"
        robots.thread.start()
        # The robots bid up to S's turn: the board is in play, and S's socket drops.
        wait_for(lambda: PlayAction.objects.filter(table=play_table, board=first).exists(),
                 seconds=60, log_path=log_path, robots=robots, what="nobody called")  # fmt: skip
        time.sleep(0.3)  # its presence written just after the snapshot
        assert tick() == []  # connected: nothing counted
        assert ClubSeat.objects.get(club_table=table, user=player).lost_at is None
        socket.close()
        time.sleep(0.3)  # the server hears the close
        assert tick() == []  # the loss seen: not yet past the grace period
        assert ClubSeat.objects.get(club_table=table, user=player).lost_at is not None
        time.sleep(GRACE + 0.2)
        events = tick()
        assert any("disconnected" in line for line in events), events
        penalty = ClubPenalty.objects.get(club_table=table, user=player)
        assert (penalty.seat, penalty.board_id, penalty.back_at) == ("S", first.pk, None)
        assert penalty.points == -16
        # A robot stands in: the board is finished, its result stands for the others.
        result = wait_for(lambda: BoardResult.objects.filter(board=first).first(),
                          seconds=60, log_path=log_path, robots=robots,
                          what="the board was not finished")  # fmt: skip
        scored = dict(ClubScore.objects.filter(result=result).values_list("seat", "user_id"))
        assert scored["S"] == player.pk
        # Later ticks count the same outage no more, the stand-in's sockets are not the
        # player's own, and the robot plays on into the next board.
        wait_for(lambda: PlayAction.objects.filter(table=play_table, seat="S")
                 .exclude(board=first).first(), seconds=60, log_path=log_path,
                 robots=robots, what="the robot did not play on")  # fmt: skip
        assert tick() == [] and tick() == []
        assert ClubPenalty.objects.filter(user=player).count() == 1

        # The player comes back, to the board the table is at now.
        board = club.unfinished_board(play_table)
        assert board is not None and board.number > first.number
        socket = connect(url.format(port=port, table=play_table.pk, board=board.number),
                         additional_headers=headers, compression=None, legacy=True)  # fmt: skip
        assert json.loads(socket.recv(timeout=30))["view"]["seat"] == "S"
        # (its presence is written just after the snapshot is sent: a tick or two)
        wait_for(lambda: any("is back" in line for line in tick()), seconds=10,
                 log_path=log_path, robots=robots, what="the player is not back")  # fmt: skip
        penalty.refresh_from_db()
        assert penalty.back_at is not None
        assert ClubPenalty.objects.filter(user=player).count() == 1
        socket.close()
        time.sleep(1.0)  # the runner's next poll: the robot leaves the seat
        # From now on nothing is played from S but by the player: at the table's board,
        # once it is S's turn, nobody plays for S, and the player's action is taken.
        board = club.unfinished_board(play_table)
        assert board is not None
        with connect(url.format(port=port, table=play_table.pk, board=board.number),
                     additional_headers=headers, compression=None) as socket:  # fmt: skip
            view = None
            deadline = time.monotonic() + 60
            while True:
                view = latest_view(socket, view, seconds=0.5)
                assert view is not None and not view["over"], "the board ended without S"
                if actor_of(view) == "S":
                    held = view
                    view = latest_view(socket, view, seconds=1.0)
                    if view["next_seq"] == held["next_seq"]:
                        break  # S's turn, and nobody plays for S
                assert time.monotonic() < deadline, log_path.read_text()[-3000:]
            action = choose(view, random.Random(5), 0.0)
            socket.send(json.dumps({**action, "type": "action", "action": action["type"]}))
            answer = latest_view(socket, None, seconds=1.0)
            assert answer is not None and answer["next_seq"] > view["next_seq"]
        taken = PlayAction.objects.get(table=play_table, board=board, seq=view["next_seq"])
        # S's turn may be a call, a card, or an answer to a robot's claim (no call or card).
        made = action.get("call") or action.get("card") or ""
        assert (taken.kind, taken.call or taken.card) == (action["type"], made)
        assert ClubSeat.objects.get(club_table=table, user=player, active=True).seat == "S"
    finally:
        try:
            robots.stop()
        finally:
            stop(server)
    assert robots.error is None, robots.error
