"""A claim at the table in the browser (issue 24, item 1; Law 68): declarer claims with a
typed line of play; the other three see the claimer's hand face up, the total ("North
claims 11 tricks: 3NT making with 2 over", in Chinese too) and the statement. Rejected,
the hand is hidden again and play goes on; claimed again and accepted, the board is
over; a second click meant for "Next board" makes no call with the box drawn where the
button was. English and Chinese, desktop and phone, with screenshots."""

from __future__ import annotations

import pytest

from scoring import SEATS, partner_of, side_of
from tests.support.browser.pw import shot
from tests.support.browser.table import (
    DESKTOP,
    PHONE,
    act,
    actor_of,
    armed,
    play_url,
    seat_page,
    table_server,
    views,
    wait_seq,
)
from tests.support.online_ws import open_online_round, seated_users
from tournaments.models import BoardResult

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LOOKS = {"N": ("en", DESKTOP), "E": ("zh-hans", DESKTOP), "S": ("en", PHONE),
         "W": ("zh-hans", PHONE)}  # fmt: skip
STATEMENT = "Cash the ♠A K, then run the clubs; the ♥ loser goes on the long club."


def shown_cards(page, seat: str) -> set[str]:
    return set(
        page.eval_on_selector_all(
            f".bt-hand[data-seat={seat}] [data-card]", "els => els.map(e => e.dataset.card)"
        )
    )


def outcome_words(claim: dict, lang: str) -> str:
    outcome = claim["outcome"]
    if lang == "en":
        if not outcome["made"]:
            return f"down {outcome['undertricks']}"
        return f"making with {outcome['overtricks']} over" if outcome["overtricks"] else "making"
    if not outcome["made"]:
        return f"宕 {outcome['undertricks']}"
    return f"做成，超 {outcome['overtricks']} 墩" if outcome["overtricks"] else "做成"


