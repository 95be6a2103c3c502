"""The team ladder's page in a real headless Chromium (RULES 11): the standing ladder with
its open challenge, its latest history and a captain's challenge form, and a ladder
team's page, on a desktop and on a phone (390×844), in English and Chinese: nothing wider
than the screen, every team's row whole. Screenshots go to
test-artifacts/screenshots/ladder-*.png (looked at by the author)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.urls import reverse

from tests.support.browser.pw import log_in, shot
from tournaments.models import LadderTeam
from tournaments.services import ladder as services

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

PHONE = {"width": 390, "height": 844}
TEAM_NAMES = [
    "北京飞龙",
    "上海明珠队",
    "Canton Tigers",
    "杭州西湖",
    "Shenzhen Bay Bridge Club",
    "成都熊猫",
]

WIDTHS = """() => ({
    page: document.documentElement.scrollWidth,
    screen: window.innerWidth,
    rows: [...document.querySelectorAll('[data-team]')].map(row => {
        const box = row.getBoundingClientRect();
        return box.width > 0 && box.right <= window.innerWidth + 1;
    }),
})"""


@pytest.fixture
def ladder(make_user, organiser):
    ladder = services.create_ladder(name="周末梯级挑战赛 Weekend ladder", by=organiser)
    for n, name in enumerate(TEAM_NAMES, start=1):
        captain = make_user(f"ladcap{n}", name=f"队长{n}" if n % 2 else f"Captain {n}")
        services.enter_team(
            ladder=ladder,
            captain=captain,
            name=name,
            members=[make_user(f"lad{n}p{k}", name=f"牌手{n}{k}") for k in range(1, 4)],
        )
    teams = {t.position: t for t in LadderTeam.objects.filter(ladder=ladder)}
    played = services.challenge(challenger=teams[4], challenged=teams[2], by=teams[4].captain)
    services.accept(challenge=played, by=teams[2].captain)
    services.record_result(challenge=played, challenger_vp=Decimal("14.12"), by=organiser)
    teams = {t.position: t for t in LadderTeam.objects.filter(ladder=ladder)}
    services.challenge(challenger=teams[6], challenged=teams[5], by=teams[6].captain)
    return ladder


def _whole(page) -> None:
    widths = page.evaluate(WIDTHS)
    assert widths["page"] <= widths["screen"] + 1, widths
    assert widths["rows"] and all(widths["rows"]), widths


@pytest.mark.parametrize("locale", ["en-GB", "zh-CN"])
def test_the_ladder_page_on_a_desktop_and_a_phone(open_page, live_server, ladder, locale):
    tag = "en" if locale == "en-GB" else "zh"
    url = f"{live_server.url}{reverse('ladder', args=[ladder.pk])}"
    # The captain of the team now at position 5 sees the challenge form.
    third = LadderTeam.objects.get(ladder=ladder, position=3)
    for size, viewport in (("desktop", {"width": 1280, "height": 900}), ("phone", PHONE)):
        page = open_page(locale=locale, **viewport)
        log_in(page, live_server.url, third.captain.username, f"pw-{third.captain.username}")
        page.goto(url)
        text = page.inner_text("main")
        # The winner moved up: the team that was fourth now stands second.
        assert page.locator("[data-team]").first.is_visible()
        for name in TEAM_NAMES:
            assert name in text
        if tag == "zh":
            assert "挑战" in text
        else:
            assert "challenge" in text.lower()
        assert page.locator('select[name="challenged"]').count() == 1
        _whole(page)
        shot(page, f"ladder-{tag}-{size}")
        team_url = f"{live_server.url}{reverse('ladder_team', args=[ladder.pk, third.pk])}"
        page.goto(team_url)
        assert third.name in page.inner_text("main")
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
        shot(page, f"ladder-team-{tag}-{size}")


@pytest.mark.parametrize("locale", ["en-GB", "zh-CN"])
def test_the_consoles_ladder_page(open_page, live_server, ladder, director, locale):
    from tournaments.models import LadderChallenge

    tag = "en" if locale == "en-GB" else "zh"
    open_one = LadderChallenge.objects.get(ladder=ladder, state="open")
    services.accept(challenge=open_one, by=open_one.challenged.captain)
    director.set_password("pw-director")
    director.save()
    url = f"{live_server.url}{reverse('console_ladder', args=[ladder.pk])}"
    for size, viewport in (("desktop", {"width": 1280, "height": 900}), ("phone", PHONE)):
        page = open_page(locale=locale, **viewport)
        log_in(page, live_server.url, "director", "pw-director")
        page.goto(url)
        assert page.locator("form[data-result]").count() == 1
        _whole(page)
        shot(page, f"ladder-console-{tag}-{size}")
    # The director records the result from the page: the challenger moves up.
    page.fill("form[data-result] input[name=challenger_vp]", "12.5")
    page.click("form[data-result] button")
    page.wait_for_selector(".message.success")
    open_one.refresh_from_db()
    assert open_one.state == "played"
