"""The ladder's API (RULES 11): read a ladder, challenge, accept, decline, enter a result
(a director), and the refusals as `{"error": …}` that change nothing."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine

from tests.support.api import Api, assert_error, token_for
from tests.tournaments.ladder.conftest import by_position, team
from tournaments.models import LadderChallenge, LadderHistory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]

DAY = timedelta(days=1)


def test_read_challenge_accept_and_result(make_ladder, organiser, t0):
    ladder = make_ladder(4)
    t4, t2 = team(ladder, 4), team(ladder, 2)
    base = f"/ladders/{ladder.pk}"
    with time_machine.travel(t0 + DAY, tick=False):
        read = Api().get(base)
        assert read.status_code == 200
        body = read.json()
        assert [t["name"] for t in body["teams"]] == ["Team 1", "Team 2", "Team 3", "Team 4"]
        assert body["open_challenges"] == [] and len(body["history"]) == 4

        made = Api(token_for(t4.captain)).post(base + "/challenges", {"challenged": t2.pk})
        assert made.status_code == 201, made.content
        challenge = made.json()
        assert challenge["state"] == "open" and challenge["challenger"] == t4.pk
        path = f"{base}/challenges/{challenge['id']}"

        assert_error(Api(token_for(t4.captain)).post(path + "/accept"), 403, "captain")
        accepted = Api(token_for(t2.captain)).post(path + "/accept")
        assert accepted.status_code == 200 and accepted.json()["state"] == "accepted"

        before = LadderHistory.objects.count()
        assert_error(Api(token_for(t4.captain)).post(path + "/result", {"challenger_vp": 12}), 403)
        assert_error(Api(token_for(organiser)).post(path + "/result", {"challenger_vp": 21}), 422)
        assert LadderHistory.objects.count() == before
        done = Api(token_for(organiser)).post(path + "/result", {"challenger_vp": "12.5"})
        assert done.status_code == 200, done.content
        assert done.json()["state"] == "played" and done.json()["challenger_vp"] in ("12.50", 12.5)
    assert by_position(ladder) == ["Team 1", "Team 4", "Team 2", "Team 3"]
    history = Api().get(base).json()["history"]
    assert history[0]["kind"] == "moved" and any(h["kind"] == "played" for h in history)


def test_decline_and_refusals(make_ladder, organiser, t0):
    ladder = make_ladder(5)
    t5, t4, t3, t1 = team(ladder, 5), team(ladder, 4), team(ladder, 3), team(ladder, 1)
    base = f"/ladders/{ladder.pk}"
    with time_machine.travel(t0 + DAY, tick=False):
        assert_error(Api().get("/ladders/999999"), 404, "ladder")
        assert_error(
            Api(token_for(organiser)).post(base + "/challenges", {"challenged": t1.pk}),
            409,
            "no team",
        )
        assert_error(
            Api(token_for(t5.captain)).post(base + "/challenges", {"challenged": t1.pk}),
            409,
            "at most 3",
        )
        assert not LadderChallenge.objects.exists()
        made = Api(token_for(t4.captain)).post(base + "/challenges", {"challenged": t3.pk}).json()
        path = f"{base}/challenges/{made['id']}"
        declined = Api(token_for(t3.captain)).post(path + "/decline")
        assert declined.status_code == 200 and declined.json()["state"] == "declined"
        assert declined.json()["forfeited_by"] == t3.pk
        assert_error(Api(token_for(t3.captain)).post(path + "/accept"), 409, "decided")
    assert by_position(ladder) == ["Team 1", "Team 2", "Team 4", "Team 3", "Team 5"]
