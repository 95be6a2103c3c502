"""The admin's "Add a late pair…" action in a real headless Chromium, in English and
Chinese: the form, a refusal shown on it, and the pair added (issue 14 point 6)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from tests.support.browser.pw import new_page, shot
from tournaments.models import Pair
from tournaments.services.clock import advance
from tournaments.services.registration import register_pair

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]


def admin_log_in(page, base: str) -> None:
    page.goto(f"{base}/admin/login/?next=/admin/")
    page.fill("#id_username", "director")
    page.fill("#id_password", "pw-director")
    page.click("input[type=submit]")
    page.wait_for_url(f"{base}/admin/")


def open_the_action(page, base: str, tournament) -> None:
    page.goto(f"{base}/admin/tournaments/tournament/")
    page.check(f"input[name=_selected_action][value='{tournament.pk}']")
    page.select_option("select[name=action]", "add_late_pair")
    page.click("button[name=index]")
    page.wait_for_selector("input[name=player1]")


def test_an_organiser_adds_a_late_pair_in_admin(
    browser, live_server, director, make_tournament, make_user
):
    now = timezone.now()
    tournament = make_tournament(
        name="Autumn Swiss",
        start_at=now - timedelta(minutes=1),
        registration_opens_at=now - timedelta(days=1),
        rounds=4,
    )
    players = [make_user(f"p{i}", name=f"Player {i}") for i in range(8)]
    for i in range(4):
        register_pair(
            by=None, tournament=tournament,
            usernames=[players[2 * i].username, players[2 * i + 1].username],
            now=now - timedelta(minutes=30),
        )  # fmt: skip
    advance(now=now)
    make_user("wang", name="王芳"), make_user("li", name="李明")
    make_user("zhao", name="Zhao Lei"), make_user("sun", name="Sun Yu")
    base = live_server.url

    page = new_page(browser, locale="en-GB")
    admin_log_in(page, base)
    open_the_action(page, base, tournament)
    assert "Add a late pair to Autumn Swiss" in page.inner_text("#content")
    shot(page, "late-entry-01-form-en")
    page.fill("input[name=player1]", "zhao")
    page.fill("input[name=player2]", "p0")
    page.click("input[type=submit]")
    page.wait_for_selector(".errorlist")
    # Messages name players by display name (issue 15.6).
    assert "Player 0 is already in a pair in this tournament." in page.inner_text(".errorlist")
    assert page.input_value("input[name=player1]") == "zhao"
    shot(page, "late-entry-02-refused-en")
    assert not Pair.objects.filter(tournament=tournament, registration_no=5).exists()
    page.fill("input[name=player2]", "sun")
    page.click("input[type=submit]")
    page.wait_for_selector(".messagelist .success")
    assert "Zhao Lei – Sun Yu added as no. 5, seated from the next round" in page.inner_text(
        ".messagelist"
    )
    shot(page, "late-entry-03-added-en")
    page.context.close()

    page = new_page(browser, locale="zh-CN")
    admin_log_in(page, base)
    open_the_action(page, base, tournament)
    assert "中途加入一对到 Autumn Swiss" in page.inner_text("#content")
    assert "同伴（用户名）" in page.inner_text("#content")
    shot(page, "late-entry-04-form-zh")
    page.fill("input[name=player1]", "wang")
    page.fill("input[name=player2]", "li")
    page.click("input[type=submit]")
    page.wait_for_selector(".messagelist .success")
    assert "已加入 王芳 – 李明，报名序号 6，从下一轮起排座" in page.inner_text(".messagelist")
    shot(page, "late-entry-05-added-zh")
    page.context.close()
    assert list(
        Pair.objects.filter(tournament=tournament)
        .order_by("registration_no")
        .values_list("registration_no", flat=True)
    ) == [1, 2, 3, 4, 5, 6]
