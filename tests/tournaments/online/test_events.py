"""Events after commit (tournaments.services.announcements): an accepted action and a round
close reach the Channels groups — with no card in them — and nothing is sent for a
refused action or without a channel layer."""

from __future__ import annotations

import json
from datetime import timedelta
from unittest.mock import ANY

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.test import override_settings
from django.utils import timezone

from tests.support.online import players_by_seat, table_at
from tournaments.errors import ClockError, PlayRefused
from tournaments.models import PlayAction, Round, RoundStatus, TournamentStatus
from tournaments.push.channel import encoded_views, table_group
from tournaments.selectors import table_seats, table_server
from tournaments.services import announcements, clock, table_play

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]
IN_MEMORY = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


def listen(group: str):
    layer = get_channel_layer()
    channel = async_to_sync(layer.new_channel)()
    async_to_sync(layer.group_add)(group, channel)
    return layer, channel


async def _receive(layer, channel):
    import asyncio

    try:
        return await asyncio.wait_for(layer.receive(channel), timeout=0.2)
    except TimeoutError:
        return None


def messages(layer, channel) -> list[dict]:
    out = []
    while (message := async_to_sync(_receive)(layer, channel)) is not None:
        out.append(message)
    return out


@override_settings(CHANNEL_LAYERS=IN_MEMORY)
def test_an_accepted_action_is_announced_to_its_table_after_the_commit(
    online_running, organiser, django_capture_on_commit_callbacks
):
    tournament, _pairs = online_running
    table = table_at(tournament)
    layer, channel = listen(table_group(table.pk))
    other_layer, other = listen(table_group(table_at(tournament, 1, 2).pk))
    north = players_by_seat(table)["N"]
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        table_play.act(
            table=table, board_number=1, user=north,
            action={"seq": 1, "type": "call", "call": "1NT", "alert": "15-17"},
        )  # fmt: skip
    assert len(callbacks) == 1
    [message] = messages(layer, channel)
    seated = table_seats.table_seats(table)
    assert {k: message[k] for k in ("type", "board", "seq", "seats")} == {
        "type": "table.views", "board": 1, "seq": 1, "seats": seated,
    }  # fmt: skip
    # Each seat's view is the one `board_view` gives that seat, "*" an organiser's, as
    # the JSON text each socket sends on.
    views = {viewer: json.loads(text) for viewer, text in message["views"].items()}
    users = players_by_seat(table)
    for seat, user in users.items():
        assert views[seat] == table_play.board_view(table=table, board_number=1, user=user)
    assert views["*"] == table_play.board_view(table=table, board_number=1, user=organiser)
    # The alert is the caller's and the opponents': never shown to partner.
    assert views["E"]["auction"][0]["alert"] == "15-17"
    assert "alert" not in views["S"]["auction"][0]
    assert messages(other_layer, other) == []  # another table hears nothing
    with (
        django_capture_on_commit_callbacks(execute=True) as callbacks,
        pytest.raises(PlayRefused),
    ):
        table_play.act(
            table=table, board_number=1, user=north,
            action={"seq": 2, "type": "call", "call": "2NT"},
        )  # fmt: skip
    assert callbacks == [] and messages(layer, channel) == []


