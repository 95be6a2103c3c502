"""A team match played online, in headless Chromium (issue 26): both rooms' table pages
open side by side while the closed room is a board behind (the closed-room page shows
nothing of the open room: none of its players, its contracts or its scores); after the
bell the results page and the match's score card; the captain's team page with the
line-up form; the director's console of the team event (teams, each match's two rooms).
English and Chinese, desktop and phone (390 px): the page body never scrolls sideways
and nothing is cut off. Screenshots in the test's tmp dir, a copy in /tmp/team_shots/.

One uvicorn (the site as `make run` serves it, its round clock inside) and one Chromium
for the whole module: one test, the pages in turn."""

from __future__ import annotations

import shutil
from datetime import timedelta
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.utils import timezone

from tests.support.browser.table import DESKTOP, PHONE, seat_page, table_server
from tests.support.online_ws import seated_users
from tests.support.team_events import add_team
from tests.tournaments.test_who_sees_what import _play_to_the_end
from tournaments.models import (
    BoardResult,
    Match,
    PlayerProfile,
    Round,
    Team,
    TeamMember,
    Tournament,
)
from tournaments.services import clock, setup

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

BOARDS = 3
COPY = Path("/tmp/team_shots")
NAMES = [
    "Alice Wang", "Bob Li", "Carol Zhang", "Dave Chen", "Erin Liu", "Frank Zhao",
    "Grace Sun", "Henry Wu", "Ivy Zhou", "Jack Xu", "Kate Ma", "Leo Hu",
    "Mia Guo", "Nick He", "Olga Luo", "Paul Song",
]  # fmt: skip
TEAM_NAMES = ["Lions", "Tigers", "Cranes", "Dragons"]
LOOKS = [("en", DESKTOP), ("zh-hans", PHONE), ("en", PHONE), ("zh-hans", DESKTOP)]
TEXT = {
    "en": {"open": "Open room", "closed": "Closed room", "teams": "Teams", "line_up": "Line-up"},
    "zh-hans": {"open": "开室", "closed": "闭室", "teams": "队伍", "line_up": "阵容"},
}

# Every element that reaches past the viewport's right edge and is not inside a box that
# scrolls or clips sideways (a wide table in its own scroller is fine; a cut-off one not).
CUT_OFF_JS = """() => {
  const w = document.documentElement.clientWidth, out = [];
  for (const el of document.body.querySelectorAll('*')) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0 || r.right <= w + 1) continue;
    let p = el.parentElement, clipped = false;
    while (p && p !== document.body) {
      const o = getComputedStyle(p).overflowX;
      if (o === 'auto' || o === 'scroll' || o === 'hidden') { clipped = true; break; }
      p = p.parentElement;
    }
    if (!clipped) out.push(el.tagName + '.' + el.className + ' ' + Math.round(r.right));
  }
  return out.slice(0, 10);
}"""


def _event():
    """Four teams, two rounds of three boards, online, round 1 open now for an hour."""
    now = timezone.now()
    creator = get_user_model().objects.create_user(
        "team-organiser", password="pw", is_staff=True, is_superuser=True
    )
    event = setup.create_tournament(
        by=creator,
        now=now - timedelta(days=1),
        name="Autumn Teams",
        registration_opens_at=now - timedelta(days=1),
        start_at=now - timedelta(seconds=1),
        rounds=2,
        boards_per_round=BOARDS,
        round_minutes=60,
        play="online",
        contestants="teams",
    )
    for number in range(1, 5):
        team = add_team(event, number, at=now - timedelta(minutes=10))
        team.name = TEAM_NAMES[number - 1]
        team.save(update_fields=["name"])
    members = TeamMember.objects.filter(tournament=event).order_by(
        "team__registration_no", "invited_at", "id"
    )
    for user_id, name in zip(members.values_list("user_id", flat=True), NAMES, strict=True):
        PlayerProfile.objects.filter(user_id=user_id).update(display_name=name)
    clock.advance(now=now)
    assert Round.objects.get(tournament=event, number=1).status == "open"
    return event


def _shot(page, tmp_path: Path, name: str) -> None:
    path = tmp_path / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    COPY.mkdir(exist_ok=True)
    shutil.copy(path, COPY / path.name)


