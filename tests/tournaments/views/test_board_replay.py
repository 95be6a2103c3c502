"""The board page's replay (static/js/replay.js), like a hand viewer: each table's auction
call by call, then the play card by card, the four hands losing the cards played, the
trick in the middle and the tricks won; buttons and the arrow keys; English and Chinese,
desktop and phone; on paper the whole record, open, without the stepper."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection

from tests.support.browser.pw import shot
from tests.support.online import play_board, players_by_seat, service_player, table_at
from tournaments.models import BoardResult, PlayAction
from tournaments.services import clock, table_play

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def played(online_running, organiser):
    """Round 1 closed: table 1 played board 1 to the last card after a 1NT opening, table
    2 played it until a claim was accepted."""
    tournament, _pairs = online_running
    one, two = table_at(tournament, 1, 1), table_at(tournament, 1, 2)

    def play_round() -> None:
        try:
            for table, claim_rate in ((one, 0), (two, 0.3)):
                users = players_by_seat(table)
                table_play.act(
                    table=table, board_number=1, user=users["N"],
                    action={"seq": 1, "type": "call", "call": "1NT"},
                )  # fmt: skip
                view_of, act = service_player(table, 1)
                play_board(view_of, act, users, seed=3 + table.number, claim_rate=claim_rate)
            clock.close_round_now(tournament=tournament, by=organiser, round_number=1)
        finally:
            connection.close()

    # In a thread of its own: this one runs Playwright's event loop, where the services'
    # pushes to the table sockets (async_to_sync) may not run.
    with ThreadPoolExecutor(1) as pool:
        pool.submit(play_round).result()
    return tournament, one, two


def _cards_in_hands(replay) -> dict[str, int]:
    counts = {}
    for seat in "NESW":
        rows = replay.locator(f".rp-{seat} .rp-ranks").all_inner_texts()
        counts[seat] = sum(len([r for r in row.split() if r != "—"]) for row in rows)
    return counts


def test_the_replay_steps_through_auction_and_play(open_page, live_server, played):
    tournament, one, two = played
    calls = PlayAction.objects.filter(table=one, board__number=1, kind="call").count()
    result = BoardResult.objects.get(table=one, board__number=1)
    assert result.tricks is not None and result.declarer
    url = f"{live_server.url}/t/{tournament.pk}/boards/1/"
    page = open_page()
    page.goto(url)
    record = page.locator("#record-table-1")
    record.locator("summary").click()
    replay = record.locator("[data-replay]")
    replay.wait_for()
    status = replay.locator(".rp-step")
    assert status.inner_text() == "Before the auction"
    assert _cards_in_hands(replay) == {"N": 13, "E": 13, "S": 13, "W": 13}
    assert replay.locator("button[data-step=back]").is_disabled()

    replay.locator("button[data-step=forward]").click()
    assert status.inner_text() == f"Auction: call 1 of {calls}"
    assert replay.locator(".rp-auction td.rp-now").inner_text() == "1NT"

    # The keyboard: to the last call, then the opening lead.
    replay.focus()
    for _ in range(calls - 1):
        page.keyboard.press("ArrowRight")
    assert status.inner_text() == f"Auction: call {calls} of {calls}"
    assert replay.locator(".rp-auction td").filter(has_text="Pass").count() >= 3
    leader = replay.locator(".rp-turn .rp-seat").inner_text()
    page.keyboard.press("ArrowRight")
    assert status.inner_text() == "Trick 1, card 1"
    assert replay.locator(".rp-trick .rp-card").count() == 1
    assert sorted(_cards_in_hands(replay).values()) == [12, 13, 13, 13]
    assert replay.locator(".rp-led .rp-card").count() == 1
    assert leader in ("N", "E", "S", "W")
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    assert status.inner_text() == "Trick 1, card 4"
    assert replay.locator(".rp-trick .rp-card").count() == 4
    assert replay.locator(".rp-won").count() == 1
    assert replay.locator(".rp-count").inner_text() in (
        "Tricks: NS 1 · EW 0",
        "Tricks: NS 0 · EW 1",
    )
    shot(page, "replay-en-1280")
    replay.locator("button[data-step=back]").click()
    assert replay.locator(".rp-trick .rp-card").count() == 3
    assert replay.locator(".rp-count").inner_text() == "Tricks: NS 0 · EW 0"
    page.keyboard.press("ArrowRight")  # trick 1 complete again
    page.keyboard.press("ArrowRight")  # the first card of trick 2 clears the trick
    assert status.inner_text() == "Trick 2, card 1"
    assert replay.locator(".rp-trick .rp-card").count() == 1

    # The last step: every card played, the tricks as the result says.
    replay.locator("button[data-step=last]").click()
    assert status.inner_text() == "End of the play"
    assert _cards_in_hands(replay) == {"N": 0, "E": 0, "S": 0, "W": 0}
    declarer_side_ns = result.declarer in "NS"
    ns, ew = (
        (result.tricks, 13 - result.tricks)
        if declarer_side_ns
        else (13 - result.tricks, result.tricks)
    )
    assert replay.locator(".rp-count").inner_text() == f"Tricks: NS {ns} · EW {ew}"
    assert replay.locator("button[data-step=forward]").is_disabled()
    page.keyboard.press("Home")
    assert status.inner_text() == "Before the auction"
    # A trick of the record's table: the replay shows the end of it.
    record.locator("table.play tr[data-trick='5']").click()
    assert status.inner_text() == "Trick 5, card 4"
    assert sum(_cards_in_hands(replay).values()) == 52 - 20

    # Table 2 ended with a claim: its last step says so, with cards still in the hands.
    other = page.locator("#record-table-2")
    other.locator("summary").click()
    other.locator("[data-replay] button[data-step=last]").click()
    assert "claimed" in other.locator(".rp-step").inner_text()
    assert sum(_cards_in_hands(other.locator("[data-replay]")).values()) > 0

    # Paper: the records open and whole, the stepper hidden.
    page.reload()
    page.emulate_media(media="print")
    assert not page.locator("[data-replay]").first.is_visible()
    assert page.locator("#record-table-2 table.play").is_visible()
    assert page.locator("#record-table-1 table.auction").is_visible()
    shot(page, "replay-print")


@pytest.mark.parametrize(
    ("locale", "width", "height"),
    [("zh-CN", 1280, 900), ("zh-CN", 390, 844), ("en-GB", 390, 844)],
)
def test_the_replay_in_chinese_and_on_a_phone(
    open_page, live_server, played, locale, width, height
):
    tournament, _one, _two = played
    page = open_page(locale=locale, width=width, height=height)
    page.goto(f"{live_server.url}/t/{tournament.pk}/boards/1/")
    record = page.locator("#record-table-1")
    record.locator("summary").click()
    replay = record.locator("[data-replay]")
    calls = PlayAction.objects.filter(table=_one, board__number=1, kind="call").count()
    for _ in range(calls + 6):
        replay.locator("button[data-step=forward]").click()
    text = replay.locator(".rp-step").inner_text()
    if locale == "zh-CN":
        assert text == "第 2 墩，第 2 张"
        assert "墩数" in replay.locator(".rp-count").inner_text()
        assert replay.locator(".rp-auction td").filter(has_text="不叫").count() >= 3
    else:
        assert text == "Trick 2, card 2"
    # Nothing of the replay is wider than the screen.
    box = replay.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width
    replay.scroll_into_view_if_needed()
    shot(page, f"replay-{locale}-{width}")
