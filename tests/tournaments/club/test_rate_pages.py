"""The Rate list and a player's Rate week by week (RULES 13): pages, API, and in Chromium
with screenshots (English and Chinese, desktop and phone)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from tests.support.browser.pw import shot
from tournaments.models import ClubRating, ClubWeek, ClubWeekFigure, PlayerProfile

MONDAY = datetime(2026, 9, 6, 16, 0, tzinfo=UTC)  # Monday 00:00 in Shanghai
WEEKS = 8


def _history(make_user, *, carried: float, rates: list[float], name: str):
    user = make_user(name=name)
    weeks = []
    for i, _rate in enumerate(rates):
        start = MONDAY + timedelta(weeks=i)
        week, _ = ClubWeek.objects.get_or_create(
            starts_at=start,
            defaults={
                "ends_at": start + timedelta(weeks=1),
                "closed_at": start + timedelta(weeks=1),
            },
        )
        weeks.append(week)
    total = 0
    for week, rate in zip(weeks, rates, strict=True):
        total += 20
        ClubWeekFigure.objects.create(
            week=week, user=user, rate=rate, carried=carried, week_rate=rate, rated_boards=20,
            total_boards=total, points=rate - 50, boards=20,
        )  # fmt: skip
    ClubRating.objects.create(
        user=user, rate=rates[-1], carried=carried, total_boards=total, week=weeks[-1]
    )
    return user


@pytest.fixture
def rated(make_user):
    rises = [50.0, 51.2, 52.9, 52.4, 54.1, 55.35, 56.0, 57.25]
    return {
        "listed": _history(make_user, carried=120.0, rates=rises, name="Wang Fang"),
        "second": _history(make_user, carried=50.0, rates=[50.0] * WEEKS, name="Li Wei"),
        # 49.99 boards carried: not on the list (RULES 13: at least 50).
        "unlisted": _history(make_user, carried=49.99, rates=[61.0] * WEEKS, name="Zhao Min"),
    }


@pytest.mark.django_db
def test_the_list_holds_players_carrying_50_boards_by_rate(client, rated):
    page = client.get("/club/rate/").content.decode()
    assert page.index("Wang Fang") < page.index("Li Wei")
    assert "Zhao Min" not in page
    assert "57.3" in page  # 57.25 to one decimal, a half up
    api = client.get("/api/v1/club/rate").json()
    assert [line["name"] for line in api] == ["Wang Fang", "Li Wei"]
    assert api[0]["rate"] == 57.3 and api[0]["total_boards"] == 160
    assert api[0]["last_week_average"] == pytest.approx((57.25 - 50) / 20)


@pytest.mark.django_db
def test_a_players_page_draws_the_rate_week_by_week(client, rated):
    user = rated["unlisted"]
    page = client.get(f"/club/players/{user.pk}/").content.decode()
    assert "not listed yet" in page
    assert page.count("data-week-rate=") == WEEKS
    api = client.get(f"/api/v1/club/players/{rated['listed'].pk}/rate").json()
    assert [w["rate"] for w in api["weeks"]] == [50.0, 51.2, 52.9, 52.4, 54.1, 55.4, 56.0, 57.3]
    assert api["listed"] is True
    assert client.get("/club/players/999999/").status_code == 404
    assert client.get("/api/v1/club/players/999999/rate").status_code == 404


@pytest.mark.django_db
def test_a_player_not_rated_yet_says_so(client, make_user):
    user = make_user(name="Newcomer")
    page = client.get(f"/club/players/{user.pk}/").content.decode()
    assert "Not rated yet" in page and "data-rate-chart" not in page
    assert client.get(f"/api/v1/club/players/{user.pk}/rate").json()["rated"] is False


SIZES = {"desktop": (1280, 900), "phone": (390, 844)}


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_rate_list_and_chart_in_both_languages(open_page, live_server, make_user):
    rises = [50.0, 51.2, 52.9, 52.4, 54.1, 55.35, 56.0, 57.25]
    star = _history(make_user, carried=120.0, rates=rises, name="Wang Fang")
    _history(make_user, carried=50.0, rates=[50.0] * WEEKS, name="Li Wei")
    PlayerProfile.objects.filter(user=star).update(display_name="王芳")
    for lang, locale in (("en", "en-GB"), ("zh-hans", "zh-CN")):
        for size, (width, height) in SIZES.items():
            page = open_page(locale=locale, width=width, height=height)
            page.context.add_cookies(
                [{"name": "django_language", "value": lang, "url": live_server.url}]
            )
            errors: list[str] = []
            page.on("pageerror", lambda error, errors=errors: errors.append(str(error)))
            page.goto(f"{live_server.url}/club/rate/")
            rows = page.locator("[data-rate-list] tbody tr")
            assert rows.count() == 2
            assert "57.3" in rows.first.inner_text() and "王芳" in rows.first.inner_text()
            assert page.evaluate("document.documentElement.scrollWidth") <= width
            shot(page, f"club-rate-list-{lang}-{size}")
            page.click("text=王芳")
            page.wait_for_selector("[data-rate-chart]")
            assert page.locator("[data-rate-chart] circle").count() == WEEKS
            box = page.locator("[data-rate-chart]").bounding_box()
            assert box is not None and box["width"] > 300 and box["height"] > 100
            assert page.evaluate("document.documentElement.scrollWidth") <= width
            assert errors == [], errors
            shot(page, f"club-rate-player-{lang}-{size}")
            page.close()
