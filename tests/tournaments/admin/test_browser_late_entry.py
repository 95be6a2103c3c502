"""The admin's "Add a late pair…" action in a real headless Chromium, in English and
Chinese: the form, a refusal shown on it, and the pair added (issue 14 point 6)."""

from __future__ import annotations

import pytest

from tests.support.browser.events import running_event
from tests.support.browser.pw import log_in, new_page, shot
from tournaments.models import Pair

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]


def open_the_action(browser, base: str, tournament, *, locale: str):
    """The director, logged in (browser in `locale`), on the action's form for `tournament`."""
    page = new_page(browser, locale=locale)
    log_in(page, base, "director", "pw-director", admin=True)
    page.goto(f"{base}/admin/tournaments/tournament/")
    page.check(f"input[name=_selected_action][value='{tournament.pk}']")
    page.select_option("select[name=action]", "add_late_pair")
    page.click("button[name=index]")
    page.wait_for_selector("input[name=player1]")
    return page


def submit(page, *, player2: str, player1: str | None = None, then: str) -> None:
    """Type the pair (player 1 left as it is when None), submit, wait for `then`."""
    if player1 is not None:
        page.fill("input[name=player1]", player1)
    page.fill("input[name=player2]", player2)
    page.click("input[type=submit]")
    page.wait_for_selector(then)


def test_an_organiser_adds_a_late_pair_in_admin(
    browser, live_server, director, make_tournament, make_user
):
    players = [make_user(f"p{i}", name=f"Player {i}") for i in range(8)]
    tournament, _round1, _tables = running_event(
        make_tournament, players, n_pairs=4, name="Autumn Swiss", rounds=4
    )
    make_user("wang", name="王芳"), make_user("li", name="李明")
    make_user("zhao", name="Zhao Lei"), make_user("sun", name="Sun Yu")
    base = live_server.url

    page = open_the_action(browser, base, tournament, locale="en-GB")
    assert "Add a late pair to Autumn Swiss" in page.inner_text("#content")
    shot(page, "late-entry-01-form-en")
    submit(page, player1="zhao", player2="p0", then=".errorlist")
    # Messages name players by display name (issue 15.6).
    assert "Player 0 is already in a pair in this tournament." in page.inner_text(".errorlist")
    assert page.input_value("input[name=player1]") == "zhao"
    shot(page, "late-entry-02-refused-en")
    assert not Pair.objects.filter(tournament=tournament, registration_no=5).exists()
    submit(page, player2="sun", then=".messagelist .success")  # player 1 as kept
    assert "Zhao Lei – Sun Yu added as no. 5, seated from the next round" in page.inner_text(
        ".messagelist"
    )
    shot(page, "late-entry-03-added-en")
    page.context.close()

    page = open_the_action(browser, base, tournament, locale="zh-CN")
    assert "中途加入一对到 Autumn Swiss" in page.inner_text("#content")
    assert "同伴（用户名）" in page.inner_text("#content")
    shot(page, "late-entry-04-form-zh")
    submit(page, player1="wang", player2="li", then=".messagelist .success")
    assert "已加入 王芳 – 李明，报名序号 6，从下一轮起排座" in page.inner_text(".messagelist")
    shot(page, "late-entry-05-added-zh")
    page.context.close()
    assert list(
        Pair.objects.filter(tournament=tournament)
        .order_by("registration_no")
        .values_list("registration_no", flat=True)
    ) == [1, 2, 3, 4, 5, 6]
