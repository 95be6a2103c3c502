"""Every text the table server sends is in the user's language (issue 24, item 4): the
socket chooses it as the pages do (`LocaleMiddleware`: the language cookie, else the
browser's Accept-Language), so a Chinese session gets Chinese refusals from `play` and
from the service. On a real uvicorn process and real sockets."""

from __future__ import annotations

import asyncio
import json

import pytest
from websockets.asyncio.client import connect

from tests.support.online_ws import (
    board_path,
    open_online_round,
    seated_users,
    session_cookie,
    token_of,
)
from tests.support.servers import free_port, stop, wait_for_server_sessions
from tests.support.uvicorn import start_server, wait_until_listening
from tournaments.services import clock

pytestmark = pytest.mark.django_db(transaction=True)
TIMEOUT = 20


@pytest.fixture
def server(tmp_path):
    port, log_path = free_port(), tmp_path / "server.log"
    process = start_server(port=port, log=log_path.open("w"))
    try:
        wait_until_listening(port, process, log_path)
        yield port
    finally:
        stop(process)
        wait_for_server_sessions()


async def _refusals(port: int, path: str, headers: dict, actions: list[dict]) -> list[dict]:
    """Open `path` with `headers`, send each action after the snapshot: the answers."""
    async with connect(f"ws://127.0.0.1:{port}{path}", additional_headers=headers) as ws:
        snapshot = json.loads(await asyncio.wait_for(ws.recv(), TIMEOUT))
        assert snapshot["type"] == "snapshot", snapshot
        answers = [snapshot]
        for action in actions:
            await ws.send(json.dumps({"type": "action", **action}))
            answers.append(json.loads(await asyncio.wait_for(ws.recv(), TIMEOUT)))
        return answers


def _session_headers(user, port: int, language: str | None) -> dict:
    cookie = session_cookie(user)
    if language is not None:
        cookie += f"; django_language={language}"
    return {"Cookie": cookie, "Origin": f"http://127.0.0.1:{port}"}


def test_a_chinese_session_gets_the_rules_and_the_services_refusals_in_chinese(
    server, make_tournament, register_pairs, organiser
):
    _round, tables = open_online_round(make_tournament, register_pairs, boards=2)
    table = tables[0]
    east = seated_users(table)["E"]
    out_of_turn = {"seq": 1, "action": "call", "call": "1C"}  # North deals
    not_a_call = {"seq": 1, "action": "call", "call": "9Z"}
    board_two = {"seq": 1, "action": "call", "call": "P"}

    chinese = asyncio.run(
        _refusals(server, board_path(table, 1), _session_headers(east, server, "zh-hans"),
                  [out_of_turn, not_a_call])
    )  # fmt: skip
    assert [m["type"] for m in chinese] == ["snapshot", "error", "error"]
    assert chinese[1]["error"] == "还没轮到你：现在该 N 叫牌", chinese[1]
    assert chinese[2]["error"].startswith("无法识别的叫牌 '9Z'"), chinese[2]
    ahead = asyncio.run(
        _refusals(server, board_path(table, 2), _session_headers(east, server, "zh-hans"),
                  [board_two])
    )  # fmt: skip
    assert ahead[1]["error"] == "第 1 副牌在你们桌还没打完：牌要按顺序打。"

    # The same session without the cookie: English, as the pages.
    english = asyncio.run(
        _refusals(server, board_path(table, 1), _session_headers(east, server, None),
                  [out_of_turn])
    )  # fmt: skip
    assert english[1]["error"] == "not your turn: N is to call"

    # A program with its token speaks its Accept-Language.
    program = asyncio.run(
        _refusals(
            server, board_path(table, 1),
            {"Authorization": f"Bearer {token_of(east)}", "Accept-Language": "zh-CN,zh;q=0.9"},
            [out_of_turn],
        )
    )  # fmt: skip
    assert program[1]["error"] == "还没轮到你：现在该 N 叫牌"

    # The pause, as the director's refusal says it.
    clock.pause(tournament=table.round.tournament, by=organiser)
    paused = asyncio.run(
        _refusals(server, board_path(table, 1), _session_headers(east, server, "zh-hans"),
                  [{"seq": 1, "action": "call", "call": "P"}])
    )  # fmt: skip
    assert paused[0]["view"]["paused"] is True and paused[0]["view"]["legal"] == []
    assert paused[1]["error"] == "比赛已暂停，裁判恢复比赛后才能继续打牌。"


def test_a_refusal_at_the_door_is_in_the_clients_language_too(server, make_tournament,
                                                               register_pairs):  # fmt: skip
    _round, tables = open_online_round(make_tournament, register_pairs, boards=1)

    async def refused() -> dict:
        headers = {"Authorization": "Bearer " + "0" * 40, "Accept-Language": "zh-hans"}
        url = f"ws://127.0.0.1:{server}{board_path(tables[0], 1)}"
        async with connect(url, additional_headers=headers) as ws:
            return json.loads(await asyncio.wait_for(ws.recv(), TIMEOUT))

    message = asyncio.run(refused())
    assert message == {"type": "error", "error": "未知的 API 令牌。"}