def _fits(page, width: int, what: str) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= width, what
    assert page.evaluate(CUT_OFF_JS) == [], what
    # No table hides a column in its sideways scroller either.
    wide = page.eval_on_selector_all(
        ".table-scroll",
        "els => els.filter(e => e.scrollWidth > e.clientWidth + 1)"
        ".map(e => [e.firstElementChild.className, e.scrollWidth, e.clientWidth])",
    )
    assert wide == [], (what, wide)


def _names(table) -> list[str]:
    return [
        PlayerProfile.objects.get(user=user).display_name for user in seated_users(table).values()
    ]


def test_a_live_team_match_its_pages_and_the_console(tmp_path, director):
    event = _event()
    match = Match.objects.select_related("open_table", "closed_table", "home", "away").get(
        round__tournament=event, round__number=1, number=1
    )
    open_room, closed_room = match.open_table, match.closed_table
    # Boards 1 and 2 over in both rooms (other openings, so the rooms' scores differ),
    # board 3 over in the open room, not started in the closed room.
    for board in (1, 2):
        _play_to_the_end(open_room, board)
        _play_to_the_end(closed_room, board, opening="1D")
    _play_to_the_end(open_room, BOARDS)
    closed_users = seated_users(closed_room)
    open_users = seated_users(open_room)
    open_names, closed_names = _names(open_room), _names(closed_room)
    open_scores = {
        str(score)
        for score in BoardResult.objects.filter(table=open_room).values_list("ns_score", flat=True)
        if score
    }
    base_tables = f"/t/{event.pk}/rounds/1/tables/"
    captain = Team.objects.get(pk=match.home_id).captain
    with table_server(tmp_path) as (base, browser):
        # 1. Both rooms side by side, open room North in English on a desktop, closed
        #    room North in Chinese on a phone (and the other way round).
        for (open_lang, open_size), (closed_lang, closed_size) in (
            (LOOKS[0], LOOKS[1]),
            (LOOKS[2], LOOKS[3]),
        ):
            pages = {
                "open": seat_page(browser, base, open_users["N"], lang=open_lang, size=open_size),
                "closed": seat_page(
                    browser, base, closed_users["N"], lang=closed_lang, size=closed_size
                ),
            }
            pages["open"].goto(f"{base}{base_tables}{open_room.number}/play/")
            pages["closed"].goto(f"{base}{base_tables}{closed_room.number}/play/")
            for page in pages.values():
                page.wait_for_function(
                    "() => document.getElementById('bt').dataset.state === 'connected'"
                )
            pages["closed"].wait_for_function(
                "b => Number(document.getElementById('bt').dataset.board) === b", arg=BOARDS
            )
            closed_text = pages["closed"].inner_text("body")
            # Each page names its room.
            assert pages["open"].get_attribute(".bt-room", "data-room") == "open"
            assert pages["closed"].get_attribute(".bt-room", "data-room") == "closed"
            assert TEXT[closed_lang]["closed"] in pages["closed"].inner_text(".bt-title")
            for name in open_names:
                assert name not in closed_text, name
            assert all(name in closed_text for name in closed_names[:1])
            for score in open_scores:
                assert score not in closed_text, score
            for room, page in pages.items():
                lang, size = (
                    (open_lang, open_size) if room == "open" else (closed_lang, closed_size)
                )
                _fits(page, size[0], f"{room} room {lang} {size[0]}")
                _shot(page, tmp_path, f"team-1-{room}-room-{lang}-{size[0]}")
            for page in pages.values():
                page.context.close()

        # 2. The captain's team page with the line-up form, before the bell.
        for lang, size in LOOKS[:2]:
            page = seat_page(browser, base, captain, lang=lang, size=size)
            page.goto(f"{base}/t/{event.pk}/teams/{match.home_id}/")
            page.wait_for_selector("form.line-up-form")
            assert page.locator("form.line-up-form select").count() == 4
            _fits(page, size[0], f"team page {lang} {size[0]}")
            _shot(page, tmp_path, f"team-2-team-page-{lang}-{size[0]}")
            page.context.close()

        # 3. The bell: round 1 closes, both rooms are scored, round 2 is seated.
        try:
            Round.objects.filter(tournament=event, number=1).update(
                ends_at=timezone.now() + timedelta(seconds=1)
            )
        finally:
            connection.close()
        page = seat_page(browser, base, director)
        page.goto(f"{base}/t/{event.pk}/results/")
        for _ in range(30):
            if Round.objects.filter(tournament=event, number=1, status="closed").exists():
                break
            page.wait_for_timeout(1000)
        connection.close()
        page.context.close()
        match.refresh_from_db()
        assert match.home_vp is not None and match.home_vp + match.away_vp == 20

        # 4. After the bell: the results page, the score card, the console.
        for lang, size in LOOKS:
            text = TEXT[lang]
            page = seat_page(browser, base, director, lang=lang, size=size)
            tag = f"{lang}-{size[0]}"
            page.goto(f"{base}/t/{event.pk}/results/")
            page.wait_for_selector(f"[data-team='{match.home_id}']")
            _fits(page, size[0], f"results {tag}")
            _shot(page, tmp_path, f"team-3-results-{tag}")

            page.goto(f"{base}/t/{event.pk}/matches/{match.pk}/")
            page.wait_for_selector("[data-board='1']")
            card = page.inner_text("main")
            assert text["open"] in card and text["closed"] in card
            assert f"{match.home_vp:.2f}" in card
            _fits(page, size[0], f"score card {tag}")
            _shot(page, tmp_path, f"team-4-match-card-{tag}")

            page.goto(f"{base}/console/{event.pk}/")
            page.wait_for_selector("#matches .match-item")
            assert page.locator("#matches .match-item").count() == 2
            assert page.locator("#teams tr[data-team]").count() == 4
            rooms = page.locator("#matches .match-item").first.locator(".match-rooms li")
            assert rooms.count() == 2
            assert text["open"] in rooms.nth(0).inner_text()
            assert text["closed"] in rooms.nth(1).inner_text()
            assert rooms.nth(0).locator("a.room-watch").get_attribute("href") == (
                f"/t/{event.pk}/rounds/2/tables/1/play/"
            )
            _fits(page, size[0], f"console {tag}")
            # Every board of every room's row lies on the screen (no column cut off).
            cells = page.locator("table.progress-grid td.cell")
            assert cells.count() == 4 * BOARDS
            for i in range(cells.count()):
                box = cells.nth(i).bounding_box()
                assert box is not None and box["x"] >= 0, (tag, i)
                assert box["x"] + box["width"] <= size[0], (tag, i)
            _shot(page, tmp_path, f"team-5-console-{tag}")
            for part in ("matches", "teams"):
                path = tmp_path / f"team-6-console-{part}-{tag}.png"
                page.locator(f"#{part}").screenshot(path=str(path))
                shutil.copy(path, COPY / path.name)
            # A room's link leads to its row of the progress grid (result forms, rulings).
            rooms.nth(1).locator("a.room-progress").click()
            assert page.locator("tr#table-2 td.cell").count() == BOARDS
            if (lang, size) in LOOKS[:2]:
                _new_team_event(page, base, size[0], tmp_path, tag)
            page.context.close()


