"""Every API endpoint's answer, and who may call it (401 / 403 rules)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from tests.support.api import Api, assert_error, result_path, table_of, token_for
from tournaments.models import ApiToken, BoardResult, Pair, RoundStatus, Tournament

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]


def future(hours=24) -> str:
    return (timezone.now() + timedelta(hours=hours)).isoformat()


def tournament_body(**overrides) -> dict:
    body = {
        "name": "Thursday Swiss",
        "start_at": future(),
        "rounds": 5,
        "boards_per_round": 4,
        "round_minutes": 27.5,
        "gap_minutes": 2,
        "scoring": "XIMP",
        "completion_threshold": 65,
        "unplayed_policy": "avg_minus",
    }
    body.update(overrides)
    return body


# --- players -------------------------------------------------------------------------


def test_organiser_creates_a_player_without_a_usable_password(organiser_api):
    response = organiser_api.post("/players", {"username": "wang.li", "display_name": "王力"})
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["username"] == "wang.li" and body["display_name"] == "王力"
    user = get_user_model().objects.get(username="wang.li")
    assert not user.has_usable_password()
    assert user.profile.display_name == "王力"


def test_duplicate_username_is_a_conflict(organiser_api, make_user):
    make_user("ann")
    assert_error(organiser_api.post("/players", {"username": "ANN"}), 409, "already")


# --- tournaments ---------------------------------------------------------------------


def test_organiser_creates_a_tournament_with_fractional_minutes(organiser_api, organiser):
    response = organiser_api.post("/tournaments", tournament_body())
    assert response.status_code == 201, response.content
    body = response.json()
    t = Tournament.objects.get(pk=body["id"])
    assert t.round_length == timedelta(minutes=27, seconds=30)
    assert t.gap_length == timedelta(minutes=2)
    assert t.scoring_method == "XIMP" and t.unplayed_policy == "avg_minus"
    assert float(t.completion_threshold) == 65.0
    assert t.created_by == organiser
    assert body["round_minutes"] == 27.5 and body["completion_threshold"] == 65.0
    assert body["status"] == "scheduled" and body["current_round"] is None
    assert body["pair_count"] == 0


def test_naive_start_time_is_read_in_the_site_time_zone(organiser_api):
    day = timezone.localdate() + timedelta(days=2)
    naive = datetime(day.year, day.month, day.day, 14, 0)
    response = organiser_api.post("/tournaments", tournament_body(start_at=naive.isoformat()))
    assert response.status_code == 201, response.content
    t = Tournament.objects.get(pk=response.json()["id"])
    # Asia/Shanghai is UTC+8 all year.
    assert t.start_at == datetime(day.year, day.month, day.day, 6, 0, tzinfo=UTC)


def test_list_and_detail_are_public(public_api, api_running):
    tournament, pairs = api_running
    listing = public_api.get("/tournaments")
    assert listing.status_code == 200
    assert [t["id"] for t in listing.json()] == [tournament.pk]
    detail = public_api.get(f"/tournaments/{tournament.pk}").json()
    assert detail["status"] == "running"
    assert detail["current_round"]["number"] == 1
    assert detail["current_round"]["status"] == "open"
    assert detail["pair_count"] == 4
    assert detail["rounds"] == 3 and detail["boards_per_round"] == 2
    assert detail["round_minutes"] == 30.0 and detail["scoring"] == "IMP"


def test_unknown_tournament_is_404(public_api):
    assert_error(public_api.get("/tournaments/999999"), 404, "no tournament")


# --- registration --------------------------------------------------------------------


def test_register_and_withdraw_a_pair(organiser_api, make_tournament, make_user):
    t = make_tournament(start_at=timezone.now() + timedelta(days=1))
    make_user("north", name="North"), make_user("south")
    response = organiser_api.post(f"/tournaments/{t.pk}/pairs", {"players": ["north", "SOUTH"]})
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["registration_no"] == 1
    assert body["players"] == [
        {"username": "north", "name": "North"},
        {"username": "south", "name": "south"},
    ]
    pair = Pair.objects.get(pk=body["id"])
    assert pair.status == "confirmed"
    response = organiser_api.post(f"/tournaments/{t.pk}/pairs/{pair.pk}/withdraw")
    assert response.status_code == 200, response.content
    assert response.json()["withdrawn_at"] is not None
    pair.refresh_from_db()
    assert pair.withdrawn_at is not None


def test_a_late_pair_joins_a_running_tournament(organiser_api, api_running, make_user):
    """The same call once play has started: a late entry, seated from the next round."""
    tournament, pairs = api_running
    make_user("late-north"), make_user("late-south")
    response = organiser_api.post(
        f"/tournaments/{tournament.pk}/pairs", {"players": ["late-north", "late-south"]}
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["registration_no"] == len(pairs) + 1
    assert [p["username"] for p in body["players"]] == ["late-north", "late-south"]
    late = Pair.objects.get(pk=body["id"])
    assert (late.tournament_id, late.status, late.withdrawn_at) == (
        tournament.pk,
        "confirmed",
        None,
    )


def test_withdraw_a_pair_of_another_tournament_is_404(organiser_api, api_running, make_tournament):
    _tournament, pairs = api_running
    other = make_tournament()
    assert_error(
        organiser_api.post(f"/tournaments/{other.pk}/pairs/{pairs[0].pk}/withdraw"), 404, "pair"
    )


# --- clock ---------------------------------------------------------------------------


def test_start_now_seats_and_opens_round_one(organiser_api, make_tournament, register_pairs):
    t = make_tournament(start_at=timezone.now() + timedelta(days=1))
    register_pairs(t, 4, now=timezone.now())
    response = organiser_api.post(f"/tournaments/{t.pk}/start")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["tournament"]["status"] == "running"
    assert body["tournament"]["current_round"]["status"] == "open"
    assert body["events"]


def test_get_round_shows_boards_seating_and_bye(
    organiser, public_api, make_tournament, register_pairs
):
    from tournaments.services import clock

    t = make_tournament(start_at=timezone.now() + timedelta(days=1), boards_per_round=3)
    pairs = register_pairs(t, 5, now=timezone.now())
    clock.start_now(by=organiser, tournament=t)
    body = public_api.get(f"/tournaments/{t.pk}/rounds/1").json()
    assert body["number"] == 1 and body["status"] == "open"
    assert [b["number"] for b in body["boards"]] == [1, 2, 3]
    assert [(b["dealer"], b["vulnerability"]) for b in body["boards"]] == [
        ("N", "None"),
        ("E", "NS"),
        ("S", "EW"),
    ]
    # Round 1 in registration order (RULES 4): 1 v 2, 3 v 4, pair 5 sits out.
    assert [(x["table"], x["ns"], x["ew"]) for x in body["tables"]] == [
        (1, pairs[0].pk, pairs[1].pk),
        (2, pairs[2].pk, pairs[3].pk),
    ]
    assert body["tables"][0]["ns_players"][0]["username"] == pairs[0].player1.username
    assert body["bye"] == pairs[4].pk
    assert "deal" not in body["boards"][0]
    assert_error(public_api.get(f"/tournaments/{t.pk}/rounds/2"), 404, "no round 2")


def test_close_the_open_round_through_the_api(organiser_api, api_running):
    tournament, _pairs = api_running
    response = organiser_api.post(f"/tournaments/{tournament.pk}/rounds/1/close")
    assert response.status_code == 200, response.content
    body = response.json()
    assert "round 1 closed" in body["message"]
    assert body["tournament"]["current_round"]["number"] == 2
    assert tournament.round_set.get(number=1).status == RoundStatus.CLOSED
    # Round 1 is no longer the open round: a retried request must not close round 2.
    assert_error(
        organiser_api.post(f"/tournaments/{tournament.pk}/rounds/1/close"), 409, "not the open"
    )
    assert tournament.round_set.get(number=2).status == RoundStatus.OPEN


# --- result entry --------------------------------------------------------------------


def test_a_seated_player_enters_a_result(api_running):
    tournament, _pairs = api_running
    table = table_of(tournament, 1, 1)
    player = table.ew_pair.player2
    api = Api(token_for(player))
    body = {"contract": "4SX", "declarer": "N", "tricks": 10, "lead": "♥10"}
    response = api.put(result_path(tournament, 1, 1, 1), body)
    assert response.status_code == 200, response.content
    out = response.json()
    # Board 1: nobody vulnerable; 4♠X= NV = 590 for NS.
    assert out["ns_score"] == 590
    assert out["contract"] == "4SX" and out["result"] == "=" and out["lead"] == "HT"
    assert out["entered_by"] == player.username
    stored = BoardResult.objects.get(table=table, board__number=1)
    assert (stored.ns_score, stored.tricks, stored.entered_by) == (590, 10, player)


def test_result_relative_to_contract_and_correction(api_running):
    tournament, _pairs = api_running
    table = table_of(tournament, 1, 2)
    api = Api(token_for(table.ns_pair.player1))
    path = result_path(tournament, 1, 2, 2)  # board 2: NS vulnerable
    first = api.put(path, {"contract": "3NT", "declarer": "S", "result": "+1"}).json()
    assert (first["tricks"], first["ns_score"]) == (10, 630)
    second = api.put(path, {"contract": "3NT", "declarer": "S", "result": "-2"}).json()
    assert (second["tricks"], second["ns_score"]) == (7, -200)
    assert BoardResult.objects.filter(table=table).count() == 1


def test_passed_out_board(api_running):
    tournament, _pairs = api_running
    api = Api(token_for(table_of(tournament, 1, 1).ns_pair.player1))
    out = api.put(result_path(tournament, 1, 1, 2), {"contract": "PASS"}).json()
    assert out["state"] == "passed_out" and out["ns_score"] == 0


def test_an_organiser_may_enter_any_tables_result(organiser_api, api_running):
    tournament, _pairs = api_running
    response = organiser_api.put(
        result_path(tournament, 1, 2, 1), {"contract": "1NT", "declarer": "E", "tricks": 7}
    )
    assert response.status_code == 200, response.content
    assert response.json()["ns_score"] == -90


def test_result_entry_is_lean(api_running):
    """The load-test hot path: a bounded number of queries, last_used_at once a minute."""
    tournament, _pairs = api_running
    player = table_of(tournament, 1, 1).ns_pair.player1
    api = Api(token_for(player))
    body = {"contract": "2H", "declarer": "N", "tricks": 8}
    api.put(result_path(tournament), body)  # first use stamps last_used_at
    stamped = ApiToken.objects.get(user=player).last_used_at
    assert stamped is not None
    with CaptureQueriesContext(connection) as queries:
        response = api.put(result_path(tournament), body)
    assert response.status_code == 200
    sql = [q["sql"] for q in queries.captured_queries]
    # Token, table, then the service's round lock, round, table, board, result, write.
    assert len([q for q in sql if "SAVEPOINT" not in q]) <= 9, sql
    assert sum('"tournaments_apitoken"' in q and q.startswith("SELECT") for q in sql) == 1
    assert not any(q.startswith("UPDATE") and "tournaments_apitoken" in q for q in sql)
    assert ApiToken.objects.get(user=player).last_used_at == stamped


def test_last_used_at_is_refreshed_after_a_minute(api_running):
    tournament, _pairs = api_running
    player = table_of(tournament, 1, 1).ns_pair.player1
    key = token_for(player)
    old = timezone.now() - timedelta(minutes=5)
    ApiToken.objects.filter(key_hash=ApiToken.hash_key(key)).update(last_used_at=old)
    Api(key).get(f"/tournaments/{tournament.pk}")  # reads are public: no token check
    assert ApiToken.objects.get(key_hash=ApiToken.hash_key(key)).last_used_at == old
    Api(key).put(result_path(tournament), {"contract": "2H", "declarer": "N", "tricks": 8})
    assert ApiToken.objects.get(key_hash=ApiToken.hash_key(key)).last_used_at > old


# --- standings and boards ------------------------------------------------------------


def test_standings_and_board_after_a_round(organiser_api, public_api, api_running):
    tournament, pairs = api_running
    for table_number in (1, 2):
        for board in (1, 2):
            organiser_api.put(
                result_path(tournament, 1, table_number, board),
                {"contract": "4S", "declarer": "N", "tricks": 10 if table_number == 1 else 9},
            )
    before = public_api.get(f"/tournaments/{tournament.pk}/boards/1").json()
    assert before["deal"] is None and before["results"] == []  # round 1 still open
    assert (before["dealer"], before["vulnerability"], before["round"]) == ("N", "None", 1)
    organiser_api.post(f"/tournaments/{tournament.pk}/rounds/1/close")

    board = public_api.get(f"/tournaments/{tournament.pk}/boards/1").json()
    assert board["deal"].startswith("N:") and len(board["deal"].split()) == 4
    lines = board["results"]
    assert [(r["table"], r["ns_score"]) for r in lines] == [(1, 420), (2, -50)]
    # Cross-IMPs with two results: 470 difference is 10 IMPs each way.
    assert (lines[0]["ns_points"], lines[0]["ew_points"]) == (10.0, -10.0)
    assert lines[1]["ns_points"] == -10.0
    assert lines[0]["ns"] == table_of(tournament, 1, 1).ns_pair_id
    assert lines[0]["state"] == "played" and lines[0]["result"] == "="

    rows = public_api.get(f"/tournaments/{tournament.pk}/standings").json()
    assert [r["position"] for r in rows] == [1, 2, 3, 4]
    top = rows[0]
    # Board 2 (NS vulnerable): 620 against −100 is 720, 12 IMPs; 10 + 12 in all.
    assert top["total"] == 22.0 and top["boards_completed"] == 2
    assert top["completion"] == pytest.approx(100 * 2 / 6, abs=0.01)
    assert top["rank"] is None and top["completed"] is False and top["master_points"] == 0
    assert {r["pair"] for r in rows} == {p.pk for p in pairs}


def test_unknown_board_is_404(public_api, api_running):
    tournament, _pairs = api_running
    assert_error(public_api.get(f"/tournaments/{tournament.pk}/boards/99"), 404)


# --- permissions ---------------------------------------------------------------------

ORGANISER_ONLY = [
    ("post", "/players", {"username": "x1"}),
    ("post", "/tournaments", None),
    ("post", "/tournaments/{t}/pairs", {"players": ["a", "b"]}),
    ("post", "/tournaments/{t}/pairs/{p}/withdraw", None),
    ("post", "/tournaments/{t}/start", None),
    ("post", "/tournaments/{t}/rounds/1/close", None),
]


@pytest.mark.parametrize("method,path,body", ORGANISER_ONLY)
def test_organiser_calls_refuse_players_and_strangers(method, path, body, api_running, make_user):
    from tests.support.api import snapshot

    tournament, pairs = api_running
    path = path.format(t=tournament.pk, p=pairs[0].pk)
    body = tournament_body() if path == "/tournaments" else body
    player = Api(token_for(pairs[0].player1))
    before = snapshot()
    assert_error(getattr(player, method)(path, body), 403, "organiser")
    assert_error(getattr(Api(), method)(path, body), 401, "Bearer")
    assert_error(getattr(Api("not-a-token"), method)(path, body), 401)
    assert_error(getattr(Api("x" * 500), method)(path, body), 401)
    assert_error(getattr(Api("bad\x00key"), method)(path, body), 401)
    assert snapshot() == before


def test_inactive_users_token_is_refused(api_running):
    tournament, _pairs = api_running
    player = table_of(tournament, 1, 1).ns_pair.player1
    key = token_for(player)
    player.is_active = False
    player.save()
    assert_error(Api(key).put(result_path(tournament), {"contract": "PASS"}), 401)


def test_unauthenticated_response_names_the_scheme(api_running):
    tournament, _pairs = api_running
    response = Api().put(result_path(tournament), {"contract": "PASS"})
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Bearer"


def test_standings_follow_every_change_although_cached(organiser_api, public_api, api_running):
    """The standings JSON is cached per live version: a close, a withdrawal and the
    final results each show at once."""
    tournament, pairs = api_running
    path = f"/tournaments/{tournament.pk}/standings"
    assert {r["total"] for r in public_api.get(path).json()} == {0.0}
    organiser_api.put(
        result_path(tournament, 1, 1, 1), {"contract": "3NT", "declarer": "N", "tricks": 9}
    )
    organiser_api.put(
        result_path(tournament, 1, 2, 1), {"contract": "3NT", "declarer": "N", "tricks": 8}
    )
    assert {r["total"] for r in public_api.get(path).json()} == {0.0}  # round still open
    organiser_api.post(f"/tournaments/{tournament.pk}/rounds/1/close")
    after_close = public_api.get(path).json()
    # 400 against −50: 450 difference, 10 IMPs.
    assert sorted(r["total"] for r in after_close) == [-10.0, -10.0, 10.0, 10.0]
    withdrawn = after_close[-1]["pair"]
    organiser_api.post(f"/tournaments/{tournament.pk}/pairs/{withdrawn}/withdraw")
    rows = public_api.get(path).json()
    assert [r["withdrawn"] for r in rows if r["pair"] == withdrawn] == [True]