@override_settings(CHANNEL_LAYERS=IN_MEMORY)
def test_a_closing_round_tells_each_table_its_seats_where_each_player_sits_next_and_what_is_stored(
    online_running, organiser, django_capture_on_commit_callbacks
):
    """The bell carries all a socket answers from (`table_server.bell_news`): each table
    gets its own message, and nothing goes to a group no socket joins."""
    tournament, pairs = online_running
    table = table_at(tournament)
    other = table_at(tournament, 1, 2)
    north = players_by_seat(table)["N"]
    table_play.act(
        table=table, board_number=1, user=north, action={"seq": 1, "type": "call", "call": "1C"}
    )
    layer, channel = listen(table_group(table.pk))
    other_layer, other_channel = listen(table_group(other.pk))
    with django_capture_on_commit_callbacks(execute=True):
        clock.close_round_now(tournament=tournament, by=organiser, round_number=1)
    [message] = messages(layer, channel)
    [other_message] = messages(other_layer, other_channel)
    assert message["type"] == "round.closed" and message["round"] == 1
    assert message["status"] == RoundStatus.CLOSED and message["round_id"] == table.round_id
    assert message["tournament_id"] == tournament.pk and "next_round" not in message
    assert message["seats"] == table_seats.table_seats(table)
    assert other_message["seats"] == table_seats.table_seats(other)
    following = {
        user_id: {"round": 2, "table": t.pk, "table_number": t.number, "direction": direction}
        for t in tournament.round_set.get(number=2).tables.all()
        for pair, direction in ((t.ns_pair, "NS"), (t.ew_pair, "EW"))
        for user_id in (pair.player1_id, pair.player2_id)
    }
    for told, at in ((message, table), (other_message, other)):
        players = table_seats.table_seats(at).values()
        assert told["next"] == {str(user_id): following[user_id] for user_id in players}
    [call] = PlayAction.objects.filter(table=table)
    assert message["boards"] == {"1": [call.board_id, 1, call.pk], "2": [ANY, 0, 0]}
    assert {n: stored[1:] for n, stored in other_message["boards"].items()} == {
        "1": [0, 0],
        "2": [0, 0],
    }
    assert len(following) == 2 * len(pairs)


@pytest.mark.parametrize("tables", [2, 6])
def test_the_bell_news_is_read_in_as_many_queries_whatever_the_field(
    tables, organiser, make_tournament, register_pairs, django_assert_num_queries
):
    tournament = make_tournament(
        start_at=timezone.now() + timedelta(hours=1),
        registration_opens_at=timezone.now() - timedelta(days=1),
        rounds=2,
        play="online",
    )
    register_pairs(tournament, 2 * tables, now=timezone.now())
    clock.start_now(by=organiser, tournament=tournament)
    clock.close_round_now(tournament=tournament, by=organiser, round_number=1)
    closed = Round.objects.get(tournament=tournament, number=1)
    # 8 since issue 24: the boards the bell cut off, with the results it gave them.
    with django_assert_num_queries(8):
        news = table_server.bell_news(closed_round_id=closed.pk)
    assert len(news) == tables


@override_settings(CHANNEL_LAYERS={})
def test_without_a_channel_layer_events_are_no_ops(online_running):
    assert get_channel_layer() is None
    announcements.views_stored(table_id=1, board_number=1, seq=1, seats={}, views={})  # no error


@override_settings(CHANNEL_LAYERS=IN_MEMORY)
def test_an_extension_a_pause_and_a_resume_tell_the_round_its_new_clock(
    online_running, organiser, django_capture_on_commit_callbacks
):
    """RULES 3, 9: the round's tables hear the bell move and the clock stop and start,
    once the change has committed, as the round now stands; with no card in it."""
    tournament, _pairs = online_running
    table = table_at(tournament)
    round_id = table.round_id
    table_layer, table_channel = listen(table_group(table.pk))
    other_layer, other = listen(table_group(table_at(tournament, 1, 2).pk))
    before = Round.objects.get(pk=round_id).ends_at
    t0 = timezone.now()

    def told() -> dict:
        heard = messages(table_layer, table_channel)
        assert len(heard) == 1, heard
        assert messages(other_layer, other) == heard
        return heard[0]

    with django_capture_on_commit_callbacks(execute=True):
        clock.extend_round(tournament=tournament, minutes=10, by=organiser, round_number=1)
    extended = told()
    assert extended == {
        "type": "round.changed",
        "round_id": round_id,
        "round": 1,
        "starts_at": Round.objects.get(pk=round_id).starts_at.isoformat(),
        "ends_at": (before + timedelta(minutes=10)).isoformat(),
        "status": TournamentStatus.RUNNING,
        "paused": False,
    }
    with django_capture_on_commit_callbacks(execute=True):
        clock.pause(tournament=tournament, by=organiser, now=t0)
    paused = told()
    assert paused["paused"] is True and paused["status"] == TournamentStatus.PAUSED
    assert paused["ends_at"] == extended["ends_at"]  # stopped, not yet moved
    with django_capture_on_commit_callbacks(execute=True):
        clock.resume(tournament=tournament, by=organiser, now=t0 + timedelta(minutes=3))
    resumed = told()
    assert resumed["paused"] is False
    assert resumed["ends_at"] == (before + timedelta(minutes=13)).isoformat()
    assert resumed["ends_at"] == Round.objects.get(pk=round_id).ends_at.isoformat()


