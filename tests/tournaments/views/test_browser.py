"""The players' and public pages in a real headless Chromium (Playwright, sync API).

Each test drives the pages as people would: two browser contexts are two players on
their own devices. Expected numbers are worked out here from the Laws and the WBF IMP
table, not read back from the application. Screenshots go to test-artifacts/screenshots/.
"""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from tests.support.browser.events import fill_round, make_people, running_event
from tests.support.browser.pw import log_in, shot
from tournaments.deals import hands_of
from tournaments.models import BoardResult, Pair, Round
from tournaments.services import analysis
from tournaments.services.clock import advance
from tournaments.services.results import ContractEntry, submit_result

pytestmark = [
    pytest.mark.browser,
    # The live server needs committed data; serialized_rollback puts back the rank
    # titles (a data migration) that the flush after each test would wipe.
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

WAIT_MS = 5_000  # "updates itself within 5 seconds"

# WBF IMP scale, lower bound of each step (RULES 5.2), written out independently.
IMP_STEPS = [20, 50, 90, 130, 170, 220, 270, 320, 370, 430, 500, 600, 750, 900, 1100, 1300]
IMP_STEPS += [1500, 1750, 2000, 2250, 2500, 3000, 3500, 4000]


def imps(difference: int) -> int:
    return sum(1 for step in IMP_STEPS if abs(difference) >= step) * (1 if difference >= 0 else -1)


def cross_imps(scores: list[int]) -> list[float]:
    """Each result IMPed against every other, averaged over the comparisons (RULES 5.3)."""
    others = len(scores) - 1
    return [
        sum(imps(s - o) for j, o in enumerate(scores) if j != i) / others
        for i, s in enumerate(scores)
    ]


def signed(value: float) -> str:
    text = f"{abs(value):.2f}"
    if float(text) == 0:
        return text
    return ("+" if value > 0 else "\u2212") + text


@pytest.fixture
def people(make_user):
    return make_people(make_user, 12)


def test_sign_up_propose_and_partner_confirms(open_page, live_server, make_tournament):
    now = timezone.now()
    tournament = make_tournament(
        name="Winter Swiss",
        start_at=now + timedelta(hours=3),
        registration_opens_at=now - timedelta(hours=1),
    )
    base = live_server.url
    t_url = f"{base}/t/{tournament.id}/"

    alice, bob = open_page(), open_page()
    for page, username, name in ((alice, "alice", "Alice Wang"), (bob, "bob", "Bob Li")):
        page.goto(f"{base}/accounts/signup/?next=/t/{tournament.id}/")
        page.fill("#id_username", username)
        page.fill("#id_display_name", name)
        page.fill("#id_password1", "a-Long-pass-4321")
        page.fill("#id_password2", "a-Long-pass-4321")
        if username == "alice":
            shot(page, "01-signup")
        page.click("form.stacked button[type=submit]")
        page.wait_for_url(t_url)

    # Naming somebody who does not exist is refused in plain words.
    alice.fill("#id_partner", "nobody")
    alice.click("text=Invite partner")
    alice.wait_for_selector(".message.error")
    assert "no player called" in alice.inner_text(".messages")

    alice.fill("#id_partner", "bob")
    alice.click("text=Invite partner")
    alice.wait_for_selector(".message.success")
    assert "You invited Bob Li" in alice.inner_text(".messages")
    assert "The pair is registered once they confirm" in alice.inner_text("#register")
    shot(alice, "02-proposed")

    bob.goto(f"{base}/")
    invitation = bob.locator(".invitations")
    assert "Alice Wang invites you to play Winter Swiss as a pair." in invitation.inner_text()
    shot(bob, "03-home-invitation")
    invitation.locator("button", has_text="Confirm").click()
    bob.wait_for_selector(".message.success")
    assert "You are registered with Alice Wang as pair no. 1" in bob.inner_text(".messages")

    alice.reload()
    assert "Registered as pair no. 1: Alice Wang – Bob Li." in alice.inner_text("#register")
    assert "Alice Wang – Bob Li" in alice.inner_text(".pair-list")
    shot(alice, "04-registered")
    pair = Pair.objects.get(tournament=tournament)
    assert (pair.status, pair.registration_no) == ("confirmed", 1)

    # Withdrawing asks first.
    alice.click("text=Withdraw…")
    assert "Withdraw your pair?" in alice.inner_text("h1")
    shot(alice, "05-withdraw-confirm")
    alice.click("text=Yes, withdraw")
    alice.wait_for_selector(".message.success")
    pair.refresh_from_db()
    assert pair.withdrawn_at is not None


def test_seated_player_enters_result_and_opponent_confirms(
    open_page, live_server, make_tournament, people
):
    tournament, round1, tables = running_event(make_tournament, people, n_pairs=2)
    base = live_server.url
    table = tables[0]  # NS Alice–Bob, EW Carol–Dave (registration order)

    alice = open_page()
    log_in(alice, base, "alice", "pw-alice")
    alice.goto(f"{base}/t/{tournament.id}/")
    your_table = alice.locator(".your-table")
    text = your_table.inner_text()
    assert "Carol Zhang – Dave Chen" in text and "NS" in text
    assert re.search(r"table\s*1", text, re.IGNORECASE)
    shot(alice, "10-tournament-your-table")
    your_table.locator("text=Enter results").click()
    # A table is addressed by its round and number (the id address redirects there).
    alice.wait_for_url(
        f"{base}/t/{tournament.id}/rounds/{table.round.number}/tables/{table.number}/"
    )

    # Board 1 (nobody vulnerable): 4♠ by North, 11 tricks, ♥K lead.
    row = alice.locator("#board-row-1")
    row.locator("select[name=b1-level]").select_option("4")
    row.locator("select[name=b1-strain]").select_option("S")
    row.locator("select[name=b1-declarer]").select_option("N")
    row.locator("select[name=b1-result]").select_option("+1")
    row.locator("select[name=b1-lead_suit]").select_option("H")
    row.locator("select[name=b1-lead_rank]").select_option("K")
    row.locator("button", has_text="Save result").click()
    expected = 4 * 30 + 300 + 30  # trick score, non-vulnerable game, one overtrick
    alice.wait_for_selector(f"#board-row-1 [data-ns-score='{expected}']")
    assert f"NS +{expected}" in alice.inner_text("#board-row-1 .br-score")
    assert "Waiting for the opponents to confirm" in alice.inner_text("#board-row-1")

    # A mistake is explained next to its board: no declarer.
    row2 = alice.locator("#board-row-2")
    row2.locator("select[name=b2-level]").select_option("3")
    row2.locator("select[name=b2-strain]").select_option("NT")
    row2.locator("select[name=b2-result]").select_option("=")
    row2.locator("button", has_text="Save result").click()
    alice.wait_for_selector("#board-row-2 .form-errors")
    assert "Who was declarer" in alice.inner_text("#board-row-2 .form-errors")
    shot(alice, "11-table-entered")

    # The opponents see the result and confirm it.
    carol = open_page()
    log_in(carol, base, "carol", "pw-carol")
    carol.goto(f"{base}/t/{tournament.id}/tables/{table.id}/")
    assert "Please check and confirm" in carol.inner_text("#board-row-1")
    assert f"EW \u2212{expected}" in carol.inner_text("#board-row-1 .br-score")
    carol.locator("#board-row-1 button", has_text="Confirm").click()
    carol.wait_for_selector("#board-row-1 .badge.confirmed")
    shot(carol, "12-table-opponent-confirmed")
    result = BoardResult.objects.get(table=table, board__number=1)
    assert result.confirmed_by.username == "carol" and result.ns_score == expected

    # Alice's page follows by itself, without a reload.
    alice.wait_for_selector("#board-row-1 .badge.confirmed", timeout=WAIT_MS)
    assert "Confirmed by Carol Zhang" in alice.inner_text("#board-row-1")

    # Board 2 passed out, then the opponents dispute it.
    row2.locator("select[name=b2-level]").select_option("P")
    row2.locator("button", has_text="Save result").click()
    alice.wait_for_selector("#board-row-2 [data-ns-score='0']")
    carol.wait_for_selector("#board-row-2 .br-confirm", timeout=WAIT_MS)
    carol.locator("#board-row-2 summary", has_text="Dispute").click()
    carol.fill("#board-row-2 input[name=b2-note]", "We played 2♥ making")
    carol.locator("#board-row-2 button", has_text="Dispute").click()
    carol.wait_for_selector("#board-row-2 .badge.disputed")
    assert BoardResult.objects.get(table=table, board__number=2).disputed
    alice.wait_for_selector("#board-row-2 .badge.disputed", timeout=WAIT_MS)
    shot(alice, "13-table-disputed")

    # Somebody from another table gets 403 here.
    erin_event_user = people[4]
    other = open_page()
    log_in(other, base, erin_event_user.username, f"pw-{erin_event_user.username}")
    response = other.goto(f"{base}/t/{tournament.id}/tables/{table.id}/")
    assert response.status == 403


def test_after_the_bell_the_form_refuses(open_page, live_server, make_tournament, people):
    tournament, round1, tables = running_event(make_tournament, people, n_pairs=2)
    base = live_server.url
    alice = open_page()
    log_in(alice, base, "alice", "pw-alice")
    alice.goto(f"{base}/t/{tournament.id}/tables/{tables[0].id}/")
    assert alice.is_visible("#board-row-1 form.result-form")

    # The bell rang a second ago (nobody has run the clock yet).
    now = timezone.now()
    Round.objects.filter(pk=round1.pk).update(
        starts_at=now - timedelta(minutes=20), ends_at=now - timedelta(seconds=1)
    )
    row = alice.locator("#board-row-1")
    row.locator("select[name=b1-level]").select_option("3")
    row.locator("select[name=b1-strain]").select_option("NT")
    row.locator("select[name=b1-declarer]").select_option("S")
    row.locator("select[name=b1-tricks]").select_option("9")
    row.locator("button", has_text="Save result").click()
    alice.wait_for_selector("#board-row-1 .refusal")
    message = alice.inner_text("#board-row-1 .refusal")
    assert "Round 1 closed at" in message and "can no longer be entered" in message
    alice.wait_for_selector("#round-clock.phase-bell", timeout=WAIT_MS)
    shot(alice, "14-table-after-bell")
    assert not BoardResult.objects.filter(table=tables[0]).exists()


def test_live_standings_results_and_board_pages(open_page, live_server, make_tournament, people):
    tournament, round1, tables = running_event(
        make_tournament, people, n_pairs=6, name="Cross-IMP Swiss", scoring_method="IMP"
    )
    base = live_server.url
    viewer = open_page()
    viewer.goto(f"{base}/t/{tournament.id}/")
    assert "Standings appear here when the first round closes." in viewer.inner_text("#live")
    assert "Round 1 ends in" in viewer.inner_text("#round-clock")
    shot(viewer, "20-tournament-round1")

    # Board 1: nobody vulnerable. Board 2: NS vulnerable.
    plays = {
        # table: [(board, entry), …] and the NS score each makes, worked out by hand
        1: [(1, ContractEntry("4S", "N", 11, lead="HK"), 120 + 300 + 30),
            (2, ContractEntry("3NT", "S", 9), 100 + 500)],
        2: [(1, ContractEntry("4S", "N", 10), 120 + 300),
            (2, ContractEntry("4HX", "E", 8), 100 + 200)],  # −2 doubled, not vul.: NS +300
        3: [(1, ContractEntry("4S", "N", 9), -50),
            (2, ContractEntry("PASS"), 0)],
    }  # fmt: skip
    during = round1.starts_at + timedelta(minutes=2)
    for number, entries in plays.items():
        table = tables[number - 1]
        for board, entry, _score in entries:
            submit_result(
                table=table,
                board_number=board,
                entry=entry,
                user=table.ns_pair.player1,
                now=during,
            )
    by_board = {b: [s for e in plays.values() for (bb, _, s) in e if bb == b] for b in (1, 2)}
    assert by_board == {1: [450, 420, -50], 2: [600, 300, 0]}
    board_imps = {b: cross_imps(scores) for b, scores in by_board.items()}
    ns_totals = [board_imps[1][i] + board_imps[2][i] for i in range(3)]
    # NS of tables 1–3 are pairs 1, 3, 5; EW are 2, 4, 6 with the negated scores.
    totals = {}
    for i, table in enumerate(tables):
        totals[table.ns_pair_id] = ns_totals[i]
        totals[table.ew_pair_id] = -ns_totals[i]

    advance(now=round1.ends_at)  # the bell: cut off, score, seat round 2

    # The open page updates itself: standings, clock and seating of round 2.
    viewer.wait_for_selector("table.standings", timeout=WAIT_MS)
    assert "Standings after round 1" in viewer.inner_text("#live")
    assert "Round 2 starts in" in viewer.inner_text("#round-clock") or "Round 2 ends in" in (
        viewer.inner_text("#round-clock")
    )
    assert "Seating, round 2" in viewer.inner_text("#live")
    standing_rows = viewer.locator("table.standings tbody tr")
    first = standing_rows.nth(0).inner_text()
    best = max(totals, key=totals.get)
    assert Pair.objects.get(pk=best).names in first and signed(totals[best]) in first
    shot(viewer, "21-tournament-live-standings")

    # Results page: every pair's total and its score on every board.
    viewer.goto(f"{base}/t/{tournament.id}/results/")
    for pair_id, value in totals.items():
        row = viewer.locator(f"tr[data-pair='{pair_id}']")
        assert row.locator("td.total").inner_text() == signed(value)
        at = next(i for i, t in enumerate(tables) if pair_id in (t.ns_pair_id, t.ew_pair_id))
        sign = 1 if tables[at].ns_pair_id == pair_id else -1
        for board in (1, 2):
            cell = row.locator(f"td[data-board='{board}']").inner_text()
            assert cell == signed(sign * board_imps[board][at])
        assert row.locator("td.boards").inner_text() == "2"
    shot(viewer, "22-results")

    # A board score opens the board page with every result.
    viewer.locator(f"tr[data-pair='{tables[0].ns_pair_id}'] td[data-board='1'] a").click()
    viewer.wait_for_url(f"{base}/t/{tournament.id}/boards/1/")
    lines = viewer.locator("table.traveller tbody tr")
    assert lines.count() == 3
    top = lines.nth(0).inner_text()
    assert "4♠" in top and "450" in top and signed(board_imps[1][0]) in top
    assert "♥K" in top
    bottom = lines.nth(2).inner_text()
    assert "\u221250" in bottom and signed(board_imps[1][2]) in bottom
    # The hand diagram is the stored deal, suit by suit.
    deal = tournament.boards.get(number=1).deal
    for seat, holding in hands_of(deal).items():
        hand_text = viewer.inner_text(f".hand.seat-{seat}")
        for suit in "SHDC":
            cards = " ".join("10" if r == "T" else r for r in holding[suit]) or "—"
            assert cards in hand_text
    # The clock has not analysed the board yet: the page says so, then, once the clock's
    # analysis has run (off the request path), shows it without a reload.
    assert "Analysis is being prepared" in viewer.inner_text("#dd")
    assert not viewer.is_visible("table.dd-table")
    assert analysis.analyse_pending_boards(limit=None) == 2  # what the clock does
    viewer.wait_for_selector("table.dd-table", timeout=WAIT_MS + 5_000)  # polls every 5 s
    assert "Par" in viewer.inner_text("#dd") and "being prepared" not in viewer.inner_text("#dd")
    assert viewer.locator(".suit.red").count() >= 8  # ♥ and ♦ are red in all four hands
    shot(viewer, "23-board")

    viewer.goto(f"{base}/t/{tournament.id}/pairs/{tables[0].ns_pair_id}/")
    assert viewer.is_visible("svg.chart.positions") and viewer.is_visible("svg.chart.totals")
    shot(viewer, "24-pair")

    # Board 3 is round 2's and not closed: no hand record yet.
    viewer.goto(f"{base}/t/{tournament.id}/boards/3/")
    assert "shown after the round closes" in viewer.inner_text("main")
    assert not viewer.is_visible(".diagram")


def test_language_switch_shows_chinese(open_page, live_server, make_tournament, people):
    tournament, round1, tables = running_event(make_tournament, people, n_pairs=4)
    base = live_server.url
    alice = open_page()
    log_in(alice, base, "alice", "pw-alice")
    assert "Playing now" in alice.inner_text("main")
    alice.select_option("#language", "zh-hans")
    alice.wait_for_selector("text=正在进行")
    assert alice.locator("html").get_attribute("lang") == "zh-hans"
    shot(alice, "30-home-zh")
    alice.goto(f"{base}/t/{tournament.id}/")
    assert "你的牌桌" in alice.inner_text(".your-table")
    shot(alice, "31-tournament-zh")
    alice.goto(f"{base}/t/{tournament.id}/tables/{tables[0].id}/")
    assert "定约" in alice.inner_text("#board-row-1")
    shot(alice, "32-table-zh")
    # A phone-sized screen.
    phone = open_page(locale="zh-CN", width=390, height=844)
    phone.goto(f"{base}/t/{tournament.id}/")
    assert phone.locator("html").get_attribute("lang") == "zh-hans"
    shot(phone, "33-tournament-phone-zh")
    log_in(phone, base, "carol", "pw-carol")
    phone.goto(f"{base}/t/{tournament.id}/tables/{tables[0].id}/")
    assert "首攻" in phone.inner_text("#board-row-1")
    shot(phone, "34-table-phone-zh")


def test_finished_event_results_home_and_profile(open_page, live_server, make_tournament, people):
    tournament, round1, tables = running_event(
        make_tournament, people, n_pairs=6, name="Spring MP Pairs", scoring_method="MP", rounds=2
    )
    # Everyone plays everything but table 3 in round 1 (its pairs fall under 70 %).
    fill_round(round1, seed=11, skip_every=3)
    advance(now=round1.ends_at)
    round2 = Round.objects.get(tournament=tournament, number=2)
    advance(now=round2.starts_at)
    fill_round(round2, seed=12)
    advance(now=round2.ends_at)
    tournament.refresh_from_db()
    assert tournament.status == "finished"
    ranked = list(Pair.objects.filter(tournament=tournament).order_by("rank", "registration_no"))
    winner = ranked[0]
    base = live_server.url

    page = open_page()
    page.goto(f"{base}/t/{tournament.id}/results/")
    row = page.locator(f"tr[data-pair='{winner.id}']")
    assert row.locator("td").first.inner_text() == "1"
    assert row.locator("td.total").inner_text() == f"{winner.total:.2f}%"
    for pair in Pair.objects.filter(tournament=tournament, completed=False):
        assert "did not complete" in page.locator(f"tr[data-pair='{pair.id}']").inner_text()
    shot(page, "25-results-final")

    page.goto(f"{base}/")
    card = page.locator(".tcard.finished")
    assert winner.names in card.inner_text()
    shot(page, "26-home-finished")

    page.goto(f"{base}/players/{winner.player1.username}/")
    assert "3" in page.inner_text(".stats") and "Ranked player" in page.inner_text(".stats")
    shot(page, "27-profile")
