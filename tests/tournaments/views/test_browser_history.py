"""The board page's result history in a real headless Chromium: organisers see who
changed what (English and Chinese); a player sees the results only."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from tests.support.browser.events import make_people, running_event
from tests.support.browser.pw import log_in, new_page, shot
from tournaments.models import Round
from tournaments.services import clock, results

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]


def test_the_board_history_is_for_organisers(browser, live_server, make_tournament, make_user):
    from tournaments.services.permissions import directors_group

    director = make_user("td", name="Tina Director")
    director.is_staff = True
    director.save(update_fields=["is_staff"])
    director.groups.add(directors_group())
    people = make_people(make_user, 4)
    now = timezone.now()
    tournament, _round1, (table,) = running_event(
        make_tournament, people, n_pairs=2, name="Winter Swiss", scoring_method="MP",
        now=now, start_at=now - timedelta(minutes=5), opened_at=now - timedelta(minutes=4),
    )  # fmt: skip
    alice, bob_side = table.ns_pair.player1, table.ew_pair.player1

    def enter(tricks, at):
        return results.submit_result(
            table=table,
            board_number=1,
            entry=results.ContractEntry(contract="3NT", declarer="N", tricks=tricks),
            user=alice,
            now=at,
        )

    result = enter(9, now - timedelta(minutes=3))
    result = enter(10, now - timedelta(minutes=2))
    results.confirm_result(result=result, user=bob_side, now=now - timedelta(minutes=1))
    clock.close_round_now(tournament=tournament, by=director, round_number=1, now=now)
    results.director_set_result(
        table=table, board_number=1, by=director, ns_adjustment="A+", ew_adjustment="A-",
        reason="Hesitation before the final pass (Law 16)", now=now + timedelta(seconds=30),
    )  # fmt: skip
    assert Round.objects.get(pk=table.round_id).status == "closed"
    url = f"{live_server.url}/t/{tournament.id}/boards/1/"

    player = new_page(browser)
    log_in(player, live_server.url, alice.username, f"pw-{alice.username}")
    player.goto(url)
    assert player.locator("#history").count() == 0
    assert "Hesitation" not in player.inner_text("main")
    player.context.close()

    languages = (("en-GB", "en", "board-history-en"), ("zh-CN", "zh-hans", "board-history-zh"))
    for locale, language, name in languages:
        page = new_page(browser, locale=locale)
        log_in(page, live_server.url, "td", "pw-td")
        if language == "zh-hans":
            page.goto(live_server.url + "/")
            page.select_option("#language", "zh-hans")
            page.wait_for_selector("html[lang=zh-hans]")
        page.goto(url)
        history = page.locator("#history")
        history.wait_for()
        text = history.inner_text()
        assert "Hesitation before the final pass (Law 16)" in text
        assert ("Result history" if language == "en" else "成绩变更记录") in text
        assert ("Tina Director" in text) and ("Alice Wang" in text)
        kinds = history.locator("tr[data-kind]").evaluate_all(
            "rows => rows.map(r => r.dataset.kind)"
        )
        assert kinds == ["entry", "correction", "confirmation", "adjustment", "rescore"]
        history.scroll_into_view_if_needed()
        shot(page, name)
        # The same history on the result's admin page, read-only.
        page.goto(f"{live_server.url}/admin/tournaments/boardresult/{result.pk}/change/")
        admin_history = page.locator("table.result-history")
        admin_history.wait_for()
        assert "Hesitation before the final pass (Law 16)" in admin_history.inner_text()
        assert admin_history.locator("tr[data-kind]").count() == len(kinds)
        shot(page, f"admin-{name}")
        page.context.close()