@override_settings(CHANNEL_LAYERS=IN_MEMORY)
def test_a_refused_extension_and_a_played_elsewhere_round_announce_nothing(
    online_running, organiser, make_tournament, register_pairs, django_capture_on_commit_callbacks
):
    tournament, _pairs = online_running
    table = table_at(tournament)
    layer, channel = listen(table_group(table.pk))
    with (
        django_capture_on_commit_callbacks(execute=True) as callbacks,
        pytest.raises(ClockError),
    ):
        clock.extend_round(tournament=tournament, minutes=10, by=organiser, round_number=2)
    assert callbacks == [] and messages(layer, channel) == []

    elsewhere = make_tournament(
        start_at=timezone.now() + timedelta(hours=1),
        registration_opens_at=timezone.now() - timedelta(days=1),
    )
    register_pairs(elsewhere, 4, now=timezone.now())
    clock.start_now(by=organiser, tournament=elsewhere)
    there = table_at(elsewhere)
    there_layer, there_channel = listen(table_group(there.pk))
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        clock.extend_round(tournament=elsewhere, minutes=10, by=organiser)
        clock.pause(tournament=elsewhere, by=organiser)
    assert callbacks == [] and messages(there_layer, there_channel) == []


@override_settings(CHANNEL_LAYERS=IN_MEMORY)
def test_a_round_that_opens_tells_its_tables_when_it_ends(
    organiser, make_tournament, register_pairs, django_capture_on_commit_callbacks
):
    tournament = make_tournament(
        start_at=timezone.now() + timedelta(hours=1),
        registration_opens_at=timezone.now() - timedelta(days=1),
        round_length=timedelta(minutes=30),
        gap_length=timedelta(minutes=5),
        rounds=2,
        play="online",
    )
    register_pairs(tournament, 4, now=timezone.now())
    clock.start_now(by=organiser, tournament=tournament)
    clock.close_round_now(tournament=tournament, by=organiser, round_number=1)
    second = Round.objects.get(tournament=tournament, number=2)
    assert second.status == RoundStatus.SCHEDULED
    table = table_at(tournament, 2)
    layer, channel = listen(table_group(table.pk))
    with django_capture_on_commit_callbacks(execute=True):
        clock.advance(now=second.starts_at)
    [message] = messages(layer, channel)
    second.refresh_from_db()
    assert second.status == RoundStatus.OPEN
    assert message["type"] == "round.changed" and message["round"] == 2
    assert message["ends_at"] == second.ends_at.isoformat() and message["paused"] is False


def test_each_view_travels_as_exactly_the_json_a_socket_would_send():
    import play
    from tournaments.selectors.board_views import table_views

    state = play.BoardState.start(
        "N:AKQJ.T98.765.432 T98.765.432.AKQJ 765.432.AKQJ.T98 432.AKQJ.T98.765", "N", "None"
    )
    # An alert whose words look like the JSON of the cards played must stay words.
    state = state.apply(play.Call("N", "1C", '"play": null, [{"seat": "N"}]'))
    for call in ("P", "P", "P"):
        state = state.apply(play.Call(state.turn, call))
    state = state.apply(play.Card("E", "ST"))
    views = table_views(state)
    texts = encoded_views(views)
    assert texts == {viewer: json.dumps(view) for viewer, view in views.items()}
    assert json.loads(texts["W"])["auction"][0]["alert"].startswith('"play": null')
