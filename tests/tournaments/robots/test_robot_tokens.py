"""The robots' API tokens (issue 22, item 8): a run issues one per player, expiring a day
later, reuses it for the player's seats, and revokes every one it issued when it stops —
a robots' run no longer leaves a never-expiring key per player behind at each start."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest
from django.utils import timezone

from tests.support.online_ws import open_online_round
from tournaments.models import ApiToken
from tournaments.robots import runner
from tournaments.robots.runner import RENEW_TOKENS_AFTER, RobotTokens, open_seats

pytestmark = pytest.mark.django_db


@pytest.mark.django_db(transaction=True)  # open_seats closes an old connection
def test_a_run_gives_each_player_one_expiring_token_and_revokes_them_at_the_stop(
    make_tournament, register_pairs
):
    round_, tables = open_online_round(make_tournament, register_pairs, pairs=4, boards=1)
    tokens = RobotTokens()
    since = timezone.now()
    seats = open_seats(tournament_ids=[round_.tournament_id], since=since, tokens=tokens,
                       heuristic=True, plan_cache={})  # fmt: skip
    again = open_seats(tournament_ids=[round_.tournament_id], since=since, tokens=tokens,
                       heuristic=True, plan_cache={})  # fmt: skip
    assert len(seats) == 8
    assert [s.job.token for s in seats] == [s.job.token for s in again]  # reused
    issued = ApiToken.objects.filter(revoked_at=None)
    assert issued.count() == 8  # one per player, not one per look at the rounds
    for token in issued:
        assert token.expires_at is not None
        assert token.expires_at - timezone.now() <= timedelta(days=1)
    assert tokens.revoke_all() == 8
    assert not ApiToken.objects.filter(revoked_at=None).exists()


def test_a_long_run_renews_a_players_token_before_it_expires(make_user):
    user = make_user("robotised")
    tokens = RobotTokens()
    now = timezone.now()
    first = tokens.key_for(user, now)
    assert tokens.key_for(user, now + timedelta(hours=1)) == first
    renewed = tokens.key_for(user, now + RENEW_TOKENS_AFTER)
    assert renewed != first
    assert tokens.revoke_all() == 2


@pytest.mark.django_db(transaction=True)
def test_drive_revokes_the_tokens_it_issued_when_it_stops(
    make_tournament, register_pairs, monkeypatch
):
    round_, _tables = open_online_round(make_tournament, register_pairs, pairs=4, boards=1)

    async def no_play(*args, **kwargs):  # no server here: the seats' runs just wait
        await asyncio.sleep(3600)

    monkeypatch.setattr(runner, "play_seat", no_play)

    async def run_for_a_moment():
        stop = asyncio.Event()
        asyncio.get_running_loop().call_later(1.0, stop.set)
        await runner.drive(tournament_ids=[round_.tournament_id],
                           options=runner.Options(heuristic=True, poll=0.2), stop=stop)  # fmt: skip

    asyncio.run(run_for_a_moment())
    assert ApiToken.objects.count() == 8
    assert not ApiToken.objects.filter(revoked_at=None).exists()