def _new_team_event(page, base: str, width: int, tmp_path: Path, tag: str) -> None:
    """The console's new-event form: teams chosen, the team fields show and the pairs'
    hide; a round robin in IMPs created through the setup service."""
    page.goto(f"{base}/console/new/")
    team_field = page.locator("[data-field='team_scoring']")
    pairs_field = page.locator("[data-field='neuberg']")
    assert team_field.is_hidden() and pairs_field.is_visible()
    page.check("input[name='contestants'][value='teams']")
    assert team_field.is_visible() and pairs_field.is_hidden()
    assert page.locator("[data-field='bye_vp']").is_visible()
    name = f"Round robin {tag}"
    page.fill("#id_name", name)
    start = timezone.localtime() + timedelta(days=1)
    page.fill("#id_start_at", start.strftime("%Y-%m-%dT%H:%M"))
    page.fill("#id_rounds", "3")
    page.fill("#id_boards_per_round", "8")
    page.fill("#id_round_minutes", "60")
    page.select_option("#id_seating", "round_robin")
    page.select_option("#id_team_scoring", "imps")
    _fits(page, width, f"new team event {tag}")
    _shot(page, tmp_path, f"team-7-console-new-{tag}")
    page.click("form.console-form button[type=submit]")
    page.wait_for_selector("#team-event")
    created = Tournament.objects.get(name=name)
    connection.close()
    assert (created.contestants, created.seating, created.team_scoring) == (
        "teams",
        "round_robin",
        "imps",
    )
