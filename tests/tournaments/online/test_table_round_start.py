"""The round clock at a round's start (issue 24, item 5): a player sits down at the next
round's table in the gap. The page counts down to the start by the server's clock —
right even on a device whose clock is minutes wrong — says "Round 2 starts in …" (not
"Waiting for North"), offers no call; when the server's clock opens the round the page
turns by itself to "Round 2 ends in …" and the dealer's bidding box, never sticking on
"starts in 00:00 · Time is up". English and Chinese, desktop and phone, with
screenshots."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from scoring import SEATS
from tests.support.browser.pw import shot
from tests.support.browser.table import DESKTOP, PHONE, play_url, seat_page, table_server
from tests.support.online_ws import seated_users
from tournaments.models import Board, Round, Table
from tournaments.services import clock, table_play

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

GAP = timedelta(seconds=40)
CLOCK = ".bt-meta .clock"
# A device whose clock runs 7 minutes fast, and one 5 minutes slow.
SKEW = {"fast": 7 * 60_000, "slow": -5 * 60_000}


def skew(page, ms: int) -> None:
    page.add_init_script(
        f"(() => {{ const real = Date.now.bind(Date); Date.now = () => real() + ({ms}); }})();"
    )


def seconds_left(page) -> int:
    text = page.inner_text(f"{CLOCK} [data-clock-time]")
    minutes, seconds = re.fullmatch(r"(\d+):(\d\d)", text.strip()).groups()
    return int(minutes) * 60 + int(seconds)


def test_the_page_counts_to_the_start_and_opens_with_the_round(
    make_tournament, register_pairs, tmp_path
):
    now = timezone.now()
    tournament = make_tournament(
        play="online", registration_opens_at=now - timedelta(days=1),
        start_at=now - timedelta(seconds=1), rounds=2, boards_per_round=2,
        round_length=timedelta(hours=1), gap_length=GAP,
    )  # fmt: skip
    register_pairs(tournament, 4, now=now - timedelta(minutes=10))
    clock.advance(now=now)

    with table_server(tmp_path) as (base, browser):
        # Round 1 ends now (the server up: the gap is not spent starting it): the clock
        # closes it and seats round 2, to start after the gap.
        bell = timezone.now()
        Round.objects.filter(tournament=tournament, number=1).update(ends_at=bell)
        clock.advance(now=bell)
        second = Round.objects.get(tournament=tournament, number=2)
        assert second.status == "scheduled" and second.starts_at == bell + GAP
        table = Table.objects.filter(round=second).order_by("number").first()
        users = seated_users(table)
        board = Board.objects.filter(round=second).order_by("number").first().number
        view = table_play.board_view(table=table, board_number=board, user=users["N"])
        dealer = view["dealer"]
        other = next(seat for seat in SEATS if seat != dealer)
        looks = {dealer: ("en", DESKTOP, "fast"), other: ("zh-hans", PHONE, "slow")}
        pages = {}
        for seat, (lang, size, wrong) in looks.items():
            page = seat_page(browser, base, users[seat], lang=lang, size=size)
            skew(page, SKEW[wrong])
            page.goto(base + play_url(table))
            page.wait_for_function("() => document.getElementById('bt').dataset.seq === '0'")
            pages[seat] = page
        for seat, page in pages.items():
            lang = looks[seat][0]
            if timezone.now() >= second.starts_at - timedelta(seconds=3):
                pytest.fail("the machine was too slow: the round started before the checks")
            assert page.locator(f"{CLOCK}.phase-starts").count() == 1, seat
            label = page.inner_text(f"{CLOCK} .clock-label")
            assert label == ("Round 2 starts in" if lang == "en" else "第 2 轮开始倒计时"), label
            # Counted on the server's time, whatever the device's clock says.
            left = (second.starts_at - timezone.now()).total_seconds()
            assert abs(seconds_left(page) - left) <= 3, (seat, seconds_left(page), left)
            status = page.inner_text("#bt-status")
            assert ("Round 2 starts in" if lang == "en" else "第 2 轮") in status, status
            assert "Waiting" not in status and "等待" not in status, status
            assert page.locator(".bt-bid").count() == 0, seat
            shot(page, f"table-round-start-{seat}-{lang}-{looks[seat][1][0]}-before")

        # The server's clock opens the round: the page follows by itself.
        for seat, page in pages.items():
            page.wait_for_selector(f"{CLOCK}.phase-ends", timeout=60_000)
            lang = looks[seat][0]
            assert page.inner_text(f"{CLOCK} .clock-label") == (
                "Round 2 ends in" if lang == "en" else "第 2 轮剩余"
            )
            left = (Round.objects.get(pk=second.pk).ends_at - timezone.now()).total_seconds()
            assert abs(seconds_left(page) - left) <= 3, (seat, seconds_left(page), left)
            assert not page.is_visible(f"{CLOCK} [data-clock-done]")
            assert "Time is up" not in page.inner_text(CLOCK)
        bidder = pages[dealer]
        bidder.wait_for_selector("#bt-controls .bt-bid[data-call='P']:not([disabled])")
        assert "Your turn" in bidder.inner_text("#bt-status")
        pages[other].wait_for_function(
            "() => !document.getElementById('bt-status').textContent.includes('第 2 轮')"
        )
        for seat, page in pages.items():
            shot(page, f"table-round-start-{seat}-{looks[seat][0]}-{looks[seat][1][0]}-after")
        bidder.locator("#bt-controls .bt-bid[data-call='P']").click()
        bidder.wait_for_function("() => document.getElementById('bt').dataset.seq === '1'")