def test_a_claim_shows_the_hand_the_total_and_the_line_of_play(
    make_tournament, register_pairs, tmp_path
):
    first_round, tables = open_online_round(make_tournament, register_pairs, boards=2)
    table = tables[0]
    users = seated_users(table)
    # The auction and two tricks through the service: the dealer opens 3NT, all pass.
    now = views(table, users)
    dealer = now["N"]["dealer"]
    act(table, users[dealer], 1, now[dealer], type="call", call="3NT")
    for _ in range(3):
        now = views(table, users)
        seat = actor_of(now)
        act(table, users[seat], 1, now[seat], type="call", call="P")
    for _ in range(8):
        now = views(table, users)
        seat = actor_of(now)
        act(table, users[seat], 1, now[seat], type="card", card=now[seat]["legal"][0])
    declarer = views(table, users)["N"]["declarer"]
    dummy = partner_of(declarer)
    defenders = [seat for seat in SEATS if side_of(seat) != side_of(declarer)]
    seq = views(table, users)["N"]["next_seq"] - 1

    with table_server(tmp_path) as (base, browser):
        pages = {}
        for seat in SEATS:
            lang, size = LOOKS[seat]
            pages[seat] = seat_page(browser, base, users[seat], lang=lang, size=size)
            pages[seat].goto(base + play_url(table))
        wait_seq(pages.values(), seq)
        claimer = pages[declarer]
        held = set(views(table, users)[declarer]["hands"][declarer])
        # Before the claim the defenders do not see declarer's hand.
        for seat in defenders:
            assert shown_cards(pages[seat], declarer) == set(), seat

        # -- the claim, with a line of play --------------------------------------------
        claimer.click("[data-key=claim]")
        claimer.fill("#bt-claim-tricks", "11")
        claimer.fill("#bt-claim-statement", STATEMENT)
        lang, size = LOOKS[declarer]
        shot(claimer, f"table-claim-{declarer}-{lang}-{size[0]}-dialog")
        claimer.click("[data-key=claim-send]")
        seq += 1
        wait_seq(pages.values(), seq)
        claim = views(table, users)[defenders[0]]["claim"]
        assert claim["statement"] == STATEMENT and claim["tricks"] == 11
        for seat in (*defenders, dummy):
            page = pages[seat]
            lang, size = LOOKS[seat]
            page.wait_for_selector("#bt-claim-text")
            text = page.inner_text("#bt-claim-text")
            name = page.inner_text(f".bt-hand[data-seat={declarer}] .bt-name strong")
            if lang == "en":
                assert f"{name} claims {claim['total']} tricks" in text, (seat, text)
            else:
                assert f"{name}家摊牌，共拿 {claim['total']} 墩" in text, (seat, text)
            assert outcome_words(claim, lang) in text, (seat, text)
            assert page.inner_text("#bt-claim-statement-text") == STATEMENT
            # The claimer's hand, face up, exactly as held.
            assert shown_cards(page, declarer) == held, seat
            shot(page, f"table-claim-{seat}-{lang}-{size[0]}-shown")
        for seat in defenders:
            assert pages[seat].locator("[data-key=accept]").count() == 1

        # -- rejected: the hand is hidden again, play goes on ----------------------------
        armed(pages[defenders[0]])
        pages[defenders[0]].click("[data-key=reject]")
        seq += 1
        wait_seq(pages.values(), seq)
        for seat in defenders:
            assert pages[seat].locator("#bt-claim-text").count() == 0, seat
            assert shown_cards(pages[seat], declarer) == set(), seat
        assert views(table, users)["N"]["claim"] is None

        # -- claimed again, accepted by both: the board is over --------------------------
        claimer.click("[data-key=claim]")
        claimer.fill("#bt-claim-tricks", "11")
        claimer.click("[data-key=claim-send]")
        seq += 1
        wait_seq(pages.values(), seq)
        for seat in defenders:
            armed(pages[seat])
            assert pages[seat].locator("#bt-claim-statement-text").count() == 0
            pages[seat].click("[data-key=accept]")
            seq += 1
            wait_seq(pages.values(), seq)
        result = BoardResult.objects.get(table=table, board__number=1)
        assert result.played_online
        for page in pages.values():
            page.wait_for_selector("#bt-result")

        # East deals board 2: a second click meant for "Next board" lands where the bidding
        # box is now drawn, and makes no call (the box takes clicks a moment later).
        page = pages["E"]
        spot = page.locator("#bt-next-board").bounding_box()
        x, y = spot["x"] + spot["width"] / 2, spot["y"] + spot["height"] / 2
        # In the page, so the second click follows the box's drawing at once, as a hand
        # clicking twice does, whatever the machine's load: the click goes to whatever
        # the pointer hits there.
        second = page.evaluate(
            """([x, y]) => new Promise(resolve => {
                document.getElementById('bt-next-board').click();
                const start = performance.now();
                const look = () => {
                  const bids = [...document.querySelectorAll('#bt-controls .bt-bid[data-call]')];
                  if (!bids.length) {
                    if (performance.now() - start > 10000) resolve(null);
                    else requestAnimationFrame(look);
                    return;
                  }
                  const under = bids.filter(b => { const r = b.getBoundingClientRect();
                    return r.left <= x && x <= r.right && r.top <= y && y <= r.bottom; });
                  document.elementFromPoint(x, y).dispatchEvent(new MouseEvent('click',
                    {bubbles: true, cancelable: true, detail: 1, clientX: x, clientY: y}));
                  resolve(under.map(b => b.dataset.call));
                };
                look();
            })""",
            [x, y],
        )
        assert second, "no call is drawn where Next board was: the check would prove nothing"
        page.wait_for_timeout(1_000)
        assert views(table, users, board=2)["E"]["auction"] == []
        armed(page)
        page.mouse.click(x, y)  # now it is meant: the call is made
        wait_seq([page], 1, board=2)
