"""Shared helpers for the online-play tests (imported by test_online_*.py).

`Seated` knows who sits where at a table; `play_board` plays a board to its end (or a
claim) through any `act` function, choosing among the legal calls and cards with a
seeded random generator, so every run plays the same boards for the same deals.
"""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.utils import timezone

from tournaments.models import Table
from tournaments.selectors import table_seats
from tournaments.services import clock, table_play

PARTNER = {"N": "S", "S": "N", "E": "W", "W": "E"}


@pytest.fixture
def online_running(organiser, make_tournament, register_pairs):
    """A started online IMP tournament (4 pairs, 2 tables, 2 rounds × 2 boards), round 1
    open now for 30 minutes."""
    tournament = make_tournament(
        start_at=timezone.now() + timedelta(hours=1),
        registration_opens_at=timezone.now() - timedelta(days=1),
        round_length=timedelta(minutes=30),
        rounds=2,
        play="online",
    )
    pairs = register_pairs(tournament, 4, now=timezone.now())
    clock.start_now(by=organiser, tournament=tournament)
    tournament.refresh_from_db()
    return tournament, pairs


@pytest.fixture
def room(make_tournament, register_pairs):
    """The socket tests' table: an online round open (4 pairs, 2 tables, 2 boards), its
    first table, who sits where there with a token each, and the other table."""
    from tests.support.online_ws import open_online_round, seated_users, token_of
    from tournaments.models import Tournament

    first_round, tables = open_online_round(make_tournament, register_pairs, boards=2)
    table = tables[0]
    users = seated_users(table)
    return {
        "round": first_round,
        "tournament": Tournament.objects.get(pk=first_round.tournament_id),
        "table": table,
        "other": tables[1],
        "users": users,
        "tokens": {seat: token_of(user) for seat, user in users.items()},
        "other_player": seated_users(tables[1])["N"],
    }


def table_at(tournament, round_number: int = 1, number: int = 1) -> Table:
    return Table.objects.select_related("ns_pair__player1", "ns_pair__player2",
                                        "ew_pair__player1", "ew_pair__player2").get(
        round__tournament=tournament, round__number=round_number, number=number
    )  # fmt: skip


def players_by_seat(table: Table) -> dict:
    """seat -> user at `table` (player 1 North or East unless the pair swapped)."""
    from django.contrib.auth import get_user_model

    ids = table_seats.table_seats(table)
    users = get_user_model().objects.in_bulk(ids.values())
    return {seat: users[user_id] for seat, user_id in ids.items()}


def actor_of(view: dict) -> str | None:
    """Who must act now: declarer plays dummy's cards; a pending claim awaits answers."""
    if view["over"]:
        return None
    if view.get("claim"):
        return view["claim"]["awaiting"][0]
    turn, declarer = view["turn"], view["declarer"]
    if declarer and turn == PARTNER[declarer]:
        return declarer
    return turn


def choose(view: dict, rng: random.Random, claim_rate: float = 0.04) -> dict:
    """An action for the caller whose view this is: a legal call (passing more often, so
    auctions end) or card, sometimes a claim once the play has begun."""
    if view.get("claim"):
        return {"seq": view["next_seq"], "type": "accept"}
    legal = view["legal"]
    if view["contract"] is None:
        call = "P" if "P" in legal and rng.random() < 0.55 else rng.choice(legal[:8])
        action = {"seq": view["next_seq"], "type": "call", "call": call}
        if call != "P" and rng.random() < 0.2:
            action["alert"] = "natural, 11-15"
        return action
    if view["play"] and rng.random() < claim_rate:
        remaining = 13 - len(view["play"]) // 4
        return {"seq": view["next_seq"], "type": "claim", "tricks": rng.randint(0, remaining)}
    return {"seq": view["next_seq"], "type": "card", "card": rng.choice(legal)}


def play_board(
    view_of, act, seats_users: dict, *, seed: int, limit: int = 200, claim_rate: float = 0.04
) -> dict:
    """Play a board to its end with `view_of(user) -> view` and `act(user, action) ->
    view`; answers the last view."""
    rng = random.Random(seed)
    view = view_of(seats_users["N"])
    for _ in range(limit):
        seat = actor_of(view)
        if seat is None:
            return view
        user = seats_users[seat]
        mine = view_of(user)
        assert mine["legal"] or mine.get("claim"), mine
        view = act(user, choose(mine, rng, claim_rate))
    raise AssertionError("the board did not end")


def service_player(table: Table, board_number: int):
    """(view_of, act) through the services, for `play_board`."""

    def view_of(user):
        return table_play.board_view(table=table, board_number=board_number, user=user)

    def act(user, action):
        return table_play.act(table=table, board_number=board_number, user=user, action=action)

    return view_of, act


@pytest.fixture(scope="session", autouse=True)
def _table_server_connections_closed(django_db_setup, django_db_blocker):
    """The table server's pool threads (`tournaments.sockets.pool`) keep their own
    connections to the test database: close them before it is dropped."""
    yield
    from tournaments.sockets import pool

    if pool._executor.cache_info().currsize:
        with django_db_blocker.unblock():
            pool.close_connections()
