"""Admin pages of issue 14 (points 2, 3, 8) in a real headless Chromium, English and
Chinese: the locked settings of a started event, the "change settings and re-score"
confirmation, its record, a clock note, and a refused title threshold.
Screenshots go to test-artifacts/screenshots/."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from tests.support.browser.pw import chromium, new_page, shot
from tournaments.models import RankTitle, Round, SettingsChange, Tournament
from tournaments.services import clock
from tournaments.services.permissions import directors_group

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
]

PASSWORD = "a-Long-pass-4321"


@pytest.fixture
def director(django_user_model):
    user = django_user_model.objects.create_user(username="td", password=PASSWORD, is_staff=True)
    user.groups.add(directors_group())
    return user


def admin_login(page, base: str) -> None:
    page.goto(f"{base}/admin/login/")
    page.fill("#id_username", "td")
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    page.wait_for_url(f"{base}/admin/")


@pytest.mark.parametrize("locale", ["en-GB", "zh-CN"])
def test_locked_settings_and_the_change_and_rescore_page(
    live_server, director, make_tournament, register_pairs, locale
):
    now = timezone.now()
    tournament = make_tournament(
        name="Winter Swiss",
        start_at=now + timedelta(hours=1),
        registration_opens_at=now - timedelta(days=1),
        round_length=timedelta(minutes=30),
    )
    register_pairs(tournament, 4, now=now)
    clock.start_now(tournament=tournament, by=director)
    clock.close_round_now(tournament=tournament, by=director)
    Round.objects.filter(tournament=tournament, number=1).update(
        clock_note="The bell of 14:20 rang at 14:35: the clock had stalled; "
        "results entered by 14:20 count."
    )
    base = live_server.url
    zh = locale == "zh-CN"
    suffix = "zh" if zh else "en"
    with chromium() as browser:
        page = new_page(browser, locale=locale)
        admin_login(page, base)
        page.goto(f"{base}/admin/tournaments/tournament/{tournament.pk}/change/")
        # The locked settings are shown, not editable.
        assert page.locator("#id_scoring_method").count() == 0
        assert page.locator("#id_completion_threshold").count() == 0
        assert page.locator("#id_round_length").count() == 1
        assert "14:35" in page.content()
        shot(page, f"settings-locked-{suffix}")

        page.click("text=修改设置并重新计分…" if zh else "text=Change settings and re-score…")
        page.wait_for_selector("#id_reason")
        assert page.locator("#id_scoring_method").input_value() == "IMP"
        page.select_option("#id_scoring_method", "MP")
        page.fill("#id_reason", "The flyer said matchpoints")
        page.check("#id_confirm")
        shot(page, f"settings-change-confirm-{suffix}")
        page.click("input[type=submit]")
        page.wait_for_selector(".messagelist")
        text = page.locator(".messagelist").inner_text()
        expected = (
            "计分方法: 总IMP（交叉IMP） → 比赛分（MP）"
            if zh
            else ("scoring method: Total IMPs (cross-IMPs) → Matchpoints")
        )
        assert expected in text, text
        shot(page, f"settings-change-done-{suffix}")
        assert Tournament.objects.get(pk=tournament.pk).scoring_method == "MP"
        assert SettingsChange.objects.filter(tournament=tournament).count() == 1

        page.goto(f"{base}/admin/tournaments/tournament/{tournament.pk}/change/")
        assert "The flyer said matchpoints" in page.content()
        assert "→" in page.locator("#settings_changes-group").inner_text()
        shot(page, f"settings-change-record-{suffix}")


@pytest.mark.parametrize("locale", ["en-GB", "zh-CN"])
def test_a_title_threshold_typo_is_refused_in_admin(live_server, director, locale):
    before = list(RankTitle.objects.order_by("level").values_list("min_master_points", flat=True))
    base = live_server.url
    with chromium() as browser:
        page = new_page(browser, locale=locale)
        admin_login(page, base)
        page.goto(f"{base}/admin/tournaments/ranktitle/")
        page.fill("#id_form-2-min_master_points", "2000")
        page.click("input[name=_save]")
        page.wait_for_selector(".errornote, .errorlist")
        content = page.content()
        assert ("称号门槛必须逐级递增" if locale == "zh-CN" else "must increase") in content
        shot(page, f"title-threshold-refused-{'zh' if locale == 'zh-CN' else 'en'}")
    after = list(RankTitle.objects.order_by("level").values_list("min_master_points", flat=True))
    assert after == before
